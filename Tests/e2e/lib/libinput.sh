# shellcheck shell=sh
# libinput as the app's eye, the mirror, the calibration's and the pointer's readers.

# libinput-debug-events' log $1: each touch's first place (TOUCH_DOWN), in px of the 1920 x 1080
# screen (libinput pads its numbers, "%5.2f/%5.2f": a small one has a space after the slash).
li_downs() { awk '$2 == "TOUCH_DOWN" { gsub(/\/ +/, "/"); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+\/[0-9.]+$/) { split($i, p, "/"); print p[1] * 19.2, p[2] * 10.8; break } }' "$1"; }

# The monitor's log $1: each recognized tap's x and y.
tap_places() { grep '"gesture":"tap",' "$1" | grep '"phase":"recognized"' | sed -n 's/.*,"x":\([-0-9.]*\),"y":\([-0-9.]*\),.*/\1 \2/p'; }

# Files of "x y" rows side by side: how many rows all of them have, and the largest difference of
# any file's x or y from the first file's on the same row ("N WORST").
worst_apart() {
    paste -d' ' "$@" | awk -v files=$# '
        function d(a, b) { return a > b ? a - b : b - a }
        NF == 2 * files { n++; for (k = 3; k < NF; k += 2) { if (d($k, $1) > w) w = d($k, $1); if (d($(k + 1), $2) > w) w = d($(k + 1), $2) } }
        END { printf "%d %.2f", n, w }'
}

# The calibrator, as an installer runs it on a skewed panel (skewed-corners.events: a finger
# resting on each corner of the screen in turn): `touchgesturectl calibrate` reads the touches
# from the daemon (pass-through), writes its drop-in, and the daemon reloads. Then taps on the
# same corners and the middle (skewed-check.events) land, in the daemon's gestures and in
# libinput on the mirror, on the corners' pixels and the middle within 1 px. Last, with no
# daemon, `calibrate --node` reads the same touches from the panel itself and fits the same matrix.
# Two matrices as the drop-in writes them ("[a, b, c, d, e, f]"), each number within 0.0005 of
# the other's (1 px on a 1920 px screen). Each corner is the median of its touch's reports, ±1
# unit of jitter on a 2,160-unit axis: one report more or less in a median (the daemon's touch
# lines against the node read directly) moves it half a unit, and a fit's numbers by up to about
# 0.0002 (0.00020000000000000573 in one CI run, which 0.0002 refused).
same_matrix() {
    [ -n "$1" ] && [ -n "$2" ] && echo "$1 $2" | tr -d '[],' | awk '
        NF == 12 { for (i = 1; i <= 6; i++) { d = $i - $(i + 6); if (d < 0) d = -d; if (d > 0.0005) exit 1 }; exit 0 }
        { exit 1 }'
}

# Every case here reads with libinput (udevd running); without it the case says it is skipped.
with_libinput() {
    if ! [ -x /bin/libinput-debug-events ]; then echo "E2E CASE $1: skipped (libinput-debug-events is not installed on the host)"; return 1; fi
    needs udevd  # (libinput takes only devices udev has tagged)
}

# The daemon's pass-through configuration, nothing else set: /tmp/passthrough.toml.
passthrough_config() { printf '[device]\nmode = "passthrough"\n' > /tmp/passthrough.toml; }

# libinput-debug-events' touch lines without the device and time columns: what a compositor gets.
li_touches() { awk '$2 ~ /^TOUCH_/ { $1 = ""; $3 = ""; print }' "$1"; }

# libinput-debug-events (its output $1) has opened its device and read its state (the
# DEVICE_ADDED line: it writes each event's line as it comes).
li_ready() { wait_line "$1" DEVICE_ADDED 10; }

# ... and has seen its device go (the panel's player ended: the panel, or its mirror, removed).
li_gone() { wait_line "$1" DEVICE_REMOVED 10; }

# Waits until process $1 has node $2 open.
has_open() { until_true 5 has_fd "$1" "$2"; }

# The daemon (log $1) has made more than $2 mirrors.
mirrors_above() { [ "$(grep -c 'passed through to' "$1")" -gt "$2" ]; }

# The node of the next mirror the daemon (log $1) makes, after the $2 it had made before.
mirror_of() {
    mirror=""
    until_true 5 mirrors_above "$1" "${2:-0}"
    mirror=$(sed -n 's/.*passed through to \(\/dev\/input\/event[0-9]*\).*/\1/p' $1 | tail -1)
}

mirrors_made() { n=$(grep -c 'passed through to' $1 2>/dev/null); echo ${n:-0}; }

# Plays recording $1 on a new panel while libinput reads node ($2: "panel" or "mirror") into $3;
# the daemon, when one runs in pass-through, logs to $4.
play_read() {
    rm -f /tmp/go-pt
    made=0; [ "$2" = mirror ] && made=$(mirrors_made $4)
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-pt --hold 0.5 $1 2> /tmp/play-pt.log &
    P=$!
    wait_node /tmp/play-pt.log
    panel=$node
    read_node=$panel
    if [ "$2" = mirror ]; then mirror_of $4 $made; read_node=$mirror; fi
    wait_tagged $read_node
    classified=$(udevadm info --query=property --name=$read_node 2>/dev/null | grep -c '^ID_INPUT_TOUCHSCREEN=1')
    # The mirror's stable names (udev/70-touchgestured.rules): by its panel's place, and the one
    # every mirror claims; again after a change event (udevadm trigger, as a package's postinst
    # or the boot's coldplug sends), which must not take them away.
    by_place=$(readlink -f /dev/input/touchgestured/touchgesturectl-play 2>/dev/null)
    by_first=$(readlink -f /dev/input/touchgestured/touchscreen 2>/dev/null)
    if [ "$2" = mirror ]; then
        udevadm trigger --action=change $read_node 2>/dev/null; udevadm settle 2>/dev/null
        by_first="$by_first $(readlink -f /dev/input/touchgestured/touchscreen 2>/dev/null)"
    fi
    libinput-debug-events --device $read_node > $3 2>&1 &
    LI=$!
    has_open $LI $read_node
    li_ready $3
    touch /tmp/go-pt
    wait $P
    li_gone $3
    kill $LI; wait $LI 2>/dev/null
}

# The pass-through's added latency: a frame's uinput write on the panel to its kernel timestamp on
# the mirror, against the same write to its timestamp on the panel read directly (no daemon), on
# 2,000 frames at 1 kHz. Every frame must arrive, one for one (none lost or merged); the times
# are reported, not asserted (the emulator's timing moves with the host's load).
frame_latency() { # write times, recording -> each frame's latency (us), sorted
    awk 'NR == FNR { w[++n] = $1; next } /^E: [0-9.]* 0000 0000 0$/ { if (++k <= n) printf "%.0f\n", ($2 - w[k]) * 1e6 }' "$1" "$2" | sort -n
}

# The pass-through config, and the first ten strokes of the 1 kHz benchmark stream as a real panel
# sends it (panel.events: with the kernel's single-touch emulation, which the mirror writes too;
# about 2,000 frames, through the frame of the tenth one's lift) in /tmp/pt-bench.events; `frames`
# their count.
bench_stream() {
    printf '[device]\nmode = "passthrough"\n' > /tmp/passthrough.toml
    awk '{ print } / 0001 014a 0$/ { lifts++ } lifts == 10 && / 0000 0000 0$/ { exit }' $E/rec/panel.events > /tmp/pt-bench.events
    frames=$(grep -c '^E: [0-9.]* 0000 0000 0$' /tmp/pt-bench.events)
}

# Records node $1 (the kernel's timestamps) into $2 while the player $P, which waits for the
# file $3, plays its recording (the node waited for first: under load udevd makes it late).
record_play() {
    until_true 30 test -e "$1"
    touchgesturectl record "$1" --absolute-times --duration 120 -o "$2" 2> "$2.log" &
    R=$!
    has_open $R "$1"
    touch "$3"
    wait $P
    # The recording ends once the player is done (its device held a moment past the stream),
    # not at a fixed time that a slow guest under a CPU hog passed mid-stream (frames "lost").
    usleep 300000
    kill -TERM $R 2> /dev/null
    wait $R
}

pct() { sed -n "$(( ($(wc -l < $1) * $2 + 99) / 100 ))p" $1; }

# The daemon's CPU per frame with pass-through on and off: the same 1 kHz stream (about 2,000
# frames), no client, the daemon's run time from schedstat. Reported, not asserted.
# The daemon's CPU (ns) a frame of /tmp/pt-bench.events into `cpu`, started as $1 with the
# options after it (its run time from /proc/PID/schedstat; $SETTLE_AFTER s more counted after the
# stream, for work it does past the last frame).
daemon_cpu() {
    name=$1; shift
    rm -f /tmp/go-cpu
    start_daemon $name "$@"
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-cpu --hold 0.3 /tmp/pt-bench.events 2> /tmp/play-cpu.log &
    P=$!
    wait_node /tmp/play-cpu.log
    has_open $DAEMON $node
    usleep 500000
    t0=$(cut -d' ' -f1 /proc/$DAEMON/schedstat)
    touch /tmp/go-cpu
    wait $P
    [ -n "${SETTLE_AFTER:-}" ] && sleep $SETTLE_AFTER
    t1=$(cut -d' ' -f1 /proc/$DAEMON/schedstat)
    stop_daemon
    cpu=$(( (t1 - t0) / frames ))
}

# README's kiosk configuration: system gestures (a left-edge swipe that holds its touches back $3
# ms, a three-finger hold bound to a command) in [device] mode $1 with cancel $2; $4 is the edge
# swipe's action line.
kiosk_toml() {
    cat <<TOML
[device]
mode = "$1"
cancel = "$2"
[[region]]
name = "screen"
standard_gestures = true
[[region.gesture]]
kind = "edge_swipe"
edges = ["left"]
delays_touches_began = $3
[[region.gesture]]
kind = "long_press"
name = "admin"
fingers = 3
[[action]]
name = "back"
gesture = "edge_swipe"
$4
[[action]]
name = "admin"
gesture = "admin"
exec = ["/bin/true"]
TOML
}

# Plays recording $1 on a new panel (its frames' write times in /tmp/w-$2.txt) while libinput
# (/tmp/li-$2.txt) and a recording with kernel times (/tmp/r-$2.events) read the pointer $ptr
# and, for the pass-through's claim, libinput reads the panel's mirror (/tmp/li-mirror-$2.txt).
play_pointer() {
    rm -f /tmp/go-ptr
    made=$(mirrors_made /tmp/daemon-pointer.log)
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-ptr --hold 0.5 --write-times /tmp/w-$2.txt $1 2> /tmp/play-ptr.log &
    P=$!
    wait_node /tmp/play-ptr.log
    mirror_of /tmp/daemon-pointer.log $made
    wait_tagged $ptr $mirror
    libinput-debug-events --device $ptr > /tmp/li-$2.txt 2>&1 &
    LI=$!
    libinput-debug-events --device $mirror > /tmp/li-mirror-$2.txt 2>&1 &
    LM=$!
    touchgesturectl record $ptr --absolute-times --duration 6 -o /tmp/r-$2.events 2> /tmp/rec-ptr.log &
    R=$!
    has_open $LI $ptr; has_open $LM $mirror; has_open $R $ptr
    li_ready /tmp/li-$2.txt; li_ready /tmp/li-mirror-$2.txt
    touch /tmp/go-ptr
    wait $P
    li_gone /tmp/li-mirror-$2.txt
    kill $LI $LM; wait $LI $LM 2>/dev/null
    kill -INT $R; wait $R 2>/dev/null
}

# The kernel times (s) of the pointer's events of type $2 code $3 value $4 (any value: "") in $1.
ptr_times() { awk -v t=$2 -v c=$3 -v want="$4" '$1 == "E:" && $3 == t && $4 == c && (want == "" || $5 == want) { print $2 }' $1; }

# The last absolute motion in libinput's lines $1, "x y" in % of the screen (printed " 50.03/ 50.05").
li_abs() { grep POINTER_MOTION_ABSOLUTE $1 | tail -1 | awk '{ split($(NF-1) $NF, a, "/"); print a[1] " " a[2] }'; }

# libinput's wheel lines' v120 values (vertical) in $1.
li_v120() { awk '/POINTER_SCROLL_WHEEL/ { for (i = 1; i <= NF; i++) if ($i == "vert") { split($(i + 1), a, "/"); sub(/\*/, "", a[2]); print a[2] } }' $1; }

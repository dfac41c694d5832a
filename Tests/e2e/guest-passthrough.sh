# Sourced by guest-tests.sh (its helpers: start_daemon, monitor, wait_node, ensure_udevd...).
# Pass-through (`[device] mode = "passthrough"`): libinput, the compositor's eye, reads the
# panel's mirror as it would read the panel.

# Every case here reads with libinput (udevd running); without it the case says it is skipped.
with_libinput() {
    if ! [ -x /bin/libinput-debug-events ]; then echo "E2E CASE $1: skipped (libinput-debug-events is not installed on the host)"; return 1; fi
    ensure_udevd
}
# libinput-debug-events' touch lines without the device and time columns: what a compositor gets.
li_touches() { awk '$2 ~ /^TOUCH_/ { $1 = ""; $3 = ""; print }' "$1"; }
# Waits until process $1 has node $2 open.
has_open() { i=0; while [ $i -lt 100 ] && ! ls -l /proc/$1/fd 2>/dev/null | grep -q " $2\$"; do usleep 50000; i=$((i + 1)); done; }
# The node of the next mirror the daemon (log $1) makes, after the $2 it had made before.
mirror_of() {
    i=0; mirror=""
    while [ $i -lt 100 ] && [ "$(grep -c 'passed through to' $1)" -le "${2:-0}" ]; do usleep 50000; i=$((i + 1)); done
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
    udevadm settle --timeout=5
    classified=$(udevadm info --query=property --name=$read_node 2>/dev/null | grep -c '^ID_INPUT_TOUCHSCREEN=1')
    libinput-debug-events --device $read_node > $3 2>&1 &
    LI=$!
    has_open $LI $read_node
    usleep 700000          # past libinput's opening (it reads the device's state)
    touch /tmp/go-pt
    wait $P
    usleep 500000
    kill $LI; wait $LI 2>/dev/null
}

passthrough() {
    with_libinput passthrough || return
    # The reference: libinput reads the panel itself, beside the daemon in observe mode.
    start_daemon observe
    monitor /tmp/m-observe.txt
    play_read $E/rec/tour.events panel /tmp/li-ref.txt
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    awk -f $E/summarize.awk /tmp/m-observe.txt > /tmp/got-observe.txt
    li_touches /tmp/li-ref.txt > /tmp/li-ref-touches.txt
    printf '[device]\nmode = "passthrough"\n' > /tmp/passthrough.toml
    start_daemon passthrough --config /tmp/passthrough.toml
    monitor /tmp/m-pt.txt
    play_read $E/rec/tour.events mirror /tmp/li-pt.txt /tmp/daemon-passthrough.log
    first_mirror=$mirror
    mirror_classified=$classified
    li_touches /tmp/li-pt.txt > /tmp/li-pt-touches.txt
    kill $MON; wait $MON 2>/dev/null
    awk -f $E/summarize.awk /tmp/m-pt.txt > /tmp/got-pt.txt
    # Unplugged mid-pan: the mirror lifts the touch before it goes (no stuck touch).
    play_read $E/rec/pan-no-lift.events mirror /tmp/li-unplug.txt /tmp/daemon-passthrough.log
    downs=$(grep -c TOUCH_DOWN /tmp/li-unplug.txt); ups=$(grep -c TOUCH_UP /tmp/li-unplug.txt)
    gone=0; [ -e "$mirror" ] || gone=1
    taken_mirrors=$(grep -c 'added: .*(touchgestured)' /tmp/daemon-passthrough.log)
    stop_daemon
    ref=$(wc -l < /tmp/li-ref-touches.txt); got=$(wc -l < /tmp/li-pt-touches.txt)
    if [ "$ref" -gt 20 ] && diff /tmp/li-ref-touches.txt /tmp/li-pt-touches.txt > /tmp/diff-pt.txt \
        && [ "$mirror_classified" = 1 ] && [ -s /tmp/got-observe.txt ] && diff /tmp/got-observe.txt /tmp/got-pt.txt > /tmp/diff-pt-lines.txt \
        && [ "$downs" -ge 1 ] && [ "$downs" = "$ups" ] && [ "$gone" = 1 ] && [ "$taken_mirrors" = 0 ]; then
        pass "passthrough" "(libinput read the mirror $first_mirror as the panel: $got touch events equal; ID_INPUT_TOUCHSCREEN=1; the daemon's gesture lines as in observe mode ($(wc -l < /tmp/got-pt.txt)); unplug mid-pan: $downs down, $ups up, mirror gone; no mirror taken as a panel)"
    else
        fail "passthrough" "(ref $ref, got $got touch events: $(head -c 300 /tmp/diff-pt.txt | tr '\n' '|'); classified $mirror_classified; lines: $(head -c 200 /tmp/diff-pt-lines.txt | tr '\n' '|'); unplug downs $downs ups $ups gone $gone; mirrors taken $taken_mirrors; $(tail -4 /tmp/daemon-passthrough.log | tr '\n' '|'))"
    fi
}

# SIGKILL mid-stream: the kernel releases the grab and removes the mirror, so libinput reads the
# panel itself from then on; a daemon started again mirrors it anew.
passthrough_failsafe() {
    with_libinput passthrough-failsafe || return
    printf '[device]\nmode = "passthrough"\n' > /tmp/passthrough.toml
    start_daemon failsafe --config /tmp/passthrough.toml
    rm -f /tmp/go-fs
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-fs --hold 4 $E/rec/tour.events 2> /tmp/play-fs.log &
    P=$!
    wait_node /tmp/play-fs.log
    panel=$node
    mirror_of /tmp/daemon-failsafe.log 0
    udevadm settle --timeout=5
    libinput-debug-events --device $panel > /tmp/li-fs-panel.txt 2>&1 &
    LP=$!
    libinput-debug-events --device $mirror > /tmp/li-fs-mirror.txt 2>&1 &
    LM=$!
    has_open $LP $panel; has_open $LM $mirror
    usleep 700000
    touch /tmp/go-fs
    sleep 2
    # A reload keeps the mirror: the same node, none made anew.
    kill -HUP $DAEMON
    sleep 2                    # the tour is 10 s: killed in its middle
    kept=0; [ -e "$mirror" ] && [ "$(mirrors_made /tmp/daemon-failsafe.log)" = 1 ] && grep -q 'reloaded' /tmp/daemon-failsafe.log && kept=1
    kill -9 $DAEMON; wait $DAEMON 2>/dev/null
    usleep 300000
    mirror_gone=0; [ -e "$mirror" ] || mirror_gone=1
    sleep 2                    # libinput reads the panel meanwhile (the tour goes on)
    # The daemon again, while the panel is still there: it mirrors it anew.
    start_daemon failsafe-again --config /tmp/passthrough.toml
    mirror_of /tmp/daemon-failsafe-again.log 0
    again=$mirror
    wait $P
    usleep 500000
    kill $LP $LM; wait $LP $LM 2>/dev/null
    stop_daemon
    before=$(grep -c TOUCH_ /tmp/li-fs-mirror.txt); after=$(grep -c TOUCH_ /tmp/li-fs-panel.txt)
    if [ "$before" -gt 0 ] && [ "$after" -gt 0 ] && [ "$mirror_gone" = 1 ] && [ -n "$again" ] && [ "$kept" = 1 ]; then
        pass "passthrough-failsafe" "(libinput: $before touch events from the mirror before SIGKILL, $after from the panel after; a SIGHUP reload kept the mirror; it went with the daemon; restarted, it mirrored the panel again at $again)"
    else
        fail "passthrough-failsafe" "(mirror events $before, panel events after the kill $after, kept across a reload $kept, mirror gone $mirror_gone, mirrored again '$again': $(tail -3 /tmp/daemon-failsafe-again.log | tr '\n' '|'); libinput on the panel: $(head -c 400 /tmp/li-fs-panel.txt | tr '\n' '|'))"
    fi
}

# A daemon restarted while the panel has a past: a tap, the daemon killed and started again (a
# crash, then systemd), then a tap at the very same place, which the kernel sends with no position.
# The new mirror must show it where it is (it was given the panel's last positions), not at 0, 0.
passthrough_restart() {
    with_libinput passthrough-restart || return
    printf '[device]\nmode = "passthrough"\n' > /tmp/passthrough.toml
    start_daemon restart --config /tmp/passthrough.toml
    rm -f /tmp/go-rs
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-rs --hold 1 $E/rec/kiosk-restart.events 2> /tmp/play-rs.log &
    P=$!
    wait_node /tmp/play-rs.log
    mirror_of /tmp/daemon-restart.log 0
    touch /tmp/go-rs
    sleep 1                    # the first tap is over
    kill -9 $DAEMON; wait $DAEMON 2>/dev/null
    start_daemon restart-again --config /tmp/passthrough.toml
    mirror_of /tmp/daemon-restart-again.log 0
    udevadm settle --timeout=5
    libinput-debug-events --device $mirror > /tmp/li-rs.txt 2>&1 &
    LM=$!
    has_open $LM $mirror
    wait $P
    usleep 300000
    kill $LM; wait $LM 2>/dev/null
    stop_daemon
    down=$(grep TOUCH_DOWN /tmp/li-rs.txt | head -1 | grep -oE '[0-9.]+/[0-9.]+ ' | head -1)
    # The tap is at 1900, 1000 of 3840 x 2160 units: 49.5 %, 46.3 % of the screen (53.7 % with
    # the udev rule's calibration, which flips y).
    case "$down" in
        49.[45]*/46.[23]*|49.[45]*/53.[78]*) pass "passthrough-restart" "(the tap after the restart landed at $down % on the new mirror $mirror)" ;;
        *) fail "passthrough-restart" "(the tap after the restart landed at '$down' on the new mirror, not at 49.5 %, 46.3 % or flipped: $(grep TOUCH_ /tmp/li-rs.txt | head -3 | tr '\n' '|'))" ;;
    esac
}

# The pass-through's added latency: a frame's uinput write on the panel to its kernel timestamp on
# the mirror, against the same write to its timestamp on the panel read directly (no daemon), on
# 2,000 frames at 1 kHz. Every frame must arrive, one for one (none lost or merged); the times
# are reported, not asserted (the emulator's timing moves with the host's load).
frame_latency() { # write times, recording -> each frame's latency (us), sorted
    awk 'NR == FNR { w[++n] = $1; next } /^E: [0-9.]* 0000 0000 0$/ { if (++k <= n) printf "%.0f\n", ($2 - w[k]) * 1e6 }' "$1" "$2" | sort -n
}
# The pass-through config, and the first ten strokes of the 1 kHz benchmark stream (about 2,000
# frames, through the frame of the tenth one's lift) in /tmp/pt-bench.events; `frames` their count.
bench_stream() {
    printf '[device]\nmode = "passthrough"\n' > /tmp/passthrough.toml
    awk '{ print } / 0001 014a 0$/ { lifts++ } lifts == 10 && / 0000 0000 0$/ { exit }' $E/rec/bench.events > /tmp/pt-bench.events
    frames=$(grep -c '^E: [0-9.]* 0000 0000 0$' /tmp/pt-bench.events)
}
pct() { sed -n "$(( ($(wc -l < $1) * $2 + 99) / 100 ))p" $1; }
passthrough_latency() {
    ensure_udevd
    bench_stream
    for run in direct mirror; do
        rm -f /tmp/go-lat
        [ $run = mirror ] && start_daemon latency-pt --config /tmp/passthrough.toml
        touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-lat --hold 0.5 --write-times /tmp/w-$run.txt /tmp/pt-bench.events 2> /tmp/play-lat.log &
        P=$!
        wait_node /tmp/play-lat.log
        read_node=$node
        if [ $run = mirror ]; then mirror_of /tmp/daemon-latency-pt.log 0; read_node=$mirror; fi
        touchgesturectl record $read_node --absolute-times --duration 8 -o /tmp/r-$run.events 2> /tmp/rec-$run.log &
        R=$!
        has_open $R $read_node
        usleep 300000
        touch /tmp/go-lat
        wait $P
        wait $R
        [ $run = mirror ] && stop_daemon
        frame_latency /tmp/w-$run.txt /tmp/r-$run.events > /tmp/lat-$run.txt
    done
    got_direct=$(grep -c '^E: [0-9.]* 0000 0000 0$' /tmp/r-direct.events); got=$(grep -c '^E: [0-9.]* 0000 0000 0$' /tmp/r-mirror.events)
    d50=$(pct /tmp/lat-direct.txt 50); d99=$(pct /tmp/lat-direct.txt 99); m50=$(pct /tmp/lat-mirror.txt 50); m99=$(pct /tmp/lat-mirror.txt 99)
    echo "E2E BENCH pass-through latency (us, TCG guest): added p50 $((m50 - d50)), p99 $((m99 - d99)); uinput write -> frame on the mirror p50 $m50, p99 $m99; on the panel read directly p50 $d50, p99 $d99; frames $got of $frames through the mirror, $got_direct directly"
    if [ "$got" = "$frames" ] && [ "$got_direct" = "$frames" ]; then
        pass "passthrough-latency" "(all $frames frames through the mirror, none lost or merged; added p50 $((m50 - d50)) us, p99 $((m99 - d99)) us)"
    else
        fail "passthrough-latency" "(frames: $got through the mirror, $got_direct directly, of $frames: $(tail -2 /tmp/rec-mirror.log | tr '\n' '|'))"
    fi
}

# Touch to wake, in pass-through: after [idle] after, the first tap wakes the kiosk and reaches
# neither libinput (the app) nor clients as a tap; the wake action runs; the next tap passes.
wake() {
    with_libinput wake || return
    rm -f /tmp/woke.txt
    printf '[device]\nmode = "passthrough"\n[idle]\nafter = 1\n[[action]]\nname = "undim"\non = "wake"\nexec = ["/bin/sh", "-c", "echo $TOUCHGESTURED_EVENT >> /tmp/woke.txt"]\n' > /tmp/wake.toml
    start_daemon wake --config /tmp/wake.toml
    monitor /tmp/m-wake.txt
    play_read $E/rec/wake.events mirror /tmp/li-wake.txt /tmp/daemon-wake.log
    usleep 500000
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    downs=$(grep -c TOUCH_DOWN /tmp/li-wake.txt); ups=$(grep -c TOUCH_UP /tmp/li-wake.txt)
    order=$(grep -oE '"type":"(idle|wake)"|"gesture":"tap"' /tmp/m-wake.txt | tr '\n' ' ')
    ran=$(cat /tmp/woke.txt 2>/dev/null)
    case "$order" in
        *'"type":"idle" "type":"wake" "gesture":"tap" '*)
            if [ "$downs" = 1 ] && [ "$ups" = 1 ] && [ "$ran" = wake ] && [ "$(grep -c '"gesture":"tap"' /tmp/m-wake.txt)" = 1 ]; then
                pass "wake" "(clients: $order; libinput on the mirror saw $downs of the 2 taps; the wake action ran)"
                return
            fi ;;
    esac
    fail "wake" "(clients: '$order'; libinput downs $downs ups $ups; wake action '$ran': $(tail -4 /tmp/daemon-wake.log | tr '\n' '|'))"
}

# SYN_DROPPED through a mirror: the daemon frozen mid-pan while the panel floods, then thawed:
# the mirror gets a lift of what it showed, then the panel's state, so libinput ends with every
# touch that went down lifted, and the final tap arrives.
passthrough_syn_dropped() {
    with_libinput passthrough-syn-dropped || return
    printf '[device]\nmode = "passthrough"\n' > /tmp/passthrough.toml
    start_daemon pt-flood --config /tmp/passthrough.toml
    monitor /tmp/m-pt-flood.txt
    touchgesturectl play --uinput --settle 1.5 $E/rec/flood.events 2>/dev/null &
    PLAY=$!
    mirror_of /tmp/daemon-pt-flood.log 0
    udevadm settle --timeout=5
    libinput-debug-events --device $mirror > /tmp/li-pt-flood.txt 2>&1 &
    LI=$!
    wait_count /tmp/m-pt-flood.txt '"gesture":"pan","phase":"began"' 1
    kill -STOP $DAEMON
    usleep 2200000
    kill -CONT $DAEMON
    wait $PLAY
    usleep 500000
    kill $LI; wait $LI 2>/dev/null
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    downs=$(grep -c TOUCH_DOWN /tmp/li-pt-flood.txt); ups=$(grep -c TOUCH_UP /tmp/li-pt-flood.txt)
    cancels=$(grep -c TOUCH_CANCEL /tmp/li-pt-flood.txt)
    last=$(grep -E 'TOUCH_(DOWN|UP|CANCEL)' /tmp/li-pt-flood.txt | tail -1 | awk '{print $2}')
    resync=$(grep -c 'SYN_DROPPED' /tmp/daemon-pt-flood.log)
    if [ "$resync" -ge 1 ] && [ "$downs" -ge 2 ] && [ "$downs" = "$((ups + cancels))" ] && [ "$last" = TOUCH_UP ]; then
        pass "passthrough-syn-dropped" "(resynced $resync time(s); libinput on the mirror: $downs down, $ups up, $cancels cancelled, none stuck; the final tap came through)"
    else
        fail "passthrough-syn-dropped" "(resyncs $resync; libinput: $downs down, $ups up, $cancels cancelled, last '$last')"
    fi
}

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
passthrough_cpu() {
    ensure_udevd
    bench_stream
    daemon_cpu cpu-observe; cpu_observe=$cpu
    daemon_cpu cpu-passthrough --config /tmp/passthrough.toml; cpu_passthrough=$cpu
    echo "E2E BENCH pass-through CPU per frame (ns, TCG guest, no client): observe $cpu_observe, passthrough $cpu_passthrough (the virtual touchscreen's writes included), $frames frames"
    if [ "$cpu_observe" -gt 0 ] && [ "$cpu_passthrough" -gt 0 ]; then
        pass "passthrough-cpu" "(observe $cpu_observe ns a frame, passthrough $cpu_passthrough ns)"
    else
        fail "passthrough-cpu" "(observe '$cpu_observe', passthrough '$cpu_passthrough')"
    fi
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

# System gestures take their touches (README's example): the left-edge swipe, bound to Alt+Left
# and holding touches back (`delays_touches_began`), is never seen by libinput (the app) while
# the virtual keyboard sends the chord; a three-finger hold bound to an action cancels the three
# fingers already on the app, and a tap on the same slots afterwards reaches it (the slots' tool
# type is back to finger); a tap in the edge band reaches it once the edge swipe failed; a tap
# mid-screen passes at once.
system_gesture() {
    with_libinput system-gesture || return
    kiosk_toml passthrough palm 150 'keys = "KEY_LEFTALT+KEY_LEFT"' > /tmp/system.toml
    start_daemon system --config /tmp/system.toml
    monitor /tmp/m-system.txt
    logged_node /tmp/daemon-system.log "virtual keyboard for key actions: "
    kbd=$logged
    touchgesturectl record "$kbd" --duration 25 -o /tmp/kbd-system.events 2>/dev/null &
    REC=$!
    for rec in edge-swipe hold3 edge-tap tap; do
        play_read $E/rec/$rec.events mirror /tmp/li-sys-$rec.txt /tmp/daemon-system.log
    done
    kill -INT $REC; wait $REC
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    counts() { echo "$(grep -c TOUCH_DOWN $1) $(grep -c TOUCH_CANCEL $1) $(grep -c TOUCH_UP $1)"; }
    edge=$(counts /tmp/li-sys-edge-swipe.txt); hold=$(counts /tmp/li-sys-hold3.txt)
    edgetap=$(counts /tmp/li-sys-edge-tap.txt); tap=$(counts /tmp/li-sys-tap.txt)
    began=$(grep -c '"gesture":"edge_swipe","phase":"began"' /tmp/m-system.txt)
    admin=$(grep -c '"name":"admin","phase":"began"' /tmp/m-system.txt)
    keys=$(grep '^E:' /tmp/kbd-system.events 2>/dev/null | awk '{printf "%s %s %s;", $3, $4, $5}')
    chord="0001 0038 1;0000 0000 0;0001 0069 1;0000 0000 0;0001 0069 0;0000 0000 0;0001 0038 0;0000 0000 0;"
    if [ "$edge" = "0 0 0" ] && [ "$hold" = "4 3 1" ] && [ "$edgetap" = "1 0 1" ] && [ "$tap" = "1 0 1" ] \
        && [ "$began" = 1 ] && [ "$admin" = 1 ] && [ "$keys" = "$chord" ]; then
        pass "system-gesture" "(libinput on the mirror, down/cancel/up: edge swipe $edge (never seen, Alt+Left sent on $kbd), three-finger hold then a tap $hold, tap in the edge band $edgetap (when the edge swipe failed), tap mid-screen $tap)"
    else
        fail "system-gesture" "(down/cancel/up: edge swipe '$edge', hold+tap '$hold', edge tap '$edgetap', tap '$tap'; edge_swipe began $began, admin began $admin; keys '$keys': $(tail -3 /tmp/daemon-system.log | tr '\n' '|'))"
    fi
}

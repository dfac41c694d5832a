#!/bin/sh
# Runs inside the qemu guest (busybox): the real daemon, real uinput touchscreens, a real client.
# Prints "E2E CASE name: PASS|FAIL ..." per case and "E2E RESULT: PASS|FAIL" last.
E=/e2e
failures=0
pass() { echo "E2E CASE $1: PASS $2"; }
fail() { echo "E2E CASE $1: FAIL $2"; failures=$((failures + 1)); }
wait_for() { i=0; while [ $i -lt 100 ] && ! [ -e "$1" ]; do usleep 100000; i=$((i + 1)); done; }
# Starts a client (MON) that prints what the daemon sends into $1 and returns once its `hello` is
# there, so the client is counted before anything is measured.
monitor() {
    out=$1; shift
    touchgesturectl monitor --socket /tmp/g.sock "$@" > $out &
    MON=$!
    i=0; while [ $i -lt 100 ] && ! [ -s $out ]; do usleep 50000; i=$((i + 1)); done
}
# Sets `node` to the /dev/input node `touchgesturectl play` says (in the log $1) it created.
wait_node() {
    i=0; node=""
    while [ $i -lt 600 ] && [ -z "$node" ]; do
        usleep 50000; i=$((i + 1))
        node=$(sed -n 's/.* as \(\/dev\/input\/event[0-9]*\).*/\1/p' $1)
    done
}

# Sets `logged` to the /dev/input node the daemon's log $1 names after the text $2 (a virtual
# device it made), waiting up to 5 s for it.
logged_node() {
    i=0; logged=""
    while [ $i -lt 100 ] && [ -z "$logged" ]; do
        usleep 50000; i=$((i + 1))
        logged=$(grep -F "$2" $1 | sed -n 's/.*\(\/dev\/input\/event[0-9]*\).*/\1/p' | tail -1)
    done
}
start_daemon() { # name [daemon options...]
    name=$1; shift
    rm -f /tmp/g.sock
    touchgestured --socket /tmp/g.sock "$@" > /tmp/daemon-$name.log 2>&1 &
    DAEMON=$!
    wait_for /tmp/g.sock
}
stop_daemon() { kill $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null; }
fd_count() { ls /proc/$DAEMON/fd | wc -l; }
# Waits (up to 10 s) until the file $1 holds at least $3 lines matching the fixed string $2.
wait_count() {
    i=0; while [ $i -lt 1000 ] && [ "$(grep -cF "$2" $1)" -lt "$3" ]; do usleep 10000; i=$((i + 1)); done
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

# --- live equals offline -------------------------------------------------------------------
live_equals_offline() {
    start_daemon live
    for rec in $(cat $E/recordings.list); do
        name=$(basename $rec .events)
        dev=""
        [ -e $E/rec/$name.desc ] && dev="--device $E/rec/$name.desc"
        monitor /tmp/m-$name.txt
        usleep 200000
        touchgesturectl play --uinput --settle 0.5 $dev $E/rec/$name.events 2> /tmp/play-$name.log
        usleep 800000
        kill $MON; wait $MON 2>/dev/null
        awk -f $E/summarize.awk /tmp/m-$name.txt > /tmp/got-$name.txt
        if diff $E/expected/$name.txt /tmp/got-$name.txt > /tmp/diff-$name.txt; then
            pass "live-equals-offline $name" "($(wc -l < /tmp/got-$name.txt) gesture lines)"
        else
            fail "live-equals-offline $name" "$(head -c 600 /tmp/diff-$name.txt | tr '\n' '|')"
        fi
    done
    stop_daemon
}

# --- hotplug x N, no fd leak ----------------------------------------------------------------
hotplug() {
    start_daemon hotplug
    monitor /tmp/m-hotplug.txt
    usleep 300000
    before=$(fd_count)
    n=0
    : > /tmp/created.txt
    while [ $n -lt $1 ]; do
        touchgesturectl play --uinput --settle 0.3 $E/rec/tap.events 2>> /tmp/created.txt
        n=$((n + 1))
    done
    usleep 500000
    after=$(fd_count)
    kill $MON; wait $MON 2>/dev/null
    added=$(grep -c '"action":"added"' /tmp/m-hotplug.txt)
    removed=$(grep -c '"action":"removed"' /tmp/m-hotplug.txt)
    taps=$(grep -c '"gesture":"tap"' /tmp/m-hotplug.txt)
    # Pick-up time: from the request for the uinput device to the daemon's `device added` line.
    sed -n 's/.*(created at \([0-9.]*\) s.*/\1/p' /tmp/created.txt > /tmp/t-created.txt
    sed -n 's/.*"action":"added","time":\([0-9.]*\).*/\1/p' /tmp/m-hotplug.txt > /tmp/t-added.txt
    pickup=$(paste /tmp/t-created.txt /tmp/t-added.txt | awk '{ d = ($2 - $1) * 1000; s += d; if (d > m) m = d; n++ } END { if (n) printf "pick-up mean %.1f ms, max %.1f ms", s / n, m }')
    if [ "$added" = "$1" ] && [ "$removed" = "$1" ] && [ "$before" = "$after" ] && [ "$taps" = "$1" ]; then
        pass "hotplug x$1" "(added $added, removed $removed, taps $taps, fds $before -> $after; $pickup)"
    else
        fail "hotplug x$1" "(added $added, removed $removed, taps $taps, fds $before -> $after)"
    fi
    stop_daemon
}

# --- unplug mid-pan: cancelled, then removed, then the next device is served -----------------
unplug_mid_pan() {
    start_daemon unplug
    monitor /tmp/m-unplug.txt
    usleep 300000
    touchgesturectl play --uinput --settle 0.3 $E/rec/pan-no-lift.events 2>/dev/null
    usleep 300000
    touchgesturectl play --uinput --settle 0.3 $E/rec/tap.events 2>/dev/null
    usleep 600000
    kill $MON; wait $MON 2>/dev/null
    order=$(grep -oE '"phase":"cancelled"|"action":"removed"|"gesture":"tap"' /tmp/m-unplug.txt | tr '\n' ' ')
    # Fleet health: both panels (gone now) stay as series at 0, each removed once; none is up.
    touchgesturectl metrics --socket /tmp/g.sock > /tmp/metrics-unplug.txt
    down=$(grep -c '^touchgestured_device_up{.*} 0$' /tmp/metrics-unplug.txt)
    upnow=$(grep -c '^touchgestured_device_up{.*} 1$' /tmp/metrics-unplug.txt)
    removed=$(grep '^touchgestured_device_removals_total{' /tmp/metrics-unplug.txt | awk '{s += $NF} END {print s + 0}')
    case "$order" in
        '"phase":"cancelled" "action":"removed" "gesture":"tap" "action":"removed" ')
            if [ "$down" -ge 1 ] && [ "$upnow" = 0 ] && [ "$removed" = 2 ]; then
                pass "unplug-mid-pan" "($order; metrics: device_up 0 for the unplugged panels, removals $removed)"
            else
                fail "unplug-mid-pan" "(metrics: device_up 0 series $down, up $upnow, removals $removed: $(grep device_ /tmp/metrics-unplug.txt | tr '\n' '|' | head -c 400))"
            fi ;;
        *) fail "unplug-mid-pan" "($order)" ;;
    esac
    stop_daemon
}

# --- SYN_DROPPED, N times in one daemon: freeze it, flood, thaw: it resyncs to the kernel's
# exact state every time, ends what was under way, keeps its fds and serves the tap after ------
syn_dropped() {
    start_daemon flood
    monitor /tmp/m-flood.txt --touches
    usleep 300000
    before=$(fd_count)
    k=0
    while [ $k -lt $1 ]; do
        touchgesturectl play --uinput --settle 0.5 $E/rec/flood.events 2>/dev/null &
        PLAY=$!
        # Freeze on the daemon's own word that this round's pan has begun (not after a fixed
        # sleep: on a slow machine that can miss the flood), then thaw 2.2 s later: the flood
        # starts 1.2 s after the pan begins and the third finger lifts 4.4 s after it.
        wait_count /tmp/m-flood.txt '"gesture":"pan","phase":"began"' $((k + 1))
        kill -STOP $DAEMON
        usleep 2200000
        kill -CONT $DAEMON
        wait $PLAY
        usleep 500000
        k=$((k + 1))
    done
    usleep 300000
    after=$(fd_count)
    kill $MON; wait $MON 2>/dev/null
    began=$(grep -c '"phase":"began"' /tmp/m-flood.txt)
    closed=$(grep -cE '"phase":"(ended|cancelled)"' /tmp/m-flood.txt)
    taps=$(grep -c '"gesture":"tap"' /tmp/m-flood.txt)
    last_tap=$(grep '"type":"gesture"' /tmp/m-flood.txt | tail -1 | grep -c '"gesture":"tap"')
    resync=$(grep -c 'SYN_DROPPED' /tmp/daemon-flood.log)
    last_touch=$(grep '"type":"touch"' /tmp/m-flood.txt | tail -1)
    # Fleet health: the resync counter counts every flood's resync (all panels, up or gone).
    touchgesturectl metrics --socket /tmp/g.sock > /tmp/metrics-flood.txt
    counted=$(grep '^touchgestured_device_resyncs_total{' /tmp/metrics-flood.txt | awk '{s += $NF} END {print s + 0}')
    if [ "$resync" -ge "$1" ] && [ "$began" = "$closed" ] && [ "$taps" = "$1" ] && [ "$last_tap" = 1 ] \
        && [ "$before" = "$after" ] && echo "$last_touch" | grep -q '"contacts":\[\]' && [ "$counted" = "$resync" ]; then
        pass "syn-dropped x$1" "(resyncs logged $resync, counted in metrics $counted, began $began, ended/cancelled $closed, taps $taps, fds $before -> $after, no contact left)"
    else
        fail "syn-dropped x$1" "(resyncs logged $resync, in metrics $counted, began $began, ended/cancelled $closed, taps $taps, last tap $last_tap, fds $before -> $after, last touch $last_touch)"
    fi
    stop_daemon
}

# --- hotplug storm: N devices created and destroyed, four at a time, most with a finger down
# when they go (or already down when the daemon opens them); then a final tap is served -------
hotplug_storm() {
    start_daemon storm
    monitor /tmp/m-storm.txt
    usleep 300000
    before=$(fd_count)
    n=0
    while [ $n -lt $1 ]; do
        touchgesturectl play --uinput --settle 0.05 $E/rec/pan-no-lift.events 2>/dev/null & P1=$!
        touchgesturectl play --uinput --settle 0 $E/rec/pan-no-lift.events 2>/dev/null & P2=$!
        touchgesturectl play --uinput --settle 0.02 $E/rec/fling-left.events 2>/dev/null & P3=$!
        touchgesturectl play --uinput --settle 0.05 $E/rec/tap.events 2>/dev/null & P4=$!
        wait $P1; wait $P2; wait $P3; wait $P4
        n=$((n + 4))
    done
    usleep 800000
    mid=$(fd_count)
    touchgesturectl play --uinput --settle 0.3 $E/rec/tap.events 2>/dev/null
    usleep 800000
    after=$(fd_count)
    touchgesturectl devices --socket /tmp/g.sock > /tmp/devices-storm.txt 2>&1
    kill $MON; wait $MON 2>/dev/null
    added=$(grep -c '"action":"added"' /tmp/m-storm.txt)
    removed=$(grep -c '"action":"removed"' /tmp/m-storm.txt)
    began=$(grep -c '"phase":"began"' /tmp/m-storm.txt)
    closed=$(grep -cE '"phase":"(ended|cancelled)"' /tmp/m-storm.txt)
    cancelled=$(grep -c '"phase":"cancelled"' /tmp/m-storm.txt)
    last=$(grep '"type":"gesture"' /tmp/m-storm.txt | tail -1 | grep -c '"gesture":"tap","phase":"recognized"')
    # A device can come and go before the daemon opens it (then it is neither added nor removed);
    # most must be seen, and each one seen must be removed.
    if [ "$added" = "$removed" ] && [ "$added" -ge $(($1 * 3 / 4)) ] && [ "$began" = "$closed" ] && [ "$last" = 1 ] \
        && [ "$before" = "$mid" ] && [ "$before" = "$after" ] && grep -q 'no touch devices' /tmp/devices-storm.txt; then
        pass "hotplug-storm x$1" "(added $added of $(($1 + 1)), removed $removed, began $began, ended/cancelled $closed of which cancelled $cancelled, fds $before -> $mid -> $after, final tap served, no device left)"
    else
        fail "hotplug-storm x$1" "(added $added, removed $removed, began $began, ended/cancelled $closed, last tap $last, fds $before -> $mid -> $after, $(head -c 200 /tmp/devices-storm.txt | tr '\n' '|'))"
    fi
    stop_daemon
}

# --- record: what `touchgesturectl record` writes replays to the same gesture ----------------
record() {
    touchgesturectl play --uinput --settle 1.0 $E/rec/tap.events 2> /tmp/play-rec.log &
    PLAY=$!
    usleep 500000
    wait_node /tmp/play-rec.log
    touchgesturectl record "$node" --duration 3 -o /tmp/recorded.events 2>/dev/null
    wait $PLAY
    if touchgesturectl replay /tmp/recorded.events | grep -q '"gesture":"tap"'; then
        pass "record" "($node: $(grep -c '^E:' /tmp/recorded.events) events)"
    else
        fail "record" "($node)"
    fi
}

# --- devices --local: capability classification without udevd -------------------------------
devices_local() {
    touchgesturectl play --uinput --settle 1.0 $E/rec/tap.events 2>/dev/null &
    PLAY=$!
    usleep 500000
    touchgesturectl devices --local > /tmp/devices.txt 2>&1
    wait $PLAY
    if grep -q 'touchgestured virtual panel.*taken: capabilities (multitouch, INPUT_PROP_DIRECT)' /tmp/devices.txt \
        && grep -q 'skipped' /tmp/devices.txt; then
        pass "devices-local" "($(grep -c taken /tmp/devices.txt) taken, $(grep -c skipped /tmp/devices.txt) skipped)"
    else
        fail "devices-local" "$(tr '\n' '|' < /tmp/devices.txt)"
    fi
}

# --- two touchscreens at once, each mapped to its own half of the screen ([[panel]]) ---------
two_panels() {
    printf '[[panel]]\nmatch = "touchgestured virtual*"\noutput = [0, 0, 960, 1080]\n[[panel]]\nmatch = "QUANTA*"\noutput = [960, 0, 960, 1080]\n' > /tmp/two.toml
    rm -f /tmp/g.sock
    touchgestured --config /tmp/two.toml --socket /tmp/g.sock > /tmp/daemon-two.log 2>&1 &
    DAEMON=$!
    wait_for /tmp/g.sock
    monitor /tmp/m-two.txt
    usleep 300000
    touchgesturectl play --uinput --settle 0.8 $E/rec/tap.events 2>/dev/null &
    P1=$!
    touchgesturectl play --uinput --settle 0.8 --device $E/rec/quanta-touch-on-left.desc $E/rec/quanta-touch-on-left.events 2>/dev/null &
    P2=$!
    wait $P1
    wait $P2
    usleep 800000
    kill $MON; wait $MON 2>/dev/null
    tapx=$(sed -n 's/.*"gesture":"tap".*"x":\([0-9]*\).*/\1/p' /tmp/m-two.txt | head -1)
    pressx=$(sed -n 's/.*"gesture":"long_press","phase":"began".*"x":\([0-9]*\).*/\1/p' /tmp/m-two.txt | head -1)
    added=$(grep -c '"action":"added"' /tmp/m-two.txt)
    if [ "$added" = 2 ] && [ -n "$tapx" ] && [ -n "$pressx" ] && [ "$tapx" -lt 960 ] && [ "$pressx" -ge 960 ]; then
        pass "two-panels" "(tap at x=$tapx on the left panel, long press at x=$pressx on the right)"
    else
        fail "two-panels" "(added $added, tap x=$tapx, long press x=$pressx)"
    fi
    stop_daemon
}

# udevd from here on (it stays): lisgd and libinput take only devices udev has tagged.
ensure_udevd() {
    [ -e /run/udev/control ] && return
    /lib/systemd/systemd-udevd --daemon 2>/dev/null
    udevadm trigger --action=add --subsystem-match=input
    udevadm settle --timeout=10
}

# --- with udevd: udev classification and properties, the udev monitor for hotplug ------------
with_udevd() {
    ensure_udevd
    start_daemon udev
    monitor /tmp/m-udev.txt
    usleep 300000
    # The virtual panel: a udev rule flips its Y (LIBINPUT_CALIBRATION_MATRIX); the fling at
    # y = 600 of 1080 lands at y = 480. The QUANTA panel is excluded by TOUCHGESTURED_IGNORE=1.
    touchgesturectl play --uinput --settle 1.0 $E/rec/fling-left.events 2>/dev/null &
    P1=$!
    # Until udev has tagged the new panel (a loaded guest can take longer than the play's settle).
    i=0
    while [ $i -lt 40 ]; do
        usleep 150000
        touchgesturectl devices --local > /tmp/devices-udev.txt 2>&1
        grep -q 'touchgestured virtual panel.*taken: udev' /tmp/devices-udev.txt && break
        i=$((i + 1))
    done
    wait $P1
    touchgesturectl play --uinput --settle 1.0 --device $E/rec/quanta-touch-on-left.desc $E/rec/quanta-touch-on-left.events 2>/dev/null
    usleep 600000
    kill $MON; wait $MON 2>/dev/null
    mode=$(grep -c 'hotplug: udev monitor' /tmp/daemon-udev.log)
    y=$(sed -n 's/.*"gesture":"pan","phase":"began".*"y":\([0-9]*\).*/\1/p' /tmp/m-udev.txt | head -1)
    added=$(grep -c '"action":"added"' /tmp/m-udev.txt)
    quanta=$(grep -c 'QUANTA' /tmp/m-udev.txt)
    taken=$(grep -c 'touchgestured virtual panel.*taken: udev ID_INPUT_TOUCHSCREEN=1' /tmp/devices-udev.txt)
    if [ "$mode" = 1 ] && [ -n "$y" ] && [ "$y" -lt 540 ] && [ "$added" = 1 ] && [ "$quanta" = 0 ] && [ "$taken" = 1 ]; then
        pass "udevd" "(udev monitor, taken by ID_INPUT_TOUCHSCREEN, calibration flipped y to $y, QUANTA ignored)"
    else
        fail "udevd" "(monitor $mode, y=$y, added $added, quanta lines $quanta, taken by udev $taken: $(tr '\n' '|' < /tmp/devices-udev.txt | head -c 300))"
    fi
    stop_daemon
}

# --- actions: a key action makes the virtual keyboard (udev: a keyboard) and a tap presses the
# chord on it, read back from its own /dev/input node; an exec action runs once per tap ---------
actions() {
    ensure_udevd
    printf '[[action]]\nname = "back"\ngesture = "tap"\nkeys = "KEY_LEFTALT+KEY_LEFT"\n[[action]]\nname = "mark"\ngesture = "tap"\nexec = ["/bin/sh", "-c", "echo ran >> /tmp/exec-ran.txt"]\n' > /tmp/actions.toml
    rm -f /tmp/exec-ran.txt /tmp/kbd.events
    start_daemon actions --config /tmp/actions.toml
    logged_node /tmp/daemon-actions.log "virtual keyboard for key actions: "
    kbd=$logged
    udevadm settle --timeout=5
    keyboard=$(udevadm info --query=property --name="$kbd" 2>/dev/null | grep -c '^ID_INPUT_KEYBOARD=1')
    touchgesturectl record "$kbd" --duration 8 -o /tmp/kbd.events 2>/dev/null &
    REC=$!
    usleep 300000
    touchgesturectl play --uinput --settle 0.5 $E/rec/tap.events 2>/dev/null
    # A reload that keeps the key action keeps the keyboard (same node, nothing re-created).
    kill -HUP $DAEMON
    usleep 500000
    touchgesturectl play --uinput --settle 0.5 $E/rec/tap.events 2>/dev/null
    wait $REC
    stop_daemon
    # EV_KEY 56 (KEY_LEFTALT) and 105 (KEY_LEFT): pressed in order, released in reverse, a
    # SYN_REPORT after each; once per tap.
    keys=$(grep '^E:' /tmp/kbd.events | awk '{printf "%s %s %s;", $3, $4, $5}')
    chord="0001 0038 1;0000 0000 0;0001 0069 1;0000 0000 0;0001 0069 0;0000 0000 0;0001 0038 0;0000 0000 0;"
    ran=$(cat /tmp/exec-ran.txt 2>/dev/null | wc -l)
    made=$(grep -c 'virtual keyboard for key actions' /tmp/daemon-actions.log)
    reloaded=$(grep -c 'reloaded /tmp/actions.toml' /tmp/daemon-actions.log)
    if [ -n "$kbd" ] && [ "$keyboard" = 1 ] && [ "$keys" = "$chord$chord" ] && [ "$ran" = 2 ] && [ "$made" = 1 ] && [ "$reloaded" = 1 ]; then
        pass "actions" "(virtual keyboard $kbd, ID_INPUT_KEYBOARD=1, Alt+Left pressed and released in order on each of two taps, the keyboard kept across a SIGHUP reload, exec ran once per tap)"
    else
        fail "actions" "(keyboard '$kbd', udev keyboard $keyboard, keys '$keys', exec ran $ran, keyboards made $made, reloads $reloaded: $(tail -5 /tmp/daemon-actions.log | tr '\n' '|'))"
    fi
}

# --- side by side: touchgestured (one subscribed client), lisgd and libinput debug-events read
# the same virtual touchscreen at once; each one's CPU time over the stream, from schedstat -----
cpu_ns() { cut -d' ' -f1 /proc/$1/schedstat; }
# A refused run (below) is measured again once: a reader that fell behind under the emulator's
# load is no figure, and neither is the first attempt's; only a valid run prints ratios.
# Each variant is measured TRIALS times (E2E_BENCH_TRIALS, default 3): the emulator's CPU times move
# with the host's load by up to 20 % between runs, so the ratio reported is the median of the
# valid trials, with the lowest and highest beside it.
bench_side_by_side() {
    k=1; rm -f /tmp/ratios-$1
    while [ $k -le $TRIALS ]; do
        tag="$1, trial $k of $TRIALS"
        bench_once "$1" 1 || bench_once "$1" 2 || true
        k=$((k + 1))
    done
    [ -s /tmp/ratios-$1 ] && sort -n /tmp/ratios-$1 | awk -v v="$1" '{ r[NR] = $1 } END {
        m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
        printf "E2E BENCH (%s) ratio touchgestured / lisgd, median of %d valid trials: %.2f (lowest %.2f, highest %.2f)%s\n", v, NR, m, r[1], r[NR], v == "one-client" ? "; goal <= 1.0" : ""
    }'
}
bench_once() {
    attempt=$2
    if ! [ -x /bin/lisgd ]; then echo "E2E BENCH skipped: lisgd is not installed on the host"; return; fi
    ensure_udevd
    events=$(grep -c '^E:' $E/rec/bench.events)
    frames=$(grep -c '^E: [0-9.]* 0000 0000 0$' $E/rec/bench.events)
    # The monitor client must keep up with 1 kHz pan lines under TCG, where it runs slower than
    # the daemon: a queue of 4 MiB (not the default 8 KiB, after which a client that does not
    # read is dropped) keeps it connected, so its lines are counted for the whole stream.
    printf '[daemon]\nmax_clients = 4\noutput_buffer_bytes = 4194304\n' > /tmp/bench.toml
    # swipe-only: the daemon recognizes what lisgd does (swipes of 1 to 5 fingers) and nothing else.
    cp /tmp/bench.toml /tmp/swipes.toml
    printf '[[region]]\nname = "screen"\n[[region.gesture]]\nkind = "swipe"\nmin_fingers = 1\nmax_fingers = 5\n' >> /tmp/swipes.toml
    if [ "$1" = swipe-only ]; then start_daemon bench --config /tmp/swipes.toml; else start_daemon bench --config /tmp/bench.toml; fi
    monitor /tmp/m-bench.txt
    if [ "$1" = no-client ]; then kill $MON; wait $MON 2>/dev/null; MON=$$; fi
    usleep 300000
    touchgesturectl play --uinput --settle 6 $E/rec/bench.events 2> /tmp/play-bench.log &
    PLAY=$!
    wait_node /tmp/play-bench.log
    udevadm settle --timeout=5
    lisgd -d $node -w 1920 -h 1080 -g '1,LR,*,*,R,echo SWIPE1' -g '2,LR,*,*,R,echo SWIPE2' -g '3,LR,*,*,R,echo SWIPE3' \
        -g '4,LR,*,*,R,echo SWIPE4' -g '5,LR,*,*,R,echo SWIPE5' > /tmp/lisgd.txt 2>&1 &
    LISGD=$!
    libinput-debug-events --device $node > /tmp/libinput.txt 2>&1 &
    LI=$!
    usleep 5000000         # all three have opened the device; the stream starts at 6 s
    t0=$(cpu_ns $DAEMON); l0=$(cpu_ns $LISGD); i0=$(cpu_ns $LI); c0=$(cpu_ns $MON)
    if [ -x /bin/perf ]; then
        PERFS=""
        for p in $DAEMON $LISGD $LI; do
            perf record -e cpu-clock -F 2000 -p $p -o /tmp/perf-$p.data -- sleep 14 2>/tmp/perf-err-$p.txt &
            PERFS="$PERFS $!"
        done
    fi
    wait $PLAY
    if [ -x /bin/perf ]; then
        wait $PERFS
        for p in $DAEMON $LISGD $LI; do
            echo "E2E DIAG perf of $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-40) ($(grep ctxt /proc/$p/status | tr '\n\t' '  '))"
            perf report -i /tmp/perf-$p.data --stdio --no-children --sort dso 2>&1 | grep -vE '^#|^$' | head -8 | sed 's/^/E2E DIAG   /'
            perf report -i /tmp/perf-$p.data --stdio --no-children --sort dso,sym 2>&1 | grep -vE '^#|^$' | head -40 | sed 's/^/E2E DIAG   /'
            tail -4 /tmp/perf-err-$p.txt | sed 's/^/E2E DIAG   err /'; ls -la /tmp/perf-$p.data | sed 's/^/E2E DIAG   /'
        done
    fi
    usleep 1000000
    t1=$(cpu_ns $DAEMON); l1=$(cpu_ns $LISGD); i1=$(cpu_ns $LI); c1=$(cpu_ns $MON)
    # Context switches over the whole run (voluntary/involuntary): an involuntary one is a reader
    # preempted, e.g. by the client its write woke.
    sw=""
    for p in $DAEMON $LISGD $LI $MON; do
        sw="$sw $(awk '/^voluntary_ctxt/ {v = $2} /^nonvoluntary_ctxt/ {n = $2} END {printf "%s/%s", v, n}' /proc/$p/status 2>/dev/null)"
    done
    kill $LISGD $LI; wait $LISGD $LI 2>/dev/null
    if [ "$1" = no-client ]; then
        pans=$(touchgesturectl stats --socket /tmp/g.sock | sed -n 's/.*"gesture_lines":\([0-9]*\).*/\1/p')
    else
        kill $MON; wait $MON 2>/dev/null
        pans=$(grep -cE '"gesture":"(pan","phase":"began|swipe)"' /tmp/m-bench.txt)
    fi
    swipes=$(grep -c '^SWIPE' /tmp/lisgd.txt)
    li_frames=$(grep -c 'TOUCH_FRAME' /tmp/libinput.txt)
    echo "E2E BENCH ($tag) context switches, voluntary/involuntary: touchgestured, lisgd, libinput, monitor client:$sw"
    echo "E2E BENCH ($tag) stream: $frames frames, $events evdev events; seen: touchgestured $pans pans or swipes, lisgd $swipes swipes, libinput $li_frames TOUCH_FRAME"
    # Impossible figures refuse the run: a process that was gone before the last reading (an
    # empty field shifted every column before), a negative CPU time, or readers that did not all
    # see the whole stream.
    bad=""
    for v in "$t0" "$t1" "$l0" "$l1" "$i0" "$i1" "$c0" "$c1"; do case "$v" in ''|*[!0-9]*) bad="$bad missing-reading";; esac; done
    if [ -z "$bad" ]; then
        for d in $((t1 - t0)) $((l1 - l0)) $((i1 - i0)) $((c1 - c0)); do [ "$d" -lt 0 ] && bad="$bad negative-cpu"; done
    fi
    # libinput debug-events prints every event and is the first to fall behind under the
    # emulator: a shortfall withholds its figure (not the touchgestured / lisgd ratio, the goal's).
    li_short=""
    [ "$li_frames" != "$frames" ] && li_short="libinput fell behind (saw $li_frames of $frames frames): its figure is withheld"
    [ "$swipes" != 50 ] && bad="$bad lisgd-saw-$swipes-of-50-swipes"
    if [ -n "$bad" ]; then
        why="impossible figures, run refused:$bad; readings $t0 $t1 $l0 $l1 $i0 $i1 $c0 $c1"
        stop_daemon
        if [ "$attempt" = 1 ]; then
            echo "E2E BENCH ($tag) attempt 1 refused ($why); measuring again"
            return 1
        fi
        fail "side-by-side $tag" "($why)"
        return 0
    fi
    echo "$t0 $t1 $l0 $l1 $i0 $i1 $c0 $c1 $events $frames" | awk '{
        t = $2 - $1; l = $4 - $3; i = $6 - $5; c = $8 - $7
        printf "E2E BENCH ('"$tag"') cpu per event (ns): touchgestured %.0f, lisgd %.0f, libinput-debug-events %.0f (monitor client %.0f)\n", t / $9, l / $9, i / $9, c / $9
        printf "E2E BENCH ('"$tag"') cpu per frame (us): touchgestured %.1f, lisgd %.1f, libinput-debug-events %.1f\n", t / $10 / 1000, l / $10 / 1000, i / $10 / 1000
        if ("'"$li_short"'" == "") printf "E2E BENCH ('"$tag"') ratio: touchgestured / lisgd %.2f (goal <= 1.0 with one client), touchgestured / libinput-debug-events %.2f\n", t / l, t / i
        else printf "E2E BENCH ('"$tag"') ratio: touchgestured / lisgd %.2f (goal <= 1.0 with one client); '"$li_short"'\n", t / l
        printf "%.4f\n", t / l >> "/tmp/ratios-'$1'"
    }'
    if [ "$pans" -gt 0 ] && [ "$swipes" -gt 0 ] && [ "$li_frames" -gt 0 ]; then
        pass "side-by-side $tag" "(all three read the stream; figures in the E2E BENCH lines)"
    else
        fail "side-by-side $tag" "(pans $pans, lisgd swipes $swipes, libinput frames $li_frames: $(tail -3 /tmp/lisgd.txt | tr '\n' '|') $(tail -3 /tmp/libinput.txt | tr '\n' '|'))"
    fi
    stop_daemon
    return 0
}

# --- instructions per frame: the three readers under callgrind (user-space instructions, which
# neither load nor the emulator move), on one shorter stream read by all three at once ----------
# vgdb zeroes each reader's counts once all three have the device open, and dumps them once the
# stream is read, so start-up and teardown are left out.
has_node() { ls -l /proc/$1/fd 2>/dev/null | grep -q " $node\$"; }
cg_total() { sed -n 's/^totals: *\([0-9]*\).*/\1/p; s/^summary: *\([0-9]*\).*/\1/p' "$1" | head -1; }
bench_instructions() {
    if ! [ -x /bin/valgrind ] || ! [ -x /bin/lisgd ]; then echo "E2E COUNT skipped: valgrind or lisgd is not installed on the host"; return; fi
    ensure_udevd
    frames=$(grep -c '^E: [0-9.]* 0000 0000 0$' $E/rec/count.events)
    strokes=$(grep -c '^E: [0-9.]* 0001 014a 1$' $E/rec/count.events)
    rm -f /tmp/cg-* /tmp/count-go /tmp/g.sock
    printf '[daemon]\nmax_clients = 4\noutput_buffer_bytes = 4194304\n' > /tmp/count.toml
    vg="valgrind --tool=callgrind --vgdb=yes"
    $vg --callgrind-out-file=/tmp/cg-touchgestured.out touchgestured --socket /tmp/g.sock --config /tmp/count.toml > /tmp/daemon-count.log 2>&1 &
    DAEMON=$!
    i=0; while [ $i -lt 1200 ] && ! [ -e /tmp/g.sock ]; do usleep 100000; i=$((i + 1)); done
    monitor /tmp/m-count.txt
    # The device stays after the stream (--hold) until the counts are dumped: its removal is no frame.
    touchgesturectl play --uinput --settle 0 --wait-for /tmp/count-go --hold 600 $E/rec/count.events 2> /tmp/play-count.log &
    PLAY=$!
    wait_node /tmp/play-count.log
    udevadm settle --timeout=5
    # -m: lisgd drops a swipe whose fingers were down longer than 800 ms of its own clock, which
    # a 380 ms stroke passes under callgrind in a guest on a loaded machine; its work is the same.
    $vg --callgrind-out-file=/tmp/cg-lisgd.out lisgd -d $node -w 1920 -h 1080 -m 10000 -g '1,LR,*,*,R,echo SWIPE1' -g '2,LR,*,*,R,echo SWIPE2' \
        -g '3,LR,*,*,R,echo SWIPE3' -g '4,LR,*,*,R,echo SWIPE4' -g '5,LR,*,*,R,echo SWIPE5' > /tmp/lisgd-count.txt 2>&1 &
    LISGD=$!
    $vg --callgrind-out-file=/tmp/cg-libinput.out libinput-debug-events --device $node > /tmp/libinput-count.txt 2>&1 &
    LI=$!
    i=0; while [ $i -lt 1200 ] && ! { has_node $DAEMON && has_node $LISGD && has_node $LI; }; do usleep 100000; i=$((i + 1)); done
    usleep 3000000         # past opening: libinput and lisgd read the device's state
    for p in $DAEMON $LISGD $LI; do vgdb --pid=$p zero > /tmp/vgdb-zero-$p.txt 2>&1; done
    touch /tmp/count-go
    # The stream lasts its recorded length (its last event's time); then every reader drains.
    last=$(tail -1 $E/rec/count.events | cut -d' ' -f2 | cut -d. -f1)
    sleep $((last + 4))
    for p in $DAEMON $LISGD $LI; do vgdb --pid=$p dump > /tmp/vgdb-dump-$p.txt 2>&1; done
    # Asked after the dump: answering `stats` is no part of reading the stream.
    tg_frames=$(touchgesturectl stats --socket /tmp/g.sock | sed -n 's/.*"frames":\([0-9]*\).*/\1/p' | head -1)
    kill $MON; wait $MON 2>/dev/null
    kill -9 $LISGD $LI $DAEMON $PLAY; wait $LISGD $LI $DAEMON $PLAY 2>/dev/null
    swipes=$(grep -c '^SWIPE' /tmp/lisgd-count.txt)
    li_frames=$(grep -c 'TOUCH_FRAME' /tmp/libinput-count.txt)
    tg=$(cg_total /tmp/cg-touchgestured.out.1); li=$(cg_total /tmp/cg-libinput.out.1); lg=$(cg_total /tmp/cg-lisgd.out.1)
    echo "E2E COUNT stream: $frames frames at 50 Hz, $strokes strokes; seen: touchgestured $tg_frames frames, lisgd $swipes swipes, libinput $li_frames TOUCH_FRAME"
    # The same rule as the CPU figures: a missing count or a reader that did not see the whole
    # stream makes the ratios meaningless.
    bad=""
    for v in "$tg" "$lg" "$li"; do case "$v" in ''|*[!0-9]*) bad="$bad missing-count";; esac; done
    [ "$tg_frames" != "$frames" ] && bad="$bad touchgestured-saw-$tg_frames-of-$frames-frames"
    [ "$swipes" != "$strokes" ] && bad="$bad lisgd-saw-$swipes-of-$strokes-swipes"
    [ "$li_frames" != "$frames" ] && bad="$bad libinput-saw-$li_frames-of-$frames-frames"
    # The dumps go to the host (scripts/callgrind-split there gives the split by function), also
    # from a refused run, to see why.
    for r in touchgestured lisgd libinput; do
        [ -s /tmp/cg-$r.out.1 ] || continue
        echo "E2E CGFILE-BEGIN $r"
        gzip -9 -c /tmp/cg-$r.out.1 | base64
        echo "E2E CGFILE-END $r"
    done
    if [ -n "$bad" ]; then
        fail "instructions" "(impossible figures, refused:$bad; counts '$tg' '$lg' '$li'; $(tr '\n' '|' < /tmp/vgdb-dump-$DAEMON.txt | cut -c1-200))"
        return
    fi
    echo "$tg $lg $li $frames" | awk '{
        printf "E2E COUNT instructions per frame: touchgestured %.0f, lisgd %.0f, libinput-debug-events %.0f\n", $1 / $4, $2 / $4, $3 / $4
        printf "E2E COUNT ratio: touchgestured / lisgd %.3f (goal <= 0.5), touchgestured / libinput-debug-events %.3f\n", $1 / $2, $1 / $3
    }'
    pass "instructions" "(all three counted over the whole stream; figures in the E2E COUNT lines)"
}

# --- end to end: from the uinput write of a frame's SYN_REPORT (the writer's CLOCK_MONOTONIC) to
# the client's read of the pan line it caused (the client's CLOCK_MONOTONIC); with every frame
# written at once (coalesce_ms 0: what the pipeline takes) and with the default coalescing (8 ms:
# a changed line waits for the write of its 8 ms) -----------------------------------------------
latency() {
    start_daemon latency
    monitor /tmp/m-lat.txt --gestures pan --receipt-times --coalesce-ms $1
    usleep 300000
    touchgesturectl play --uinput --settle 0.5 --write-times /tmp/writes.txt $E/rec/bench.events 2>/dev/null
    usleep 500000
    kill $MON; wait $MON 2>/dev/null
    # Each line's `time` is the kernel's timestamp of its frame: the last write at or before it.
    awk 'NR == FNR { w[++n] = $1; next }
        /"type":"gesture"/ && match($0, /"time":[0-9.]+/) {
            t = substr($0, RSTART + 7, RLENGTH - 7) + 0
            while (j < n && w[j + 1] <= t + 0.0000005) j++
            if (j > 0) printf "%.0f %.0f\n", ($1 - w[j]) * 1e6, (t - w[j]) * 1e6
        }' /tmp/writes.txt /tmp/m-lat.txt > /tmp/lat.txt
    n=$(wc -l < /tmp/lat.txt)
    cut -d' ' -f1 /tmp/lat.txt | sort -n > /tmp/lat-sorted.txt
    p50=$(sed -n "$(( (n + 1) / 2 ))p" /tmp/lat-sorted.txt)
    p99=$(sed -n "$(( (n * 99 + 99) / 100 ))p" /tmp/lat-sorted.txt)
    max=$(tail -1 /tmp/lat-sorted.txt)
    koff=$(cut -d' ' -f2 /tmp/lat.txt | sort -n | tail -1)
    echo "E2E BENCH latency, coalesce_ms $1, uinput write -> client read (us, TCG guest): p50 $p50, p99 $p99, max $max over $n pan lines (kernel stamp - writer stamp at most $koff us)"
    if [ "$n" -gt 1000 ]; then
        pass "latency coalesce_ms $1" "($n pan lines matched to their frames)"
    else
        fail "latency coalesce_ms $1" "(only $n pan lines matched; $(wc -l < /tmp/writes.txt) writes, $(wc -l < /tmp/m-lat.txt) lines)"
    fi
    stop_daemon
}

. $E/guest-passthrough.sh
. $E/guest-pointer.sh
. $E/guest-compositors.sh
. $E/guest-compositor-bench.sh

echo "E2E guest: $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) (available: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource))"
. $E/params.sh
# ONLY (E2E_ONLY on the host): run just the cases whose names it lists, e.g. "bench latency".
run() { if [ -z "$ONLY" ] || echo " $ONLY " | grep -q " $1 "; then "$@"; fi; }
run live_equals_offline
run hotplug 20
run hotplug_storm $STORM
run unplug_mid_pan
run syn_dropped $FLOODS
run record
run devices_local
run two_panels
run with_udevd
run actions
run passthrough
run passthrough_failsafe
run passthrough_restart
run passthrough_syn_dropped
run passthrough_latency
run passthrough_cpu
run system_gesture
run wake
run pointer
run pointer_cpu
run compositor_cage
run compositor_sway
run compositor_weston
run compositor_latency cage
# Only when named: the README's compositor matrix (six minutes), Chromium (E2E_CHROMIUM=1).
case " $ONLY " in *" compositor_matrix "*) compositor_matrix ;; esac
case " $ONLY " in *" compositor_chromium "*) compositor_chromium ;; esac
for variant in $VARIANTS; do run bench_side_by_side $variant; done
run bench_instructions
run latency 0
run latency 8
for f in /tmp/daemon-*.log; do echo "--- $f"; tail -5 $f; done
if [ $failures -eq 0 ]; then echo "E2E RESULT: PASS"; else echo "E2E RESULT: FAIL ($failures)"; fi

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

. $E/guest-passthrough.sh
. $E/guest-bench.sh
. $E/guest-pointer.sh
. $E/guest-compositors.sh
. $E/guest-compositor-bench.sh
. $E/guest-calibration.sh

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
run mirror_calibration
run calibrate
run mirror_udev_calibration
run compositor_calibration cage
run compositor_calibration sway
run compositor_calibration weston
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

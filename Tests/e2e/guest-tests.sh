#!/bin/sh
# Runs inside the qemu guest (busybox): the real daemon, real uinput touchscreens, a real client.
# Prints "E2E CASE name: PASS|FAIL ..." per case and "E2E RESULT: PASS|FAIL" last.
E=/e2e
failures=0
pass() { echo "E2E CASE $1: PASS $2"; }
fail() { echo "E2E CASE $1: FAIL $2"; failures=$((failures + 1)); }
wait_for() { i=0; while [ $i -lt 100 ] && ! [ -e "$1" ]; do usleep 100000; i=$((i + 1)); done; }

start_daemon() {
    rm -f /tmp/g.sock
    touchgestured --socket /tmp/g.sock > /tmp/daemon-$1.log 2>&1 &
    DAEMON=$!
    wait_for /tmp/g.sock
}
stop_daemon() { kill $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null; }

# --- live equals offline -------------------------------------------------------------------
live_equals_offline() {
    start_daemon live
    for rec in $(cat $E/recordings.list); do
        name=$(basename $rec .events)
        dev=""
        [ -e $E/rec/$name.desc ] && dev="--device $E/rec/$name.desc"
        touchgesturectl monitor --socket /tmp/g.sock > /tmp/m-$name.txt &
        MON=$!
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
    touchgesturectl monitor --socket /tmp/g.sock > /tmp/m-hotplug.txt &
    MON=$!
    usleep 300000
    before=$(ls /proc/$DAEMON/fd | wc -l)
    n=0
    : > /tmp/created.txt
    while [ $n -lt $1 ]; do
        touchgesturectl play --uinput --settle 0.3 $E/rec/tap.events 2>> /tmp/created.txt
        n=$((n + 1))
    done
    usleep 500000
    after=$(ls /proc/$DAEMON/fd | wc -l)
    kill $MON; wait $MON 2>/dev/null
    added=$(grep -c '"action":"added"' /tmp/m-hotplug.txt)
    removed=$(grep -c '"action":"removed"' /tmp/m-hotplug.txt)
    taps=$(grep -c '"gesture":"tap"' /tmp/m-hotplug.txt)
    # Pick-up time: from the uinput device's creation to the daemon's `device added` line.
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
    touchgesturectl monitor --socket /tmp/g.sock > /tmp/m-unplug.txt &
    MON=$!
    usleep 300000
    touchgesturectl play --uinput --settle 0.3 $E/rec/pan-no-lift.events 2>/dev/null
    usleep 300000
    touchgesturectl play --uinput --settle 0.3 $E/rec/tap.events 2>/dev/null
    usleep 600000
    kill $MON; wait $MON 2>/dev/null
    order=$(grep -oE '"phase":"cancelled"|"action":"removed"|"gesture":"tap"' /tmp/m-unplug.txt | tr '\n' ' ')
    case "$order" in
        '"phase":"cancelled" "action":"removed" "gesture":"tap" "action":"removed" ') pass "unplug-mid-pan" "($order)" ;;
        *) fail "unplug-mid-pan" "($order)" ;;
    esac
    stop_daemon
}

# --- SYN_DROPPED: freeze the daemon, flood, thaw: it resyncs to the kernel's exact state ------
syn_dropped() {
    start_daemon flood
    touchgesturectl monitor --socket /tmp/g.sock --touches > /tmp/m-flood.txt &
    MON=$!
    usleep 300000
    touchgesturectl play --uinput --settle 0.5 $E/rec/flood.events 2>/dev/null &
    PLAY=$!
    usleep 900000          # settle, then the first finger is down and panning
    kill -STOP $DAEMON
    usleep 1500000         # the flood (2000 frames) happens while the daemon is frozen
    kill -CONT $DAEMON
    wait $PLAY
    usleep 800000
    kill $MON; wait $MON 2>/dev/null
    began=$(grep -c '"phase":"began"' /tmp/m-flood.txt)
    closed=$(grep -cE '"phase":"(ended|cancelled)"' /tmp/m-flood.txt)
    last_tap=$(grep '"type":"gesture"' /tmp/m-flood.txt | tail -1 | grep -c '"gesture":"tap"')
    resync=$(grep -c 'SYN_DROPPED' /tmp/daemon-flood.log)
    last_touch=$(grep '"type":"touch"' /tmp/m-flood.txt | tail -1)
    if [ "$resync" -ge 1 ] && [ "$began" = "$closed" ] && [ "$last_tap" = 1 ] && echo "$last_touch" | grep -q '"contacts":\[\]'; then
        pass "syn-dropped" "(resyncs logged $resync, began $began, ended/cancelled $closed, last gesture a tap, no contact left)"
    else
        fail "syn-dropped" "(resyncs logged $resync, began $began, ended/cancelled $closed, last tap $last_tap, last touch $last_touch)"
    fi
    stop_daemon
}

# --- record: what `touchgesturectl record` writes replays to the same gesture ----------------
record() {
    touchgesturectl play --uinput --settle 1.0 $E/rec/tap.events 2> /tmp/play-rec.log &
    PLAY=$!
    usleep 500000
    node=$(sed -n 's/.* as \(\/dev\/input\/event[0-9]*\).*/\1/p' /tmp/play-rec.log)
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
    touchgesturectl monitor --socket /tmp/g.sock > /tmp/m-two.txt &
    MON=$!
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

# --- with udevd: udev classification and properties, the udev monitor for hotplug ------------
with_udevd() {
    /lib/systemd/systemd-udevd --daemon 2>/dev/null
    udevadm trigger --action=add --subsystem-match=input
    udevadm settle --timeout=10
    start_daemon udev
    touchgesturectl monitor --socket /tmp/g.sock > /tmp/m-udev.txt &
    MON=$!
    usleep 300000
    # The virtual panel: a udev rule flips its Y (LIBINPUT_CALIBRATION_MATRIX); the fling at
    # y = 600 of 1080 lands at y = 480. The QUANTA panel is excluded by TOUCHGESTURED_IGNORE=1.
    touchgesturectl play --uinput --settle 1.0 $E/rec/fling-left.events 2>/dev/null &
    P1=$!
    usleep 600000
    touchgesturectl devices --local > /tmp/devices-udev.txt 2>&1
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

echo "E2E guest: $(uname -r)"
live_equals_offline
hotplug 20
unplug_mid_pan
syn_dropped
record
devices_local
two_panels
with_udevd
for f in /tmp/daemon-*.log; do echo "--- $f"; tail -5 $f; done
if [ $failures -eq 0 ]; then echo "E2E RESULT: PASS"; else echo "E2E RESULT: FAIL ($failures)"; fi

# shellcheck shell=sh
calibrate() {
    with_libinput calibrate || return
    rm -rf /tmp/cal.d /tmp/cal-node.toml
    printf '[device]\nmode = "passthrough"\n' > /tmp/cal.toml
    start_daemon cal --config /tmp/cal.toml
    touchgesturectl calibrate --socket /tmp/g.sock --config /tmp/cal.toml --timeout 60 > /tmp/cal-out.txt 2>&1 &
    CAL=$!
    # The calibrator asks for the first corner once it has the panel and reads its touches: the
    # play touches only then (a fixed wait raced it on a busy host: the corners came before it
    # listened, and it waited its 60 s for them).
    rm -f /tmp/go-cal-daemon
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-cal-daemon $E/rec/skewed-corners.events 2>/dev/null &
    P=$!
    until_true 60 grep -q '1/4:' /tmp/cal-out.txt
    touch /tmp/go-cal-daemon
    wait $P
    wait $CAL; status=$?
    monitor /tmp/m-cal.txt
    play_read $E/rec/skewed-check.events mirror /tmp/li-cal.txt /tmp/daemon-cal.log
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    tap_places /tmp/m-cal.txt > /tmp/cal-daemon.txt
    li_downs /tmp/li-cal.txt > /tmp/cal-libinput.txt
    printf '0 0\n1919 0\n0 1079\n1919 1079\n960 540\n' > /tmp/cal-goals.txt
    worst=$(worst_apart /tmp/cal-goals.txt /tmp/cal-daemon.txt /tmp/cal-libinput.txt)
    set -- $worst
    # No daemon: the calibrator reads the panel itself.
    rm -f /tmp/go-cal
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-cal $E/rec/skewed-corners.events 2> /tmp/play-cal.log &
    P=$!
    wait_node /tmp/play-cal.log
    touchgesturectl calibrate --node $node --config /tmp/cal.toml --write /tmp/cal-node.toml --timeout 60 > /tmp/cal-node-out.txt 2>&1 &
    CAL=$!
    has_open $CAL $node
    touch /tmp/go-cal
    wait $P; wait $CAL; node_status=$?
    daemon_matrix=$(sed -n 's/^calibration = //p' /tmp/cal.d/calibration.toml 2>/dev/null)
    node_matrix=$(sed -n 's/^calibration = //p' /tmp/cal-node.toml 2>/dev/null)
    pairs=$(paste -d' ' /tmp/cal-daemon.txt /tmp/cal-libinput.txt | tr '\n' ';')
    if [ "$status" = 0 ] && grep -q 'Applied: the daemon reloaded' /tmp/cal-out.txt && [ "$1" = 5 ] \
        && awk -v w=$2 'BEGIN { exit !(w <= 1.0) }' && [ "$node_status" = 0 ] && [ -n "$node_matrix" ] \
        && same_matrix "$node_matrix" "$daemon_matrix"; then
        pass "calibrate" "(4 corner touches on a skewed panel: $(grep 'largest error' /tmp/cal-out.txt); calibration = $daemon_matrix, applied by a reload; corners and middle after it at most $2 px from their pixels in the daemon's gestures and libinput's on the mirror: $pairs; --node with no daemon fits the same matrix)"
    else
        fail "calibrate" "(exit $status, node exit $node_status, $1 taps paired, worst $2 px: $pairs; daemon's $daemon_matrix, --node's $node_matrix; $(tr '\n' '|' < /tmp/cal-out.txt | tail -c 600) | $(tr '\n' '|' < /tmp/cal-node-out.txt | tail -c 300))"
    fi
}

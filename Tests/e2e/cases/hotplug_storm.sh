# shellcheck shell=sh
# --- hotplug storm: N devices created and destroyed, four at a time, most with a finger down
# when they go (or already down when the daemon opens them); then a final tap is served -------
# Every device the daemon added is removed (the players are gone: none is left to add).
storm_settled() { [ "$(grep -c '"action":"added"' /tmp/m-storm.txt)" = "$(grep -c '"action":"removed"' /tmp/m-storm.txt)" ]; }

hotplug_storm() {
    needs no-udevd
    serve storm /tmp/m-storm.txt
    n=0
    while [ $n -lt $1 ]; do
        touchgesturectl play --uinput --settle 0.05 $E/rec/pan-no-lift.events 2>/dev/null & P1=$!
        touchgesturectl play --uinput --settle 0 $E/rec/pan-no-lift.events 2>/dev/null & P2=$!
        touchgesturectl play --uinput --settle 0.02 $E/rec/fling-left.events 2>/dev/null & P3=$!
        touchgesturectl play --uinput --settle 0.05 $E/rec/tap.events 2>/dev/null & P4=$!
        wait $P1; wait $P2; wait $P3; wait $P4
        n=$((n + 4))
    done
    until_true 10 storm_settled
    mid=$(fd_count)
    gone=$(grep -c '"action":"removed"' /tmp/m-storm.txt)
    touchgesturectl play --uinput --settle 0.3 $E/rec/tap.events 2>/dev/null
    wait_count /tmp/m-storm.txt '"action":"removed"' $((gone + 1))
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

# shellcheck shell=sh
# --- SYN_DROPPED, N times in one daemon: freeze it, flood, thaw: it resyncs to the kernel's
# exact state every time, ends what was under way, keeps its fds and serves the tap after ------
syn_dropped() {
    needs no-udevd
    start_daemon flood
    monitor /tmp/m-flood.txt --touches
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
        usleep 2200000         # the case's subject: the daemon frozen while the flood overruns evdev
        kill -CONT $DAEMON
        wait $PLAY
        k=$((k + 1))
        wait_count /tmp/m-flood.txt '"action":"removed"' $k
    done
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

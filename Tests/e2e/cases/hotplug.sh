# shellcheck shell=sh
# --- hotplug x N, no fd leak ----------------------------------------------------------------
hotplug() {
    needs no-udevd
    serve hotplug /tmp/m-hotplug.txt
    n=0
    : > /tmp/created.txt
    while [ $n -lt $1 ]; do
        touchgesturectl play --uinput --settle 0.3 $E/rec/tap.events 2>> /tmp/created.txt
        n=$((n + 1))
    done
    wait_count /tmp/m-hotplug.txt '"action":"removed"' $1
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

# shellcheck shell=sh
# --- live equals offline -------------------------------------------------------------------
live_equals_offline() {
    needs no-udevd
    start_daemon live
    for rec in $(cat $E/recordings.list); do
        name=$(basename $rec .events)
        dev=""
        [ -e $E/rec/$name.desc ] && dev="--device $E/rec/$name.desc"
        monitor /tmp/m-$name.txt
        touchgesturectl play --uinput --settle 0.5 $dev $E/rec/$name.events 2> /tmp/play-$name.log
        stop_monitor_after_removals /tmp/m-$name.txt 1
        awk -f $E/summarize.awk /tmp/m-$name.txt > /tmp/got-$name.txt
        if diff $E/expected/$name.txt /tmp/got-$name.txt > /tmp/diff-$name.txt; then
            pass "live-equals-offline $name" "($(wc -l < /tmp/got-$name.txt) gesture lines)"
        else
            fail "live-equals-offline $name" "$(head -c 600 /tmp/diff-$name.txt | tr '\n' '|')"
        fi
    done
    stop_daemon
}

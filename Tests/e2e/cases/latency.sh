# shellcheck shell=sh
# --- end to end: from the uinput write of a frame's SYN_REPORT (the writer's CLOCK_MONOTONIC) to
# the client's read of the pan line it caused (the client's CLOCK_MONOTONIC); with every frame
# written at once (coalesce_ms 0: what the pipeline takes) and with the default coalescing (8 ms:
# a changed line waits for the write of its 8 ms) -----------------------------------------------
latency() {
    needs udevd
    start_daemon latency
    monitor /tmp/m-lat.txt --gestures pan --receipt-times --coalesce-ms $1
    touchgesturectl play --uinput --settle 0.5 --write-times /tmp/writes.txt $E/rec/bench.events 2>/dev/null
    stop_monitor_after_removals /tmp/m-lat.txt 1
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

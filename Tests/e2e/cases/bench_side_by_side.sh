# shellcheck shell=sh
# A refused run (below) is measured again once: a reader that fell behind under the emulator's
# load is no figure, and neither is the first attempt's; only a valid run prints ratios.
# Each variant is measured TRIALS times (E2E_BENCH_TRIALS, default 3): the emulator's CPU times move
# with the host's load by up to 20 % between runs, so the ratio reported is the median of the
# valid trials, with the lowest and highest beside it.
bench_side_by_side() {
    needs udevd
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

# The daemon's wake-ups and client writes so far (`stats`): "W C".
loop_counts() {
    touchgesturectl stats --socket /tmp/g.sock | sed -n 's/.*"client_writes":\([0-9]*\).*"wakeups":\([0-9]*\).*/\2 \1/p'
}

bench_once() {
    attempt=$2
    if ! [ -x /bin/lisgd ]; then echo "E2E BENCH skipped: lisgd is not installed on the host"; return; fi
    needs udevd
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
    rm -f /tmp/bench-go
    touchgesturectl play --uinput --settle 0 --wait-for /tmp/bench-go $E/rec/bench.events 2> /tmp/play-bench.log &
    PLAY=$!
    wait_node /tmp/play-bench.log
    wait_tagged $node
    tagged=$(udevadm info --query=property --name=$node 2> /dev/null | grep -c '^ID_INPUT_TOUCHSCREEN=1')
    lisgd -d $node -w 1920 -h 1080 -g '1,LR,*,*,R,echo SWIPE1' -g '2,LR,*,*,R,echo SWIPE2' -g '3,LR,*,*,R,echo SWIPE3' \
        -g '4,LR,*,*,R,echo SWIPE4' -g '5,LR,*,*,R,echo SWIPE5' > /tmp/lisgd.txt 2>&1 &
    LISGD=$!
    libinput-debug-events --device $node > /tmp/libinput.txt 2>&1 &
    LI=$!
    # All three have the device open (bench_instructions.sh), then a second for libinput and
    # lisgd to read its state; the stream starts once the CPU times are read.
    if ! until_true 30 all_three_open; then
        echo "E2E BENCH ($tag) not all three opened $node (daemon, lisgd, libinput: $(has_fd $DAEMON $node && echo y) $(has_fd $LISGD $node && echo y) $(has_fd $LI $node && echo y))"
    fi
    usleep 1000000
    # (the daemon's `stats` reply before its CPU time is read: not in the window compared)
    loop0=$(loop_counts)
    t0=$(cpu_ns $DAEMON); l0=$(cpu_ns $LISGD); i0=$(cpu_ns $LI); c0=$(cpu_ns $MON)
    ts0=$(cpu_split $DAEMON); ls0=$(cpu_split $LISGD)
    perf_start
    touch /tmp/bench-go
    wait $PLAY
    perf_report
    usleep 1000000
    t1=$(cpu_ns $DAEMON); l1=$(cpu_ns $LISGD); i1=$(cpu_ns $LI); c1=$(cpu_ns $MON)
    ts1=$(cpu_split $DAEMON); ls1=$(cpu_split $LISGD)
    # The daemon's own counters over the stream: where its system calls a frame come from.
    echo "$loop0 $(loop_counts)" | awk -v tag="$tag" -v f="$frames" 'NF == 4 { printf "E2E BENCH (%s) the daemon'"'"'s loop over the stream: %d wake-ups, %d client writes (%.3f and %.3f a frame)\n", tag, $3 - $1, $4 - $2, ($3 - $1) / f, ($4 - $2) / f }'
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
    # Where the time goes: user space (the instructions the count measures) or the kernel (system
    # calls, wake-ups), in clock ticks over the stream.
    echo "$ts0 $ts1 $ls0 $ls1" | awk -v tag="$tag" 'NF == 8 { printf "E2E BENCH (%s) user/system ticks over the stream: touchgestured %d/%d, lisgd %d/%d\n", tag, $3 - $1, $4 - $2, $7 - $5, $8 - $6 }'
    echo "E2E BENCH ($tag) context switches, voluntary/involuntary: touchgestured, lisgd, libinput, monitor client:$sw"
    echo "E2E BENCH ($tag) stream: $frames frames, $events evdev events; seen: touchgestured $pans pans or swipes, lisgd $swipes swipes, libinput $li_frames TOUCH_FRAME"
    side_verdict "$1"
}

# The figures of a run of bench_once checked and printed; 1 when the run is refused at its
# first attempt (measured again), 0 otherwise.
side_verdict() {
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
        why="impossible figures, run refused:$bad; readings $t0 $t1 $l0 $l1 $i0 $i1 $c0 $c1; node $node (tagged by udev: $tagged); lisgd: $(head -3 /tmp/lisgd.txt | tr '\n' '|'); libinput: $(head -3 /tmp/libinput.txt | tr '\n' '|')"
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

# With perf in the guest (a diagnostic): each reader's samples over the stream (PERFS), then
# where their time went, by object and by symbol.
perf_start() {
    [ -x /bin/perf ] || return 0
    PERFS=""
    for p in $DAEMON $LISGD $LI; do
        perf record -e cpu-clock -F 2000 -p $p -o /tmp/perf-$p.data -- sleep 14 2>/tmp/perf-err-$p.txt &
        PERFS="$PERFS $!"
    done
}

perf_report() {
    [ -x /bin/perf ] || return 0
    wait $PERFS
    for p in $DAEMON $LISGD $LI; do
        echo "E2E DIAG perf of $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-40) ($(grep ctxt /proc/$p/status | tr '\n\t' '  '))"
        perf report -i /tmp/perf-$p.data --stdio --no-children --sort dso 2>&1 | grep -vE '^#|^$' | head -8 | sed 's/^/E2E DIAG   /'
        perf report -i /tmp/perf-$p.data --stdio --no-children --sort dso,sym 2>&1 | grep -vE '^#|^$' | head -40 | sed 's/^/E2E DIAG   /'
        tail -4 /tmp/perf-err-$p.txt | sed 's/^/E2E DIAG   err /'; ls -la /tmp/perf-$p.data | sed 's/^/E2E DIAG   /'
    done
}

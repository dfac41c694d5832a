# shellcheck shell=sh
# The pass-through hop against the floor of any user-space hop (Tests/e2e/reference-hop.c: a
# blocking read of the panel, each frame written to uinput at once), quiet and with a CPU hog (a
# busy loop per CPU at the kiosk app's priority, nice 0). Each hop's latency is its node's kernel
# timestamp of a frame less the player's write of it, less the same for the panel read directly
# (the kernel's own part), at p50 and p99. Both hops run at SCHED_FIFO 10 (reset on fork), as
# touchgestured.service runs the daemon (its ExecStartPost's chrt), and with NORMAL_POLICY=1
# (E2E_NORMAL_POLICY on the host; not in CI: 40 s) first at the normal policy too. The
# daemon's --trace-hops rows split its hop into the wake-up, the loop's work and the write. The two
# at SCHED_FIFO 10 run twice, reference, daemon, then daemon, reference, each pair pooled (4,000
# frames a quantile): the emulator's drift over a load falls on both alike.
# Reported, not asserted (TCG times move run to run); the case fails only when frames are lost,
# and then only when a second measurement loses them too (a stall of the emulator's host, where a
# hop's reader or the daemon misses 100 ms, loses frames as a slow daemon would: seen once in a
# full guest run, as the instruction count's reader is; the first run's figures are not printed).

# One hop's frame latencies (us, sorted) into /tmp/load-$1.txt: $1 its name; the hop is already
# running and reads the panel $node, and writes to $2 ("panel": the panel itself).
hop_run() {
    rm -f /tmp/go-load
    read_node=$2
    [ "$read_node" = panel ] && read_node=$node
    record_play "$read_node" /tmp/load-$1.events /tmp/go-load
    frame_latency /tmp/load-w.txt /tmp/load-$1.events > /tmp/load-$1.txt
    # Where the late frames fall in the stream (a cold start, a landing, a stall): frame:us.
    awk 'NR == FNR { w[++n] = $1; next } /^E: [0-9.]* 0000 0000 0$/ {
        if (++k <= n && ($2 - w[k]) * 1e6 > 1000) { late++; if (late <= 12) s = s sprintf(" %d:%.0f", k, ($2 - w[k]) * 1e6) } }
        END { printf "%d%s", late, s }' /tmp/load-w.txt /tmp/load-$1.events > /tmp/late-$1.txt
    late="$late $1 $(cat /tmp/late-$1.txt);"
    got=$(grep -c '^E: [0-9.]* 0000 0000 0$' /tmp/load-$1.events)
    [ "$got" = "$frames" ] || lost="$lost $1:${got:-0}/$frames ($(tail -1 /tmp/load-$1.events.log); $(tail -1 /tmp/play-load.log))"
}

# The daemon's system calls a frame, all its threads' (SCHED_FIFO 10, quiet: strace -f -c, whose
# tracing slows each call; counted, not timed), those made at least once every ten frames, in `calls`.
hop_syscalls() {
    hop_panel
    rm -f /tmp/g.sock
    strace -f -c -o /tmp/strace-load.txt touchgestured --socket /tmp/g.sock --config /tmp/passthrough.toml > /tmp/daemon-load-strace.log 2>&1 &
    S=$!
    wait_for /tmp/g.sock
    DAEMON=$(pidof touchgestured)
    daemon_fifo $DAEMON
    mirror_of /tmp/daemon-load-strace.log 0
    hop_run strace "$mirror"
    kill $DAEMON; wait $S
    # strace -c's rows: % time, seconds, usecs/call, calls, [errors,] syscall.
    calls=$(awk -v n=$frames '$1 ~ /^[0-9]+\.[0-9]+$/ && NF >= 5 && $NF != "total" && $4 >= n / 10 { printf "%s %.2f, ", $NF, $4 / n }' /tmp/strace-load.txt)
}

# A new panel playing the stream once /tmp/go-load exists: its node in `node`, the player in P.
hop_panel() {
    rm -f /tmp/go-load
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-load --hold 0.5 --write-times /tmp/load-w.txt /tmp/pt-bench.events 2> /tmp/play-load.log &
    P=$!
    wait_node /tmp/play-load.log
    until_true 30 test -e "$node"
}

# Where the daemon's hop goes, frame by frame (its --trace-hops rows $1 joined with the player's
# writes and the mirror's recording $2): the panel's own timestamp of the frame to the read's
# return (the wake-up), the read to the mirror's write (the loop's work), the write itself;
# p50/p99 each, in `parts`; and before the hop, the player's clock read to the panel's
# timestamp (the player's write: part of neither hop, though the hops' figures count it).
hop_parts() {
    awk 'FILENAME == ARGV[1] { w[++nw] = $1 * 1e6; next }
        FILENAME == ARGV[2] { if ($1 !~ /^#/) { r[++nr] = $1 / 1e3; s[nr] = $2 / 1e3; e[nr] = $3 / 1e3; p[nr] = ($4 > 0 ? $4 / 1e3 : 0) }; next }
        /^E: [0-9.]* 0000 0000 0$/ { m[++nm] = $2 * 1e6 }
        END { for (k = 1; k <= nr && k <= nw; k++) { at = (p[k] > 0 ? p[k] : w[k])
            printf "%.0f %.0f %.0f %.0f %.0f\n", r[k] - at, s[k] - r[k], e[k] - s[k], (k <= nm ? m[k] - s[k] : 0), at - w[k] } }' \
        /tmp/load-w.txt "$1" "$2" > /tmp/parts.txt
    parts=""
    for col in 1 2 3; do
        cut -d' ' -f$col /tmp/parts.txt | sort -n > /tmp/part.txt
        parts="$parts $(pct /tmp/part.txt 50)/$(pct /tmp/part.txt 99)"
    done
    cut -d' ' -f5 /tmp/parts.txt | sort -n > /tmp/part.txt
    parts="$parts (the player's write to the panel's stamp $(pct /tmp/part.txt 50)/$(pct /tmp/part.txt 99))"
    # The first three frames and the five slowest (frame: wake-up/work/write, us).
    slowest=$(awk '{ printf "%d %d:%s/%s/%s\n", $1 + $2 + $3, NR, $1, $2, $3 }' /tmp/parts.txt | sort -rn | head -5 | cut -d' ' -f2 | tr '\n' ' ')
    parts="$parts (first $(head -3 /tmp/parts.txt | awk '{ printf "%d:%s/%s/%s ", NR, $1, $2, $3 }')slowest $slowest)"
}

# One run of the daemon's hop: its log /tmp/daemon-$1.log, its policy $2 (normal, fifo, or traced:
# SCHED_FIFO 10 too), its hop's name $3, its options after the config in $4.
daemon_hop() {
    hop_panel
    # shellcheck disable=SC2086
    start_daemon "$1" --config /tmp/passthrough.toml ${4:-}
    [ "$2" != normal ] && daemon_fifo $DAEMON
    threads=$(ls /proc/$DAEMON/task | wc -l)
    mirror_of /tmp/daemon-$1.log 0
    hop_run "$3" "$mirror"
    stop_daemon
}

# One run of the reference hop, named $1, with the options after it.
ref_hop() {
    name=$1
    shift
    hop_panel
    rm -f /tmp/ref-node.txt
    reference-hop "$node" --priority 10 "$@" > /tmp/ref-node.txt 2> /tmp/ref-hop.log &
    H=$!
    if until_true 10 test -s /tmp/ref-node.txt; then
        hop_run "$name" "$(cat /tmp/ref-node.txt)"
    else
        lost="$lost $name: did not start ($(tail -1 /tmp/ref-hop.log))"
        kill $P; wait $P 2> /dev/null
    fi
    kill $H; wait $H 2>/dev/null
}

# E2E_SCHED_TRACE=1 (a diagnostic): the kernel's scheduler and interrupt events (ftrace, on the
# monotonic clock) over the reference's and the traced daemon's runs under the hog. For each
# wake-up of the hop's reading thread ($2: its comm), the time to the reschedule interrupt on its
# CPU and from there to its switch in: in the guest an interrupt that finds the reader's CPU
# running the hog switches to it within microseconds, so milliseconds between the two are a vCPU
# the emulator did not run (its other CPU silent as long: the whole machine held).
sched_trace_on() {
    [ "$SCHED_TRACE" = 1 ] || return 0
    t=/sys/kernel/tracing
    [ -d $t/events/sched ] || mount -t tracefs nodev $t 2> /dev/null || { echo "E2E DIAG sched trace: no tracefs"; return 0; }
    echo 0 > $t/tracing_on; echo > $t/trace
    echo mono > $t/trace_clock; echo 16384 > $t/buffer_size_kb
    for e in sched/sched_wakeup sched/sched_switch irq_vectors/reschedule_entry irq_vectors/call_function_single_entry \
        irq_vectors/local_timer_entry; do
        echo 1 > $t/events/$e/enable 2> /dev/null || echo "E2E DIAG sched trace: no event $e"
    done
    echo 1 > $t/tracing_on
}

# The trace of run $1 (its reader's comm $2) summed up in an E2E DIAG line: wake-ups, those over
# 1 ms to their switch, and of those how many waited after the interrupt had come (the vCPU held)
# with the machine silent (no event on any CPU) for most of it; the slowest three in full.
sched_trace_off() {
    [ "$SCHED_TRACE" = 1 ] && [ -d /sys/kernel/tracing/events/sched ] || return 0
    t=/sys/kernel/tracing
    echo 0 > $t/tracing_on
    cat $t/trace > /tmp/sched-$1.txt
    echo 0 > $t/events/enable; echo > $t/trace
    # Rows: us from the wake-up to the switch, to the interrupt (-1: none, a wake-up on its own
    # CPU), from the interrupt to the switch, the machine's silence before the switch, when.
    awk -v comm="$2" '/^#/ { next }
        { cpu = -1; ts = -1
          for (i = 1; i <= NF; i++) {
              if (cpu < 0 && $i ~ /^\[[0-9]+\]$/) cpu = substr($i, 2, length($i) - 2) + 0
              if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1) + 0; ev = $(i + 1); break }
          }
          if (ts < 0) next }
        ev == "sched_wakeup:" && index($0, "comm=" comm " ") {
            match($0, /pid=[0-9]+/); pid = substr($0, RSTART + 4, RLENGTH - 4)
            match($0, /target_cpu=[0-9]+/); tgt[pid] = substr($0, RSTART + 11, RLENGTH - 11) + 0
            woke[pid] = ts; irq[pid] = -1 }
        ev == "reschedule_entry:" { for (p in woke) if (tgt[p] == cpu && irq[p] < 0) irq[p] = ts }
        ev == "sched_switch:" && index($0, "next_comm=" comm " ") {
            match($0, /next_pid=[0-9]+/); pid = substr($0, RSTART + 9, RLENGTH - 9)
            if (pid in woke) {
                from = irq[pid] >= 0 ? irq[pid] : woke[pid]
                printf "%.0f %.0f %.0f %.0f %.6f\n", (ts - woke[pid]) * 1e6, (irq[pid] >= 0 ? (irq[pid] - woke[pid]) * 1e6 : -1), (ts - from) * 1e6, (ts - last) * 1e6, ts
                delete woke[pid]
            } }
        ts != last { last = ts }' /tmp/sched-$1.txt > /tmp/sched-$1-rows.txt
    cut -d' ' -f1 /tmp/sched-$1-rows.txt | sort -n > /tmp/sched-$1-total.txt
    summary=$(awk '{ n++ } $2 >= 0 { remote++ } $1 > 1000 { slow++; if ($3 > 0.8 * $1) { held++; if ($4 > 0.8 * $3) silent++ } }
        END { printf "%d wake-ups (%d on another CPU), %d over 1 ms, of them %d held after the interrupt came, %d of those with no event on any CPU meanwhile", n, remote, slow, held, silent }' /tmp/sched-$1-rows.txt)
    slowest=$(sort -rn /tmp/sched-$1-rows.txt | head -3 | awk '{ printf "%s us (interrupt +%s, then %s; silent %s) at %s; ", $1, $2, $3, $4, $5 }')
    echo "E2E DIAG sched $1 ($2; us from wake-up to switch, p50 $(pct /tmp/sched-$1-total.txt 50) p99 $(pct /tmp/sched-$1-total.txt 99)): $summary; slowest: $slowest"
    # The slowest in full: every event from its wake-up to its switch (at most 40).
    sort -rn /tmp/sched-$1-rows.txt | head -1 | while read -r total _ _ _ at; do
        awk -v from="$(awk -v a="$at" -v t="$total" 'BEGIN { printf "%.6f", a - t / 1e6 - 0.00001 }')" -v to="$at" -v name="$1" '/^#/ { next }
            { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1) + 0; break } }
            ts >= from && ts <= to && ++n <= 40 { sub(/^ +/, ""); gsub(/  +/, " "); print "E2E DIAG sched " name " slowest: " $0 }' /tmp/sched-$1.txt
    done
}

# The traced daemon's slowest frame by its wake-up (from /tmp/parts.txt's rows and the player's
# writes): every event of the trace $1 from the player's write to the read's return (at most 40).
sched_trace_frame() {
    [ -s /tmp/sched-$1.txt ] || return 0
    awk '{ printf "%d %d\n", $1 + $5, NR }' /tmp/parts.txt | sort -rn | head -1 | while read -r wake k; do
        w=$(sed -n "${k}p" /tmp/load-w.txt)
        awk -v a="$w" -v b="$wake" -v k="$k" 'BEGIN { from = a - 0.00005; to = a + b / 1e6 + 0.00005 }
            /^#/ { next }
            { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1) + 0; break } }
            ts >= from && ts <= to && ++n <= 40 { sub(/^ +/, ""); gsub(/  +/, " "); printf "E2E DIAG sched frame %d (written %.6f, read +%d us): %s\n", k, a, b, $0 }' /tmp/sched-$1.txt
    done
}

hog_start() { hogs=""; for _ in $(seq "$(nproc)"); do sh -c 'while :; do :; done' & hogs="$hogs $!"; done; }
hog_stop() { kill $hogs 2>/dev/null; for h in $hogs; do wait $h 2>/dev/null; done; }

# The hops of one load ($1: quiet or hog), each p50 and p99 added to the panel's own.
hop_load() {
    # (No pooled run's frames from an earlier attempt.)
    rm -f /tmp/load-*-fifo2-$1.txt
    hop_panel; hop_run direct-$1 panel
    normal_hops=""
    [ "$NORMAL_POLICY" = 1 ] && normal_hops=normal
    [ $1 = hog ] && sched_trace_on
    for policy in $normal_hops fifo; do ref_hop reference-$policy-$1 --policy $policy; done
    [ $1 = hog ] && sched_trace_off reference reference-hop
    # E2E_REF_PAGES="N ...": the reference again, its working set N pages larger each (a diagnostic).
    for pages in $REF_PAGES; do ref_hop reference-pages$pages-$1 --policy fifo --touch-pages "$pages"; done
    # E2E_REF_EPOLL=1: the reference again, reading as an event loop does (epoll_wait, then read).
    [ "$REF_EPOLL" = 1 ] && ref_hop reference-epoll-$1 --policy fifo --epoll 1
    # E2E_REF_BUSY="N ...": the reference again, busy N µs after each write (a loop's work after it).
    for us in $REF_BUSY; do ref_hop reference-busy$us-$1 --policy fifo --busy-us "$us"; done
    # E2E_REF_RELAY="N ...": the reference again, each frame relayed to a second thread that works N µs on it.
    for us in $REF_RELAY; do ref_hop reference-relay$us-$1 --policy fifo --relay-us "$us"; done
    for policy in $normal_hops fifo traced; do
        trace=""
        [ $policy = traced ] && trace="--trace-hops /tmp/hops-$1.txt"
        [ $policy = traced ] && [ $1 = hog ] && sched_trace_on
        daemon_hop load-$policy $policy daemon-$policy-$1 "$trace"
        [ $policy = traced ] && [ $1 = hog ] && sched_trace_off daemon tg-input
    done
    # (Its parts read this run's write times, which the next run replaces.)
    hop_parts /tmp/hops-$1.txt /tmp/load-daemon-traced-$1.events
    [ $1 = hog ] && [ "$SCHED_TRACE" = 1 ] && sched_trace_frame daemon
    eval "parts_$1=\"$parts\""
    # The floor's parts beside them: the reference hop traced the same way (its three clock
    # reads a frame, as the daemon's), so each part is set against the least it can be.
    rm -f /tmp/ref-hops-$1.txt
    ref_hop reference-traced-$1 --policy fifo --trace /tmp/ref-hops-$1.txt
    if [ -s /tmp/ref-hops-$1.txt ]; then
        hop_parts /tmp/ref-hops-$1.txt /tmp/load-reference-traced-$1.events
        eval "ref_parts_$1=\"$parts\""
    else
        eval "ref_parts_$1=\" (not traced)\""
    fi
    # The daemon and the reference once more, in the other order (reference, daemon, ..., daemon,
    # reference), each second run's frames pooled with its first's: a drift of the emulator over
    # the load (its host busier later on) falls on both hops alike, and each quantile reads twice
    # the frames (a p99 of 2,000 is its 20 slowest).
    daemon_hop load-fifo2 fifo daemon-fifo2-$1
    ref_hop reference-fifo2-$1 --policy fifo
    for hop in reference-fifo daemon-fifo; do
        [ -s /tmp/load-${hop}2-$1.txt ] && sort -n -o /tmp/load-$hop-$1.txt /tmp/load-$hop-$1.txt /tmp/load-${hop}2-$1.txt
    done
    d50=$(pct /tmp/load-direct-$1.txt 50); d99=$(pct /tmp/load-direct-$1.txt 99)
    for hop in reference-normal reference-fifo daemon-normal daemon-fifo daemon-traced; do
        case $hop in *-normal) [ "$NORMAL_POLICY" = 1 ] || { eval "${hop%%-*}_normal_$1=\"not measured (E2E_NORMAL_POLICY=1)\""; continue; } ;; esac
        eval "${hop%%-*}_$(echo ${hop#*-} | tr -d -)_$1=\"p50 \$((\$(pct /tmp/load-$hop-$1.txt 50) - d50)) p99 \$((\$(pct /tmp/load-$hop-$1.txt 99) - d99))\""
    done
    eval "direct_$1=\"p50 $d50 p99 $d99\""
    [ "$REF_EPOLL" = 1 ] && epoll_diag="$epoll_diag $1: p50 $(($(pct /tmp/load-reference-epoll-$1.txt 50) - d50)) p99 $(($(pct /tmp/load-reference-epoll-$1.txt 99) - d99));"
    for us in $REF_BUSY; do
        busy_diag="$busy_diag $1 $us us: p50 $(($(pct /tmp/load-reference-busy$us-$1.txt 50) - d50)) p99 $(($(pct /tmp/load-reference-busy$us-$1.txt 99) - d99)) late $(cut -d' ' -f1 /tmp/late-reference-busy$us-$1.txt);"
    done
    for us in $REF_RELAY; do
        relay_diag="$relay_diag $1 $us us: p50 $(($(pct /tmp/load-reference-relay$us-$1.txt 50) - d50)) p99 $(($(pct /tmp/load-reference-relay$us-$1.txt 99) - d99)) late $(cut -d' ' -f1 /tmp/late-reference-relay$us-$1.txt);"
    done
    for pages in $REF_PAGES; do
        pages_diag="$pages_diag $1 $pages pages: p50 $(($(pct /tmp/load-reference-pages$pages-$1.txt 50) - d50)) p99 $(($(pct /tmp/load-reference-pages$pages-$1.txt 99) - d99));"
    done
}

passthrough_load() {
    attempt=${1:-1}
    needs udevd
    bench_stream
    if ! command -v reference-hop > /dev/null || ! command -v chrt > /dev/null; then
        echo "E2E CASE passthrough-load: SKIPPED (no reference-hop or chrt in the guest)"
        return
    fi
    lost=""
    late=""
    pages_diag=""
    epoll_diag=""
    busy_diag=""
    relay_diag=""
    hop_load quiet
    calls="(no strace)"
    command -v strace > /dev/null && hop_syscalls
    hog_start
    hop_load hog
    hog_stop
    if [ -n "$lost" ] && [ "$attempt" = 1 ]; then
        echo "E2E DIAG passthrough-load attempt 1 refused (frames lost:$lost); once more"
        passthrough_load 2
        return
    fi
    # shellcheck disable=SC2154
    echo "E2E BENCH pass-through latency under load (us added to the panel's own; TCG guest, $(nproc) CPUs; both hops at SCHED_FIFO 10, as touchgestured.service runs the daemon): quiet: reference $reference_fifo_quiet, daemon $daemon_fifo_quiet; hog: reference $reference_fifo_hog, daemon $daemon_fifo_hog; at the normal policy: quiet: reference $reference_normal_quiet, daemon $daemon_normal_quiet; hog: reference $reference_normal_hog, daemon $daemon_normal_hog; the panel's own: quiet $direct_quiet, hog $direct_hog; the daemon's threads: $threads"
    # shellcheck disable=SC2154
    echo "E2E BENCH pass-through hop by part (us, p50/p99; SCHED_FIFO 10 with --trace-hops, whose clock reads add to it: quiet $daemon_traced_quiet, hog $daemon_traced_hog): the panel's stamp -> read, read -> mirror write, the write: quiet$parts_quiet; hog$parts_hog; the reference hop (--trace, the same parts): quiet$ref_parts_quiet; hog$ref_parts_hog"
    echo "E2E DIAG pass-through frames over 1 ms, each hop's count and its first twelve (frame:us):$late"
    [ "$REF_EPOLL" = 1 ] && echo "E2E DIAG the reference hop reading through epoll_wait (us added, SCHED_FIFO 10):$epoll_diag"
    [ -n "$REF_BUSY" ] && echo "E2E DIAG the reference hop busy after each write (us added, SCHED_FIFO 10; late: frames over 1 ms):$busy_diag"
    [ -n "$REF_RELAY" ] && echo "E2E DIAG the reference hop relaying each frame to a second thread that works on it (us added, SCHED_FIFO 10; late: frames over 1 ms):$relay_diag"
    [ -n "$REF_PAGES" ] && echo "E2E DIAG the reference hop with a larger working set (us added, SCHED_FIFO 10):$pages_diag"
    echo "E2E BENCH pass-through system calls a frame (strace -f -c: every thread's; quiet, the calls made at least once every ten frames): $calls"
    if [ -z "$lost" ]; then
        pass "passthrough-load" "(all $frames frames through each hop, quiet and with the hog)"
    else
        fail "passthrough-load" "(frames lost:$lost)"
    fi
}

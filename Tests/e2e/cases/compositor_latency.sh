# shellcheck shell=sh
# E2E BENCH compositor latency: panel write to the client's wl_touch.down, with compositor $1
# reading the panel itself, reading the reference hop's device (Tests/e2e/reference-hop.c: the
# floor of any program in the daemon's place), and reading the daemon's mirror (pass-through,
# nothing else configured) at SCHED_FIFO 10 as touchgestured.service runs it (with
# E2E_NORMAL_POLICY=1 at the normal policy too). Each setting runs twice, in turn (panel,
# reference, mirror, mirror, reference, panel: a drift of the emulator over the case falls on
# every setting alike), 40 taps a run, and its two runs are pooled. The added p50 and p99 are what
# the mirror costs. Then hop by hop (E2E BENCH compositor hops): the node's kernel timestamp of
# the landing frame (recorded beside the compositor), the compositor's wl_touch.down sent and the
# client's receipt (WAYLAND_DEBUG on both sides; its clock tied to the client's CLOCK_MONOTONIC
# through the client's own receipt of the same events), so the added time is placed in the
# daemon's hop, the compositor's, or the client's. And the hop itself in parts on the landing
# frames (E2E BENCH compositor hop parts), the daemon's (--trace-hops) beside the reference's
# (--trace): the wake-up, the work between the read and the write, the write.

# Hop by hop, a line a tap (ms): write -> the node's frame, the node's frame -> the compositor's
# wl_touch.down sent, sent -> the client's receipt. $1 writes, $2 client log, $3 compositor log
# (WAYLAND_DEBUG=1), $4 the node's recording.
compositor_hops() {
    awk 'FILENAME == ARGV[1] { want[$1] = 1; next }
         FILENAME == ARGV[2] { if (FNR in want) w[++n] = $1; next }
         FILENAME == ARGV[3] { if ($2 == "touch" && $3 == "down") c[++nc] = $1; next }
         FILENAME == ARGV[4] {
             if (index($0, "wl_touch@") == 0 || index($0, ".down(") == 0) next
             # libwayland prints a 32-bit count of microseconds (as ms): it wraps every 71.6 min.
             v = substr($0, 2, index($0, "]") - 2) + 0
             if (base == "") base = v
             if (v < base - 2147483.648) v += 4294967.296
             if (index($0, "-> wl_touch@")) s[++ns] = v; else r[++nr] = v
             next }
         /^E: [0-9.]* 0003 0039 [0-9]/ { m[++nm] = $2 }
         END {
             off = ""
             for (j = 1; j <= nc && j <= nr; j++) { d = c[j] * 1000 - r[j]; if (off == "" || d < off) off = d }
             if (off == "") exit
             jc = 1; jm = 1
             for (i = 1; i <= n; i++) {
                 while (jc <= nc && c[jc] < w[i]) jc++
                 while (jm <= nm && m[jm] < w[i] - 0.001) jm++
                 if (jc > nc || c[jc] - w[i] >= 0.2 || jm > nm || jc > ns) continue
                 printf "%.2f %.2f %.2f\n", (m[jm] - w[i]) * 1000, s[jc] + off - m[jm] * 1000, c[jc] * 1000 - s[jc] - off
                 jc++
             }
         }' $E/rec/kiosk-latency.downs "$1" "$2" "$3" "$4"
}

# The hop in parts on the landing frames, a line each (µs): the player's write to the read's
# return, the read to the write's start, the write. $1 the hop's trace (a line a frame it wrote:
# read, write start, write end, CLOCK_MONOTONIC ns; `#` lines skipped), $2 the player's writes
# (a line a frame, s): each traced frame is the player's last write before its read.
landing_parts() {
    awk 'FILENAME == ARGV[1] { want[$1] = 1; next }
         FILENAME == ARGV[2] { w[++nw] = $1 * 1e6; down[nw] = FNR in want; next }
         $1 !~ /^#/ && NF >= 3 {
             r = $1 / 1e3
             while (j < nw && w[j + 1] <= r) j++
             if (j > 0 && down[j] && !(j in seen)) { seen[j] = 1; printf "%.0f %.0f %.0f\n", r - w[j], $2 / 1e3 - r, ($3 - $2) / 1e3 }
         }' $E/rec/kiosk-latency.downs "$2" "$1"
}

# One run of setting $1 (panel, reference, normal or mirror), its taps appended to the setting's
# pooled files: /tmp/cl-lat-$1.txt (write to the client's touch down, ms), /tmp/cl-hops-$1.txt,
# /tmp/cl-parts-$1.txt (a traced hop's landing frames), and its own p50 to `runs_$1`.
latency_run() {
    setting=$1; config=""
    rm -f /tmp/hop-trace.txt
    RECORD_TARGET=/tmp/lat-$setting.events
    case $setting in
        reference) REFERENCE_HOP=1; HOP_TRACE=/tmp/hop-trace.txt ;;
        mirror) DAEMON_FIFO=1; HOP_TRACE=/tmp/hop-trace.txt; config=/tmp/latency.toml ;;
        normal) config=/tmp/latency.toml ;;
    esac
    started_ok=1
    play_under $comp $E/rec/kiosk-latency.events "$config" || started_ok=0
    unset RECORD_TARGET DAEMON_FIFO HOP_TRACE
    REFERENCE_HOP=0
    if [ $started_ok = 0 ]; then
        eval "runs_$setting=\"\${runs_$setting:-}(did not start) \""; short_runs="${short_runs}$setting (did not start) "; return
    fi
    down_latencies /tmp/writes-$comp.txt $log > /tmp/cl-run.txt
    cat /tmp/cl-run.txt >> /tmp/cl-lat-$setting.txt
    set -- $(quantiles /tmp/cl-run.txt)
    # Each run must match 30 of its 40 taps on its own: a pooled 60 of 80 could hide a dead run.
    [ "$4" -lt 30 ] && short_runs="${short_runs}$setting ($4 taps) "
    run_p50=$1; [ "$4" = 0 ] && run_p50=none
    eval "runs_$setting=\"\${runs_$setting:-}$run_p50 ($4) \""
    compositor_hops /tmp/writes-$comp.txt $log /tmp/comp-$comp.log /tmp/lat-$setting.events >> /tmp/cl-hops-$setting.txt
    [ -s /tmp/hop-trace.txt ] && landing_parts /tmp/hop-trace.txt /tmp/writes-$comp.txt >> /tmp/cl-parts-$setting.txt
    return 0
}

# The pooled hops of setting $1: "p50/p99 p50/p99 p50/p99 taps" (ms), or "none".
pooled_hops() {
    [ -s /tmp/cl-hops-$1.txt ] || { echo none; return; }
    for col in 1 2 3; do quantiles /tmp/cl-hops-$1.txt $col; done | awk '{ printf "%s/%s ", $1, $2; n = $4 } END { print n }'
}

# The pooled parts of setting $1: "wake-up p50/p99, work p50/p99, write p50/p99 (N landings)" (µs).
pooled_parts() {
    [ -s /tmp/cl-parts-$1.txt ] || { echo "not traced"; return; }
    set -- $(quantiles /tmp/cl-parts-$1.txt 1) $(quantiles /tmp/cl-parts-$1.txt 2) $(quantiles /tmp/cl-parts-$1.txt 3)
    echo "wake-up $1/$2, work $5/$6, write $9/${10} (${4} landings)"
}

# "p50 %+.2f ms, p99 %+.2f ms": setting $1's pooled latency over the panel's.
added_over_panel() {
    set -- $(quantiles /tmp/cl-lat-$1.txt) $(quantiles /tmp/cl-lat-panel.txt)
    awk -v a=$1 -v b=$5 -v c=$2 -v d=$6 'BEGIN { printf "p50 %+.2f ms, p99 %+.2f ms", a - b, c - d }'
}

compositor_latency() {
    needs udevd
    comp=${1:-cage}
    if ! [ -x /bin/$comp ] || ! [ -x /bin/touch-log ]; then
        echo "E2E BENCH compositor latency: skipped ($comp or the test client is not in the guest)"
        return
    fi
    export CAGE_ENV="WLR_BACKENDS=headless,libinput WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=1 WAYLAND_DEBUG=1"
    printf '[device]\nmode = "passthrough"\n' > /tmp/latency.toml
    rm -f /tmp/cl-lat-*.txt /tmp/cl-hops-*.txt /tmp/cl-parts-*.txt
    runs_panel=""; runs_reference=""; runs_mirror=""; runs_normal=""; short_runs=""
    # With NORMAL_POLICY=1 (E2E_NORMAL_POLICY; not in CI) the daemon at the normal policy too
    # (the figure before touchgestured.service raised it).
    normal=""
    [ "$NORMAL_POLICY" = 1 ] && normal=normal
    for setting in panel reference $normal mirror mirror $normal reference panel; do latency_run $setting; done
    unset CAGE_ENV
    set -- $(quantiles /tmp/cl-lat-panel.txt); d50=$1; d99=$2; dmax=$3; dn=$4
    set -- $(quantiles /tmp/cl-lat-mirror.txt); p50=$1; p99=$2; pmax=$3; pn=$4
    set -- $(quantiles /tmp/cl-lat-reference.txt); r50=$1; rn=$4
    nn=-; normal_added="not measured"
    if [ -n "$normal" ]; then set -- $(quantiles /tmp/cl-lat-normal.txt); nn=$4; normal_added=$(added_over_panel normal); fi
    echo "E2E BENCH compositor hops ($comp, ms p50/p99 over both runs: the write to the node's frame, the frame to $comp's wl_touch.down sent, sent to the client's receipt; taps): reading the panel: $(pooled_hops panel); reading the mirror, the daemon at SCHED_FIFO 10: $(pooled_hops mirror); at the normal policy: $([ -n "$normal" ] && pooled_hops normal || echo "not measured (E2E_NORMAL_POLICY=1)"); reading the reference hop's device (SCHED_FIFO 10): $(pooled_hops reference)"
    echo "E2E BENCH compositor hop parts ($comp, us p50/p99 on the landing frames, both runs, each hop traced: the player's write to the read's return, the read to the write, the write): the daemon (SCHED_FIFO 10, --trace-hops): $(pooled_parts mirror); the reference hop (--trace): $(pooled_parts reference)"
    # The daemon's own share: what its mirror adds over what any program in its place adds.
    own="not measured"
    [ "$rn" -gt 0 ] && [ "$pn" -gt 0 ] && own="$(awk -v a=$p50 -v b=$r50 'BEGIN { printf "%+.2f", a - b }') ms"
    line="$comp: panel write to wl_touch.down, two runs each in turn, pooled: the compositor reading the panel: p50 $d50 ms, p99 $d99 ms, max $dmax ms ($dn taps); through the daemon's mirror (SCHED_FIFO 10): p50 $p50 ms, p99 $p99 ms, max $pmax ms ($pn taps); added $(added_over_panel mirror) (the daemon at the normal policy: $normal_added, $nn taps; the reference hop in its place: $(added_over_panel reference), $rn taps); the daemon's own share (its mirror's p50 less the reference hop's) $own; each run's p50 (its taps), in turn: panel ${runs_panel}ms, reference ${runs_reference}ms, mirror ${runs_mirror}ms${normal:+, normal policy ${runs_normal}ms}"
    echo "E2E BENCH compositor latency: $line"
    if [ -z "$short_runs" ]; then
        pass "compositor-latency" "($line)"
    else
        fail "compositor-latency" "(fewer than 30 of 40 taps matched in: $short_runs; $line)"
    fi
}

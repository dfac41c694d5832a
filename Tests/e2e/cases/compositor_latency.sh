# shellcheck shell=sh
# E2E BENCH compositor latency: panel write to the client's wl_touch.down, with compositor $1
# reading the panel itself, reading the reference hop's device (Tests/e2e/reference-hop.c: the
# floor of any program in the daemon's place), then reading the daemon's mirror (pass-through,
# nothing else configured) at SCHED_FIFO 10 as touchgestured.service runs it (and first at the
# normal policy with E2E_NORMAL_POLICY=1); 40 taps each. The added p50 and p99 are what the mirror costs. Then hop by hop (E2E
# BENCH compositor hops): the node's kernel timestamp of the landing frame (recorded beside the
# compositor), the compositor's wl_touch.down sent and the client's receipt (WAYLAND_DEBUG on both
# sides; its clock tied to the client's CLOCK_MONOTONIC through the client's own receipt of the
# same events), so the added time is placed in the daemon's hop, the compositor's, or the client's.

# Hop by hop (ms, p50 and p99 each): write -> the node's frame, the node's frame -> the
# compositor's wl_touch.down sent, sent -> the client's receipt. $1 writes, $2 client log, $3
# compositor log (WAYLAND_DEBUG=1), $4 the node's recording.
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
         function sorted(a, k,   i, j, v) { for (i = 2; i <= k; i++) { v = a[i]; j = i - 1; while (j >= 1 && a[j] > v) { a[j + 1] = a[j]; j-- } a[j + 1] = v } }
         function pct(a, k, p) { return a[int((k - 1) * p) + 1] }
         END {
             off = ""
             for (j = 1; j <= nc && j <= nr; j++) { d = c[j] * 1000 - r[j]; if (off == "" || d < off) off = d }
             jc = 1; jm = 1; k = 0
             for (i = 1; i <= n; i++) {
                 while (jc <= nc && c[jc] < w[i]) jc++
                 while (jm <= nm && m[jm] < w[i] - 0.001) jm++
                 if (jc > nc || c[jc] - w[i] >= 0.2 || jm > nm || jc > ns) continue
                 k++
                 a[k] = (m[jm] - w[i]) * 1000; b[k] = s[jc] + off - m[jm] * 1000; x[k] = c[jc] * 1000 - s[jc] - off
                 jc++
             }
             if (k == 0 || off == "") { print "none"; exit }
             sorted(a, k); sorted(b, k); sorted(x, k)
             printf "%.2f/%.2f %.2f/%.2f %.2f/%.2f %d\n", pct(a, k, 0.5), pct(a, k, 0.99), pct(b, k, 0.5), pct(b, k, 0.99), pct(x, k, 0.5), pct(x, k, 0.99), k
         }' $E/rec/kiosk-latency.downs "$1" "$2" "$3" "$4"
}

compositor_latency() {
    needs udevd
    comp=${1:-cage}
    if ! [ -x /bin/$comp ] || ! [ -x /bin/touch-log ]; then
        echo "E2E BENCH compositor latency: skipped ($comp or the test client is not in the guest)"
        return
    fi
    export CAGE_ENV="WLR_BACKENDS=headless,libinput WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=1 WAYLAND_DEBUG=1"
    RECORD_TARGET=/tmp/lat-panel.events
    play_under $comp $E/rec/kiosk-latency.events ""
    set -- $(down_latency /tmp/writes-$comp.txt $log)
    d50=$1; d99=$2; dmax=$3; dn=$4
    hops_panel=$(compositor_hops /tmp/writes-$comp.txt $log /tmp/comp-$comp.log /tmp/lat-panel.events)
    # The reference hop in the daemon's place: what any program between the panel and cage adds.
    REFERENCE_HOP=1; RECORD_TARGET=/tmp/lat-ref.events
    rn=0; hops_ref="(did not start)"; r50=0; r99=0
    if play_under $comp $E/rec/kiosk-latency.events ""; then
        set -- $(down_latency /tmp/writes-$comp.txt $log)
        r50=$1; r99=$2; rn=$4
        hops_ref=$(compositor_hops /tmp/writes-$comp.txt $log /tmp/comp-$comp.log /tmp/lat-ref.events)
    fi
    REFERENCE_HOP=0
    printf '[device]\nmode = "passthrough"\n' > /tmp/latency.toml
    # With NORMAL_POLICY=1 (E2E_NORMAL_POLICY; not in CI) at the normal policy first (the figure
    # before touchgestured.service raised it), then as the unit runs it.
    RECORD_TARGET=/tmp/lat-mirror.events
    nn=-; hops_normal="not measured (E2E_NORMAL_POLICY=1)"
    if [ "$NORMAL_POLICY" = 1 ]; then
        play_under $comp $E/rec/kiosk-latency.events /tmp/latency.toml
        set -- $(down_latency /tmp/writes-$comp.txt $log)
        n50=$1; n99=$2; nn=$4
        hops_normal=$(compositor_hops /tmp/writes-$comp.txt $log /tmp/comp-$comp.log /tmp/lat-mirror.events)
    fi
    DAEMON_FIFO=1
    play_under $comp $E/rec/kiosk-latency.events /tmp/latency.toml
    unset CAGE_ENV RECORD_TARGET DAEMON_FIFO REFERENCE_HOP
    set -- $(down_latency /tmp/writes-$comp.txt $log)
    p50=$1; p99=$2; pmax=$3; pn=$4
    hops_mirror=$(compositor_hops /tmp/writes-$comp.txt $log /tmp/comp-$comp.log /tmp/lat-mirror.events)
    echo "E2E BENCH compositor hops ($comp, ms p50/p99: the write to the node's frame, the frame to $comp's wl_touch.down sent, sent to the client's receipt; taps): reading the panel: $hops_panel; reading the mirror, the daemon at SCHED_FIFO 10: $hops_mirror; at the normal policy: $hops_normal; reading the reference hop's device (SCHED_FIFO 10): $hops_ref"
    added=$(awk -v a=$p50 -v b=$d50 -v c=$p99 -v d=$d99 'BEGIN { printf "p50 %+.2f ms, p99 %+.2f ms", a - b, c - d }')
    normal="not measured"
    [ "$nn" != - ] && normal=$(awk -v a=$n50 -v b=$d50 -v c=$n99 -v d=$d99 'BEGIN { printf "p50 %+.2f ms, p99 %+.2f ms", a - b, c - d }')
    reference=$(awk -v a=$r50 -v b=$d50 -v c=$r99 -v d=$d99 'BEGIN { printf "p50 %+.2f ms, p99 %+.2f ms", a - b, c - d }')
    line="$comp: panel write to wl_touch.down, the compositor reading the panel: p50 $d50 ms, p99 $d99 ms, max $dmax ms ($dn taps); through the daemon's mirror (SCHED_FIFO 10): p50 $p50 ms, p99 $p99 ms, max $pmax ms ($pn taps); added $added (the daemon at the normal policy: $normal, $nn taps; the reference hop in its place: $reference, $rn taps)"
    echo "E2E BENCH compositor latency: $line"
    if [ "$dn" -ge 30 ] && [ "$pn" -ge 30 ] && { [ "$nn" = - ] || [ "$nn" -ge 30 ]; } && [ "$rn" -ge 30 ]; then
        pass "compositor-latency" "($line)"
    else
        fail "compositor-latency" "(fewer than 30 of 40 taps matched: $line)"
    fi
}

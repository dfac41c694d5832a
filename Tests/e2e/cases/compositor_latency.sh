# shellcheck shell=sh
# E2E BENCH compositor latency: panel write to the client's wl_touch.down, with compositor $1
# reading the panel itself, then reading the daemon's mirror (pass-through, nothing else
# configured); 40 taps each. The added p50 and p99 are the daemon's share.
compositor_latency() {
    needs udevd
    comp=${1:-cage}
    if ! [ -x /bin/$comp ] || ! [ -x /bin/touch-log ]; then
        echo "E2E BENCH compositor latency: skipped ($comp or the test client is not in the guest)"
        return
    fi
    play_under $comp $E/rec/kiosk-latency.events ""
    set -- $(down_latency /tmp/writes-$comp.txt $log)
    d50=$1; d99=$2; dmax=$3; dn=$4
    printf '[device]\nmode = "passthrough"\n' > /tmp/latency.toml
    play_under $comp $E/rec/kiosk-latency.events /tmp/latency.toml
    set -- $(down_latency /tmp/writes-$comp.txt $log)
    p50=$1; p99=$2; pmax=$3; pn=$4
    added=$(awk -v a=$p50 -v b=$d50 -v c=$p99 -v d=$d99 'BEGIN { printf "p50 %+.2f ms, p99 %+.2f ms", a - b, c - d }')
    line="$comp: panel write to wl_touch.down, the compositor reading the panel: p50 $d50 ms, p99 $d99 ms, max $dmax ms ($dn taps); through the daemon's mirror: p50 $p50 ms, p99 $p99 ms, max $pmax ms ($pn taps); added $added"
    echo "E2E BENCH compositor latency: $line"
    if [ "$dn" -ge 30 ] && [ "$pn" -ge 30 ]; then
        pass "compositor-latency" "($line)"
    else
        fail "compositor-latency" "(fewer than 30 of 40 taps matched: $line)"
    fi
}

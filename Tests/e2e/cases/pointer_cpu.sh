# shellcheck shell=sh
# What pointer emulation adds to the daemon's CPU a frame: the benchmark stream's strokes played
# in pass-through, without and with a full-screen pointer region (its pans turn the wheel, its
# flings coast on).
pointer_cpu() {
    needs udevd
    bench_stream
    cat /tmp/passthrough.toml - > /tmp/pointer-cpu.toml <<'TOML'
[[region]]
name = "page"
emulate = "pointer"
TOML
    # A second after the stream counts too (the last fling's tail), in both runs.
    SETTLE_AFTER=1 daemon_cpu pointer-cpu-off --config /tmp/passthrough.toml; cpu_off=$cpu
    SETTLE_AFTER=1 daemon_cpu pointer-cpu-on --config /tmp/pointer-cpu.toml; cpu_on=$cpu
    echo "E2E BENCH pointer emulation CPU per frame (ns, TCG guest, pass-through, no client): off $cpu_off, on $cpu_on (the pointer's writes and kinetic ticks included), $frames frames"
    if [ "$cpu_off" -gt 0 ] && [ "$cpu_on" -gt 0 ]; then
        pass "pointer-cpu" "(pass-through $cpu_off ns a frame; with a pointer region $cpu_on ns)"
    else
        fail "pointer-cpu" "(off '$cpu_off', on '$cpu_on')"
    fi
}

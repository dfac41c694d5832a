# shellcheck shell=sh
passthrough_cpu() {
    needs udevd
    bench_stream
    daemon_cpu cpu-observe; cpu_observe=$cpu
    daemon_cpu cpu-passthrough --config /tmp/passthrough.toml; cpu_passthrough=$cpu
    echo "E2E BENCH pass-through CPU per frame (ns, TCG guest, no client): observe $cpu_observe, passthrough $cpu_passthrough (the virtual touchscreen's writes included), $frames frames"
    if [ "$cpu_observe" -gt 0 ] && [ "$cpu_passthrough" -gt 0 ]; then
        pass "passthrough-cpu" "(observe $cpu_observe ns a frame, passthrough $cpu_passthrough ns)"
    else
        fail "passthrough-cpu" "(observe '$cpu_observe', passthrough '$cpu_passthrough')"
    fi
}

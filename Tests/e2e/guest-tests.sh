#!/bin/sh
# Runs inside the qemu guest (busybox): the real daemon, real uinput touchscreens, a real client.
# The cases are Tests/e2e/cases/NAME.sh (one function each, named as its file), the helpers
# Tests/e2e/lib/*.sh; this file runs them in order and prints "E2E CASE name: PASS|FAIL ..." per
# case and "E2E RESULT: PASS|FAIL" last.
E=/e2e
failures=0
for f in $E/lib/*.sh $E/cases/*.sh; do . $f; done

echo "E2E guest: $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) (available: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource))"
. $E/params.sh
# ONLY (E2E_ONLY on the host): run just the cases whose names it lists, e.g. "two_panels latency".
# Each case gets the environment it needs itself (`needs`), so alone it runs as in the full run.
# Each case's time (the guest's uptime, s) follows it: "E2E TIME name args: N s", where CI's
# minutes go.
run() {
    if [ -z "$ONLY" ] || echo " $ONLY " | grep -q " $1 "; then
        # (A name no case uses: busybox's `local` is seen by the functions it calls.)
        local e2e_case_start
        e2e_case_start=$(cut -d' ' -f1 /proc/uptime)
        "$@"
        echo "E2E TIME $*: $(awk -v t0="$e2e_case_start" '{ printf "%.0f", $1 - t0 }' /proc/uptime) s"
    fi
}
# Two parts, each case in one: PART (E2E_PART on the host) runs one of them; CI boots once for
# each, the benchmarks on a quiet host, then the checks while the host builds beside them.
# The checks: the cases without udevd first (no case has to stop it), then the rest; last, the
# toolkits (an app that drove the display itself, on linuxfb or kmsdrm, leaves the console
# changed for weston's direct launcher, which then hangs, and for the CPU benchmarks' timing).
checks() {
    run live_equals_offline
    run hotplug 20
    run hotplug_storm $STORM
    run unplug_mid_pan
    run syn_dropped $FLOODS
    run record
    run devices_local
    run doctor
    run two_panels
    run with_udevd
    run actions
    run passthrough
    run passthrough_panels
    run passthrough_failsafe
    run passthrough_restart
    run passthrough_fdstore
    run mirror_calibration
    run calibrate
    run mirror_udev_calibration
    run compositor_calibration cage
    run compositor_calibration sway
    run compositor_calibration weston
    run passthrough_syn_dropped
    run system_gesture
    run wake
    run pointer
    run compositor_cage
    run compositor_filtered
    run compositor_sway
    run compositor_weston
    run keyboard
    # Only when named: the README's compositor matrix (six minutes), Chromium (E2E_CHROMIUM=1).
    case " $ONLY " in *" compositor_matrix "*) compositor_matrix ;; esac
    case " $ONLY " in *" compositor_chromium "*) chromium_settings weston; compositor_chromium weston ;; esac
    case " $ONLY " in *" compositor_chromium_cage "*) compositor_chromium cage ;; esac
}
toolkits() {
    run toolkit qt-libinput
    run toolkit qt-evdev
    run toolkit sdl
}
# The benchmarks: times, CPU and instruction counts (each case starts udevd itself).
benchmarks() {
    run passthrough_latency
    run passthrough_load
    run tslib_side_by_side
    run passthrough_cpu
    run pointer_cpu
    run compositor_latency cage
    for variant in $VARIANTS; do run bench_side_by_side $variant; done
    run bench_instructions
    # Only when named: the count with examples/noisy-panel.toml's filters (E2E_ONLY="bench_noisy").
    case " $ONLY " in *" bench_noisy "*) bench_instructions noisy ;; esac
    run latency 0
    run latency 8
}
case $PART in
    benchmarks) benchmarks ;;
    checks) checks; toolkits ;;
    *) checks; benchmarks; toolkits ;;
esac
for f in /tmp/daemon-*.log; do echo "--- $f"; tail -5 $f; done
if [ $failures -eq 0 ]; then echo "E2E RESULT: PASS"; else echo "E2E RESULT: FAIL ($failures)"; fi

# shellcheck shell=sh
# `touchgesturectl doctor` on a live panel, as an admin runs it: the noisy panel's recording played
# on a uinput panel (a frame every 10 ms, a resting finger's noise ±22 units uniform at 15 units a
# mm: a standard deviation of 0.865 mm) while the doctor reads it for 10 s; its --json report rate
# and resting noise within 30 % of those. Then a panel the daemon holds (grab mode): the doctor
# says to stop the service, and reads nothing.

# The number after "KEY": in a JSON line $1.
json_number() { sed -n "s/.*\"$2\":\([-0-9.e]*\).*/\1/p" "$1"; }

doctor() {
    needs no-udevd
    rm -f /tmp/go-doc
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-doc --hold 0.5 $E/rec/noisy.events 2> /tmp/play-pt.log &
    P=$!
    wait_node /tmp/play-pt.log
    touchgesturectl doctor $node --duration 10 --json > /tmp/doctor.json 2> /tmp/doctor.err &
    D=$!
    until_true 5 has_fd $D $node
    touch /tmp/go-doc
    wait $P; wait $D
    status=$?
    rate=$(json_number /tmp/doctor.json report_rate_hz); noise=$(json_number /tmp/doctor.json noise_mm)
    # The daemon grabs a panel: the doctor cannot read it beside the daemon.
    printf '[device]\nmode = "grab"\n' > /tmp/grab.toml
    start_daemon doctor-grab --config /tmp/grab.toml
    rm -f /tmp/go-doc
    touchgesturectl play --uinput --settle 0.2 --hold 3 $E/rec/tap.events 2> /tmp/play-pt.log &
    P=$!
    wait_node /tmp/play-pt.log
    # (the daemon grabs a panel before it logs it added)
    until_true 5 grep -q "added: .*($node)" /tmp/daemon-doctor-grab.log
    touchgesturectl doctor $node --duration 10 > /tmp/doctor-grab.txt 2>&1
    held=$?
    wait $P
    stop_daemon
    if [ "$status" = 0 ] && awk -v r="${rate:-0}" -v n="${noise:-0}" 'BEGIN { exit !(r >= 70 && r <= 130 && n >= 0.6055 && n <= 1.1245) }' \
        && [ "$held" != 0 ] && grep -q "systemctl stop touchgestured" /tmp/doctor-grab.txt; then
        pass "doctor" "(live: report rate $rate Hz for 100, resting noise $noise mm for 0.865; a panel the daemon holds: refused, the service to stop named)"
    else
        fail "doctor" "(status $status, rate '$rate', noise '$noise': $(head -c 300 /tmp/doctor.json) $(tail -3 /tmp/doctor.err | tr '\n' '|'); held $held: $(head -c 300 /tmp/doctor-grab.txt))"
    fi
}

# shellcheck shell=sh
# --- devices --local: capability classification without udevd -------------------------------
devices_local() {
    needs no-udevd
    touchgesturectl play --uinput --settle 1.0 $E/rec/tap.events 2> /tmp/play-local.log &
    PLAY=$!
    wait_node /tmp/play-local.log
    touchgesturectl devices --local > /tmp/devices.txt 2>&1
    wait $PLAY
    # It says what it read, and each taken panel's size as the daemon takes it, with its source.
    if grep -q 'touchgestured virtual panel.*taken: capabilities (multitouch, INPUT_PROP_DIRECT)' /tmp/devices.txt \
        && grep -q 'skipped' /tmp/devices.txt && head -1 /tmp/devices.txt | grep -q '^configuration: ' \
        && grep -q '^    size [0-9]* × [0-9]* mm (' /tmp/devices.txt; then
        pass "devices-local" "($(grep -c taken /tmp/devices.txt) taken, $(grep -c skipped /tmp/devices.txt) skipped)"
    else
        fail "devices-local" "$(tr '\n' '|' < /tmp/devices.txt)"
    fi
}

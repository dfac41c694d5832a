# shellcheck shell=sh
# --- unplug mid-pan: cancelled, then removed, then the next device is served -----------------
unplug_mid_pan() {
    needs no-udevd
    start_daemon unplug
    monitor /tmp/m-unplug.txt
    touchgesturectl play --uinput --settle 0.3 $E/rec/pan-no-lift.events 2>/dev/null
    wait_count /tmp/m-unplug.txt '"action":"removed"' 1
    touchgesturectl play --uinput --settle 0.3 $E/rec/tap.events 2>/dev/null
    stop_monitor_after_removals /tmp/m-unplug.txt 2
    order=$(grep -oE '"phase":"cancelled"|"action":"removed"|"gesture":"tap"' /tmp/m-unplug.txt | tr '\n' ' ')
    # Fleet health: both panels (gone now) stay as series at 0, each removed once; none is up.
    touchgesturectl metrics --socket /tmp/g.sock > /tmp/metrics-unplug.txt
    down=$(grep -c '^touchgestured_device_up{.*} 0$' /tmp/metrics-unplug.txt)
    upnow=$(grep -c '^touchgestured_device_up{.*} 1$' /tmp/metrics-unplug.txt)
    removed=$(grep '^touchgestured_device_removals_total{' /tmp/metrics-unplug.txt | awk '{s += $NF} END {print s + 0}')
    case "$order" in
        '"phase":"cancelled" "action":"removed" "gesture":"tap" "action":"removed" ')
            if [ "$down" -ge 1 ] && [ "$upnow" = 0 ] && [ "$removed" = 2 ]; then
                pass "unplug-mid-pan" "($order; metrics: device_up 0 for the unplugged panels, removals $removed)"
            else
                fail "unplug-mid-pan" "(metrics: device_up 0 series $down, up $upnow, removals $removed: $(grep device_ /tmp/metrics-unplug.txt | tr '\n' '|' | head -c 400))"
            fi ;;
        *) fail "unplug-mid-pan" "($order)" ;;
    esac
    stop_daemon
}

# shellcheck shell=sh
# Touch to wake, in pass-through: after [idle] after, the first tap wakes the kiosk and reaches
# neither libinput (the app) nor clients as a tap; the wake action runs; the next tap passes.
wake() {
    with_libinput wake || return
    rm -f /tmp/woke.txt
    printf '[device]\nmode = "passthrough"\n[idle]\nafter = 1\n[[action]]\nname = "undim"\non = "wake"\nexec = ["/bin/sh", "-c", "echo $TOUCHGESTURED_EVENT >> /tmp/woke.txt"]\n' > /tmp/wake.toml
    start_daemon wake --config /tmp/wake.toml
    monitor /tmp/m-wake.txt
    play_read $E/rec/wake.events mirror /tmp/li-wake.txt /tmp/daemon-wake.log
    stop_monitor_after_removals /tmp/m-wake.txt 1
    stop_daemon
    downs=$(grep -c TOUCH_DOWN /tmp/li-wake.txt); ups=$(grep -c TOUCH_UP /tmp/li-wake.txt)
    order=$(grep -oE '"type":"(idle|wake)"|"gesture":"tap"' /tmp/m-wake.txt | tr '\n' ' ')
    ran=$(cat /tmp/woke.txt 2>/dev/null)
    case "$order" in
        *'"type":"idle" "type":"wake" "gesture":"tap" '*)
            if [ "$downs" = 1 ] && [ "$ups" = 1 ] && [ "$ran" = wake ] && [ "$(grep -c '"gesture":"tap"' /tmp/m-wake.txt)" = 1 ]; then
                pass "wake" "(clients: $order; libinput on the mirror saw $downs of the 2 taps; the wake action ran)"
                return
            fi ;;
    esac
    fail "wake" "(clients: '$order'; libinput downs $downs ups $ups; wake action '$ran': $(tail -4 /tmp/daemon-wake.log | tr '\n' '|'))"
}

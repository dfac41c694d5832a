# shellcheck shell=sh
# A daemon restarted while the panel has a past: a tap, the daemon killed and started again (a
# crash, then systemd), then a tap at the very same place, which the kernel sends with no position.
# The new mirror must show it where it is (it was given the panel's last positions), not at 0, 0.
passthrough_restart() {
    with_libinput passthrough-restart || return
    passthrough_config
    start_daemon restart --config /tmp/passthrough.toml
    rm -f /tmp/go-rs
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-rs --hold 1 $E/rec/kiosk-restart.events 2> /tmp/play-rs.log &
    P=$!
    wait_node /tmp/play-rs.log
    mirror_of /tmp/daemon-restart.log 0
    touch /tmp/go-rs
    sleep 1                    # the first tap is over
    kill -9 $DAEMON; wait $DAEMON 2>/dev/null
    start_daemon restart-again --config /tmp/passthrough.toml
    mirror_of /tmp/daemon-restart-again.log 0
    wait_tagged $mirror
    libinput-debug-events --device $mirror > /tmp/li-rs.txt 2>&1 &
    LM=$!
    has_open $LM $mirror
    wait $P
    li_gone /tmp/li-rs.txt
    kill $LM; wait $LM 2>/dev/null
    stop_daemon
    down=$(grep TOUCH_DOWN /tmp/li-rs.txt | head -1 | grep -oE '[0-9.]+/[0-9.]+ ' | head -1)
    # The tap is at 1900, 1000 of 3840 x 2160 units: 49.5 %, 46.3 % of the screen (53.7 % with
    # the udev rule's calibration, which flips y).
    case "$down" in
        49.[45]*/46.[23]*|49.[45]*/53.[78]*) pass "passthrough-restart" "(the tap after the restart landed at $down % on the new mirror $mirror)" ;;
        *) fail "passthrough-restart" "(the tap after the restart landed at '$down' on the new mirror, not at 49.5 %, 46.3 % or flipped: $(grep TOUCH_ /tmp/li-rs.txt | head -3 | tr '\n' '|'))" ;;
    esac
}

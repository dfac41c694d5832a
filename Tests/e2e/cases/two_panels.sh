# shellcheck shell=sh
# --- two touchscreens at once, each mapped to its own half of the screen ([[panel]]) ---------
two_panels() {
    needs no-udevd  # (with udevd, a local rule ignores the QUANTA panel)
    # The QUANTA panel is a real one's description from ../shared/recordings, copied only where
    # the checkout has that folder beside it (run-qemu.sh): without it, say so.
    if ! [ -f $E/rec/quanta-touch-on-left.desc ]; then
        echo "E2E CASE two-panels: skipped (the QUANTA panel's recording, ../shared/recordings beside the checkout, is absent)"
        return
    fi
    printf '[[panel]]\nmatch = "touchgestured virtual*"\noutput = [0, 0, 960, 1080]\n[[panel]]\nmatch = "QUANTA*"\noutput = [960, 0, 960, 1080]\n' > /tmp/two.toml
    rm -f /tmp/g.sock
    touchgestured --config /tmp/two.toml --socket /tmp/g.sock > /tmp/daemon-two.log 2>&1 &
    DAEMON=$!
    wait_for /tmp/g.sock
    monitor /tmp/m-two.txt
    touchgesturectl play --uinput --settle 0.8 $E/rec/tap.events 2>/dev/null &
    P1=$!
    touchgesturectl play --uinput --settle 0.8 --device $E/rec/quanta-touch-on-left.desc $E/rec/quanta-touch-on-left.events 2>/dev/null &
    P2=$!
    wait $P1
    wait $P2
    stop_monitor_after_removals /tmp/m-two.txt 2
    tapx=$(sed -n 's/.*"gesture":"tap".*"x":\([0-9]*\).*/\1/p' /tmp/m-two.txt | head -1)
    pressx=$(sed -n 's/.*"gesture":"long_press","phase":"began".*"x":\([0-9]*\).*/\1/p' /tmp/m-two.txt | head -1)
    added=$(grep -c '"action":"added"' /tmp/m-two.txt)
    if [ "$added" = 2 ] && [ -n "$tapx" ] && [ -n "$pressx" ] && [ "$tapx" -lt 960 ] && [ "$pressx" -ge 960 ]; then
        pass "two-panels" "(tap at x=$tapx on the left panel, long press at x=$pressx on the right)"
    else
        fail "two-panels" "(added $added, tap x=$tapx, long press x=$pressx)"
    fi
    stop_daemon
}

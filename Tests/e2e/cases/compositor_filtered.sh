# shellcheck shell=sh
# The filtered mirror as an app sees it: cage with the test client (Tests/e2e/wayland/touch-log),
# the daemon in pass-through with examples/noisy-panel.toml, the noisy panel's recording (a
# resting finger, a tap that bounces for a frame, a one-frame ghost, a swipe, a tap: six contacts
# on the panel). The client gets four touches, each down and up (the bounce one touch, no ghost),
# none left down.
compositor_filtered() {
    needs udevd
    needs compositor cage || return
    play_under cage $E/rec/noisy.events $E/noisy-panel.toml
    summary=$(grep ' summary ' $log | tail -1 | cut -d' ' -f3-)
    downs=$(echo "$summary" | sed -n 's/.*downs=\([0-9]*\).*/\1/p')
    ups=$(echo "$summary" | sed -n 's/.* ups=\([0-9]*\).*/\1/p')
    left=$(echo "$summary" | sed -n 's/.* down=\([0-9]*\).*/\1/p')
    if [ "$opened" = 1 ] && [ "$downs" = 4 ] && [ "$ups" = 4 ] && [ "$left" = 0 ]; then
        pass "compositor-filtered" "(cage's client on the filtered mirror: 6 contacts on the panel, $downs touches down and $ups up in the app, none left down)"
    else
        fail "compositor-filtered" "(mirror opened $opened; client: $summary; $(grep -v motion $log | tail -12 | tr '\n' '|'); daemon: $(tail -4 /tmp/daemon-comp-cage.log | tr '\n' '|'))"
    fi
}

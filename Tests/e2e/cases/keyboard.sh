# shellcheck shell=sh
# The on-screen keyboard under sway: examples/keyboard.toml in pass-through, wvkbd started by
# `touchgesturectl keyboard` as the kiosk user in sway's session (`wvkbd -o` prints each key it
# gets), beside the test client in a tiled window (sway draws the top layer, wvkbd's, under a
# fullscreen one); the keyboard recording (Tests/e2e/keyboard-recording.py): a swipe
# up from the bottom edge shows it, two taps on it, a tap above it, a swipe down from the top edge
# hides it, a tap where it was. Then wvkbd is killed: the helper exits and the daemon drops the area.
keyboard() {
    needs udevd
    needs compositor sway || return
    if ! [ -x /bin/wvkbd-mobintl ]; then echo "E2E CASE keyboard: skipped (wvkbd is not in the guest)"; return; fi
    kiosk_session
    { cat $E/keyboard.toml; printf '[device]\nmode = "passthrough"\n'; } > /tmp/keyboard.toml
    start_daemon keyboard --config /tmp/keyboard.toml
    # The kiosk user is in the socket's group, as README's install makes it.
    chgrp kiosk /tmp/g.sock /tmp/g-requests.sock && chmod 660 /tmp/g.sock /tmp/g-requests.sock
    monitor /tmp/kb-gestures.txt
    log=/tmp/client-kb.log
    rm -f /tmp/go-kb /tmp/kiosk/wvkbd.out /tmp/kiosk/helper.log
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-kb --hold 1 --write-times /tmp/writes-kb.txt \
        $E/rec/keyboard.events 2> /tmp/play-kb.log &
    P=$!
    wait_node /tmp/play-kb.log
    mirror_of /tmp/daemon-keyboard.log 0
    wait_tagged $mirror
    # sway's headless output is 1280x720 and the daemon's screen 1920x1080: the keyboard is 300
    # of the screen's pixels, 200 of the output's (GUIDE.md: a height in each one's pixels).
    TOUCH_LOG_TILED=1 SWAY_EXEC="exec touchgesturectl keyboard --socket /tmp/g.sock --height 300 -- wvkbd-mobintl --hidden -H 200 -L 200 -o > /tmp/kiosk/wvkbd.out 2> /tmp/kiosk/helper.log" \
        start_compositor sway $log
    until_true 20 grep -q 'set regions\|request socket' /tmp/daemon-keyboard.log
    until_true 10 pidof wvkbd-mobintl
    sleep 2
    touch /tmp/go-kb
    wait $P
    sleep 1
    excluded=$(grep -c 'set regions: keyboard' /tmp/daemon-keyboard.log)
    # The keyboard goes (it crashed, or someone killed it): the helper exits, the area is free.
    kill $(pidof wvkbd-mobintl) 2> /dev/null
    until_true 5 grep -q 'the keyboard exited' /tmp/kiosk/helper.log
    until_true 5 grep -q 'disconnected' /tmp/daemon-keyboard.log
    helper_left=$(pidof touchgesturectl | wc -w)
    stop_compositor sway
    kill $MON 2> /dev/null
    stop_daemon
    client_parts $log /tmp/writes-kb.txt $E/rec/keyboard.segments > /tmp/parts-kb.txt
    parts=$(tr '\n' ';' < /tmp/parts-kb.txt)
    keys=$(tr -d ' \n' < /tmp/kiosk/wvkbd.out | wc -c)
    taps=$(grep -c '"gesture":"tap"' /tmp/kb-gestures.txt)
    on_keys=$(grep '"gesture":"tap"' /tmp/kb-gestures.txt | grep -c '"y":9[57][05]\.[05]')
    sizes=$(grep -E ' (ready|size) ' $log | cut -d' ' -f2- | tr '\n' ';')
    detail="(keys wvkbd printed $keys, daemon taps $taps of which on its area $on_keys, regions set $excluded, window $sizes by part, downs ups cancels: $parts helper: $(tr '\n' '|' < /tmp/kiosk/helper.log))"
    # The two edge swipes never reach the app (delays_touches_began). Shown: the window shrinks by the keyboard's 200 px, the two taps on it reach wvkbd (two
    # keys) and neither the app nor a gesture; the tap above reaches both. Hidden: the window
    # grows back and the tap where the keyboard was reaches the app and the gestures again.
    if [ "$keys" = 2 ] && [ "$taps" = 2 ] && [ "$on_keys" = 1 ] && [ "$excluded" -ge 1 ] \
        && echo "$sizes" | grep -q 'size 1280 520;size 1280 720' \
        && grep -q '^key-1 0 0 0' /tmp/parts-kb.txt && grep -q '^key-2 0 0 0' /tmp/parts-kb.txt \
        && grep -q '^above 1 1 0' /tmp/parts-kb.txt && grep -q '^after 1 1 0' /tmp/parts-kb.txt \
        && grep -q '^show 0 0 0' /tmp/parts-kb.txt && grep -q '^hide 0 0 0' /tmp/parts-kb.txt \
        && grep -q 'the keyboard exited' /tmp/kiosk/helper.log; then
        pass keyboard "$detail"
    else
        grep -v motion $log | sed 's/^/E2E CLIENT /' | head -40
        sed 's/^/E2E DAEMON /' /tmp/daemon-keyboard.log | grep -v trace | tail -20
        grep -v changed /tmp/kb-gestures.txt | cut -c1-200 | sed 's/^/E2E GESTURE /' 
        fail keyboard "$detail"
    fi
}

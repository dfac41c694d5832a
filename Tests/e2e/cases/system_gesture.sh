# shellcheck shell=sh
# System gestures take their touches (README's example): the left-edge swipe, bound to Alt+Left
# and holding touches back (`delays_touches_began`), is never seen by libinput (the app) while
# the virtual keyboard sends the chord; a three-finger hold bound to an action cancels the three
# fingers already on the app, and a tap on the same slots afterwards reaches it (the slots' tool
# type is back to finger); a tap in the edge band reaches it once the edge swipe failed; a tap
# mid-screen passes at once.
system_gesture() {
    with_libinput system-gesture || return
    kiosk_toml passthrough palm 150 'keys = "KEY_LEFTALT+KEY_LEFT"' > /tmp/system.toml
    start_daemon system --config /tmp/system.toml
    monitor /tmp/m-system.txt
    logged_node /tmp/daemon-system.log "virtual keyboard for key actions: "
    kbd=$logged
    touchgesturectl record "$kbd" --duration 25 -o /tmp/kbd-system.events 2>/dev/null &
    REC=$!
    for rec in edge-swipe hold3 edge-tap tap; do
        play_read $E/rec/$rec.events mirror /tmp/li-sys-$rec.txt /tmp/daemon-system.log
    done
    kill -INT $REC; wait $REC
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    counts() { echo "$(grep -c TOUCH_DOWN $1) $(grep -c TOUCH_CANCEL $1) $(grep -c TOUCH_UP $1)"; }
    edge=$(counts /tmp/li-sys-edge-swipe.txt); hold=$(counts /tmp/li-sys-hold3.txt)
    edgetap=$(counts /tmp/li-sys-edge-tap.txt); tap=$(counts /tmp/li-sys-tap.txt)
    began=$(grep -c '"gesture":"edge_swipe","phase":"began"' /tmp/m-system.txt)
    admin=$(grep -c '"name":"admin","phase":"began"' /tmp/m-system.txt)
    keys=$(grep '^E:' /tmp/kbd-system.events 2>/dev/null | awk '{printf "%s %s %s;", $3, $4, $5}')
    chord="0001 0038 1;0000 0000 0;0001 0069 1;0000 0000 0;0001 0069 0;0000 0000 0;0001 0038 0;0000 0000 0;"
    if [ "$edge" = "0 0 0" ] && [ "$hold" = "4 3 1" ] && [ "$edgetap" = "1 0 1" ] && [ "$tap" = "1 0 1" ] \
        && [ "$began" = 1 ] && [ "$admin" = 1 ] && [ "$keys" = "$chord" ]; then
        pass "system-gesture" "(libinput on the mirror, down/cancel/up: edge swipe $edge (never seen, Alt+Left sent on $kbd), three-finger hold then a tap $hold, tap in the edge band $edgetap (when the edge swipe failed), tap mid-screen $tap)"
    else
        fail "system-gesture" "(down/cancel/up: edge swipe '$edge', hold+tap '$hold', edge tap '$edgetap', tap '$tap'; edge_swipe began $began, admin began $admin; keys '$keys': $(tail -3 /tmp/daemon-system.log | tr '\n' '|'))"
    fi
}

# shellcheck shell=sh
pointer() {
    with_libinput pointer || return
    cat > /tmp/pointer.toml <<'TOML'
[device]
mode = "passthrough"
[[region]]
name = "page"
emulate = "pointer"
[region.pointer]
pixels_per_notch = 50
TOML
    start_daemon pointer --config /tmp/pointer.toml
    logged_node /tmp/daemon-pointer.log "virtual pointer for 'page': "
    ptr=$logged
    wait_tagged $ptr
    mouse=$(udevadm info --query=property --name=$ptr 2>/dev/null | grep -c '^ID_INPUT_MOUSE=1')
    for rec in tap ptr-hold ptr-drag ptr-fling; do play_pointer $E/rec/$rec.events $rec; done
    stop_daemon
    report=""; ok=1
    check() { if [ "$1" = 1 ]; then report="$report; $2"; else ok=0; report="$report; FAILED $2"; fi; }
    check "$mouse" "$ptr ID_INPUT_MOUSE=1"
    caps=$(grep -c 'DEVICE_ADDED.*touchgestured pointer.*cap:[a-z]*p' /tmp/li-tap.txt)
    check "$caps" "libinput: a pointer"

    # A tap: an absolute motion to the tap's place (960, 540 of 1920x1080: 50 %), a left click.
    at=$(li_abs /tmp/li-tap.txt)
    near=$(echo "$at" | awk '{ print ($1 > 49.8 && $1 < 50.3 && $2 > 49.8 && $2 < 50.3) ? 1 : 0 }')
    clicks=$(grep -c 'BTN_LEFT (272) pressed' /tmp/li-tap.txt)$(grep -c 'BTN_LEFT (272) released' /tmp/li-tap.txt)
    touches=$(grep -c 'TOUCH_DOWN' /tmp/li-mirror-tap.txt)
    check "$near" "tap: motion to $at %"
    check "$([ "$clicks" = 11 ] && echo 1)" "tap: left press/release ($clicks)"
    check "$([ "$touches" = 0 ] && echo 1)" "tap: the app saw $touches touches on the mirror"

    # A long press: a right press/release at its place at the deadline (500 ms after the touch
    # down), well before the lift (1.5 s). The guest's udev rule flips the virtual panel's Y
    # (LIBINPUT_CALIBRATION_MATRIX, which the daemon applies): (1000, 800) of 3840x2160 units is
    # (500.1, 679.8) px, 26.06 / 63.00 % of the pointer's 1919 x 1079.
    atx=$(li_abs /tmp/li-ptr-hold.txt)
    near=$(echo "$atx" | awk '{ print ($1 > 25.9 && $1 < 26.2 && $2 > 62.8 && $2 < 63.2) ? 1 : 0 }')
    right=$(grep -c 'BTN_RIGHT (273) pressed' /tmp/li-ptr-hold.txt)$(grep -c 'BTN_RIGHT (273) released' /tmp/li-ptr-hold.txt)
    down=$(head -1 /tmp/w-ptr-hold.txt); lift=$(tail -1 /tmp/w-ptr-hold.txt)
    press=$(ptr_times /tmp/r-ptr-hold.events 0001 0111 1 | head -1)
    after=$(awk -v p="${press:-0}" -v d="$down" 'BEGIN { printf "%.0f", (p - d) * 1000 }')
    before_lift=$(awk -v p="${press:-0}" -v l="$lift" 'BEGIN { print (p > 0 && p < l - 0.5) ? 1 : 0 }')
    check "$near" "long press: motion to $atx %"
    check "$([ "$right" = 11 ] && echo 1)" "long press: right press/release ($right)"
    check "$([ "$after" -ge 480 ] && [ "$after" -le 800 ] && [ "$before_lift" = 1 ] && echo 1)" "long press: right press ${after} ms after the touch down, before the lift"

    # A slow drag of 1200 units (600 px of the 2160 units' 1080: up on the screen, Y flipped):
    # wheel events whose v120 add up to the travel at 50 px a notch: 1440, positive in
    # libinput's sign (scrolls down: the content follows the finger up).
    sum=$(li_v120 /tmp/li-ptr-drag.txt | awk '{ s += $1; n++ } END { printf "%d %d", s, n }')
    total=${sum% *}; n=${sum#* }
    check "$([ "$total" = 1440 ] && [ "$n" -ge 20 ] && echo 1)" "drag: $n POINTER_SCROLL_WHEEL events, v120 sum $total (travel 600 px / 50 px × 120 = 1440)"

    # A fling (down on the screen: REL_WHEEL_HI_RES > 0), then a touch 0.3 s later: wheel events
    # go on after the lift, decaying, and stop at the new touch.
    lift=$(sed -n 12p /tmp/w-ptr-fling.txt); touch2=$(sed -n 13p /tmp/w-ptr-fling.txt)
    tail=$(awk -v l="$lift" -v d="$touch2" '$1 == "E:" && $3 == "0002" && $4 == "000b" && $2 > l && $2 < d + 0.002 { print $5 }' /tmp/r-ptr-fling.events)
    late=$(awk -v d="$touch2" '$1 == "E:" && $3 == "0002" && $4 == "000b" && $2 > d + 0.05 { n++ } END { print n + 0 }' /tmp/r-ptr-fling.events)
    # The pan's last step can land just after the writer's lift on a busy host (a small value
    # first): the tail is judged from its largest tick, among the first three, down to its last.
    nt=$(echo "$tail" | grep -c .); last=$(echo "$tail" | tail -1)
    peak=$(echo "$tail" | awk 'NR <= 3 && $1 > p { p = $1 } END { print p + 0 }')
    after=$(echo "$tail" | awk -v p="$peak" 'seen { if ($1 > p) up++ } $1 == p { seen = 1 } END { print up + 0 }')
    check "$([ "$nt" -ge 10 ] && [ "$peak" -gt 0 ] && [ "${last:-0}" -lt "$peak" ] && [ "${last:-0}" -gt 0 ] && [ "$after" = 0 ] && [ "$late" = 0 ] && echo 1)" "fling: $nt wheel events in the 0.3 s after the lift, from $(echo "$tail" | head -1) (largest $peak) to $last (decaying), $late after the next touch"

    if [ $ok = 1 ]; then pass "pointer" "(${report#; })"; else fail "pointer" "(${report#; }: $(tail -3 /tmp/daemon-pointer.log | tr '\n' '|'))"; fi
}

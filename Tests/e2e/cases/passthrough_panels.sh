# shellcheck shell=sh
# Panels the mirror must make good, read by libinput as a compositor reads them:
# - a multitouch panel without slots (protocol A): libinput reads it itself (through mtdev) as the
#   reference, then reads its mirror (slots, made by the daemon's tracking): the same touches
#   landing and lifting in the same places (mtdev drops moves under its default fuzz, the mirror
#   passes them: the moves between are not compared);
# - a noisy panel through examples/noisy-panel.toml: libinput on the live mirror against libinput on
#   what `replay --mirror` wrote offline for the same recording (played on a panel of its own):
#   the same touches (the bounce one touch, no ghost), each lifting within 3 mm of the offline
#   one (the dejitter reads the frames' times, which the emulator's pacing moves), the 500 mm/s
#   swipe within 6 mm of where the finger lifted.

# libinput's touch lines ($1) without device, time and slot columns: what and where.
li_places() { li_touches "$1" | awk '{ gsub(/\/ +/, "/"); out = $1; for (i = 2; i <= NF; i++) if ($i ~ /\//) out = out " " $i; print out }'; }

# libinput's log $1: each touch's last place before its lift ("x y", in % of the screen).
li_lifts() { awk '$2 == "TOUCH_DOWN" || $2 == "TOUCH_MOTION" { gsub(/\/ +/, "/"); for (i = 4; i <= NF; i++) if ($i ~ /^[0-9.]+\/[0-9.]+$/) { split($i, p, "/"); last = p[1] " " p[2] } } $2 == "TOUCH_UP" { print last }' "$1"; }

passthrough_panels() {
    with_libinput passthrough_panels || return
    play_read $E/rec/protocol-a.events panel /tmp/li-a-ref.txt
    passthrough_config
    start_daemon passthrough --config /tmp/passthrough.toml
    play_read $E/rec/protocol-a.events mirror /tmp/li-a.txt /tmp/daemon-passthrough.log
    stop_daemon
    li_places /tmp/li-a-ref.txt | grep -v -e MOTION -e FRAME > /tmp/li-a-ref-places.txt
    li_places /tmp/li-a.txt | grep -v -e MOTION -e FRAME > /tmp/li-a-places.txt
    li_lifts /tmp/li-a-ref.txt > /tmp/lifts-a-ref.txt; li_lifts /tmp/li-a.txt > /tmp/lifts-a.txt
    a_apart=$(worst_apart /tmp/lifts-a-ref.txt /tmp/lifts-a.txt)
    a_downs=$(grep -c TOUCH_DOWN /tmp/li-a-places.txt)
    play_read $E/rec/noisy-mirror.events panel /tmp/li-noisy-ref.txt
    start_daemon passthrough --config $E/noisy-panel.toml
    play_read $E/rec/noisy.events mirror /tmp/li-noisy.txt /tmp/daemon-passthrough.log
    stop_daemon
    raw=$(grep -c ' 0003 0039 [0-9]' $E/rec/noisy.events)
    ref_downs=$(grep -c TOUCH_DOWN /tmp/li-noisy-ref.txt); downs=$(grep -c TOUCH_DOWN /tmp/li-noisy.txt)
    li_lifts /tmp/li-noisy-ref.txt > /tmp/lifts-ref.txt; li_lifts /tmp/li-noisy.txt > /tmp/lifts.txt
    # In % of a 256 x 144 mm panel: 1 mm is 0.39 % across, 0.69 % down; the worst of both, in mm.
    apart=$(paste -d' ' /tmp/lifts-ref.txt /tmp/lifts.txt | awk '
        function d(a, b) { return a > b ? a - b : b - a }
        NF == 4 { n++; x = d($1, $3) * 2.56; y = d($2, $4) * 1.44; if (x > w) w = x; if (y > w) w = y }
        END { printf "%d %.2f", n, w }')
    # The swipe (the third touch) lifted at 1500 of 3840 units: 39.06 % across.
    swipe_off=$(sed -n 3p /tmp/lifts.txt | awk '{ d = $1 - 39.06; if (d < 0) d = -d; printf "%.2f", d * 2.56 }')
    if [ "$a_downs" = 3 ] && diff /tmp/li-a-ref-places.txt /tmp/li-a-places.txt > /tmp/diff-a.txt \
        && [ "${a_apart% *}" = 3 ] && awk -v w="${a_apart#* }" 'BEGIN { exit !(w <= 0.5) }' \
        && [ "$ref_downs" = 4 ] && [ "$downs" = 4 ] && [ "$raw" = 6 ] \
        && [ "${apart% *}" = 4 ] && awk -v w="${apart#* }" -v s="${swipe_off:-99}" 'BEGIN { exit !(w <= 3 && s <= 6) }'; then
        pass "passthrough_panels" "(protocol A: libinput read the mirror as it read the panel through mtdev: $a_downs touches landing and lifting in the same places, lifts within ${a_apart#* } % of the screen; noisy panel: $raw touches on the panel, $downs on the live mirror as offline ($ref_downs), each lifting within ${apart#* } mm of offline, the swipe $swipe_off mm from the finger's lift)"
    else
        fail "passthrough_panels" "(protocol A: $a_downs downs, lifts apart '$a_apart', diff $(head -c 300 /tmp/diff-a.txt | tr '\n' '|'); noisy: raw $raw, offline $ref_downs, live $downs downs, lifts apart '$apart', swipe off '$swipe_off' mm; lifts $(tr '\n' '|' < /tmp/lifts.txt) offline $(tr '\n' '|' < /tmp/lifts-ref.txt); $(tail -3 /tmp/daemon-passthrough.log | tr '\n' '|'))"
    fi
}

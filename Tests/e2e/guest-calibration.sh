# Sourced by guest-tests.sh: touch that lands where the finger is. The mirror carries its panel's
# calibration and rotation, so the compositor (here libinput, as it reads the mirror) places each
# touch where the daemon's own gestures see it.

# libinput-debug-events' log $1: each touch's first place (TOUCH_DOWN), in px of the 1920 x 1080
# screen (libinput pads its numbers, "%5.2f/%5.2f": a small one has a space after the slash).
li_downs() { awk '$2 == "TOUCH_DOWN" { gsub(/\/ +/, "/"); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+\/[0-9.]+$/) { split($i, p, "/"); print p[1] * 19.2, p[2] * 10.8; break } }' "$1"; }
# The monitor's log $1: each recognized tap's x and y.
tap_places() { grep '"gesture":"tap",' "$1" | grep '"phase":"recognized"' | sed -n 's/.*,"x":\([-0-9.]*\),"y":\([-0-9.]*\),.*/\1 \2/p'; }
# Files of "x y" rows side by side: how many rows all of them have, and the largest difference of
# any file's x or y from the first file's on the same row ("N WORST").
worst_apart() {
    paste -d' ' "$@" | awk -v files=$# '
        function d(a, b) { return a > b ? a - b : b - a }
        NF == 2 * files { n++; for (k = 3; k < NF; k += 2) { if (d($k, $1) > w) w = d($k, $1); if (d($(k + 1), $2) > w) w = d($(k + 1), $2) } }
        END { printf "%d %.2f", n, w }'
}

# A rotated, skewed panel in pass-through: five taps (four corners and the middle); each tap's
# position in the daemon's gesture lines (screen px) against libinput's first TOUCH_DOWN on the
# mirror for it (percent of the mirror's axes, times the screen's 1920 x 1080): within 1 px, as
# the issue asks (the daemon normalizes as libinput does; what is left is the mirror's rounding to
# its units and libinput's two-decimal percent, 0.2 px).
mirror_calibration() {
    with_libinput mirror-calibration || return
    printf '[device]\nmode = "passthrough"\nrotation = 90\ncalibration = [1.02, 0.01, -0.015, -0.01, 0.97, 0.02]\n' > /tmp/mc.toml
    start_daemon mc --config /tmp/mc.toml
    monitor /tmp/m-mc.txt
    play_read $E/rec/corners.events mirror /tmp/li-mc.txt /tmp/daemon-mc.log
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    tap_places /tmp/m-mc.txt > /tmp/mc-daemon.txt
    li_downs /tmp/li-mc.txt > /tmp/mc-libinput.txt
    worst=$(worst_apart /tmp/mc-daemon.txt /tmp/mc-libinput.txt)
    set -- $worst
    pairs=$(paste -d' ' /tmp/mc-daemon.txt /tmp/mc-libinput.txt | tr '\n' ';')
    if [ "$1" = 5 ] && awk -v w=$2 'BEGIN { exit !(w <= 1.0) }'; then
        pass "mirror-calibration" "(rotation 90 and a skewed calibration: 5 taps, the daemon's position and libinput's on the mirror at most $2 px apart: $pairs)"
    else
        fail "mirror-calibration" "($1 taps paired, worst $2 px: daemon x y, libinput x y: $pairs; $(grep -E 'passed through' /tmp/daemon-mc.log | tail -1))"
    fi
}

# The calibrator, as an installer runs it on a skewed panel (skewed-corners.events: a finger
# resting on each corner of the screen in turn): `touchgesturectl calibrate` reads the touches
# from the daemon (pass-through), writes its drop-in, and the daemon reloads. Then taps on the
# same corners and the middle (skewed-check.events) land, in the daemon's gestures and in
# libinput on the mirror, on the corners' pixels and the middle within 1 px. Last, with no
# daemon, `calibrate --node` reads the same touches from the panel itself and fits the same matrix.
# Two matrices as the drop-in writes them ("[a, b, c, d, e, f]"), each number within 0.0002 of
# the other's (0.4 px on a 1920 px screen: the daemon's touch lines give u and v to 5 decimals).
same_matrix() {
    [ -n "$1" ] && [ -n "$2" ] && echo "$1 $2" | tr -d '[],' | awk '
        NF == 12 { for (i = 1; i <= 6; i++) { d = $i - $(i + 6); if (d < 0) d = -d; if (d > 0.0002) exit 1 }; exit 0 }
        { exit 1 }'
}
calibrate() {
    with_libinput calibrate || return
    rm -rf /tmp/cal.d /tmp/cal-node.toml
    printf '[device]\nmode = "passthrough"\n' > /tmp/cal.toml
    start_daemon cal --config /tmp/cal.toml
    touchgesturectl calibrate --socket /tmp/g.sock --config /tmp/cal.toml --timeout 60 > /tmp/cal-out.txt 2>&1 &
    CAL=$!
    # The calibrator subscribes once the panel is added: the play waits a second before touching.
    touchgesturectl play --uinput --settle 1.0 $E/rec/skewed-corners.events 2>/dev/null
    wait $CAL; status=$?
    monitor /tmp/m-cal.txt
    play_read $E/rec/skewed-check.events mirror /tmp/li-cal.txt /tmp/daemon-cal.log
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    tap_places /tmp/m-cal.txt > /tmp/cal-daemon.txt
    li_downs /tmp/li-cal.txt > /tmp/cal-libinput.txt
    printf '0 0\n1919 0\n0 1079\n1919 1079\n960 540\n' > /tmp/cal-goals.txt
    worst=$(worst_apart /tmp/cal-goals.txt /tmp/cal-daemon.txt /tmp/cal-libinput.txt)
    set -- $worst
    # No daemon: the calibrator reads the panel itself.
    rm -f /tmp/go-cal
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-cal $E/rec/skewed-corners.events 2> /tmp/play-cal.log &
    P=$!
    wait_node /tmp/play-cal.log
    touchgesturectl calibrate --node $node --config /tmp/cal.toml --write /tmp/cal-node.toml --timeout 60 > /tmp/cal-node-out.txt 2>&1 &
    CAL=$!
    has_open $CAL $node
    touch /tmp/go-cal
    wait $P; wait $CAL; node_status=$?
    daemon_matrix=$(sed -n 's/^calibration = //p' /tmp/cal.d/calibration.toml 2>/dev/null)
    node_matrix=$(sed -n 's/^calibration = //p' /tmp/cal-node.toml 2>/dev/null)
    pairs=$(paste -d' ' /tmp/cal-daemon.txt /tmp/cal-libinput.txt | tr '\n' ';')
    if [ "$status" = 0 ] && grep -q 'Applied: the daemon reloaded' /tmp/cal-out.txt && [ "$1" = 5 ] \
        && awk -v w=$2 'BEGIN { exit !(w <= 1.0) }' && [ "$node_status" = 0 ] && [ -n "$node_matrix" ] \
        && same_matrix "$node_matrix" "$daemon_matrix"; then
        pass "calibrate" "(4 corner touches on a skewed panel: $(grep 'largest error' /tmp/cal-out.txt); calibration = $daemon_matrix, applied by a reload; corners and middle after it at most $2 px from their pixels in the daemon's gestures and libinput's on the mirror: $pairs; --node with no daemon fits the same matrix)"
    else
        fail "calibrate" "(exit $status, node exit $node_status, $1 taps paired, worst $2 px: $pairs; daemon's $daemon_matrix, --node's $node_matrix; $(tr '\n' '|' < /tmp/cal-out.txt | tail -c 600) | $(tr '\n' '|' < /tmp/cal-node-out.txt | tail -c 300))"
    fi
}

# A calibration given to the panel by udev (the guest's rule flips the virtual panel's Y with
# LIBINPUT_CALIBRATION_MATRIX, and names the mirror alike): libinput reads the same five taps at
# the same places from the panel in observe mode and from the mirror in pass-through, where the
# daemon carries udev's matrix and touchgestured's rule gives the mirror the identity.
mirror_udev_calibration() {
    with_libinput mirror-udev-calibration || return
    printf '[device]\nmode = "observe"\n' > /tmp/muc-observe.toml
    start_daemon muc-observe --config /tmp/muc-observe.toml
    play_read $E/rec/corners.events panel /tmp/li-muc-panel.txt /tmp/daemon-muc-observe.log
    stop_daemon
    printf '[device]\nmode = "passthrough"\n' > /tmp/muc-pass.toml
    start_daemon muc-pass --config /tmp/muc-pass.toml
    play_read $E/rec/corners.events mirror /tmp/li-muc-mirror.txt /tmp/daemon-muc-pass.log
    stop_daemon
    li_downs /tmp/li-muc-panel.txt > /tmp/muc-panel.txt
    li_downs /tmp/li-muc-mirror.txt > /tmp/muc-mirror.txt
    # The rule flips Y: the first tap, 100 units from the panel's top, is near the screen's bottom.
    flipped=$(awk 'NR == 1 { print ($2 > 540) ? 1 : 0 }' /tmp/muc-panel.txt)
    worst=$(worst_apart /tmp/muc-panel.txt /tmp/muc-mirror.txt)
    set -- $worst
    pairs=$(paste -d' ' /tmp/muc-panel.txt /tmp/muc-mirror.txt | tr '\n' ';')
    if [ "$1" = 5 ] && awk -v w=$2 'BEGIN { exit !(w <= 1.0) }' && [ "$flipped" = 1 ]; then
        pass "mirror-udev-calibration" "(udev's LIBINPUT_CALIBRATION_MATRIX flips the panel's Y: 5 taps, libinput's places on the panel (observe) and on the mirror (pass-through, the matrix carried by the daemon, the mirror's own the identity) at most $2 px apart: $pairs)"
    else
        fail "mirror-udev-calibration" "($1 taps paired, worst $2 px, flipped $flipped: $pairs)"
    fi
}

# The compositors of the matrix read the rotated, skewed mirror (mirror_calibration's config):
# each tap's wl_touch.down at the client, as a fraction of its window (the output), against the
# daemon's gesture position for the same tap (replay of the same recording with the same config),
# as a fraction of the screen: within 1 px of 1920 x 1080.
compositor_calibration() {
    comp=$1
    if ! [ -x /bin/$comp ] || ! [ -x /bin/touch-log ]; then
        echo "E2E CASE compositor-calibration-$comp: skipped ($comp or the test client is not in the guest)"
        return
    fi
    printf '[device]\nmode = "passthrough"\nrotation = 90\ncalibration = [1.02, 0.01, -0.015, -0.01, 0.97, 0.02]\n' > /tmp/cc.toml
    touchgesturectl replay --config /tmp/cc.toml $E/rec/corners.events 2>/dev/null > /tmp/cc-replay.txt
    tap_places /tmp/cc-replay.txt > /tmp/cc-daemon.txt
    play_under $comp $E/rec/corners.events /tmp/cc.toml
    size=$(sed -n 's/.* ready \([0-9]*\) \([0-9]*\).*/\1 \2/p' $log | head -1)
    awk -v size="$size" '$2 == "touch" && $3 == "down" { split(size, s, " "); printf "%.2f %.2f\n", $5 / s[1] * 1920, $6 / s[2] * 1080 }' $log > /tmp/cc-client.txt
    worst=$(worst_apart /tmp/cc-daemon.txt /tmp/cc-client.txt)
    set -- $worst
    pairs=$(paste -d' ' /tmp/cc-daemon.txt /tmp/cc-client.txt | tr '\n' ';')
    if [ "$opened" = 1 ] && [ "$1" = 5 ] && awk -v w=$2 'BEGIN { exit !(w <= 1.0) }'; then
        pass "compositor-calibration-$comp" "(rotation 90 and a skewed calibration carried by the mirror, no compositor setting: 5 taps at the client (window $size) within $2 px of the daemon's, in 1920 x 1080: $pairs)"
    else
        fail "compositor-calibration-$comp" "(mirror opened $opened, window '$size', $1 taps paired, worst $2 px: $pairs; client: $(grep -v motion $log | tail -8 | tr '\n' '|'))"
    fi
}

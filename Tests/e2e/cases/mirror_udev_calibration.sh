# shellcheck shell=sh
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

# shellcheck shell=sh
# The compositors of the matrix read the rotated, skewed mirror (mirror_calibration's config):
# each tap's wl_touch.down at the client, as a fraction of its window (the output), against the
# daemon's gesture position for the same tap (replay of the same recording with the same config),
# as a fraction of the screen: within 1 px of 1920 x 1080.
compositor_calibration() {
    needs udevd
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

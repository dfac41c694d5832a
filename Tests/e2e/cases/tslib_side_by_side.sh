# shellcheck shell=sh
# The panel filters beside tslib's, the incumbent (Debian's libts-bin: ts_uinput reads the panel
# through a ts.conf chain and writes a uinput touchscreen), on the noisy panel's recording
# (Tests/e2e/noisy-recording.py: a finger resting 1 s with about ±1.5 mm of noise, a tap that
# bounces for a frame, a one-frame ghost, a 500 mm/s swipe lifted mid-move, a tap; 15 units a
# millimetre). Each output is recorded as an app would read it, and measured against what the
# panel sent: the resting finger's jitter (the standard deviation of its position, mm), the
# swipe's lag (the distance behind the finger, mm, on average and at the lift) and the touches
# an app sees (the panel sends six). The case fails when an output shows nothing, or when the
# daemon's jitter is not below both tslib chains' at no more lag.

# A recording's frames as "k x y id": the frame's number, the first contact down (its position
# and tracking id; id -1 and no position when none is down). With "t" as $2, its time instead.
ts_frames() { # evemu file [t]
    awk -v by="$2" 'BEGIN { s = 0 } /^E:/ {
        if ($3 == "0003") {
            if ($4 == "002f") s = $5
            else if ($4 == "0039") id[s] = $5
            else if ($4 == "0035") x[s] = $5
            else if ($4 == "0036") y[s] = $5
        } else if ($3 == "0000" && $4 == "0000") {
            k++; out = "-1"
            for (i = 0; i < 16; i++) if ((i in id) && id[i] >= 0) { out = x[i] " " y[i] " " id[i]; break }
            print (by == "t" ? $2 : k), out
        } }' "$1"
}

# A square root for awk (the guest's busybox awk has no math library, not even `^`): Newton's method.
TS_ROOT='function root(v,  r, i) { if (v <= 0) return 0; r = v > 1 ? v : 1; for (i = 0; i < 60; i++) r = (r + v / r) / 2; return r }'

# One output's figures (recording $1, the player's write times $2, the panel's frames
# /tmp/ts-raw.txt): "jitter_mm spread_mm lag_mm lift_mm touches". Each output frame is matched
# to the last panel frame written before it; the rest is the panel's contact 1, the swipe its 5.
ts_measure() {
    touches=$(grep -c '^E: [0-9.]* 0003 0039 [0-9]' "$1")
    ts_frames "$1" t | awk -v touches="$touches" "$TS_ROOT"'
        FILENAME == ARGV[1] { w[++nw] = $1; next }
        FILENAME == ARGV[2] { rx[$1] = $2; ry[$1] = $3; rid[$1] = $NF; next }
        NF < 4 { next }
        { while (k < nw && w[k + 1] <= $1) k++
          if (k == 0) next
          if (rid[k] == 1) {
              n++; sx += $2; sy += $3; sxx += $2 * $2; syy += $3 * $3
              if (n == 1 || $2 < x0) x0 = $2; if (n == 1 || $2 > x1) x1 = $2
              if (n == 1 || $3 < y0) y0 = $3; if (n == 1 || $3 > y1) y1 = $3
          }
          if (rid[k] == 5) { m++; dx = $2 - rx[k]; dy = $3 - ry[k]; d = root(dx * dx + dy * dy) / 15; sum += d; last = d } }
        END {
            if (n == 0 || m == 0) { print "none"; exit }
            var = sxx / n - (sx / n) * (sx / n) + syy / n - (sy / n) * (sy / n)
            printf "%.2f %.1f %.2f %.2f %d\n", root(var) / 15, ((x1 - x0) > (y1 - y0) ? x1 - x0 : y1 - y0) / 15, sum / m, last, touches
        }' "$2" /tmp/ts-raw.txt -
}

# Plays the recording while `$2` (a command) filters it, recording its output node; figures of
# variant $1 into /tmp/ts-$1.fig. The filter is started by the command with the panel's node in
# $node and sets `filtered` (its node) and `stopper` (what ends it).
ts_variant() {
    rm -f /tmp/go-ts
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-ts --hold 0.5 --write-times /tmp/ts-w-$1.txt $E/rec/noisy.events 2> /tmp/play-ts.log &
    P=$!
    wait_node /tmp/play-ts.log
    until_true 30 test -e "$node"
    filtered=""
    $2
    if [ -z "$filtered" ]; then
        echo "none" > /tmp/ts-$1.fig
        kill $P; wait $P 2>/dev/null
        return
    fi
    record_play "$filtered" /tmp/ts-$1.events /tmp/go-ts
    $stopper
    ts_measure /tmp/ts-$1.events /tmp/ts-w-$1.txt > /tmp/ts-$1.fig
}

ts_daemon() {
    start_daemon ts --config $E/noisy-panel.toml
    mirror_of /tmp/daemon-ts.log 0
    filtered=$mirror
    stopper=stop_daemon
}

ts_uinput_with() { # ts.conf
    rm -f /tmp/ts-name.txt
    TSLIB_TSDEVICE=$node TSLIB_FBDEVICE=/dev/fb0 TSLIB_CONFFILE=$1 TSLIB_CALIBFILE=/tmp/pointercal \
        TSLIB_PLUGINDIR=$TS_PLUGINS TSLIB_CONSOLEDEVICE=none ts_uinput -d > /tmp/ts-name.txt 2> /tmp/ts-uinput.log
    echo "ts_uinput exited $? (daemonized: 0)" >> /tmp/ts-uinput.log
    until_true 5 test -s /tmp/ts-name.txt
    name=$(head -1 /tmp/ts-name.txt)
    until_true 5 ls /sys/devices/virtual/input/$name/ 2> /dev/null | grep -q '^event'
    ev=$(ls /sys/devices/virtual/input/$name/ 2> /dev/null | grep '^event' | head -1)
    [ -n "$ev" ] && filtered=/dev/input/$ev
    stopper="ts_stop"
}
ts_stop() { kill $(pidof ts_uinput) 2> /dev/null; until_true 5 gone ts_uinput; }
ts_default() { ts_uinput_with /tmp/ts-default.conf; }
ts_tuned() { ts_uinput_with /tmp/ts-tuned.conf; }

tslib_side_by_side() {
    TS_PLUGINS=/usr/lib/x86_64-linux-gnu/ts0
    if ! command -v ts_uinput > /dev/null || ! [ -d $TS_PLUGINS ] || ! [ -e /dev/fb0 ]; then
        echo "E2E CASE tslib-side-by-side: skipped (ts_uinput, its modules or /dev/fb0 is not in the guest)"
        return
    fi
    needs udevd
    # The linear module's calibration: none (identity), so both outputs stay in the panel's units.
    echo "1 0 0 0 1 0 1" > /tmp/pointercal
    # Debian's /etc/ts.conf without pthres (the recording carries no pressure), and a chain for
    # this panel's noise: debounce (a re-landing within 40 ms dropped), a 5-sample median, and
    # dejitter's quick-motion threshold at 63 units (the noise's largest step: 4,000 squared).
    printf 'module_raw input\nmodule dejitter delta=100\nmodule linear\n' > /tmp/ts-default.conf
    printf 'module_raw input\nmodule debounce drop_threshold=40\nmodule median depth=5\nmodule dejitter delta=4000\nmodule linear\n' > /tmp/ts-tuned.conf
    ts_frames $E/rec/noisy.events > /tmp/ts-raw.txt
    raw=$(awk "$TS_ROOT"'$NF == 1 { n++; sx += $2; sy += $3; sxx += $2 * $2; syy += $3 * $3 } END { printf "%.2f", root(sxx / n - (sx / n) * (sx / n) + syy / n - (sy / n) * (sy / n)) / 15 }' /tmp/ts-raw.txt)
    ts_variant touchgestured ts_daemon
    ts_variant tslib-default ts_default
    ts_variant tslib-tuned ts_tuned
    say() { read -r j s l e t < /tmp/ts-$1.fig; [ "$j" = none ] && echo "no output" && return; echo "rest jitter $j mm (spread $s mm), swipe lag $l mm on average and $e mm at the lift, $t touches"; }
    echo "E2E BENCH tslib side by side (the noisy panel's recording; the panel: rest jitter $raw mm, 6 touches): touchgestured with examples/noisy-panel.toml: $(say touchgestured); tslib with Debian's chain (dejitter delta=100): $(say tslib-default); tslib tuned to this panel (debounce 40 ms, median 5, dejitter delta=4000): $(say tslib-tuned)"
    if grep -q none /tmp/ts-touchgestured.fig /tmp/ts-tslib-default.fig /tmp/ts-tslib-tuned.fig; then
        fail "tslib-side-by-side" "(an output showed nothing: $(cat /tmp/ts-*.fig | tr '\n' '|'); ts_uinput: $(tail -2 /tmp/ts-uinput.log | tr '\n' '|'))"
        return
    fi
    # The goal: less jitter than either tslib chain, at no more lag.
    if cat /tmp/ts-touchgestured.fig /tmp/ts-tslib-default.fig /tmp/ts-tslib-tuned.fig | awk 'NR == 1 { j = $1; l = $3; next } $1 <= j || $3 < l { bad = 1 } END { exit bad }'; then
        pass "tslib-side-by-side" "(less resting jitter than both tslib chains at less swipe lag; figures in the E2E BENCH line)"
    else
        fail "tslib-side-by-side" "(not less jitter at no more lag than tslib: $(cat /tmp/ts-*.fig | tr '\n' '|'))"
    fi
}

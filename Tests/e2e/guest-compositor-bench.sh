# Sourced by guest-tests.sh after guest-compositors.sh: what the compositor cases measure beyond
# pass and fail. The latency a compositor's app sees through the daemon, and the README's matrix.

# Latency from the frames landing a judged tap (kiosk-latency.downs: lines of writes file $1) to
# the client's next `touch down` in log $2 (within 200 ms): prints "p50 p99 max n" in ms.
down_latency() {
    awk 'FILENAME == ARGV[1] { want[$1] = 1; next }
         FILENAME == ARGV[2] { if (FNR in want) w[++n] = $1; next }
         $2 == "touch" && $3 == "down" { d[++m] = $1 }
         END {
             j = 1; k = 0
             for (i = 1; i <= n; i++) {
                 while (j <= m && d[j] < w[i]) j++
                 if (j <= m && d[j] - w[i] < 0.2) { lat[++k] = (d[j] - w[i]) * 1000; j++ }
             }
             for (a = 2; a <= k; a++) { v = lat[a]; b = a - 1; while (b >= 1 && lat[b] > v) { lat[b + 1] = lat[b]; b-- } lat[b + 1] = v }
             if (k == 0) { print "0 0 0 0"; exit }
             p50 = lat[int((k - 1) * 0.50) + 1]; p99 = lat[int((k - 1) * 0.99) + 1]
             printf "%.2f %.2f %.2f %d\n", p50, p99, lat[k], k
         }' $E/rec/kiosk-latency.downs $1 $2
}

# E2E BENCH compositor latency: panel write to the client's wl_touch.down, with compositor $1
# reading the panel itself, then reading the daemon's mirror (pass-through, nothing else
# configured); 40 taps each. The added p50 and p99 are the daemon's share.
compositor_latency() {
    comp=${1:-cage}
    if ! [ -x /bin/$comp ] || ! [ -x /bin/touch-log ]; then
        echo "E2E BENCH compositor latency: skipped ($comp or the test client is not in the guest)"
        return
    fi
    play_under $comp $E/rec/kiosk-latency.events ""
    set -- $(down_latency /tmp/writes-$comp.txt $log)
    d50=$1; d99=$2; dmax=$3; dn=$4
    printf '[device]\nmode = "passthrough"\n' > /tmp/latency.toml
    play_under $comp $E/rec/kiosk-latency.events /tmp/latency.toml
    set -- $(down_latency /tmp/writes-$comp.txt $log)
    p50=$1; p99=$2; pmax=$3; pn=$4
    added=$(awk -v a=$p50 -v b=$d50 -v c=$p99 -v d=$d99 'BEGIN { printf "p50 %+.2f ms, p99 %+.2f ms", a - b, c - d }')
    line="$comp: panel write to wl_touch.down, the compositor reading the panel: p50 $d50 ms, p99 $d99 ms, max $dmax ms ($dn taps); through the daemon's mirror: p50 $p50 ms, p99 $p99 ms, max $pmax ms ($pn taps); added $added"
    echo "E2E BENCH compositor latency: $line"
    if [ "$dn" -ge 30 ] && [ "$pn" -ge 30 ]; then
        pass "compositor-latency" "($line)"
    else
        fail "compositor-latency" "(fewer than 30 of 40 taps matched: $line)"
    fi
}

# README's matrix ("Running under a compositor"): each compositor with the daemon in pass-through
# (cancel lift and palm) and in observe (the compositor reads the panel beside the daemon), what
# its client saw by part. Run only when named: E2E_ONLY=compositor_matrix.
compositor_matrix() {
    for comp in cage sway weston; do
        [ -x /bin/$comp ] || continue
        for variant in "passthrough lift" "passthrough palm" "observe lift"; do
            set -- $variant
            compositor_play $comp $1 $2
            echo "E2E MATRIX compositor-$comp mode $1 cancel $2: $parts client: $summary"
        done
    done
}

# Chromium on Wayland (E2E_CHROMIUM=1 on the host; run only when named: E2E_ONLY=compositor_chromium)
# under weston (default) or $1: the kiosk recording through the daemon to a page that logs every
# DOM touch and pointer event (Tests/e2e/wayland/touch-page.html), read by part as touch-log's log
# is. Reports Chromium's start (the compositor started to the page's load) either way. Under
# cage's headless output in the guest, wlroots refuses Chromium's frames ("Basic output test
# failed") and the page gets pointer events but no touch: weston's DRM output renders them.
compositor_chromium() {
    comp=${1:-weston}
    if ! [ -x /usr/lib/chromium/chromium ] || ! [ -x /bin/$comp ]; then
        echo "E2E CASE compositor-chromium: skipped (no Chromium in the guest: E2E_CHROMIUM=1)"
        return
    fi
    mkdir -p /tmp/kiosk && chown 1000:1000 /tmp/kiosk
    # The page's console lines, stamped with the guest's clock (uptime: CLOCK_BOOTTIME, which is
    # the monotonic clock in a guest that never suspends), in touch-log's words.
    cat > /tmp/kiosk/chromium.sh <<'SH'
/usr/lib/chromium/chromium --ozone-platform=wayland --no-sandbox --kiosk --no-first-run --disable-gpu \
    --user-data-dir=/tmp/kiosk/chromium --enable-logging=stderr --log-level=0 --touch-events=enabled \
    file:///e2e/touch-page.html 2>&1 | awk '
    { getline u < "/proc/uptime"; close("/proc/uptime"); split(u, up, " "); t = up[1] }
    /E2E PAGE/ {
        sub(/.*E2E PAGE [0-9]+ [0-9.]+ /, ""); sub(/", source.*/, "")
        split($0, w, " ")
        if (w[1] == "ready") print t, "ready", w[2]
        else if (w[1] == "touchstart") print t, "touch down", w[2]
        else if (w[1] == "touchend") print t, "touch up", w[2]
        else if (w[1] == "touchcancel") print t, "touch cancel", w[2]
        else if (w[1] == "pointerdown" && w[2] == "mouse") print t, "pointer button 272 pressed"
        else if (w[1] == "pointerup" && w[2] == "mouse") print t, "pointer button 272 released"
        else if (w[1] == "wheel") print t, "pointer axis 0 1"
        else print t, "page", $0
        fflush()
    }' > "$1"
SH
    compositor_config passthrough lift > /tmp/kiosk.toml
    CLIENT="/bin/sh /tmp/kiosk/chromium.sh /tmp/client-$comp.log" READY_WAIT=3000 \
        play_under $comp $E/rec/kiosk.events /tmp/kiosk.toml idle
    client_parts $log /tmp/writes-$comp.txt $E/rec/kiosk.segments > /tmp/parts-chromium.txt
    parts=$(tr '\n' ';' < /tmp/parts-chromium.txt)
    p=/tmp/parts-chromium.txt
    downs=$(grep -c ' touch down ' $log); ends=$(grep -cE ' touch (up|cancel) ' $log)
    detail="(Chromium $(/usr/lib/chromium/chromium --version 2>/dev/null | cut -d' ' -f2) on Wayland under $comp: the page loaded $ready s after $comp started; DOM events by part, touchstarts touchends touchcancels: $parts touchstarts $downs, touchends and touchcancels $ends)"
    # As the compositor cases judge touch-log: a waking tap nothing, the edge swipe nothing, the
    # pointer region's tap one mouse click and its drag the wheel, no touch left down.
    if grep -q ' ready ' $log && [ "$downs" = "$ends" ] && grep -q '^wake-start 0 0 0 presses 0 axes 0' $p \
        && grep -q '^tap 1 1 0 presses 0' $p && grep -q '^edge-swipe 0 0 0' $p && grep -q '^tap-after 1 1 0' $p \
        && grep -q '^wake-again 0 0 0 presses 0 axes 0' $p && grep -q '^pointer-tap 0 0 0 presses 1 axes 0' $p \
        && grep -qE '^pointer-drag 0 0 0 presses 0 axes [1-9]' $p; then
        pass "compositor-chromium" "$detail"
    else
        grep -v axis $log | sed 's/^/E2E PAGE /'
        fail "compositor-chromium" "$detail: $(tail -5 /tmp/comp-$comp.log | tr '\n' '|')"
    fi
}

# shellcheck shell=sh
# Chromium on Wayland (E2E_CHROMIUM=1 on the host; run only when named: E2E_ONLY=compositor_chromium)
# under weston (default) or $1: the kiosk recording through the daemon to a page that logs every
# DOM touch and pointer event (Tests/e2e/wayland/touch-page.html), read by part as touch-log's log
# is. Reports Chromium's start (the compositor started to the page's load) either way. Under
# cage's headless output in the guest, wlroots refuses Chromium's frames ("Basic output test
# failed") and the page gets pointer events but no touch: weston's DRM output renders them.
compositor_chromium() {
    needs udevd
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

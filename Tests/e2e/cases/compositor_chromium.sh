# shellcheck shell=sh
# Chromium on Wayland (E2E_CHROMIUM=1 on the host; run only when named: E2E_ONLY=compositor_chromium)
# under weston (default) or $1: the kiosk recording through the daemon to a page that logs every
# DOM touch and pointer event (Tests/e2e/wayland/touch-page.html), read by part as touch-log's log
# is. Reports Chromium's start (the compositor started to the page's load) either way. Under cage
# (named alone: E2E_ONLY=compositor_chromium_cage) on virtio-gpu's DRM output the page loads and
# gets the pointer's events but no touch (Chromium binds wl_touch and no event comes): GUIDE.md.
compositor_chromium() {
    needs udevd
    comp=${1:-weston}
    if ! [ -x /usr/lib/chromium/chromium ] || ! [ -x /bin/$comp ]; then
        echo "E2E CASE compositor-chromium-$comp: skipped (no Chromium in the guest: E2E_CHROMIUM=1)"
        return
    fi
    chromium_script
    compositor_config passthrough lift > /tmp/kiosk.toml
    # cage on a DRM output: virtio-gpu's (card1; bochs lacks the PRIME import wlroots 0.15 needs),
    # drawn with pixman. (Its headless output refuses Chromium's frames.)
    CAGE_ENV="WLR_BACKENDS=drm,libinput WLR_DRM_DEVICES=/dev/dri/card1 WLR_RENDERER=pixman" \
        CLIENT="/bin/sh /tmp/kiosk/chromium.sh /tmp/client-$comp.log touch-page.html" READY_WAIT=3000 \
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
        pass "compositor-chromium-$comp" "$detail"
    else
        grep -v axis $log | sed 's/^/E2E PAGE /'
        fail "compositor-chromium-$comp" "$detail: $(tail -5 /tmp/comp-$comp.log | tr '\n' '|')"
    fi
}

# /tmp/kiosk/chromium.sh: Chromium on Wayland in kiosk mode, its page's console lines in touch-log's words.
chromium_script() {
    mkdir -p /tmp/kiosk && chown 1000:1000 /tmp/kiosk
    # The page's console lines, stamped with the guest's clock (uptime: CLOCK_BOOTTIME, which is
    # the monotonic clock in a guest that never suspends), in touch-log's words.
    cat > /tmp/kiosk/chromium.sh <<'SH'
# $1: the log; $2: the page (touch-page.html); more flags in /tmp/kiosk/chromium-flags.
# shellcheck disable=SC2046
/usr/lib/chromium/chromium --ozone-platform=wayland --no-sandbox --kiosk --no-first-run --disable-gpu \
    --user-data-dir=/tmp/kiosk/chromium --enable-logging=stderr --log-level=0 --touch-events=enabled $(cat /tmp/kiosk/chromium-flags 2>/dev/null) \
    file:///e2e/${2:-touch-page.html} 2>&1 | awk '
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
}

# README's browser recipe under weston ($1; E2E_CHROMIUM=1, run when compositor_chromium is named): the
# page region's `max_contacts = 1`, Chromium's --overscroll-history-navigation=0
# --disable-pull-to-refresh-effect and the page's `overscroll-behavior: none`; browser.events
# pinches, drags right across the page (an overscroll back) and pulls down from the top. With
# the recipe the page never zooms, goes back or reloads; without it (the control) it zooms.
chromium_settings() {
    needs udevd
    if ! [ -x /usr/lib/chromium/chromium ]; then
        echo "E2E CASE chromium-settings: skipped (no Chromium in the guest: E2E_CHROMIUM=1)"
        return
    fi
    chromium_script
    comp=${1:-weston}
    printf '[device]\nmode = "passthrough"\n[[region]]\nname = "page"\nmax_contacts = 1\nstandard_gestures = true\n' > /tmp/browser-recipe.toml
    printf '[device]\nmode = "passthrough"\n' > /tmp/browser-control.toml
    for run in recipe control; do
        echo "--overscroll-history-navigation=0 --disable-pull-to-refresh-effect" > /tmp/kiosk/chromium-flags
        [ $run = control ] && rm /tmp/kiosk/chromium-flags
        rm -rf /tmp/kiosk/chromium   # a fresh profile each time
        CAGE_ENV="WLR_BACKENDS=drm,libinput WLR_DRM_DEVICES=/dev/dri/card1 WLR_RENDERER=pixman" \
            CLIENT="/bin/sh /tmp/kiosk/chromium.sh /tmp/client-$comp.log browser-page.html" READY_WAIT=3000 \
            play_under $comp $E/rec/browser.events /tmp/browser-$run.toml
        cp /tmp/client-$comp.log /tmp/browser-$run.log
    done
    rm -f /tmp/kiosk/chromium-flags
    zoom() { sed -n 's/.* page zoom \([0-9.]*\).*/\1/p' "$1" | sort -n | tail -1; }
    back() { grep -c 'navigated back' "$1"; }
    loads() { grep -c ' ready ' "$1"; }
    r=/tmp/browser-recipe.log; c=/tmp/browser-control.log
    zr=$(zoom $r); zc=$(zoom $c)
    detail="(Chromium under $comp; with the recipe: zoom ${zr:-1}, back $(back $r), loads $(loads $r), touchstarts $(grep -c ' touch down ' $r); without: zoom ${zc:-1}, back $(back $c), loads $(loads $c), touchstarts $(grep -c ' touch down ' $c))"
    if grep -q ' ready ' $r && awk -v z="${zr:-1}" 'BEGIN { exit !(z <= 1.0) }' && [ "$(back $r)" = 0 ] && [ "$(loads $r)" = 1 ] \
        && awk -v z="${zc:-1}" 'BEGIN { exit !(z > 1.05) }'; then
        pass "chromium-settings" "$detail"
    else
        grep -v axis $r | sed 's/^/E2E PAGE recipe /'
        grep -v axis $c | sed 's/^/E2E PAGE control /'
        fail "chromium-settings" "$detail"
    fi
}

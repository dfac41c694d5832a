# shellcheck shell=sh
# --- record: what `touchgesturectl record` writes replays to the same gesture ----------------
record() {
    needs no-udevd
    touchgesturectl play --uinput --settle 1.0 $E/rec/tap.events 2> /tmp/play-rec.log &
    PLAY=$!
    wait_node /tmp/play-rec.log
    touchgesturectl record "$node" --duration 3 -o /tmp/recorded.events 2>/dev/null
    wait $PLAY
    if touchgesturectl replay /tmp/recorded.events | grep -q '"gesture":"tap"'; then
        pass "record" "($node: $(grep -c '^E:' /tmp/recorded.events) events)"
    else
        fail "record" "($node)"
    fi
}

# shellcheck shell=sh
# SIGKILL mid-stream: the kernel releases the grab and removes the mirror, so libinput reads the
# panel itself from then on; a daemon started again mirrors it anew.
passthrough_failsafe() {
    with_libinput passthrough-failsafe || return
    passthrough_config
    start_daemon failsafe --config /tmp/passthrough.toml
    rm -f /tmp/go-fs
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-fs --hold 4 $E/rec/tour.events 2> /tmp/play-fs.log &
    P=$!
    wait_node /tmp/play-fs.log
    panel=$node
    mirror_of /tmp/daemon-failsafe.log 0
    wait_tagged $panel $mirror
    libinput-debug-events --device $panel > /tmp/li-fs-panel.txt 2>&1 &
    LP=$!
    libinput-debug-events --device $mirror > /tmp/li-fs-mirror.txt 2>&1 &
    LM=$!
    has_open $LP $panel; has_open $LM $mirror
    li_ready /tmp/li-fs-panel.txt; li_ready /tmp/li-fs-mirror.txt
    touch /tmp/go-fs
    sleep 2                    # libinput reads the mirror meanwhile (the tour is 10 s)
    # A reload keeps the mirror: the same node, none made anew; then the kill, mid-tour.
    kill -HUP $DAEMON
    wait_line /tmp/daemon-failsafe.log reloaded
    kept=0; [ -e "$mirror" ] && [ "$(mirrors_made /tmp/daemon-failsafe.log)" = 1 ] && grep -q 'reloaded' /tmp/daemon-failsafe.log && kept=1
    kill -9 $DAEMON; wait $DAEMON 2>/dev/null
    mirror_gone=0; until_true 5 test ! -e "$mirror" && mirror_gone=1
    sleep 2                    # libinput reads the panel meanwhile (the tour goes on)
    # The daemon again, while the panel is still there: it mirrors it anew.
    start_daemon failsafe-again --config /tmp/passthrough.toml
    mirror_of /tmp/daemon-failsafe-again.log 0
    again=$mirror
    wait $P
    li_gone /tmp/li-fs-panel.txt
    kill $LP $LM; wait $LP $LM 2>/dev/null
    stop_daemon
    before=$(grep -c TOUCH_ /tmp/li-fs-mirror.txt); after=$(grep -c TOUCH_ /tmp/li-fs-panel.txt)
    if [ "$before" -gt 0 ] && [ "$after" -gt 0 ] && [ "$mirror_gone" = 1 ] && [ -n "$again" ] && [ "$kept" = 1 ]; then
        pass "passthrough-failsafe" "(libinput: $before touch events from the mirror before SIGKILL, $after from the panel after; a SIGHUP reload kept the mirror; it went with the daemon; restarted, it mirrored the panel again at $again)"
    else
        fail "passthrough-failsafe" "(mirror events $before, panel events after the kill $after, kept across a reload $kept, mirror gone $mirror_gone, mirrored again '$again': $(tail -3 /tmp/daemon-failsafe-again.log | tr '\n' '|'); libinput on the panel: $(head -c 400 /tmp/li-fs-panel.txt | tr '\n' '|'))"
    fi
}

# shellcheck shell=sh
# A mirror that outlives its daemon: systemd's file descriptor store (played by fd-store, which
# starts the daemon again as Restart= would) keeps each mirror's uinput descriptor, so a reader
# holding the mirror open (libinput here; Qt, SDL, LVGL or a compositor on a kiosk) reads on
# across a crash (SIGKILL, mid-tour) and a restart (SIGTERM): one device all along, every touch
# it showed ended. A stop closes the store, and the mirror goes while its panel is still there.
fd_daemon() { awk '$1 == "started" { p = $2 } END { print p }' /tmp/fdstore.log; }
passthrough_fdstore() {
    with_libinput passthrough-fdstore || return
    if ! [ -x /bin/fd-store ]; then echo "E2E CASE passthrough-fdstore: skipped (fd-store was not built)"; return; fi
    passthrough_config
    rm -f /tmp/g.sock /tmp/fdstore.log /tmp/go-fd
    fd-store /tmp/notify.sock /tmp/fdstore.log -- touchgestured --socket /tmp/g.sock --config /tmp/passthrough.toml > /tmp/daemon-fdstore.log 2>&1 &
    S=$!
    wait_for /tmp/g.sock
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-fd --hold 30 $E/rec/tour.events 2> /tmp/play-fd.log &
    P=$!
    wait_node /tmp/play-fd.log
    mirror_of /tmp/daemon-fdstore.log 0
    wait_tagged $mirror
    libinput-debug-events --device $mirror > /tmp/li-fd.txt 2>&1 &
    LM=$!
    has_open $LM $mirror; li_ready /tmp/li-fd.txt
    touch /tmp/go-fd
    t0=$(date +%s)
    sleep 2.5
    n0=$(grep -c TOUCH_ /tmp/li-fd.txt)
    kill -9 "$(fd_daemon)"     # a crash, mid-tour
    wait_count /tmp/fdstore.log started 2
    wait_count /tmp/daemon-fdstore.log 'kept across the restart' 1
    sleep 2.5
    n1=$(grep -c TOUCH_ /tmp/li-fd.txt)
    kill "$(fd_daemon)"        # a restart (systemctl restart)
    wait_count /tmp/fdstore.log started 3
    wait_count /tmp/daemon-fdstore.log 'kept across the restart' 2
    # The tour's end (10.5 s): no finger on the panel, which stays (--hold) until the stop.
    while [ $(($(date +%s) - t0)) -lt 12 ]; do sleep 0.5; done
    n2=$(grep -c TOUCH_ /tmp/li-fd.txt)
    downs=$(grep -c TOUCH_DOWN /tmp/li-fd.txt); ends=$(grep -cE 'TOUCH_(UP|CANCEL)' /tmp/li-fd.txt)
    removed=$(grep -c DEVICE_REMOVED /tmp/li-fd.txt)
    same=$(grep 'passed through to' /tmp/daemon-fdstore.log | grep -vc "to $mirror ")
    kill $S; wait $S 2>/dev/null   # a stop: the store is closed
    gone=0; until_true 5 test ! -e "$mirror" && gone=1
    kill $P $LM; wait $P $LM 2>/dev/null
    stored=$(grep -c '^stored mirror-' /tmp/fdstore.log)
    if [ "$n0" -gt 0 ] && [ "$n1" -gt "$n0" ] && [ "$n2" -gt "$n1" ] && [ "$downs" -gt 0 ] && [ "$downs" = "$ends" ] && [ "$removed" = 0 ] \
        && [ "$same" = 0 ] && [ "$gone" = 1 ] && [ "$stored" = 1 ]; then
        pass "passthrough-fdstore" "(one reader of $mirror across a SIGKILL and a SIGTERM restart: $n0, $n1, $n2 touch events after each start, $downs touches down and $ends ended, the device never removed; the store held it once; a stop removed it)"
    else
        fail "passthrough-fdstore" "(touch events $n0/$n1/$n2, downs $downs ends $ends, removed $removed, other mirrors $same, gone $gone, stored $stored: $(tr '\n' '|' < /tmp/fdstore.log); $(grep -E 'passed through|kept|error|warning' /tmp/daemon-fdstore.log | tail -5 | tr '\n' '|'))"
    fi
}

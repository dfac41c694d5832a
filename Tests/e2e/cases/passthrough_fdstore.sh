# shellcheck shell=sh
# A mirror that outlives its daemon: systemd's file descriptor store (played by fd-store, which
# starts the daemon again as Restart= would) keeps each mirror's uinput descriptor, so a reader
# holding the mirror open (libinput here; Qt, SDL, LVGL or a compositor on a kiosk) reads on
# across a crash and a restart: one device all along. The crash (SIGKILL) comes while a finger
# is down (fdstore.events holds one from 2 s to 7 s): the daemon started again takes the mirror
# back and ends that touch as `cancel = "palm"` ends one (libinput's TOUCH_CANCEL) before the
# finger lifts; a SIGTERM restart follows, then a tap. A stop closes the store, and the mirror
# goes while its panel is still there.
fd_daemon() { awk '$1 == "started" { p = $2 } END { print p }' /tmp/fdstore.log; }
fd_at() { while [ $(($(date +%s) - t0)) -lt "$1" ]; do sleep 0.2; done; }
passthrough_fdstore() {
    with_libinput passthrough-fdstore || return
    if ! [ -x /bin/fd-store ]; then echo "E2E CASE passthrough-fdstore: skipped (fd-store was not built)"; return; fi
    printf '[device]\nmode = "passthrough"\ncancel = "palm"\n' > /tmp/fdstore.toml
    rm -f /tmp/g.sock /tmp/fdstore.log /tmp/go-fd
    fd-store /tmp/notify.sock /tmp/fdstore.log -- touchgestured --socket /tmp/g.sock --config /tmp/fdstore.toml > /tmp/daemon-fdstore.log 2>&1 &
    S=$!
    wait_for /tmp/g.sock
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-fd --hold 30 $E/rec/fdstore.events 2> /tmp/play-fd.log &
    P=$!
    wait_node /tmp/play-fd.log
    mirror_of /tmp/daemon-fdstore.log 0
    wait_tagged $mirror
    libinput-debug-events --device $mirror > /tmp/li-fd.txt 2>&1 &
    LM=$!
    has_open $LM $mirror; li_ready /tmp/li-fd.txt
    touch /tmp/go-fd
    t0=$(date +%s)
    fd_at 4                    # the finger is down (2 s to 7 s)
    n0=$(grep -c TOUCH_ /tmp/li-fd.txt); down0=$(grep -c TOUCH_DOWN /tmp/li-fd.txt); ended0=$(grep -cE 'TOUCH_(UP|CANCEL)' /tmp/li-fd.txt)
    kill -9 "$(fd_daemon)"     # a crash, the finger down
    wait_count /tmp/fdstore.log started 2
    wait_count /tmp/daemon-fdstore.log 'kept across the restart' 1
    fd_at 6                    # taken back, the finger still down
    cancels=$(grep -c TOUCH_CANCEL /tmp/li-fd.txt)
    n1=$(grep -c TOUCH_ /tmp/li-fd.txt)
    fd_at 8                    # the finger lifted at 7 s
    kill "$(fd_daemon)"        # a restart (systemctl restart)
    wait_count /tmp/fdstore.log started 3
    wait_count /tmp/daemon-fdstore.log 'kept across the restart' 2
    fd_at 12                   # the tap at 10 s, after the restart
    n2=$(grep -c TOUCH_ /tmp/li-fd.txt)
    downs=$(grep -c TOUCH_DOWN /tmp/li-fd.txt); ends=$(grep -cE 'TOUCH_(UP|CANCEL)' /tmp/li-fd.txt)
    removed=$(grep -c DEVICE_REMOVED /tmp/li-fd.txt)
    same=$(grep 'passed through to' /tmp/daemon-fdstore.log | grep -vc "to $mirror ")
    kill $S; wait $S 2>/dev/null   # a stop: the store is closed
    gone=0; until_true 5 test ! -e "$mirror" && gone=1
    kill $P $LM; wait $P $LM 2>/dev/null
    stored=$(grep -c '^stored mirror-' /tmp/fdstore.log)
    detail="(one reader of $mirror: at the SIGKILL $down0 touches down and $ended0 ended; taken back, the held touch cancelled ($cancels TOUCH_CANCEL) before its lift; $n0, $n1, $n2 touch events by the kill, the take-back and the end; $downs down and $ends ended in all; the device removed $removed times before the stop, other mirrors $same; the store held it $stored time(s); a stop removed it: $gone)"
    if [ "$down0" -gt "$ended0" ] && [ "$cancels" -ge 1 ] && [ "$n2" -gt "$n1" ] && [ "$downs" = "$ends" ] && [ "$removed" = 0 ] \
        && [ "$same" = 0 ] && [ "$gone" = 1 ] && [ "$stored" = 1 ]; then
        pass "passthrough-fdstore" "$detail"
    else
        fail "passthrough-fdstore" "$detail: $(tr '\n' '|' < /tmp/fdstore.log); $(grep -E 'passed through|kept|error|warning' /tmp/daemon-fdstore.log | tail -5 | tr '\n' '|'); libinput: $(grep TOUCH_ /tmp/li-fd.txt | grep -v MOTION | cut -c1-60 | tr '\n' '|')"
    fi
}

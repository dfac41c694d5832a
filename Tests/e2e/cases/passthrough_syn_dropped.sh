# shellcheck shell=sh
# SYN_DROPPED through a mirror: the daemon frozen mid-pan while the panel floods, then thawed:
# the mirror gets a lift of what it showed, then the panel's state, so libinput ends with every
# touch that went down lifted, and the final tap arrives.
passthrough_syn_dropped() {
    with_libinput passthrough-syn-dropped || return
    passthrough_config
    start_daemon pt-flood --config /tmp/passthrough.toml
    monitor /tmp/m-pt-flood.txt
    touchgesturectl play --uinput --settle 1.5 $E/rec/flood.events 2>/dev/null &
    PLAY=$!
    mirror_of /tmp/daemon-pt-flood.log 0
    wait_tagged $mirror
    libinput-debug-events --device $mirror > /tmp/li-pt-flood.txt 2>&1 &
    LI=$!
    wait_count /tmp/m-pt-flood.txt '"gesture":"pan","phase":"began"' 1
    kill -STOP $DAEMON
    usleep 2200000             # the case's subject: the daemon frozen while the flood overruns evdev
    kill -CONT $DAEMON
    wait $PLAY
    wait_count /tmp/m-pt-flood.txt '"action":"removed"' 1
    kill $LI; wait $LI 2>/dev/null
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    downs=$(grep -c TOUCH_DOWN /tmp/li-pt-flood.txt); ups=$(grep -c TOUCH_UP /tmp/li-pt-flood.txt)
    cancels=$(grep -c TOUCH_CANCEL /tmp/li-pt-flood.txt)
    last=$(grep -E 'TOUCH_(DOWN|UP|CANCEL)' /tmp/li-pt-flood.txt | tail -1 | awk '{print $2}')
    resync=$(grep -c 'SYN_DROPPED' /tmp/daemon-pt-flood.log)
    if [ "$resync" -ge 1 ] && [ "$downs" -ge 2 ] && [ "$downs" = "$((ups + cancels))" ] && [ "$last" = TOUCH_UP ]; then
        pass "passthrough-syn-dropped" "(resynced $resync time(s); libinput on the mirror: $downs down, $ups up, $cancels cancelled, none stuck; the final tap came through)"
    else
        fail "passthrough-syn-dropped" "(resyncs $resync; libinput: $downs down, $ups up, $cancels cancelled, last '$last')"
    fi
}

# shellcheck shell=sh
passthrough() {
    with_libinput passthrough || return
    # The reference: libinput reads the panel itself, beside the daemon in observe mode.
    start_daemon observe
    monitor /tmp/m-observe.txt
    play_read $E/rec/tour.events panel /tmp/li-ref.txt
    kill $MON; wait $MON 2>/dev/null
    stop_daemon
    awk -f $E/summarize.awk /tmp/m-observe.txt > /tmp/got-observe.txt
    li_touches /tmp/li-ref.txt > /tmp/li-ref-touches.txt
    passthrough_config
    start_daemon passthrough --config /tmp/passthrough.toml
    monitor /tmp/m-pt.txt
    # SIGURG from outside all through the play, every 20 ms: the input thread's own wake signal
    # (the only thread that takes it), which ends its blocking read early and nothing more: the
    # mirror's touches must still be the panel's, one for one.
    # (The count appended a line a signal: a kill between two lines loses none.)
    rm -f /tmp/urg-sent.txt
    ( n=0; while kill -URG $DAEMON 2>/dev/null; do n=$((n + 1)); echo $n >> /tmp/urg-sent.txt; sleep 0.02; done ) &
    URG=$!
    play_read $E/rec/tour.events mirror /tmp/li-pt.txt /tmp/daemon-passthrough.log
    kill $URG; wait $URG 2>/dev/null
    urg=$(tail -1 /tmp/urg-sent.txt 2>/dev/null)
    kill -0 $DAEMON 2>/dev/null || urg="$urg, and the daemon died"
    first_mirror=$mirror
    mirror_classified=$classified
    named="$by_place $by_first"
    li_touches /tmp/li-pt.txt > /tmp/li-pt-touches.txt
    kill $MON; wait $MON 2>/dev/null
    awk -f $E/summarize.awk /tmp/m-pt.txt > /tmp/got-pt.txt
    # Unplugged mid-pan: the mirror lifts the touch before it goes (no stuck touch).
    play_read $E/rec/pan-no-lift.events mirror /tmp/li-unplug.txt /tmp/daemon-passthrough.log
    downs=$(grep -c TOUCH_DOWN /tmp/li-unplug.txt); ups=$(grep -c TOUCH_UP /tmp/li-unplug.txt)
    gone=0; [ -e "$mirror" ] || gone=1
    taken_mirrors=$(grep -c 'added: .*(touchgestured)' /tmp/daemon-passthrough.log)
    stop_daemon
    ref=$(wc -l < /tmp/li-ref-touches.txt); got=$(wc -l < /tmp/li-pt-touches.txt)
    if [ "$ref" -gt 20 ] && diff /tmp/li-ref-touches.txt /tmp/li-pt-touches.txt > /tmp/diff-pt.txt \
        && [ "$mirror_classified" = 1 ] && [ -s /tmp/got-observe.txt ] && diff /tmp/got-observe.txt /tmp/got-pt.txt > /tmp/diff-pt-lines.txt \
        && [ "$downs" -ge 1 ] && [ "$downs" = "$ups" ] && [ "$gone" = 1 ] && [ "$taken_mirrors" = 0 ] \
        && [ "$named" = "$first_mirror $first_mirror $first_mirror" ] && [ "${urg:-0}" -gt 10 ] 2>/dev/null; then
        pass "passthrough" "(libinput read the mirror $first_mirror as the panel: $got touch events equal; ID_INPUT_TOUCHSCREEN=1; named /dev/input/touchgestured/touchgesturectl-play and .../touchscreen, which a udevadm trigger keeps; the daemon's gesture lines as in observe mode ($(wc -l < /tmp/got-pt.txt)); unplug mid-pan: $downs down, $ups up, mirror gone; no mirror taken as a panel; $urg SIGURG sent to the daemon through the play)"
    else
        fail "passthrough" "(ref $ref, got $got touch events: $(head -c 300 /tmp/diff-pt.txt | tr '\n' '|'); classified $mirror_classified; lines: $(head -c 200 /tmp/diff-pt-lines.txt | tr '\n' '|'); unplug downs $downs ups $ups gone $gone; mirrors taken $taken_mirrors; links '$named' for $first_mirror; SIGURG sent ${urg:-0}; $(tail -4 /tmp/daemon-passthrough.log | tr '\n' '|'))"
    fi
}

# Sourced by guest-tests.sh (its helpers: start_daemon, monitor, wait_node, ensure_udevd...).
# Pass-through (`[device] mode = "passthrough"`): libinput, the compositor's eye, reads the
# panel's mirror as it would read the panel.

# libinput-debug-events' touch lines without the device and time columns: what a compositor gets.
li_touches() { awk '$2 ~ /^TOUCH_/ { $1 = ""; $3 = ""; print }' "$1"; }
# Waits until process $1 has node $2 open.
has_open() { i=0; while [ $i -lt 100 ] && ! ls -l /proc/$1/fd 2>/dev/null | grep -q " $2\$"; do usleep 50000; i=$((i + 1)); done; }
# The mirror the daemon (log $1) made last: its node.
mirror_of() {
    i=0; mirror=""
    while [ $i -lt 100 ] && [ -z "$mirror" ]; do
        usleep 50000; i=$((i + 1))
        mirror=$(sed -n 's/.*passed through to \(\/dev\/input\/event[0-9]*\).*/\1/p' $1 | tail -1)
    done
}

# Plays recording $1 on a new panel while libinput reads node ($2: "panel" or "mirror") into $3;
# the daemon, when one runs in pass-through, logs to $4.
play_read() {
    rm -f /tmp/go-pt
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-pt --hold 0.5 $1 2> /tmp/play-pt.log &
    P=$!
    wait_node /tmp/play-pt.log
    panel=$node
    read_node=$panel
    if [ "$2" = mirror ]; then mirror_of $4; read_node=$mirror; fi
    udevadm settle --timeout=5
    libinput-debug-events --device $read_node > $3 2>&1 &
    LI=$!
    has_open $LI $read_node
    usleep 700000          # past libinput's opening (it reads the device's state)
    touch /tmp/go-pt
    wait $P
    usleep 500000
    kill $LI; wait $LI 2>/dev/null
}

passthrough() {
    if ! [ -x /bin/libinput-debug-events ]; then echo "E2E CASE passthrough: skipped (libinput-debug-events is not installed on the host)"; return; fi
    ensure_udevd
    # The reference: libinput reads the panel itself, with no daemon.
    play_read $E/rec/tour.events panel /tmp/li-ref.txt
    li_touches /tmp/li-ref.txt > /tmp/li-ref-touches.txt
    printf '[device]\nmode = "passthrough"\n' > /tmp/passthrough.toml
    start_daemon passthrough --config /tmp/passthrough.toml
    monitor /tmp/m-pt.txt
    play_read $E/rec/tour.events mirror /tmp/li-pt.txt /tmp/daemon-passthrough.log
    first_mirror=$mirror
    classified=$(udevadm info --query=property --name=$first_mirror 2>/dev/null | grep -c '^ID_INPUT_TOUCHSCREEN=1')
    li_touches /tmp/li-pt.txt > /tmp/li-pt-touches.txt
    kill $MON; wait $MON 2>/dev/null
    awk -f $E/summarize.awk /tmp/m-pt.txt > /tmp/got-pt.txt
    # Unplugged mid-pan: the mirror lifts the touch before it goes (no stuck touch).
    play_read $E/rec/pan-no-lift.events mirror /tmp/li-unplug.txt /tmp/daemon-passthrough.log
    downs=$(grep -c TOUCH_DOWN /tmp/li-unplug.txt); ups=$(grep -c TOUCH_UP /tmp/li-unplug.txt)
    gone=0; [ -e "$mirror" ] || gone=1
    skipped=$(grep -c "a virtual touchscreen of touchgestured's" /tmp/daemon-passthrough.log)
    stop_daemon
    ref=$(wc -l < /tmp/li-ref-touches.txt); got=$(wc -l < /tmp/li-pt-touches.txt)
    if [ "$ref" -gt 20 ] && diff /tmp/li-ref-touches.txt /tmp/li-pt-touches.txt > /tmp/diff-pt.txt \
        && [ "$classified" = 1 ] && diff $E/expected/tour.txt /tmp/got-pt.txt > /tmp/diff-pt-lines.txt \
        && [ "$downs" -ge 1 ] && [ "$downs" = "$ups" ] && [ "$gone" = 1 ]; then
        pass "passthrough" "(libinput read the mirror $first_mirror as the panel: $got touch events equal; ID_INPUT_TOUCHSCREEN=1; the daemon's gesture lines as offline; unplug mid-pan: $downs down, $ups up, mirror gone; mirrors skipped by discovery: $skipped)"
    else
        fail "passthrough" "(ref $ref, got $got touch events: $(head -c 300 /tmp/diff-pt.txt | tr '\n' '|'); classified $classified; lines: $(head -c 200 /tmp/diff-pt-lines.txt | tr '\n' '|'); unplug downs $downs ups $ups gone $gone; $(tail -4 /tmp/daemon-passthrough.log | tr '\n' '|'))"
    fi
}

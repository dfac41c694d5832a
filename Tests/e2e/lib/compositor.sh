# shellcheck shell=sh
# The kiosk compositors (cage, sway, weston) with the Wayland test client.

# Latency from the frames landing a judged tap (kiosk-latency.downs: lines of writes file $1) to
# the client's next `touch down` in log $2 (within 200 ms): a line a tap, in ms.
down_latencies() {
    awk 'FILENAME == ARGV[1] { want[$1] = 1; next }
         FILENAME == ARGV[2] { if (FNR in want) w[++n] = $1; next }
         $2 == "touch" && $3 == "down" { d[++m] = $1 }
         END {
             j = 1
             for (i = 1; i <= n; i++) {
                 while (j <= m && d[j] < w[i]) j++
                 if (j <= m && d[j] - w[i] < 0.2) { printf "%.2f\n", (d[j] - w[i]) * 1000; j++ }
             }
         }' $E/rec/kiosk-latency.downs $1 $2
}

# Column $2 (default 1) of file $1, a number a line: "p50 p99 max n" ("0 0 0 0" when empty).
quantiles() {
    awk -v c=${2:-1} '{ print $c }' $1 | sort -n | awk '{ v[++k] = $1 }
        END { if (k == 0) { print "0 0 0 0"; exit }
              printf "%s %s %s %d\n", v[int((k - 1) * 0.50) + 1], v[int((k - 1) * 0.99) + 1], v[k], k }'
}

# The kiosk user the compositors run as (cage refuses root), its runtime directory, udevd, and
# seatd (which opens the DRM and input devices for the compositor: no logind in the guest).
kiosk_session() {
    grep -q '^kiosk:' /etc/passwd || {
        echo 'kiosk:x:1000:1000:kiosk:/tmp/kiosk:/bin/sh' >> /etc/passwd
        echo 'kiosk:x:1000:' >> /etc/group
    }
    # POSIX shared memory (buffers and keymaps are shm files).
    if ! grep -q ' /dev/shm ' /proc/mounts; then
        mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 shm /dev/shm
    fi
    mkdir -p /run/user/1000 /tmp/kiosk
    chown 1000:1000 /run/user/1000 /tmp/kiosk
    chmod 700 /run/user/1000
    ensure_udevd
    if ! [ -S /run/seatd.sock ]; then
        SEATD_VTBOUND=0 seatd -u kiosk -g kiosk > /tmp/seatd.log 2>&1 &
        wait_for /run/seatd.sock
    fi
}

# Runs a command as the kiosk user, in its session's environment.
as_kiosk() {
    su kiosk -s /bin/sh -c "export XDG_RUNTIME_DIR=/run/user/1000 LIBSEAT_BACKEND=seatd XKB_DEFAULT_LAYOUT=us; $*"
}

# Starts compositor $1 with touch-log logging into $2 (under cage and weston: CLIENT instead, when set);
# waits (READY_WAIT tenths of a second, 60 s unless set) for the client's window to be mapped
# ("ready"). COMP: the compositor's pid.
start_compositor() {
    cname=$1; log=$2
    rm -f $log; : > $log; chown 1000:1000 $log
    wlr="WLR_BACKENDS=headless,libinput WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=1"
    case $cname in
        cage) as_kiosk "env ${CAGE_ENV:-$wlr} cage -- ${CLIENT:-/bin/touch-log $log}" > /tmp/comp-$cname.log 2>&1 & ;;
        sway)
            # SWAY_EXEC: one more command the session starts (the keyboard case's helper).
            printf 'default_border none\nfocus_follows_mouse no\nexec env TOUCH_LOG_TILED=%s /bin/touch-log %s\n%s\n' "${TOUCH_LOG_TILED:-0}" $log "${SWAY_EXEC:-}" > /tmp/kiosk/sway.cfg
            as_kiosk "env $wlr sway -c /tmp/kiosk/sway.cfg" > /tmp/comp-$cname.log 2>&1 & ;;
        weston)
            # Debian's weston 10 has no libseat launcher: as root, its direct launcher on a VT.
            mkdir -p /run/user/0 && chmod 700 /run/user/0
            XDG_RUNTIME_DIR=/run/user/0 weston --backend=drm-backend.so --shell=kiosk-shell.so --use-pixman --tty=2 \
                --socket=wayland-1 --idle-time=0 > /tmp/comp-$cname.log 2>&1 &
            wait_for /run/user/0/wayland-1
            XDG_RUNTIME_DIR=/run/user/0 WAYLAND_DISPLAY=wayland-1 ${CLIENT:-/bin/touch-log $log} >> /tmp/comp-$cname.log 2>&1 & ;;
    esac
    until_true $((${READY_WAIT:-600} / 10)) grep -q ' ready ' $log
    COMP=$(pidof $cname | cut -d' ' -f1)
}

stop_compositor() {
    pids=$(pidof touch-log)
    [ -n "$pids" ] && kill $pids
    until_true 5 gone touch-log
    pids=$(pidof $1)
    [ -n "$pids" ] && kill $pids
    until_true 5 gone $1
}

# The client's events by part of the recording: each line of touch-log's log placed by its time
# against the writer's first frame (the recording's 0) and the parts' start times.
# Prints per part "name downs ups cancels", and "taken ups U cancels C shortest-ms S clicks K":
# how the hold's three taken fingers ended (before the tap that follows them), the shortest of
# them from down to up, and how many of them ended as a click would (an up within 300 ms of the
# down: what every toolkit takes for a tap).
client_parts() { # client log, writes file, segments file
    awk -v w0="$(head -1 $2)" '
        FILENAME == ARGV[1] { name[++n] = $1; start[n] = $2; next }
        $2 == "pointer" && ($3 == "button" || $3 == "axis") {
            t = $1 - w0; k = 0
            for (i = 1; i <= n; i++) if (t >= start[i] - 0.05) k = i
            if ($3 == "button" && $5 == "pressed") press[k]++
            if ($3 == "axis") axis[k]++
        }
        $2 == "touch" {
            t = $1 - w0; k = 0
            for (i = 1; i <= n; i++) if (t >= start[i] - 0.05) k = i
            if (k == 0) next
            taken = name[k] == "hold3" && holddowns < 3
            if ($3 == "down") { d[k]++; if (taken) { holddowns++; since[$4] = $1 } }
            if ($3 == "up") {
                u[k]++
                if (name[k] == "hold3" && ($4 in since)) {
                    ms = ($1 - since[$4]) * 1000; delete since[$4]; takenups++
                    if (shortest == "" || ms < shortest) shortest = ms
                    if (ms < 300) clicks++
                }
            }
            if ($3 == "cancel") { c[k]++; if (name[k] == "hold3") { takencancels++; for (id in since) delete since[id] } }
        }
        END {
            for (i = 1; i <= n; i++) printf "%s %d %d %d presses %d axes %d\n", name[i], d[i], u[i], c[i], press[i], axis[i]
            printf "taken ups %d cancels %d shortest-ms %d clicks %d\n", takenups, takencancels, shortest, clicks
        }' $3 $1
}

# Plays recording $2 under compositor $1, its client logging into /tmp/client-$1.log and the
# player's write times into /tmp/writes-$1.txt. With a config ($3) the daemon runs on it and, in
# pass-through, the compositor reads its mirror; with none the compositor reads the panel itself.
# $4 = idle: the recording starts once the daemon says the kiosk is idle. Sets `ready` (s to the
# client's window) and `opened` (1 when the compositor had the node open). Set (and unset) by the
# caller, never as a prefix of the call (busybox sh keeps those after a function returns):
# RECORD_TARGET, DAEMON_FIFO, REFERENCE_HOP (below), HOP_TRACE (a file: the daemon's
# --trace-hops, or the reference hop's --trace, rows of read, write start and write end; the
# daemon's with the panel's stamp of the frame after them).
play_under() {
    comp=$1; rec=$2; config=$3; REF=""
    kiosk_session
    log=/tmp/client-$comp.log
    if [ -n "$config" ]; then
        start_daemon comp-$comp --config $config ${HOP_TRACE:+--trace-hops $HOP_TRACE}
        # DAEMON_FIFO=1: the policy touchgestured.service gives it.
        [ "${DAEMON_FIFO:-0}" = 1 ] && daemon_fifo $DAEMON
    fi
    rm -f /tmp/go-comp
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-comp --hold 1 --write-times /tmp/writes-$comp.txt \
        $rec 2> /tmp/play-comp.log &
    P=$!
    wait_node /tmp/play-comp.log
    target=$node
    if [ -n "$config" ] && grep -q '^mode = "passthrough"' $config; then
        mirror_of /tmp/daemon-comp-$comp.log 0
        target=$mirror
    elif [ "${REFERENCE_HOP:-0}" = 1 ]; then
        # The floor of any hop in the daemon's place (Tests/e2e/reference-hop.c, at its policy).
        rm -f /tmp/ref-node-comp.txt
        reference-hop $node --policy fifo --priority 10 ${HOP_TRACE:+--trace $HOP_TRACE} > /tmp/ref-node-comp.txt 2> /tmp/ref-hop-comp.log &
        REF=$!
        if ! until_true 10 test -s /tmp/ref-node-comp.txt; then
            # Not started: cage would read the bare panel, no reference.
            echo "E2E BENCH reference hop under $comp did not start: $(tail -1 /tmp/ref-hop-comp.log)"
            kill $P $REF 2> /dev/null; wait $P $REF 2> /dev/null; REF=""
            return 1
        fi
        target=$(cat /tmp/ref-node-comp.txt)
    fi
    wait_tagged $target
    # RECORD_TARGET=FILE: the node the compositor reads, recorded beside it (its kernel timestamps).
    if [ -n "${RECORD_TARGET:-}" ]; then
        touchgesturectl record $target --absolute-times --duration ${RECORD_SECONDS:-20} -o $RECORD_TARGET 2> /tmp/rec-comp.log &
        RT=$!
        has_open $RT $target
    fi
    started=$(date +%s)
    start_compositor $comp $log
    ready=$(( $(date +%s) - started ))
    [ -n "$COMP" ] && has_open $COMP $target
    opened=0; [ -n "$COMP" ] && ls -l /proc/$COMP/fd 2>/dev/null | grep -q " $target\$" && opened=1
    if [ "$4" = idle ]; then
        until_true 10 grep -q ' idle: ' /tmp/daemon-comp-$comp.log
    fi
    touch /tmp/go-comp
    # What sway calls its input devices, the mirror among them while the recording plays: the
    # identifier its `input` command takes (JSON when swaymsg writes to a pipe).
    if [ $comp = sway ]; then
        sleep 4
        as_kiosk "swaymsg -s \$(ls /run/user/1000/sway-ipc.*.sock | head -1) -t get_inputs" > /tmp/inputs-raw.txt 2>&1
        sed -n 's/^ *"identifier": "\(.*\)",*$/\1/p' /tmp/inputs-raw.txt | sort -u > /tmp/inputs-sway.txt
    fi
    wait $P
    sleep 1
    [ -n "${RECORD_TARGET:-}" ] && { kill $RT 2> /dev/null; wait $RT 2> /dev/null; }
    stop_compositor $comp
    [ -n "$config" ] && stop_daemon
    if [ -n "$REF" ]; then kill $REF; wait $REF 2> /dev/null; REF=""; fi
    return 0
}

# The kiosk configuration of the compositor cases: README's (kiosk_toml) in mode $1 with cancel
# $2, touch to wake after 3 s, and a pointer region on the right edge (420 px).
compositor_config() {
    kiosk_toml $1 $2 300 'exec = ["/bin/true"]'
    printf '[[region]]\nname = "side"\nrect = [1500, 0, 420, 1080]\nemulate = "pointer"\n[idle]\nafter = 3\n'
}

# One compositor, the daemon in pass-through with system gestures (an edge swipe that delays its
# touches, a three-finger hold bound to a command), touch to wake and a pointer region, the kiosk
# recording on one panel. Prints what the client saw, by part, into /tmp/parts-$1.txt.
compositor_play() { # compositor, mode, cancel
    compositor_config $2 $3 > /tmp/kiosk.toml
    play_under $1 $E/rec/kiosk.events /tmp/kiosk.toml idle
    client_parts $log /tmp/writes-$1.txt $E/rec/kiosk.segments > /tmp/parts-$1.txt
    summary=$(grep ' summary ' $log | tail -1 | cut -d' ' -f3-)
    parts=$(tr '\n' ';' < /tmp/parts-$1.txt)
}

compositor_case() {
    comp=$1
    compositor_play $comp passthrough lift
    left=$(echo "$summary" | sed -n 's/.* down=\([0-9]*\).*/\1/p')
    taken=$(sed -n 's/^taken .* clicks //p' /tmp/parts-$comp.txt)
    # wl_touch.frame events the client got (cage 0.1.4 sends none: what Chromium waits for).
    frames=$(grep -c ' touch frame' $log)
    detail="(window mapped in ${ready} s, mirror opened $opened; client: $summary frames=$frames; by part, downs ups cancels: $parts left down $left, clicks from taken touches $taken)"
    [ $comp = sway ] && detail="$detail (sway's input identifiers: $(tr '\n' ';' < /tmp/inputs-sway.txt))"
    held=$(echo "$summary" | sed -n 's/.* held=\([0-9]*\).*/\1/p')
    # A waking tap: nothing at all. A pointer tap: one left press (BTN_LEFT, 272) and no touch; a
    # drag: wheel axis events, no touch.
    if [ "$opened" = 1 ] && [ "${left:-1}" = 0 ] && [ "${taken:-1}" = 0 ] && [ "${held:-1}" = 0 ] \
        && grep -q '^wake-start 0 0 0 presses 0 axes 0' /tmp/parts-$comp.txt \
        && grep -q '^tap 1 1 0 presses 0' /tmp/parts-$comp.txt && grep -q '^edge-swipe 0 0 0' /tmp/parts-$comp.txt \
        && grep -q '^tap-after 1 1 0' /tmp/parts-$comp.txt && grep -q '^wake-again 0 0 0 presses 0 axes 0' /tmp/parts-$comp.txt \
        && grep -q '^pointer-tap 0 0 0 presses 1 axes 0' /tmp/parts-$comp.txt \
        && grep -qE '^pointer-drag 0 0 0 presses 0 axes [1-9]' /tmp/parts-$comp.txt; then
        pass "compositor-$comp" "$detail"
    else
        echo "E2E CLIENT writes from $(head -1 /tmp/writes-$comp.txt)"
        grep -v motion $log | sed 's/^/E2E CLIENT /' | head -60
        fail "compositor-$comp" "$detail: compositor: $(grep -iE "pointer|event[0-9]" /tmp/comp-$comp.log | head -12 | tr '\n' '|'); daemon: $(grep -E "idle|wake|warning|error" /tmp/daemon-comp-$comp.log | head -8 | tr "\n" "|"); seatd: $(tail -3 /tmp/seatd.log | tr '\n' '|'); client: $(tail -3 $log | tr '\n' '|')"
    fi
}

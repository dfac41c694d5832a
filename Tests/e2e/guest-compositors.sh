# Sourced by guest-tests.sh: real Wayland compositors (Debian 12's cage, sway, weston) reading the
# daemon's mirror through libinput, as a kiosk runs them, with a real client (touch-log) that logs
# every wl_touch and wl_pointer event it receives. What the app sees, per compositor.

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

# Starts compositor $1 with touch-log logging into $2; waits (60 s at most) for the client's
# window to be mapped ("ready"). COMP: the compositor's pid.
start_compositor() {
    cname=$1; log=$2
    rm -f $log; : > $log; chown 1000:1000 $log
    wlr="WLR_BACKENDS=headless,libinput WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=1 WLR_LIBINPUT_NO_DEVICES=1"
    case $cname in
        cage) as_kiosk "env $wlr cage -- /bin/touch-log $log" > /tmp/comp-$cname.log 2>&1 & ;;
        sway)
            printf 'default_border none\nfocus_follows_mouse no\nexec /bin/touch-log %s\n' $log > /tmp/kiosk/sway.cfg
            as_kiosk "env $wlr sway -c /tmp/kiosk/sway.cfg" > /tmp/comp-$cname.log 2>&1 & ;;
        weston)
            # Debian's weston 10 has no libseat launcher: as root, its direct launcher on a VT.
            mkdir -p /run/user/0 && chmod 700 /run/user/0
            XDG_RUNTIME_DIR=/run/user/0 weston --backend=drm-backend.so --shell=kiosk-shell.so --use-pixman --tty=2 \
                --socket=wayland-1 --idle-time=0 > /tmp/comp-$cname.log 2>&1 &
            wait_for /run/user/0/wayland-1
            XDG_RUNTIME_DIR=/run/user/0 WAYLAND_DISPLAY=wayland-1 /bin/touch-log $log >> /tmp/comp-$cname.log 2>&1 & ;;
    esac
    i=0; while [ $i -lt 600 ] && ! grep -q ' ready ' $log; do usleep 100000; i=$((i + 1)); done
    COMP=$(pidof $cname | cut -d' ' -f1)
}
stop_compositor() {
    pids=$(pidof touch-log)
    [ -n "$pids" ] && kill $pids
    i=0; while [ $i -lt 50 ] && pidof touch-log > /dev/null; do usleep 100000; i=$((i + 1)); done
    pids=$(pidof $1)
    [ -n "$pids" ] && kill $pids
    i=0; while [ $i -lt 50 ] && pidof $1 > /dev/null; do usleep 100000; i=$((i + 1)); done
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
            for (i = 1; i <= n; i++) printf "%s %d %d %d\n", name[i], d[i], u[i], c[i]
            printf "taken ups %d cancels %d shortest-ms %d clicks %d\n", takenups, takencancels, shortest, clicks
        }' $3 $1
}

# One compositor, the daemon in pass-through with system gestures (an edge swipe that delays its
# touches, a three-finger hold bound to a command), the kiosk recording on one panel.
compositor_case() {
    comp=$1
    if ! [ -x /bin/$comp ] || ! [ -x /bin/touch-log ]; then
        echo "E2E CASE compositor-$comp: skipped ($comp or the test client is not in the guest)"
        return
    fi
    kiosk_session
    cat > /tmp/kiosk.toml <<'TOML'
[device]
mode = "passthrough"
[[region]]
name = "screen"
standard_gestures = true
[[region.gesture]]
kind = "edge_swipe"
edges = ["left"]
delays_touches_began = 150
[[region.gesture]]
kind = "long_press"
name = "admin"
fingers = 3
[[action]]
name = "back"
gesture = "edge_swipe"
exec = ["/bin/true"]
[[action]]
name = "admin"
gesture = "admin"
exec = ["/bin/true"]
TOML
    log=/tmp/client-$comp.log
    start_daemon comp-$comp --config /tmp/kiosk.toml
    rm -f /tmp/go-comp
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-comp --hold 1 --write-times /tmp/writes-$comp.txt \
        $E/rec/kiosk.events 2> /tmp/play-comp.log &
    P=$!
    wait_node /tmp/play-comp.log
    mirror_of /tmp/daemon-comp-$comp.log 0
    udevadm settle --timeout=5
    started=$(date +%s)
    start_compositor $comp $log
    ready=$(( $(date +%s) - started ))
    [ -n "$COMP" ] && has_open $COMP $mirror
    opened=0; [ -n "$COMP" ] && ls -l /proc/$COMP/fd 2>/dev/null | grep -q " $mirror\$" && opened=1
    # The client has its wl_touch (the compositor told it the seat can touch).
    i=0; while [ $i -lt 100 ] && ! grep -q 'seat touch on' $log; do usleep 100000; i=$((i + 1)); done
    sleep 1
    touch /tmp/go-comp
    wait $P
    sleep 1
    stop_compositor $comp
    stop_daemon
    client_parts $log /tmp/writes-$comp.txt $E/rec/kiosk.segments > /tmp/parts-$comp.txt
    summary=$(grep ' summary ' $log | tail -1 | cut -d' ' -f3-)
    parts=$(tr '\n' ';' < /tmp/parts-$comp.txt)
    left=$(echo "$summary" | sed -n 's/.* down=\([0-9]*\).*/\1/p')
    taken=$(sed -n 's/^taken .* clicks //p' /tmp/parts-$comp.txt)
    detail="(window mapped in ${ready} s, mirror opened $opened; client: $summary; by part, downs ups cancels: $parts left down $left, clicks from taken touches $taken)"
    if [ "$opened" = 1 ] && [ "${left:-1}" = 0 ] && [ "${taken:-1}" = 0 ] && grep -q '^tap 1 1 0' /tmp/parts-$comp.txt \
        && grep -q '^edge-swipe 0 0 0' /tmp/parts-$comp.txt && grep -q '^tap-after 1 1 0' /tmp/parts-$comp.txt; then
        pass "compositor-$comp" "$detail"
    else
        echo "E2E CLIENT writes from $(head -1 /tmp/writes-$comp.txt)"
        grep -v motion $log | sed 's/^/E2E CLIENT /' | head -60
        fail "compositor-$comp" "$detail: compositor: $(tail -5 /tmp/comp-$comp.log | tr '\n' '|'); seatd: $(tail -3 /tmp/seatd.log | tr '\n' '|'); client: $(tail -3 $log | tr '\n' '|')"
    fi
}
compositor_cage() { compositor_case cage; }
compositor_sway() { compositor_case sway; }
compositor_weston() { compositor_case weston; }

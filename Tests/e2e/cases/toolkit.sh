# shellcheck shell=sh
# Toolkits with no compositor, as industrial kiosks run them: Qt 6 (Tests/e2e/toolkits/
# touch-log-qt.cpp) full screen on linuxfb, reading the mirror with Qt's libinput input (it takes
# every device of the seat: the grabbed panel gives it nothing) or with evdevtouch pinned to the
# mirror's stable name (/dev/input/touchgestured/touchscreen); SDL 2 (touch-log-sdl.c) on kmsdrm,
# whose evdev input reads every ID_INPUT_TOUCHSCREEN device. The daemon runs under fd-store
# (systemd's part: the store and Restart=) with README's kiosk gestures. A tap lands where the
# finger was (a quarter and three quarters across), the system gesture (a three-finger hold)
# ends the touches it took and none stays down, and the daemon killed mid-run leaves the app
# running and getting the next tap.
tk_daemon() { awk '$1 == "started" { p = $2 } END { print p }' /tmp/fdstore-tk.log; }
# The app's downs (line number, x, y) from its log $1.
tk_downs() { awk '$2 == "down" { print NR, $4, $5 }' "$1"; }
# Whether x, y ($1 $2) is within 1.5 % of the screen (W H in $3 $4) of the fractions $5 $6.
tk_near() { awk -v x=$1 -v y=$2 -v w=$3 -v h=$4 -v fx=$5 -v fy=$6 'BEGIN { dx = x / w - fx; dy = y / h - fy; exit !(dx * dx < 0.000225 && dy * dy < 0.000225) }'; }
toolkit() { # qt-libinput | qt-evdev | sdl
    variant=$1; name=toolkit-$variant
    app=/bin/touch-log-qt; dev=/dev/fb0
    [ $variant = sdl ] && app=/bin/touch-log-sdl && dev=/dev/dri/card0
    if ! [ -x $app ] || ! [ -x /bin/fd-store ] || ! [ -e $dev ]; then
        echo "E2E CASE $name: skipped ($app, fd-store or $dev is not in the guest)"; return
    fi
    needs udevd
    kiosk_toml passthrough lift 300 'exec = ["/bin/true"]' > /tmp/toolkit.toml
    log=/tmp/tk-$variant.log
    rm -f /tmp/g.sock /tmp/fdstore-tk.log /tmp/go-tk $log
    fd-store /tmp/notify.sock /tmp/fdstore-tk.log -- touchgestured --socket /tmp/g.sock --config /tmp/toolkit.toml > /tmp/daemon-$name.log 2>&1 &
    S=$!
    wait_for /tmp/g.sock
    touchgesturectl play --uinput --settle 0.2 --wait-for /tmp/go-tk --hold 1 $E/rec/toolkit.events 2> /tmp/play-tk.log &
    P=$!
    wait_node /tmp/play-tk.log
    mirror_of /tmp/daemon-$name.log 0
    wait_tagged $mirror
    until_true 5 test -e /dev/input/touchgestured/touchscreen
    case $variant in
        qt-libinput) set -- QT_QPA_PLATFORM=linuxfb ;;
        qt-evdev) set -- QT_QPA_PLATFORM=linuxfb QT_QPA_FB_NO_LIBINPUT=1 QT_QPA_EVDEV_TOUCHSCREEN_PARAMETERS=/dev/input/touchgestured/touchscreen ;;
        sdl) set -- SDL_VIDEODRIVER=kmsdrm ;;
    esac
    env "$@" XDG_RUNTIME_DIR=/tmp $app $log > /tmp/tk-$variant.err 2>&1 &
    Q=$!
    wait_line $log screen 30
    opened=0; has_open $Q $mirror && opened=1
    touch /tmp/go-tk
    sleep 6.5                  # the taps and the hold (to 4.9 s of the recording)
    before=$(wc -l < $log)
    kill -9 "$(tk_daemon)"     # the daemon dies; fd-store starts it again
    wait_count /tmp/fdstore-tk.log started 2
    wait $P
    sleep 0.5
    alive=0; kill -0 $Q 2>/dev/null && alive=1
    kill $Q $S; wait $Q $S 2>/dev/null
    set -- $(sed -n 's/^screen //p' $log | head -1)
    screen="${1}x${2} ${3:-}"
    w=${1:-1}; h=${2:-1}
    [ $variant = sdl ] && w=1 && h=1    # SDL's positions: 0 to 1 across the device
    tk_downs $log > /tmp/tk-downs.txt
    downs=$(wc -l < /tmp/tk-downs.txt); ends=$(grep -cE ' (up|cancel) ' $log)
    first=$(sed -n 1p /tmp/tk-downs.txt); second=$(sed -n 2p /tmp/tk-downs.txt); last=$(tail -1 /tmp/tk-downs.txt)
    placed=0
    # shellcheck disable=SC2086
    tk_near $(echo "$first" | cut -d' ' -f2-) $w $h 0.25 0.5 && tk_near $(echo "$second" | cut -d' ' -f2-) $w $h 0.75 0.5 \
        && tk_near $(echo "$last" | cut -d' ' -f2-) $w $h 0.25 0.5 && placed=1
    after=0; [ "$(echo "$last" | cut -d' ' -f1)" -gt "$before" ] 2>/dev/null && after=1
    kept=$(grep -c 'kept across the restart' /tmp/daemon-$name.log)
    detail="($variant, screen $screen, the mirror $mirror open $opened; $downs touches down, $ends ended; taps at $(cut -d' ' -f2- /tmp/tk-downs.txt | tr '\n' ';'); the last after the daemon's SIGKILL $after, the mirror kept $kept, the app alive $alive)"
    # Four taps and the hold's three fingers: 7 downs, each ended.
    if [ "$opened" = 1 ] && [ "$downs" = 7 ] && [ "$ends" = 7 ] && [ "$placed" = 1 ] && [ "$after" = 1 ] && [ "$kept" = 1 ] && [ "$alive" = 1 ]; then
        pass "$name" "$detail"
    else
        fail "$name" "$detail: app: $(head -5 /tmp/tk-$variant.err | tr '\n' '|') log: $(head -30 $log | tr '\n' '|') daemon: $(grep -E 'warning|error|passed' /tmp/daemon-$name.log | tail -4 | tr '\n' '|')"
    fi
}

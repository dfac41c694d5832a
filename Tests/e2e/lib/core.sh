# shellcheck shell=sh
# The guest's helpers every case uses: verdicts, readiness waits, the daemon, a client, the
# environment a case needs (`needs`).

pass() { echo "E2E CASE $1: PASS $2"; }

fail() { echo "E2E CASE $1: FAIL $2"; failures=$((failures + 1)); }

# The one poll of the harness: runs `cmd...` every 50 ms until it succeeds (status 0) or
# `seconds` pass (status 1). Every wait below is a condition on something the case can see
# (a file, a log line, a client's line, an open fd), not a fixed time.
# Its counters are `local`: a case's own loop variables (k, n, i) survive the waits inside it.
until_true() { # seconds cmd...
    local polls=$(($1 * 20)) polled=0
    shift
    while ! "$@"; do
        [ $polled -ge $polls ] && return 1
        usleep 50000
        polled=$((polled + 1))
    done
}

# The file $1 exists (up to 10 s, or $2 s).
wait_for() { until_true "${2:-10}" test -e "$1"; }

# The file $1 holds at least $3 lines with the fixed string $2 (up to 10 s, or $4 s).
count_at_least() { [ "$(grep -cF "$2" "$1" 2>/dev/null)" -ge "$3" ]; }
wait_count() { until_true "${4:-10}" count_at_least "$1" "$2" "$3"; }

# The file $1 has a line with the fixed string $2 (up to 10 s, or $3 s).
wait_line() { wait_count "$1" "$2" 1 "${3:-10}"; }

# Starts a client (MON) that prints what the daemon sends into $1 and returns once its `hello` is
# there, so the client is counted before anything is measured.
monitor() {
    out=$1; shift
    touchgesturectl monitor --socket /tmp/g.sock "$@" > "$out" &
    MON=$!
    until_true 5 test -s "$out"
}

# Stops the client once it has the `removed` line of the $2-th device gone since it started (the
# device's last lines are in before it).
stop_monitor_after_removals() { # file count
    wait_count "$1" '"action":"removed"' "$2"
    kill $MON
    wait $MON 2> /dev/null
}

# Sets `node` to the /dev/input node `touchgesturectl play` says (in the log $1) it created.
play_node() { node=$(sed -n 's/.* as \(\/dev\/input\/event[0-9]*\).*/\1/p' "$1"); [ -n "$node" ]; }
wait_node() { node=""; until_true 30 play_node "$1"; }

# Sets `logged` to the /dev/input node the daemon's log $1 names after the text $2 (a virtual
# device it made), waiting up to 5 s for it.
log_node() { logged=$(grep -F "$2" "$1" | sed -n 's/.*\(\/dev\/input\/event[0-9]*\).*/\1/p' | tail -1); [ -n "$logged" ]; }
logged_node() { logged=""; until_true 5 log_node "$1" "$2"; }

start_daemon() { # name [daemon options...]
    name=$1; shift
    rm -f /tmp/g.sock
    touchgestured --socket /tmp/g.sock "$@" > /tmp/daemon-$name.log 2>&1 &
    DAEMON=$!
    wait_for /tmp/g.sock
}

# The daemon (log /tmp/daemon-$1.log) and a client of it (its lines in $2), ready; the fds the
# daemon has then in `before`.
serve() { # name client-file
    start_daemon "$1"
    monitor "$2"
    before=$(fd_count)
}

stop_daemon() { kill $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null; }

# The daemon $1 at SCHED_FIFO 10, as touchgestured.service runs it: every thread, or with
# RT_INPUT_ONLY=1 (E2E_RT_INPUT_ONLY, a diagnostic) only its input thread (tg-input) where it
# has one, the loop left at the normal policy (with RT_INPUT_ONLY=nice, at nice 10 too; with
# RT_INPUT_ONLY=above, every thread at 10 and then the input thread at 11).
daemon_fifo() {
    tid=""
    [ "${RT_INPUT_ONLY:-}" = nice ] && renice -n 10 -p $1 > /dev/null
    if [ -n "${RT_INPUT_ONLY:-}" ]; then
        for t in /proc/$1/task/*; do [ "$(cat $t/comm 2>/dev/null)" = tg-input ] && tid=${t##*/}; done
    fi
    if [ "${RT_INPUT_ONLY:-}" = above ]; then
        chrt --all-tasks --fifo --reset-on-fork -p 10 $1 > /dev/null
        [ -n "$tid" ] && chrt --fifo --reset-on-fork -p 11 $tid > /dev/null
    elif [ -n "$tid" ]; then chrt --fifo --reset-on-fork -p 10 $tid > /dev/null
    else chrt --all-tasks --fifo --reset-on-fork -p 10 $1 > /dev/null; fi
}

fd_count() { ls /proc/$DAEMON/fd | wc -l; }

# The daemon has opened a device: its `device added` line reached the client's file $1 ($2 of them).
wait_added() { wait_count "$1" '"action":"added"' "${2:-1}"; }

# --- The environment a case runs in. Each case says what it needs first thing, and gets it
# whether it runs alone (E2E_ONLY) or after other cases in the full run:
#   needs udevd      udevd running, input devices tagged (libinput, lisgd and the daemon's udev
#                    path take only devices udev has tagged)
#   needs no-udevd   no udevd and no udev database (the daemon's own capability checks and inotify)
#   needs compositor NAME   NAME (cage, sway, weston), seatd and the test client are in the guest
#                    (a host without them copies none: the case says it is skipped, and why)
needs() {
    case $1 in
        udevd) ensure_udevd ;;
        no-udevd) stop_udevd ;;
        compositor)
            [ -x /bin/$2 ] && [ -x /bin/seatd ] && [ -x /bin/touch-log ] && return 0
            echo "E2E CASE compositor-$2: skipped ($2, seatd or the test client is not in the guest)"
            return 1 ;;
    esac
}

# udev has processed each node (ID_INPUT set): libinput and lisgd take only such a device, and
# `udevadm settle` alone can return before the kernel's uevent for a new node reached udevd.
udev_tagged() { udevadm info --query=property --name="$1" 2> /dev/null | grep -q '^ID_INPUT=1'; }
wait_tagged() {
    local tagged_node
    for tagged_node in "$@"; do until_true 10 udev_tagged "$tagged_node"; done
    udevadm settle --timeout=5
}

ensure_udevd() {
    pidof systemd-udevd > /dev/null && return
    /lib/systemd/systemd-udevd --daemon 2>/dev/null
    udevadm trigger --action=add --subsystem-match=input
    udevadm settle --timeout=10
}

stop_udevd() {
    pidof systemd-udevd > /dev/null || { rm -rf /run/udev; return; }
    udevadm control --exit
    until_true 5 gone systemd-udevd
    rm -rf /run/udev
}

# No process is named $1.
gone() { ! pidof "$1" > /dev/null; }

# Process $1 has the file $2 open (a reader has opened a device node).
has_fd() { ls -l /proc/$1/fd 2>/dev/null | grep -q " $2\$"; }

# shellcheck shell=sh
# --- actions: a key action makes the virtual keyboard (udev: a keyboard) and a tap presses the
# chord on it, read back from its own /dev/input node; an exec action runs once per tap ---------
actions() {
    needs udevd
    printf '[[action]]\nname = "back"\ngesture = "tap"\nkeys = "KEY_LEFTALT+KEY_LEFT"\n[[action]]\nname = "mark"\ngesture = "tap"\nexec = ["/bin/sh", "-c", "echo ran >> /tmp/exec-ran.txt"]\n' > /tmp/actions.toml
    rm -f /tmp/exec-ran.txt /tmp/kbd.events
    start_daemon actions --config /tmp/actions.toml
    logged_node /tmp/daemon-actions.log "virtual keyboard for key actions: "
    kbd=$logged
    wait_tagged "$kbd"
    keyboard=$(udevadm info --query=property --name="$kbd" 2>/dev/null | grep -c '^ID_INPUT_KEYBOARD=1')
    touchgesturectl record "$kbd" --duration 8 -o /tmp/kbd.events 2>/dev/null &
    REC=$!
    until_true 5 has_fd $REC "$kbd"
    touchgesturectl play --uinput --settle 0.5 $E/rec/tap.events 2>/dev/null
    # A reload that keeps the key action keeps the keyboard (same node, nothing re-created).
    kill -HUP $DAEMON
    wait_line /tmp/daemon-actions.log 'reloaded /tmp/actions.toml'
    touchgesturectl play --uinput --settle 0.5 $E/rec/tap.events 2>/dev/null
    wait $REC
    stop_daemon
    # EV_KEY 56 (KEY_LEFTALT) and 105 (KEY_LEFT): pressed in order, released in reverse, a
    # SYN_REPORT after each; once per tap.
    keys=$(grep '^E:' /tmp/kbd.events | awk '{printf "%s %s %s;", $3, $4, $5}')
    chord="0001 0038 1;0000 0000 0;0001 0069 1;0000 0000 0;0001 0069 0;0000 0000 0;0001 0038 0;0000 0000 0;"
    ran=$(cat /tmp/exec-ran.txt 2>/dev/null | wc -l)
    made=$(grep -c 'virtual keyboard for key actions' /tmp/daemon-actions.log)
    reloaded=$(grep -c 'reloaded /tmp/actions.toml' /tmp/daemon-actions.log)
    if [ -n "$kbd" ] && [ "$keyboard" = 1 ] && [ "$keys" = "$chord$chord" ] && [ "$ran" = 2 ] && [ "$made" = 1 ] && [ "$reloaded" = 1 ]; then
        pass "actions" "(virtual keyboard $kbd, ID_INPUT_KEYBOARD=1, Alt+Left pressed and released in order on each of two taps, the keyboard kept across a SIGHUP reload, exec ran once per tap)"
    else
        fail "actions" "(keyboard '$kbd', udev keyboard $keyboard, keys '$keys', exec ran $ran, keyboards made $made, reloads $reloaded: $(tail -5 /tmp/daemon-actions.log | tr '\n' '|'))"
    fi
}

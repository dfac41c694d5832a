# shellcheck shell=sh
# --- with udevd: udev classification and properties, the udev monitor for hotplug ------------
# udev has tagged the virtual panel (`devices --local` says so).
udev_took_panel() {
    touchgesturectl devices --local > /tmp/devices-udev.txt 2>&1
    grep -q 'touchgestured virtual panel.*taken: udev' /tmp/devices-udev.txt
}

with_udevd() {
    needs udevd
    start_daemon udev
    monitor /tmp/m-udev.txt
    # The virtual panel: a udev rule flips its Y (LIBINPUT_CALIBRATION_MATRIX); the fling at
    # y = 600 of 1080 lands at y = 480. The QUANTA panel is excluded by TOUCHGESTURED_IGNORE=1.
    touchgesturectl play --uinput --settle 1.0 $E/rec/fling-left.events 2>/dev/null &
    P1=$!
    # Until udev has tagged the new panel (a loaded guest can take longer than the play's settle).
    until_true 6 udev_took_panel
    wait $P1
    # The QUANTA panel lives its recording and a second; the daemon, which ignores it, has by then
    # told the client of no device but the first, gone.
    touchgesturectl play --uinput --settle 1.0 --device $E/rec/quanta-touch-on-left.desc $E/rec/quanta-touch-on-left.events 2>/dev/null
    stop_monitor_after_removals /tmp/m-udev.txt 1
    mode=$(grep -c 'hotplug: udev monitor' /tmp/daemon-udev.log)
    y=$(sed -n 's/.*"gesture":"pan","phase":"began".*"y":\([0-9]*\).*/\1/p' /tmp/m-udev.txt | head -1)
    added=$(grep -c '"action":"added"' /tmp/m-udev.txt)
    quanta=$(grep -c 'QUANTA' /tmp/m-udev.txt)
    taken=$(grep -c 'touchgestured virtual panel.*taken: udev ID_INPUT_TOUCHSCREEN=1' /tmp/devices-udev.txt)
    if [ "$mode" = 1 ] && [ -n "$y" ] && [ "$y" -lt 540 ] && [ "$added" = 1 ] && [ "$quanta" = 0 ] && [ "$taken" = 1 ]; then
        pass "udevd" "(udev monitor, taken by ID_INPUT_TOUCHSCREEN, calibration flipped y to $y, QUANTA ignored)"
    else
        fail "udevd" "(monitor $mode, y=$y, added $added, quanta lines $quanta, taken by udev $taken: $(tr '\n' '|' < /tmp/devices-udev.txt | head -c 300))"
    fi
    stop_daemon
}

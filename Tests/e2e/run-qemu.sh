#!/usr/bin/env bash
# Real-kernel end-to-end tests: a Debian kernel with evdev and uinput under qemu (TCG), a busybox
# initramfs with the release binaries, virtual touchscreens made by `touchgesturectl play
# --uinput`, the real daemon and a real client. Exits 0 only when the guest says PASS.
# Needs (scripts/install-deps): qemu-system-x86 busybox-static cpio; downloads the newest
# linux-image-6.1.0-N-amd64 .deb with apt-get download (nothing is installed on the host).
# E2E_ONLY="case ..." runs those cases; E2E_PART=benchmarks or checks, one half (guest-tests.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
case ${E2E_PART:-} in ""|benchmarks|checks) ;; *) echo "== E2E_PART is benchmarks, checks or unset (both), not ${E2E_PART}"; exit 2 ;; esac
# The work dir keeps the kernel, udev and the initramfs between runs (.build/e2e by default).
work=${E2E_WORK:-$root/.build/e2e}
mkdir -p "$work" && echo "== e2e work dir: $work"

# 1. Binaries: the release build as installed (scripts/release-build: the static Swift runtime, as
# the guest has no toolchain, and LTO). E2E_PREBUILT=1 takes .build/release's as they are, calling
# no SwiftPM (CI's second boot, beside builds holding its lock).
bin=$root/.build/release
if [ -z "${E2E_PREBUILT:-}" ]; then
    scripts/release-build --product touchgestured >&2
    scripts/release-build --product touchgesturectl >&2
    bin=$(swift build -c release --show-bin-path)
fi

# 2. The kernel (vmlinuz, evdev.ko, uinput.ko) from Debian's package, unpacked in the work dir.
if ! ls "$work"/kernel/boot/vmlinuz-* > /dev/null 2>&1; then
    pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' | awk '{print $1}' | sort -V | tail -1)
    (cd "$work" && apt-get download -qq "$pkg" 2>/dev/null && dpkg-deb -x linux-image-*.deb kernel)
fi
vmlinuz=$(ls "$work"/kernel/boot/vmlinuz-* | head -1)
modules=$(ls -d "$work"/kernel/lib/modules/* | head -1)/kernel/drivers/input

# 3. The initramfs: busybox, the modules, the binaries with the libraries ldd names, the tests;
# made again only when what goes into it changed (its inputs' digest, below). What changes from
# run to run (which cases, how many rounds: params.sh) is a small archive of its own, appended.
inputs=$( { sha256sum "$bin/touchgestured" "$bin/touchgesturectl" udev/*.rules examples/recordings/*.events examples/noisy-panel.toml scripts/bench-stream
    find Tests/e2e Tests/PipelineTests/Fixtures ../shared/recordings -type f 2> /dev/null | sort | xargs sha256sum
    env | grep -E '^E2E_(BENCH_FRAMES|COUNT_FRAMES|CHROMIUM|DIAG)=' | sort
    for t in lisgd valgrind cage sway weston seatd chromium perf chrt strace ts_uinput; do command -v $t || true; done; } | sha256sum | cut -d' ' -f1)
if [ -s "$work/initrd.gz" ] && [ "$(cat "$work/initrd.inputs" 2> /dev/null)" = "$inputs" ]; then
    echo "== initramfs: unchanged inputs, kept ($(du -h "$work/initrd.gz" | cut -f1))"
    # The guest's memory and display, as the run that built it chose them.
    . "$work/qemu.params"
else
rm -f "$work/initrd.inputs"
# The one way a program's libraries reach the guest: those ldd names, at the same paths.
libs_of() { # files -> their libraries, copied into the guest at the same paths
    for lib in $(ldd "$@" 2>/dev/null | grep -v ':$' | grep -oE '/[^ ]+\.so[^ ]*' | sort -u); do
        mkdir -p "$work/root$(dirname "$lib")"
        cp -L "$lib" "$work/root$lib"
    done
}
rm -rf "$work/root" && mkdir -p "$work/root"/{bin,sbin,proc,sys,dev,tmp,run,e2e/rec,e2e/expected,lib/modules}
cp /bin/busybox "$work/root/bin/busybox"
for a in $("$work/root/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$work/root/bin/$a"; done
cp "$modules/evdev.ko" "$modules/misc/uinput.ko" "$work/root/lib/modules/"
for b in touchgestured touchgesturectl; do
    # Without the DWARF (valgrind 3.19 cannot read this toolchain's), with the symbol table: a
    # smaller initramfs, and callgrind names the functions.
    objcopy --strip-debug "$bin/$b" "$work/root/bin/$b"
    libs_of "$bin/$b"
done
cp -r Tests/e2e/guest-tests.sh Tests/e2e/lib Tests/e2e/cases Tests/e2e/summarize.awk "$work/root/e2e/"
# systemd's file descriptor store and restarts, played in the guest (the passthrough_fdstore case).
cc -O2 -Wall -o "$work/root/bin/fd-store" Tests/e2e/fd-store.c || echo "== no C compiler: passthrough_fdstore is skipped"
# The floor of a user-space hop (passthrough_load), and util-linux's chrt to give the daemon the
# policy touchgestured.service gives it (busybox has no chrt).
cc -O2 -Wall -o "$work/root/bin/reference-hop" Tests/e2e/reference-hop.c || echo "== no C compiler: passthrough_load is skipped"
# strace -c counts the daemon's system calls a frame there.
for t in chrt strace; do
    # (rm first: a busybox applet of that name is a link to busybox, which cp would overwrite)
    if command -v $t > /dev/null; then rm -f "$work/root/bin/$t"; cp "$(command -v $t)" "$work/root/bin/$t" && libs_of "$(command -v $t)"; fi
done
# tslib's ts_uinput and its filter modules (libts-bin), beside the panel filters (tslib_side_by_side).
tsplugins=/usr/lib/x86_64-linux-gnu/ts0
if command -v ts_uinput > /dev/null && [ -d $tsplugins ]; then
    rm -f "$work/root/bin/ts_uinput"; cp "$(command -v ts_uinput)" "$work/root/bin/ts_uinput"
    mkdir -p "$work/root$tsplugins" && cp $tsplugins/*.so "$work/root$tsplugins/"
    libs_of "$(command -v ts_uinput)" $tsplugins/*.so
fi
# The toolkit cases' Qt app (Qt 6 on linuxfb: scripts/install-deps installs qt6-base-dev), its
# platform plugin (which has Qt's libinput and evdev input in it) and the libraries they load.
qtplugins=/usr/lib/x86_64-linux-gnu/qt6/plugins
if pkg-config --exists Qt6Gui && [ -e $qtplugins/platforms/libqlinuxfb.so ]; then
    # shellcheck disable=SC2046
    g++ -O1 -fPIC -o "$work/root/bin/touch-log-qt" Tests/e2e/toolkits/touch-log-qt.cpp $(pkg-config --cflags --libs Qt6Gui)
    mkdir -p "$work/root$qtplugins/platforms"
    cp $qtplugins/platforms/libqlinuxfb.so "$work/root$qtplugins/platforms/"
    libs_of "$work/root/bin/touch-log-qt" $qtplugins/platforms/libqlinuxfb.so
else
    echo "== Qt 6 (qt6-base-dev) is not installed: the Qt toolkit cases are skipped"
fi
# ... and its SDL 2 app (libsdl2-dev), with the libraries it links (kmsdrm needs Mesa's GBM only
# for a window, which the app does without: SDL's evdev input comes with the video driver).
if command -v sdl2-config > /dev/null; then
    # shellcheck disable=SC2046
    cc -O2 -Wall -o "$work/root/bin/touch-log-sdl" Tests/e2e/toolkits/touch-log-sdl.c $(sdl2-config --cflags --libs)
    libs_of "$work/root/bin/touch-log-sdl"
else
    echo "== SDL 2 (libsdl2-dev) is not installed: the SDL toolkit case is skipped"
fi

# udevd for the second half of the run: Debian's udev package (udevadm is also systemd-udevd),
# its rules, ours, and a local rule that calibrates one panel and excludes another.
if ! [ -x "$work/udev/bin/udevadm" ]; then
    (cd "$work" && apt-get download -qq udev 2>/dev/null && dpkg-deb -x udev_*.deb udev)
fi
mkdir -p "$work/root/lib/systemd" "$work/root/etc/udev/rules.d" "$work/root/lib/udev"
cp "$work/udev/bin/udevadm" "$work/root/bin/udevadm"
ln -sf /bin/udevadm "$work/root/lib/systemd/systemd-udevd"
cp -r "$work/udev/lib/udev/rules.d" "$work/root/lib/udev/"
cp udev/70-touchgestured.rules "$work/root/etc/udev/rules.d/"
# The calibration names the panel and its pass-through mirror ("... (touchgestured)") alike, as
# kiosks' rules often do: touchgestured's 70 rule gives the mirror the identity, since the daemon
# carries the panel's calibration to the mirror's positions.
cat > "$work/root/etc/udev/rules.d/60-touchgestured-local.rules" <<'RULES'
SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="QUANTA*", ENV{TOUCHGESTURED_IGNORE}="1"
SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="touchgestured virtual panel*", ENV{LIBINPUT_CALIBRATION_MATRIX}="1 0 0 0 -1 1"
RULES
libs_of "$work/udev/bin/udevadm"
# The side-by-side benchmark's other readers: lisgd (installed by scripts/install-deps, with
# libinput) and libinput's debug-events tool (unpacked from Debian's libinput-tools, which is not
# installed: it would pull GTK), their libraries, and libinput's quirks.
if [ -x /usr/bin/lisgd ]; then
    if ! [ -x "$work/libinput-tools/usr/libexec/libinput/libinput-debug-events" ]; then
        (cd "$work" && apt-get download -qq libinput-tools 2>/dev/null && dpkg-deb -x libinput-tools_*.deb libinput-tools)
    fi
    cp /usr/bin/lisgd "$work/root/bin/"
    cp "$work/libinput-tools/usr/libexec/libinput/libinput-debug-events" "$work/root/bin/"
    libs_of /usr/bin/lisgd "$work/root/bin/libinput-debug-events"
    mkdir -p "$work/root/usr/share"
    cp -r /usr/share/libinput "$work/root/usr/share/"
fi
# The instruction counts: valgrind's launcher, callgrind and vgdb (which zeroes and dumps the counts
# of a running reader), at the paths valgrind was built for.
if [ -x /usr/bin/lisgd ] && [ -x /usr/bin/valgrind.bin ] && [ "${E2E_COUNT_FRAMES:-1000}" != 0 ]; then
    mkdir -p "$work/root/usr/libexec/valgrind"
    cp /usr/bin/valgrind.bin "$work/root/bin/valgrind"
    cp /usr/bin/vgdb "$work/root/bin/vgdb"
    cp /usr/libexec/valgrind/callgrind-amd64-linux /usr/libexec/valgrind/vgpreload_core-amd64-linux.so \
        /usr/libexec/valgrind/default.supp "$work/root/usr/libexec/valgrind/"
fi
# E2E_DIAG=1: perf in the guest (software clock sampling: TCG has no PMU), and the benchmark
# prints where each reader spends its time.
if [ "${E2E_DIAG:-}" = 1 ] && [ -x /usr/bin/perf ]; then
    cp /usr/bin/perf "$work/root/bin/"
    libs_of /usr/bin/perf
fi
# The compositor cases: Debian's cage, sway and weston (scripts/install-deps installs them on the
# host), seatd, the DRM modules weston's DRM backend needs (qemu's std VGA is bochs), and the test
# client touch-log (Tests/e2e/wayland), each with the libraries ldd names, weston's modules too.
if command -v cage > /dev/null && command -v wayland-scanner > /dev/null && pkg-config --exists wayland-client; then
    mkdir -p "$work/wayland"
    wayland-scanner client-header /usr/share/wayland-protocols/stable/xdg-shell/xdg-shell.xml "$work/wayland/xdg-shell-client-protocol.h"
    wayland-scanner private-code /usr/share/wayland-protocols/stable/xdg-shell/xdg-shell.xml "$work/wayland/xdg-shell-protocol.c"
    cc -O2 -Wall -Wno-unused-parameter -I"$work/wayland" -o "$work/root/bin/touch-log" Tests/e2e/wayland/touch-log.c \
        "$work/wayland/xdg-shell-protocol.c" $(pkg-config --cflags --libs wayland-client)
    compositors=()
    for c in cage sway swaymsg weston seatd wvkbd-mobintl; do
        p=$(command -v $c) || continue
        cp "$p" "$work/root/bin/$c"
        compositors+=("$p")
    done
    weston_modules=(/usr/lib/x86_64-linux-gnu/libweston-10/drm-backend.so /usr/lib/x86_64-linux-gnu/weston/kiosk-shell.so
        /usr/lib/x86_64-linux-gnu/weston/libexec_weston.so)
    for m in "${weston_modules[@]}"; do [ -e "$m" ] && mkdir -p "$work/root$(dirname "$m")" && cp "$m" "$work/root$m"; done
    libs_of "$work/root/bin/touch-log" "${compositors[@]}" "${weston_modules[@]}"
    # cage aborts without an Xwayland binary (it starts one only for an X client); the keymaps for
    # the virtual keyboard the daemon makes; libinput's quirks.
    mkdir -p "$work/root/usr/bin" "$work/root/usr/share/X11"
    printf '#!/bin/sh\nexit 1\n' > "$work/root/usr/bin/Xwayland" && chmod +x "$work/root/usr/bin/Xwayland"
    cp -r /usr/share/X11/xkb "$work/root/usr/share/X11/"
    cp -r /usr/share/libinput "$work/root/usr/share/" 2> /dev/null || true
    # wvkbd draws its keys with pango: fontconfig's files and one font.
    if [ -x "$work/root/bin/wvkbd-mobintl" ]; then
        mkdir -p "$work/root/etc" "$work/root/usr/share/fonts/truetype"
        cp -r /etc/fonts "$work/root/etc/"
        cp -r /usr/share/fonts/truetype/dejavu "$work/root/usr/share/fonts/truetype/"
    fi
    drm=$(ls -d "$work"/kernel/lib/modules/* | head -1)/kernel/drivers/gpu/drm
    for m in drm.ko drm_kms_helper.ko ttm/ttm.ko drm_ttm_helper.ko drm_vram_helper.ko tiny/bochs.ko; do
        cp "$drm/$m" "$work/root/lib/modules/"
    done
else
    echo "== cage, sway, weston or libwayland-dev is not installed: the compositor cases are skipped"
fi
# Chromium on Wayland under cage, for the case compositor_chromium: only with E2E_CHROMIUM=1 (about
# 450 MB more in the guest, which then gets 3 GB; not in CI).
mem=1024
gpu=
if [ -n "${E2E_CHROMIUM:-}" ] && [ -x /usr/lib/chromium/chromium ] && [ -x "$work/root/bin/cage" ]; then
    mkdir -p "$work/root/usr/lib" "$work/root/usr/share/fonts" "$work/root/etc"
    cp -r /usr/lib/chromium "$work/root/usr/lib/"
    libs_of /usr/lib/chromium/chromium /usr/lib/chromium/*.so
    cp -r /etc/fonts "$work/root/etc/"
    cp -r /usr/share/fonts/truetype "$work/root/usr/share/fonts/"
    cp Tests/e2e/wayland/touch-page.html Tests/e2e/wayland/browser-page.html "$work/root/e2e/"
    mem=3072
    # A second display, virtio-gpu (card1), for cage's DRM output: wlroots 0.15 needs PRIME
    # import, which bochs lacks (only here: beside bochs it costs the other cases time and weston
    # its display).
    drm=$(ls -d "$work"/kernel/lib/modules/* | head -1)/kernel/drivers
    cp "$drm/gpu/drm/drm_shmem_helper.ko" "$drm/gpu/drm/virtio/virtio-gpu.ko" "$work/root/lib/modules/"
    for m in virtio.ko virtio_ring.ko virtio_pci_modern_dev.ko virtio_pci_legacy_dev.ko virtio_pci.ko virtio_dma_buf.ko; do
        cp "$drm/virtio/$m" "$work/root/lib/modules/"
    done
    gpu="-device virtio-gpu-pci"
fi
printf 'root:x:0:\ninput:x:101:\nkvm:x:102:\nvideo:x:44:\naudio:x:29:\ndisk:x:6:\ntty:x:5:\n' > "$work/root/etc/group"
printf 'root:x:0:0:root:/:/bin/sh\n' > "$work/root/etc/passwd"

# Recordings: the project's own and the shared real panels', each with the lines offline replay
# gives for it (reduced by summarize.awk, as the guest reduces what the daemon sends live).
fixtures=Tests/PipelineTests/Fixtures
shared=../shared/recordings
list=()
add() { # name events [desc]
    cp "$2" "$work/root/e2e/rec/$1.events"
    if [ -n "${3:-}" ]; then
        cp "$3" "$work/root/e2e/rec/$1.desc"
        "$bin/touchgesturectl" replay --device "$3" "$2" | awk -f Tests/e2e/summarize.awk > "$work/root/e2e/expected/$1.txt"
    else
        "$bin/touchgesturectl" replay "$2" | awk -f Tests/e2e/summarize.awk > "$work/root/e2e/expected/$1.txt"
    fi
    list+=("$1")
}
add tour examples/recordings/tour.events
add fling-left $fixtures/fling-left.events
add four-finger-drag-down $fixtures/four-finger-drag-down.events
add protocol-a examples/recordings/protocol-a.events
if [ -d "$shared" ]; then
    add ep0430m09-4-finger-drag-down $shared/ep0430m09.4-finger-drag-down.events
    add ep0430m09-2-finger-scroll-down $shared/ep0430m09.2-finger-scroll-down.events
    add quanta-touch-on-left $shared/quanta-optical.touch-on-left.events $shared/quanta-optical.desc
else
    echo "== $shared is absent: real-panel recordings skipped"
fi
printf '%s\n' "${list[@]}" > "$work/root/e2e/recordings.list"
cp $fixtures/tap.events "$work/root/e2e/rec/tap.events"
cp $fixtures/edge-swipe-from-left.events "$work/root/e2e/rec/edge-swipe.events"
# The tap 10 units (under a millimetre) from the left edge: in the edge swipe's band.
sed 's/ 0003 0035 1920$/ 0003 0035 10/' $fixtures/tap.events > "$work/root/e2e/rec/edge-tap.events"
# Three fingers land 30 ms apart mid-screen, rest 1.2 s (a unit of jitter keeps frames coming),
# then lift together: a three-finger hold; then a tap.
# Two taps 0.4 s apart, 2 s into the recording (the kiosk is idle by then): the touch-to-wake case.
python3 - "$work/root/e2e/rec/wake.events" <<'PY'
import sys
text = open("Tests/PipelineTests/Fixtures/tap.events").read()
head, body = text.split("\nE:", 1)
events = ["E:" + e for e in ("\nE:" + body).split("\nE:")[1:]]
def shifted(line, by):
    _, t, rest = line.split(" ", 2)
    s, us = t.split(".")
    v = int(s) * 1000000 + int(us) + by
    return f"E: {v // 1000000}.{v % 1000000:06d} {rest}"
first = int(events[0].split()[1].replace(".", ""))
out = ["E: 0.000000 0000 0000 0"] + [shifted(e, 2000000 - first) for e in events] + [shifted(e, 2400000 - first) for e in events]
open(sys.argv[1], "w").write(head + "\n" + "\n".join(out) + "\n")
PY
python3 - "$work/root/e2e/rec/hold3.events" <<'PY'
import sys
head = open("Tests/PipelineTests/Fixtures/tap.events").read().split("\nE:")[0]
lines, t = [], 0
def ev(typ, code, val): lines.append(f"E: {t // 1000000}.{t % 1000000:06d} {typ:04x} {code:04x} {val}")
for s, x in enumerate([1500, 1900, 2300]):
    ev(3, 0x2f, s); ev(3, 0x39, 10 + s); ev(3, 0x35, x); ev(3, 0x36, 1000)
    if s == 0: ev(1, 0x14a, 1)
    ev(0, 0, 0); t += 30000
for i in range(60):
    t += 20000; ev(3, 0x2f, 0); ev(3, 0x35, 1500 + i % 2); ev(0, 0, 0)
t += 20000
for s in range(3): ev(3, 0x2f, s); ev(3, 0x39, -1)
ev(1, 0x14a, 0); ev(0, 0, 0)
# Then a tap in the first finger's slot: it must reach the app (the slot's tool type is back to finger).
t += 500000
ev(3, 0x2f, 0); ev(3, 0x39, 20); ev(3, 0x35, 1900); ev(3, 0x36, 1000); ev(1, 0x14a, 1); ev(0, 0, 0)
t += 60000
ev(3, 0x39, -1); ev(1, 0x14a, 0); ev(0, 0, 0)
open(sys.argv[1], "w").write(head + "\n" + "\n".join(lines) + "\n")
PY
# The compositor cases' recording: a tap, an edge swipe, the hold and its tap, a tap, on one panel.
python3 Tests/e2e/kiosk-recording.py Tests/PipelineTests/Fixtures "$work/root/e2e/rec/hold3.events" "$work/root/e2e/rec"
# Pointer emulation's recordings: a long press, a slow drag, a fling stopped by a touch.
python3 Tests/e2e/pointer-recordings.py "$work/root/e2e/rec"
# The calibration cases' taps.
python3 Tests/e2e/calibration-recordings.py "$work/root/e2e/rec"
# A protocol A panel (no slots); a noisy panel's recording, what its mirror shows offline with
# examples/noisy-panel.toml, and the config.
cp examples/recordings/protocol-a.events "$work/root/e2e/rec/protocol-a.events"
python3 Tests/e2e/noisy-recording.py "$work/root/e2e/rec/noisy.events"
"$bin/touchgesturectl" replay --config examples/noisy-panel.toml --mirror "$work/root/e2e/rec/noisy-mirror.events" "$work/root/e2e/rec/noisy.events"
cp examples/noisy-panel.toml "$work/root/e2e/noisy-panel.toml"
# The on-screen keyboard's recording (its parts' times too) and config.
python3 Tests/e2e/keyboard-recording.py "$work/root/e2e/rec" --flip-y
cp examples/keyboard.toml "$work/root/e2e/keyboard.toml"
# A pan whose finger never lifts: the device is destroyed mid-gesture.
awk '/^E:/ && ++n > 40 { exit } { print }' $fixtures/fling-left.events > "$work/root/e2e/rec/pan-no-lift.events"

# A flood: one finger pans, then 2000 frames in 0.2 s with a second finger coming and going
# (more than evdev's buffer holds while the daemon is frozen), ending with the first finger lifted
# and a third one down; that one lifts, then a tap.
python3 - "$work/root/e2e/rec/flood.events" <<'PY'
import sys
head = open("Tests/PipelineTests/Fixtures/tap.events").read().split("\nE:")[0]
lines, t = [], 0
def ev(typ, code, val): lines.append(f"E: {t // 1000000}.{t % 1000000:06d} {typ:04x} {code:04x} {val}")
def syn(): ev(0, 0, 0)
ev(3, 0x2f, 0); ev(3, 0x39, 1); ev(3, 0x35, 1000); ev(3, 0x36, 1000); ev(1, 0x14a, 1); syn()
for i in range(1, 80):                       # 0.8 s of panning at 100 Hz
    t += 10000; ev(3, 0x35, 1000 + 4 * i); syn()
t += 500000                                  # the daemon is frozen from here
for i in range(2000):
    t += 100
    ev(3, 0x2f, 0); ev(3, 0x35, 1320 + (i % 200)); ev(3, 0x36, 1000 + (i % 50))
    ev(3, 0x2f, 1)
    if i % 40 == 0: ev(3, 0x39, 100 + i); ev(3, 0x35, 2000); ev(3, 0x36, 1200)
    elif i % 40 == 20: ev(3, 0x39, -1)
    syn()
ev(3, 0x2f, 1); ev(3, 0x39, -1)              # the second finger lifts,
ev(3, 0x2f, 0); ev(3, 0x39, -1)              # the first one too,
ev(3, 0x2f, 2); ev(3, 0x39, 9000); ev(3, 0x35, 2500); ev(3, 0x36, 1500); syn()   # a third lands
t += 3000000; ev(3, 0x39, -1); ev(1, 0x14a, 0); syn()                            # after the thaw: lifts
t += 500000; ev(3, 0x39, 9001); ev(3, 0x35, 1800); ev(3, 0x36, 900); ev(1, 0x14a, 1); syn()
t += 60000; ev(3, 0x39, -1); ev(1, 0x14a, 0); syn()                              # a tap
open(sys.argv[1], "w").write(head + "\n" + "\n".join(lines) + "\n")
PY

# The benchmark streams (scripts/bench-stream, which scripts/count-daemon also reads): bench.events,
# $E2E_BENCH_FRAMES frames at 1 kHz (default 10,000); count.events, for the instruction counts under
# valgrind (which cannot read 1 kHz under the emulator, whose translation stalls would overrun evdev's
# buffer), $E2E_COUNT_FRAMES frames at 50 Hz (default 1,000, so each finger count strokes 10 times);
# panel.events, bench.events with the single-touch emulation a kernel driver adds to each frame, as
# a real panel sends it (the pass-through cases': the mirror writes it, the reference hop passes it on).
scripts/bench-stream bench "$work/root/e2e/rec/bench.events" "${E2E_BENCH_FRAMES:-10000}"
scripts/bench-stream panel "$work/root/e2e/rec/panel.events" "${E2E_BENCH_FRAMES:-10000}"
scripts/bench-stream count "$work/root/e2e/rec/count.events" "${E2E_COUNT_FRAMES:-1000}"

cat > "$work/root/init" <<'INIT'
#!/bin/sh
export PATH=/bin:/sbin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
insmod /lib/modules/evdev.ko
insmod /lib/modules/uinput.ko
# DRM for weston's DRM backend (qemu's std VGA): in dependency order, when the run copied them.
for m in drm drm_kms_helper ttm drm_ttm_helper drm_vram_helper bochs virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_dma_buf drm_shmem_helper virtio-gpu; do
    [ -e /lib/modules/$m.ko ] && insmod /lib/modules/$m.ko
done
sh /e2e/guest-tests.sh > /dev/console 2>&1
poweroff -f
INIT
chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1 > "$work/initrd.gz")
printf 'mem=%s\ngpu="%s"\n' "$mem" "$gpu" > "$work/qemu.params"
echo "$inputs" > "$work/initrd.inputs"
echo "== initramfs: $(du -h "$work/initrd.gz" | cut -f1)"
fi
# This run's parameters, an archive of their own after the kept one (the kernel unpacks both).
rm -rf "$work/params" && mkdir -p "$work/params/e2e"
printf 'STORM=%s\nFLOODS=%s\nONLY="%s"\nVARIANTS="%s"\nTRIALS=%s\nPART=%s\nNORMAL_POLICY=%s\nREF_PAGES="%s"\nREF_EPOLL=%s\nREF_BUSY="%s"\nREF_RELAY="%s"\nRT_INPUT_ONLY=%s\nSCHED_TRACE=%s\n' "${E2E_STORM:-200}" "${E2E_FLOODS:-5}" "${E2E_ONLY:-}" \
    "${E2E_BENCH_VARIANTS:-one-client no-client swipe-only}" "${E2E_BENCH_TRIALS:-3}" "${E2E_PART:-}" "${E2E_NORMAL_POLICY:-}" "${E2E_REF_PAGES:-}" "${E2E_REF_EPOLL:-}" "${E2E_REF_BUSY:-}" "${E2E_REF_RELAY:-}" "${E2E_RT_INPUT_ONLY:-}" "${E2E_SCHED_TRACE:-}" > "$work/params/e2e/params.sh"
(cd "$work/params" && find . | cpio -o -H newc --quiet | gzip -1 > "$work/params.gz")
cat "$work/initrd.gz" "$work/params.gz" > "$work/initrd-run.gz"

# 4. Boot (software emulation: nested KVM does not work here) and read the verdict. Two vCPUs:
# with one, the benchmark's four readers (the daemon, its client, lisgd, libinput) overran it at
# 1 kHz and the slowest dropped events, so the figures compared readers that saw different streams.
# E2E_APPEND: more kernel arguments, e.g. "clocksource=tsc tsc=reliable" (the guest picks HPET, for
# which clock_gettime is a system call; docs/BENCHMARKS.md has a run on TSC).
# The guest's cases take 8-15 minutes under TCG, and twice that on a slow host (a CI machine whose
# lisgd ran 3.4 times slower per frame ran out of 900 s mid-benchmark): the bound only stops a hang.
timeout 1800 qemu-system-x86_64 -accel tcg -cpu max -smp "${E2E_SMP:-2}" -m $mem -vga std ${gpu:-} -nographic -no-reboot \
    -kernel "$vmlinuz" -initrd "$work/initrd-run.gz" -append "console=ttyS0 quiet panic=-1 ${E2E_APPEND:-}" \
    > "$work/console.log" 2>&1 || true
grep -E '^E2E ' "$work/console.log" | grep -v '^E2E CGFILE' || true
# The instruction counts' dumps (gzip, base64 between markers): on the host, where touchgestured's
# split by function is printed with its Swift names demangled.
if grep -q '^E2E CGFILE-BEGIN' "$work/console.log"; then
    mkdir -p "$work/callgrind"
    tr -d '\r' < "$work/console.log" | awk -v dir="$work/callgrind" '
        /^E2E CGFILE-BEGIN / { f = dir "/" $3 ".b64"; printf "" > f; next }
        /^E2E CGFILE-END / { close(f); f = ""; next }
        f != "" { print >> f }'
    for b in "$work"/callgrind/*.b64; do base64 -d "$b" | gunzip > "${b%.b64}.out" || true; done
    frames=$(grep -c '^E: [0-9.]* 0000 0000 0$' "$work/root/e2e/rec/count.events")
    for r in touchgestured lisgd libinput; do
        [ -s "$work/callgrind/$r.out" ] || continue
        top=8; [ $r = touchgestured ] && top=25
        scripts/callgrind-split "$work/callgrind/$r.out" --frames "$frames" --top $top --prefix "E2E COUNT $r: "
    done
    echo "== callgrind dumps: $work/callgrind/*.out (callgrind_annotate reads them)"
fi
if grep -q '^E2E RESULT: PASS' "$work/console.log"; then
    echo "== e2e: PASS"
    exit 0
fi
echo "== e2e: FAIL (console: $work/console.log)"
tail -40 "$work/console.log"
exit 1

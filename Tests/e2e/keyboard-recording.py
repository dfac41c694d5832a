#!/usr/bin/env python3
"""The on-screen keyboard's recording (the keyboard case, and the daemon test of
`touchgesturectl keyboard`), on the project's virtual panel (3840x2160 units, a 1920x1080 screen:
2 units a pixel). Writes DIR/keyboard.events and DIR/keyboard.segments ("name start end", s from the first frame).
Parts: a swipe up from the bottom edge (shows the keyboard), two taps on the keyboard (its
bottom 300 px: no gesture sees them, its app gets them), a tap above it (a gesture), a swipe down
from the top edge (hides it), a tap where it was (a gesture again).
    keyboard-recording.py DIR [--flip-y]   (run from the checkout's root)
--flip-y writes each Y as 2159 - Y: the guest's udev rule flips the virtual panel's Y
(LIBINPUT_CALIBRATION_MATRIX, which the daemon applies), so the daemon sees the places above."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from evemu_writer import HEAD  # noqa: E402

lines, t = [], 0
flip = "--flip-y" in sys.argv
segments = []


def ev(typ, code, val):
    lines.append(f"E: {t // 1000000}.{t % 1000000:06d} {typ:04x} {code:04x} {val}")


def frame(at_us, contacts, touch=None):
    """contacts: (slot, id or None to keep, x, y) or (slot, -1) to lift."""
    global t
    t = at_us
    for c in contacts:
        ev(3, 0x2F, c[0])
        if c[1] is not None:
            ev(3, 0x39, c[1])
        if len(c) > 2:
            ev(3, 0x35, c[2])
            ev(3, 0x36, 2159 - c[3] if flip else c[3])
    if touch is not None:
        ev(1, 0x14A, touch)
    ev(0, 0, 0)


def tap(name, at, tid, x, y):
    frame(at, [(0, tid, x, y)], touch=1)
    frame(at + 60_000, [(0, -1)], touch=0)
    segments.append((name, at, at + 60_000))


# Up from the bottom edge: 80 mm (1200 units) in 0.3 s.
start = 500_000
frame(start, [(0, 10, 1900, 2158)], touch=1)
for i in range(1, 31):
    frame(start + i * 10_000, [(0, None, 1900, 2158 - 40 * i)])
frame(start + 320_000, [(0, -1)], touch=0)
segments.append(("show", start, start + 320_000))
tap("key-1", 2_500_000, 11, 1000, 1950)
tap("key-2", 2_800_000, 12, 1400, 1900)
tap("above", 4_000_000, 13, 1000, 600)
# Down from the top edge: 80 mm in 0.3 s.
start = 5_500_000
frame(start, [(0, 14, 1900, 1)], touch=1)
for i in range(1, 31):
    frame(start + i * 10_000, [(0, None, 1900, 1 + 40 * i)])
frame(start + 320_000, [(0, -1)], touch=0)
segments.append(("hide", start, start + 320_000))
tap("after", 7_500_000, 16, 1000, 1950)

out = sys.argv[1]
open(f"{out}/keyboard.events", "w").write(HEAD + "\n" + "\n".join(lines) + "\n")
with open(f"{out}/keyboard.segments", "w") as f:
    # From the first frame, as the player's write times count (its first write is that frame).
    first = segments[0][1]
    for name, a, b in segments:
        f.write(f"{name} {(a - first) / 1e6:.3f} {(b - first) / 1e6:.3f}\n")

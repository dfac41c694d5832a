#!/usr/bin/env python3
"""The calibration cases' recordings, on the project's virtual panel (3840 x 2160 units):
corners.events, five taps 0.6 s apart (each a tap of its own, past the double-tap interval):
near the four corners (100 units in) and in the middle.
skewed-corners.events: a skewed panel (the glass reaches past the display, turned a little), a
finger resting 0.3 s on each of the screen's corners in turn (top left, top right, bottom left,
bottom right), wavering by a unit or two, as an installer calibrating it would; then
skewed-check.events: taps on the same four corners and the middle, to check the fitted matrix.
    calibration-recordings.py DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from evemu_writer import Recording  # noqa: E402

out = sys.argv[1]
r = Recording()
for i, (x, y) in enumerate([(100, 100), (3739, 100), (100, 2059), (3739, 2059), (1920, 1080)]):
    r.down(60 + i, x, y, after_us=600_000 if i else 0)
    r.up(50_000)
r.frame(600_000)
r.write(f"{out}/corners.events")

# Where the skewed panel reports a finger on the screen's normalized (p, q): the inverse of the
# calibration the calibrator must find.
SKEW = (0.9, 0.02, 0.04, -0.01, 0.92, 0.05)


def skewed(p, q):
    a, b, c, d, e, f = SKEW
    return int((a * p + b * q + c) * 3840), int((d * p + e * q + f) * 2160)


CORNERS = [(0, 0), (1, 0), (0, 1), (1, 1)]  # the calibrator's order: reading order
r = Recording()
for i, (p, q) in enumerate(CORNERS):
    x, y = skewed(p, q)
    r.down(80 + i, x, y, after_us=700_000 if i else 0)
    for k in range(15):
        r.frame(20000, x=x + (k % 3) - 1, y=y + (k % 2))
    r.up(20000)
r.frame(300_000)
r.write(f"{out}/skewed-corners.events")

r = Recording()
for i, (p, q) in enumerate(CORNERS + [(0.5, 0.5)]):
    x, y = skewed(p, q)
    r.down(90 + i, x, y, after_us=600_000 if i else 0)
    r.up(50_000)
r.frame(600_000)
r.write(f"{out}/skewed-check.events")

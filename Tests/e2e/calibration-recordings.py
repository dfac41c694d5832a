#!/usr/bin/env python3
"""The calibration cases' recordings, on the project's virtual panel (3840 x 2160 units):
corners.events, five taps 0.6 s apart (each a tap of its own, past the double-tap interval):
near the four corners (100 units in) and in the middle.
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

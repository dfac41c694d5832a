#!/usr/bin/env python3
"""A cheap panel's recording for the filtered mirror's case (examples/noisy-panel.toml): a finger
resting 1 s with about ±1.5 mm of noise, a tap that bounces for one frame, a one-frame ghost, a
500 mm/s swipe, a tap. 15 units a millimetre, a frame every 10 ms; named "noisy panel" (the
guest's udev rule calibrates "touchgestured virtual panel", which offline replay cannot know).
Run from the checkout's root.
    noisy-recording.py OUT"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from evemu_writer import Recording  # noqa: E402

r = Recording()
noise = random.Random(57)
# The rest: one contact, its position wandering ±22 units (1.5 mm) about 1000, 1000.
r.down(1, 1000, 1000)
for _ in range(100):
    r.frame(10000, x=1000 + noise.randint(-22, 22), y=1000 + noise.randint(-22, 22))
r.up(10000)
# The bouncing tap: down 50 ms, up one frame, down again 2 units away for 50 ms.
r.down(2, 2000, 1000, after_us=500000)
r.frame(50000, id=-1, touch=0)
r.frame(10000, id=3, x=2002, y=1000, touch=1)
r.up(50000)
# The ghost: one frame.
r.down(4, 3000, 500, after_us=500000)
r.up(10000)
# The swipe: 500 mm/s to the left (75 units a 10 ms frame) for 200 ms, lifted mid-move.
r.down(5, 3000, 1500, after_us=500000)
for i in range(1, 21):
    r.frame(10000, x=3000 - 75 * i)
r.up(10000)
# A last tap.
r.down(6, 1900, 1500, after_us=500000)
r.up(60000)
r.write(sys.argv[1])
text = open(sys.argv[1]).read()
open(sys.argv[1], "w").write(text.replace("N: touchgestured virtual panel\n", "N: noisy panel\n", 1))

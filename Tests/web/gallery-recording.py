#!/usr/bin/env python3
"""Writes examples/recordings/web-gallery.events: touches on the example page (examples/web) in a
1280x800 screen, the page filling it (the recording's panel is 3840x2160 units: 3 a px across,
2.7 down). Run from the checkout's root: python3 Tests/web/gallery-recording.py

  0.2 s  a tap on the carousel (its `like`)
  0.8 s  a fast swipe left across the carousel: its pan, snapping to the second slide
  2.0 s  a pull down on the list, held 0.2 s and let go: past the rubber band's 60 px, a refresh
  3.2 s  a tap on the header, outside the page's regions: the screen's own `tap`
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from evemu_writer import Recording  # noqa: E402


def u(x, y):
    return round(x * 3), round(y * 2.7)


r = Recording()
x, y = u(400, 300)
r.down(1, x, y, after_us=200000)
r.up(60000)

x0, y = u(700, 350)
r.down(2, x0, y, after_us=540000)
for i in range(1, 13):  # 400 px in 0.24 s, lifted moving
    r.frame(20000, x=u(700 - 400 * i / 12, 0)[0])
r.up(10000)

x, y0 = u(1050, 140)
r.down(3, x, y0, after_us=900000)
for i in range(1, 26):  # 250 px down in 0.5 s
    r.frame(20000, y=u(0, 140 + 250 * i / 25)[1])
r.rest(x, 200)
r.up(20000)

x, y = u(640, 30)
r.down(4, x, y, after_us=500000)
r.up(60000)
r.write("examples/recordings/web-gallery.events")

#!/usr/bin/env python3
"""The recordings of the e2e case `pointer`, on the project's virtual panel (3840x2160 units for a
1920x1080 screen, two units a pixel), written into the directory given:

  ptr-hold.events   one finger rests 1.5 s at (1000, 800) units (a unit of jitter keeps frames
                    coming), then lifts: a long press
  ptr-drag.events   one finger lands at (1920, 400), drags 1200 units down in 0.6 s, rests 0.3 s
                    (its velocity falls to nothing), lifts: a scroll with no kinetic tail
  ptr-fling.events  one finger lands at (1920, 1800), moves 800 units up in 0.1 s and lifts while
                    moving (a fling: a kinetic tail), then 0.3 s later a second finger lands and
                    rests 0.1 s (it stops the tail)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from evemu_writer import Recording  # noqa: E402

out = sys.argv[1]
r = Recording()
r.down(10, 1000, 800)
r.rest(1000, 1500)
r.up(20000)
r.write(f"{out}/ptr-hold.events")

r = Recording()
r.drag_down(11, 1920, 400)
r.write(f"{out}/ptr-drag.events")

r = Recording()
r.down(12, 1920, 1800)
for i in range(1, 11):
    r.frame(10000, y=1800 - 80 * i)
r.up(10000)
r.down(13, 1920, 1080, after_us=300000)
r.up(100000)
r.write(f"{out}/ptr-fling.events")

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
import sys

HEAD = open("Tests/PipelineTests/Fixtures/tap.events").read().split("\nE:")[0]


class Recording:
    def __init__(self):
        self.lines, self.t = [], 0

    def ev(self, typ, code, val):
        self.lines.append(f"E: {self.t // 1000000}.{self.t % 1000000:06d} {typ:04x} {code:04x} {val}")

    def frame(self, after_us=0, **axes):
        self.t += after_us
        for code, val in axes.items():
            self.ev(*{"slot": (3, 0x2F), "id": (3, 0x39), "x": (3, 0x35), "y": (3, 0x36), "touch": (1, 0x14A)}[code], val)
        self.ev(0, 0, 0)

    def down(self, tid, x, y, after_us=0):
        self.frame(after_us, slot=0, id=tid, x=x, y=y, touch=1)

    def up(self, after_us):
        self.frame(after_us, id=-1, touch=0)

    def rest(self, x, ms):
        for i in range(ms // 20):
            self.frame(20000, x=x + (i + 1) % 2)

    def write(self, path):
        open(path, "w").write(HEAD + "\n" + "\n".join(self.lines) + "\n")


out = sys.argv[1]
r = Recording()
r.down(10, 1000, 800)
r.rest(1000, 1500)
r.up(20000)
r.write(f"{out}/ptr-hold.events")

r = Recording()
r.down(11, 1920, 400)
for i in range(1, 61):
    r.frame(10000, y=400 + 20 * i)
r.rest(1920, 300)
r.up(20000)
r.write(f"{out}/ptr-drag.events")

r = Recording()
r.down(12, 1920, 1800)
for i in range(1, 11):
    r.frame(10000, y=1800 - 80 * i)
r.up(10000)
r.down(13, 1920, 1080, after_us=300000)
r.up(100000)
r.write(f"{out}/ptr-fling.events")

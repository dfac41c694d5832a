"""Writes evemu recordings on the project's virtual panel (Tests/PipelineTests/Fixtures/tap.events:
3840x2160 units, 15 a mm), one slot at a time: the e2e and web tests' recordings are made with it.
Run from the checkout's root."""

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

    def taps(self, *taps):
        """A tap (tracking id, x, y, us after the last frame) each, 50 ms down."""
        for tid, x, y, after_us in taps:
            self.down(tid, x, y, after_us=after_us)
            self.up(50_000)

    def rest(self, x, ms):
        for i in range(ms // 20):
            self.frame(20000, x=x + (i + 1) % 2)

    def drag_down(self, tid, x, y):
        """A finger landing at x, y and dragged 1200 units down in 0.6 s, resting 0.3 s before it
        lifts (a scroll with no fling)."""
        self.down(tid, x, y)
        for i in range(1, 61):
            self.frame(10000, y=y + 20 * i)
        self.rest(x, 300)
        self.up(20000)

    def write(self, path):
        open(path, "w").write(HEAD + "\n" + "\n".join(self.lines) + "\n")

#!/usr/bin/env python3
"""The compositor cases' recording: one panel plays every part, so the compositor opens its mirror
once. Writes DIR/kiosk.events and DIR/kiosk.segments ("name start end" in the recording's seconds).
Parts (the kiosk idle at the start, `[idle] after = 3`): a tap that wakes it (swallowed), a primer
tap, a tap mid-screen (the app's), an edge swipe from the left (a system gesture that delays its
touches: the app never sees them), a three-finger hold (a system gesture taken after the app saw
its touches) then a tap in the same slot, a last tap, a tap after 4 s without a touch (it wakes
the kiosk again), and in the pointer region a tap (a click) and a drag (the wheel).
    kiosk-recording.py FIXTURES HOLD3 DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from evemu_writer import Recording  # noqa: E402

fixtures, hold3, out = sys.argv[1], sys.argv[2], sys.argv[3]


def events(path):
    text = open(path).read()
    head, body = text.split("\nE:", 1)
    lines = ["E:" + e for e in ("\nE:" + body).split("\nE:")[1:]]
    parsed = []
    for line in lines:
        _, t, rest = line.strip().split(" ", 2)
        s, us = t.split(".")
        parsed.append((int(s) * 1_000_000 + int(us), rest))
    return head, parsed


head, _ = events(f"{fixtures}/tap.events")
# Pointer emulation's two parts, in the pointer region (x 1500 px and right: 3000 units and up): a
# tap, and a drag 1200 units down in 0.6 s that rests before it lifts (a scroll, no kinetic tail).
r = Recording()
r.down(30, 3400, 1000)
r.up(60000)
r.write(f"{out}/kiosk-pointer-tap.events")
r = Recording()
r.drag_down(31, 3400, 400)
r.write(f"{out}/kiosk-pointer-drag.events")

parts = [
    # The kiosk is idle when the recording starts (the case waits for it): this tap wakes it.
    ("wake-start", f"{fixtures}/tap.events", 300_000),
    # The compositor's first touch, not judged: a wlroots compositor started with
    # WLR_LIBINPUT_NO_DEVICES=1 adds the devices it found at start only once input comes, and
    # loses it (its client gets a wl_touch some time after: sway compiles keymaps then, up to
    # 0.6 s in the guest, hence the gap before the next part).
    ("primer", f"{fixtures}/tap.events", 800_000),
    ("tap", f"{fixtures}/tap.events", 2_300_000),
    ("edge-swipe", f"{fixtures}/edge-swipe-from-left.events", 3_500_000),
    ("hold3", hold3, 5_000_000),
    ("tap-after", f"{fixtures}/tap.events", 8_000_000),
    # Every gap above is under 1.5 s; then nearly 4 s without a touch: idle again, this tap wakes it.
    ("wake-again", f"{fixtures}/tap.events", 12_000_000),
    ("pointer-tap", f"{out}/kiosk-pointer-tap.events", 13_000_000),
    ("pointer-drag", f"{out}/kiosk-pointer-drag.events", 14_000_000),
]


def compose(parts, last, name):
    """Writes DIR/NAME.events, each part's recording placed at its start (us), with a first frame
    at 0 (the writer's first time is the start) and a last one at `last` s (the recording ends once
    every reader has had its time), and DIR/NAME.segments ("part start end", s)."""
    lines = ["E: 0.000000 0000 0000 0"]
    segments = []
    for part, path, start in parts:
        _, evs = events(path)
        first = evs[0][0]
        for t, rest in evs:
            v = start + t - first
            lines.append(f"E: {v // 1_000_000}.{v % 1_000_000:06d} {rest}")
        segments.append(f"{part} {start / 1e6:.6f} {(start + evs[-1][0] - first) / 1e6:.6f}")
    lines.append(f"E: {last}.000000 0000 0000 0")
    open(f"{out}/{name}.events", "w").write(head + "\n" + "\n".join(lines) + "\n")
    open(f"{out}/{name}.segments", "w").write("\n".join(segments) + "\n")


compose(parts, 16, "kiosk")

# The latency bench's recording: a first tap (not judged, as the kiosk recording's primer), then
# 40 taps, one every 250 ms, 50 ms each, across the app's part of the screen (x below 3000 units).
# kiosk-latency.downs: the frames that land a judged tap, as lines of the player's --write-times
# (one line a frame, the first the empty frame at 0).
r = Recording()
r.frame(0)
r.down(40, 1900, 1000, after_us=300_000)
r.up(50_000)
r.t = 1_500_000 - 250_000
downs = []
for i in range(40):
    r.down(41 + i, 600 + 55 * i, 500 + 30 * (i % 20), after_us=250_000 - (50_000 if i else 0))
    downs.append(sum(1 for line in r.lines if line.endswith(" 0000 0000 0")))
    r.up(50_000)
r.frame(1_000_000)
r.write(f"{out}/kiosk-latency.events")
open(f"{out}/kiosk-latency.downs", "w").write("\n".join(map(str, downs)) + "\n")

# The restart case's recording: a tap, then 3.7 s later a tap at the very same place in the same
# slot (the kernel sends the second with no position: its values equal the slot's last ones).
r = Recording()
r.frame(0)
r.taps((50, 1900, 1000, 300_000), (51, 1900, 1000, 3_650_000))
r.frame(1_000_000)
r.write(f"{out}/kiosk-restart.events")

# The toolkit cases' recording (toolkit.segments as kiosk.segments): a tap a quarter of the way
# across the screen at mid-height (mid-height: the guest's udev rule flips y for libinput
# readers), a tap three quarters across, the three-finger hold (a system gesture that takes its
# touches from the app), then, after a gap in which the case restarts the daemon, a tap again a
# quarter across.
r = Recording()
r.frame(0)
r.taps((60, 960, 1080, 1_000_000), (61, 2880, 1080, 950_000))
r.write(f"{out}/toolkit-taps.events")
r = Recording()
r.taps((62, 960, 1080, 0))
r.write(f"{out}/toolkit-tap.events")
parts = [
    ("taps", f"{out}/toolkit-taps.events", 0),
    ("hold3", hold3, 3_000_000),
    ("tap-after", f"{out}/toolkit-tap.events", 9_500_000),
]
compose(parts, 11, "toolkit")

# The browser settings case's recording: two fingers spread apart mid-screen (a pinch-zoom), one
# finger dragged right across the page (an overscroll back), one dragged down from the top (a
# pull to refresh), each 0.5 s, 2 s apart.
r = Recording()
r.frame(0)
r.t = 1_000_000
r.frame(slot=0, id=70, x=1700, y=1080, touch=1)
r.frame(10_000, slot=1, id=71, x=2140, y=1080)
for i in range(1, 26):
    r.frame(20_000, slot=0, x=1700 - 24 * i)
    r.frame(0, slot=1, x=2140 + 24 * i)
r.frame(20_000, slot=0, id=-1)
r.frame(0, slot=1, id=-1, touch=0)
r.t = 3_000_000
r.frame(slot=0, id=72, x=600, y=1080, touch=1)
for i in range(1, 26):
    r.frame(20_000, x=600 + 100 * i)
r.frame(20_000, id=-1, touch=0)
r.t = 5_000_000
r.frame(slot=0, id=73, x=1920, y=200, touch=1)
for i in range(1, 26):
    r.frame(20_000, y=200 + 64 * i)
r.frame(20_000, id=-1, touch=0)
r.frame(3_000_000)
r.write(f"{out}/browser.events")

# The kept mirror's case (passthrough_fdstore): a tap, a finger down from 2 s to 7 s (a unit of
# jitter keeps frames coming), during which the case kills the daemon, then a tap at 10 s, after
# the case restarts it again.
r = Recording()
r.frame(0)
r.taps((80, 1900, 1000, 1_000_000))
r.down(81, 1900, 1000, after_us=950_000)
for i in range(249):
    r.frame(20_000, x=1900 + i % 2)
r.up(20_000)
r.taps((82, 1900, 1000, 3_000_000))
r.frame(1_000_000)
r.write(f"{out}/fdstore.events")

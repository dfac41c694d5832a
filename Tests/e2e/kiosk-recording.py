#!/usr/bin/env python3
"""The compositor cases' recording: one panel plays every part, so the compositor opens its mirror
once. Writes DIR/kiosk.events and DIR/kiosk.segments ("name start end" in the recording's seconds).
Parts: a primer tap, a tap mid-screen (the app's), an edge swipe from the left (a system gesture that delays its
touches: the app never sees them), a three-finger hold (a system gesture taken after the app saw
its touches) then a tap in the same slot, and a last tap.
    kiosk-recording.py FIXTURES HOLD3 DIR"""
import sys

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
parts = [
    # A compositor whose libinput backend adds the devices it found at start only once input
    # comes (cage, sway) loses this first touch: a primer, not judged.
    ("primer", f"{fixtures}/tap.events", 300_000),
    ("tap", f"{fixtures}/tap.events", 1_300_000),
    ("edge-swipe", f"{fixtures}/edge-swipe-from-left.events", 3_000_000),
    ("hold3", hold3, 5_000_000),
    ("tap-after", f"{fixtures}/tap.events", 9_000_000),
]
lines = ["E: 0.000000 0000 0000 0"]  # the first frame at 0: the writer's first time is the start
segments = []
for name, path, start in parts:
    _, evs = events(path)
    first = evs[0][0]
    for t, rest in evs:
        v = start + t - first
        lines.append(f"E: {v // 1_000_000}.{v % 1_000_000:06d} {rest}")
    end = start + evs[-1][0] - first
    segments.append(f"{name} {start / 1e6:.6f} {end / 1e6:.6f}")
# A last frame well after the last part: the recording ends once every reader has had its time.
lines.append("E: 11.000000 0000 0000 0")
open(f"{out}/kiosk.events", "w").write(head + "\n" + "\n".join(lines) + "\n")
open(f"{out}/kiosk.segments", "w").write("\n".join(segments) + "\n")

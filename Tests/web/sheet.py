#!/usr/bin/python3
"""The chained sheet page end to end (Tests/web/run.sh calls it): the real daemon replays two
strokes on the list of examples/web/sheet.html, whose two client regions (the sheet with snap
points, the list chained to it) the page registers through the JavaScript module; headless
Chromium shows it. One stroke up: the sheet opens first, then the list scrolls; one stroke down:
the list back to its top first, then the sheet pulled down. The page moves each element by its
own region's lines. Prints `WEB CASE sheet: PASS (...)`, or `... FAIL: why` and exits 1.

  sheet.py BIN_DIR WORK_DIR
"""
import json
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from chromium import Chromium, Failure, free_port, wait_for  # noqa: E402
from evemu_writer import Recording  # noqa: E402

BIN, WORK = sys.argv[1], os.path.join(sys.argv[2], "sheet")
SOCK = os.path.join(WORK, "gestures.sock")
CONFIG = os.path.join(WORK, "web.toml")
RECORDING = os.path.join(WORK, "sheet.events")


def units(x, y):
    """Screen px of the 1280 x 800 page as the recording's panel units (3840 x 2160)."""
    return round(x * 3), round(y * 2.7)


def stroke(r, tid, x, y0, dy, after_us):
    """A finger landing at (x, y0) px, moved dy px in 0.8 s, resting 0.2 s, lifted."""
    ux, uy = units(x, y0)
    r.down(tid, ux, uy, after_us=after_us)
    for i in range(1, 41):
        r.frame(20000, y=units(0, y0 + dy * i / 40)[1])
    r.rest(ux, 200)
    r.up(20000)


def write_recording():
    r = Recording()
    stroke(r, 1, 640, 700, -400, 300_000)   # up: the sheet opens (250 -> 0), the list scrolls 150
    stroke(r, 2, 640, 500, 400, 800_000)    # down: the list to its top (150), the sheet down 250
    r.frame(500_000)
    r.write(RECORDING)


def say(what):
    print(f"WEB CASE sheet: {what}", flush=True)


def main():
    os.makedirs(WORK, exist_ok=True)
    with open(CONFIG, "w") as f:
        f.write("[screen]\nwidth = 1280\nheight = 800\n")
    write_recording()
    daemon = subprocess.Popen(
        [f"{BIN}/touchgestured", "--config", CONFIG, "--socket", SOCK, "--replay", RECORDING, "--wait-for-clients", "2"],
        stderr=open(os.path.join(WORK, "daemon.log"), "w"))
    port = free_port()
    bridge = subprocess.Popen(
        [f"{BIN}/touchgestured-web", "--listen", f"127.0.0.1:{port}", "--socket", SOCK, "--www", "examples/web"],
        stderr=open(os.path.join(WORK, "bridge.log"), "w"))
    browser = None
    trigger = None
    try:
        wait_for(lambda: os.path.exists(SOCK), "the daemon's socket")
        browser = Chromium(f"http://127.0.0.1:{port}/sheet")
        browser.wait("window.sheetDemo && window.sheetDemo.ready", "the sheet's and the list's regions registered", state="window.sheetDemo")
        trigger = socket.socket(socket.AF_UNIX)
        trigger.connect(SOCK)  # the second client: the replay starts
        browser.wait("window.sheetDemo.ends.length >= 4", "both strokes ended", timeout=30, state="window.sheetDemo")
        page = json.loads(browser.eval("JSON.stringify(window.sheetDemo)"))
        want = ["list -150", "sheet 0", "list 0", "sheet 250"]
        if page["ends"][:4] != want:
            raise Failure(f"the strokes ended at {page['ends']}, not {want}")
        # Each region gets a line for each frame that moved it (began and ended always), none
        # that moved nothing: about half the frames each, as each stroke moves one, then the other.
        lines, idle = page["lines"], page["idle"]
        if idle["sheet"] or idle["places"]:
            raise Failure(f"changed lines that moved nothing: {idle} (of {lines})")
        if min(lines.values()) < 10:
            raise Failure(f"too few lines: {lines}")
        moved = browser.eval("getComputedStyle(document.getElementById('sheet')).transform")
        say(f"PASS (one stroke up on the list: the sheet opened (250 -> 0), then the list scrolled to -150; one "
            f"stroke down: the list back to its top, then the sheet pulled to 250; lines {lines}, each for a frame that "
            f"moved its region; the sheet's transform {moved})")
    finally:
        if trigger:
            trigger.close()
        if browser:
            browser.close()
        for p in (bridge, daemon):
            p.terminate()


try:
    main()
except (Failure, OSError, ValueError, subprocess.SubprocessError) as e:
    say(f"FAIL: {e}")
    sys.exit(1)

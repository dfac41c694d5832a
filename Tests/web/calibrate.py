#!/usr/bin/python3
"""The calibration page end to end (Tests/web/run.sh calls it after run.py): the real daemon
replays touches on a skewed panel at the page's four targets, then a tap on its Save button;
touchgestured-web serves /calibrate; headless Chromium opens it. Checked: the page's targets and
progress, the fit shown (each touch's error), and saving: allowed to a page of a user with the
socket's rights (the daemon keeps the calibration in its state folder and reloads), refused by a
read-only bridge, and refused by the daemon to a user outside the socket's group. Prints
`WEB CASE calibrate: PASS (...)`, or `... FAIL: why` and exits 1.

  calibrate.py BIN_DIR WORK_DIR
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

BIN, WORK = sys.argv[1], os.path.join(sys.argv[2], "calibrate")
SOCK = os.path.join(WORK, "gestures.sock")
CONFIG = os.path.join(WORK, "web.toml")
RECORDING = os.path.join(WORK, "calibrate.events")
# Where the skewed panel (3840 x 2160 units) reports a finger on the screen's normalized (p, q).
SKEW = (0.9, 0.02, 0.04, -0.01, 0.92, 0.05)
TARGETS = [(0.1, 0.1), (0.9, 0.1), (0.1, 0.9), (0.9, 0.9)]  # the page's, 10 % in, in reading order
SAVE = (0.39, 0.76)  # inside the page's Save button (30-49 % across, 70-82 % down)


def skewed(p, q):
    a, b, c, d, e, f = SKEW
    return int((a * p + b * q + c) * 3840), int((d * p + e * q + f) * 2160)


def write_recording():
    r = Recording()
    for i, (p, q) in enumerate(TARGETS):
        x, y = skewed(p, q)
        r.down(20 + i, x, y, after_us=800_000)
        for k in range(12):
            r.frame(20000, x=x + k % 2)
        r.up(20000)
    x, y = skewed(*SAVE)
    r.down(30, x, y, after_us=1_500_000)
    r.up(60000)
    r.frame(500_000)
    r.write(RECORDING)


def say(what):
    print(f"WEB CASE calibrate: {what}", flush=True)


def round_(name, bridge_args):
    """One page load: the daemon replaying the touches once the page is ready; the page's state."""
    state_dir = os.path.join(WORK, f"state-{name}")
    if os.path.exists(SOCK):
        os.unlink(SOCK)
    daemon = subprocess.Popen(
        [f"{BIN}/touchgestured", "--config", CONFIG, "--socket", SOCK, "--replay", RECORDING,
         "--wait-for-clients", "2", "--state-dir", state_dir],
        stderr=open(os.path.join(WORK, f"daemon-{name}.log"), "w"))
    port = free_port()
    bridge = subprocess.Popen(
        [f"{BIN}/touchgestured-web", "--listen", f"127.0.0.1:{port}", "--socket", SOCK, "--www", "examples/web"] + bridge_args,
        stderr=open(os.path.join(WORK, f"bridge-{name}.log"), "w"))
    browser = None
    trigger = None
    try:
        wait_for(lambda: os.path.exists(SOCK), "the daemon's socket")
        browser = Chromium(f"http://127.0.0.1:{port}/calibrate")
        # The page is connected (the daemon reads no panel until the replay starts) and its
        # buttons' regions are registered.
        browser.wait("window.calibration && window.calibration.state === 'no device'", f"{name}: the page connected",
                     state="window.calibration")
        trigger = socket.socket(socket.AF_UNIX)
        trigger.connect(SOCK)  # the second client: the replay starts, its panel is added
        browser.wait("window.calibration.state === 'collecting'", f"{name}: the page asks for the first target",
                     state="window.calibration")
        progress = browser.eval("document.getElementById('progress').textContent")
        return daemon, bridge, browser, trigger, state_dir, progress
    except BaseException:
        for p in (bridge, daemon):
            p.terminate()
        if browser:
            browser.close()
        raise


def request(line, user=None):
    """One request on the daemon's socket (as `user` when given, through setpriv); its reply line."""
    code = ("import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f=s.makefile('rwb');"
            "f.readline(); f.write(sys.argv[2].encode()+b'\\n'); f.flush()\n"
            "while True:\n l=f.readline()\n if b'\"id\":9' in l: print(l.decode(), end=''); break")
    argv = ["/usr/bin/python3", "-c", code, SOCK, line]
    if user:
        argv = ["setpriv", f"--reuid={user}", "--regid=nogroup", "--clear-groups"] + argv
    done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    if not done.stdout:
        raise Failure(f"no reply to {line[:40]}... as {user or 'this user'}: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout)


def main():
    os.makedirs(WORK, exist_ok=True)
    with open(CONFIG, "w") as f:
        f.write("[screen]\nwidth = 1280\nheight = 800\n")
    write_recording()
    notes = []
    # A page of a user with the socket's rights: fitted, shown, saved, applied.
    daemon, bridge, browser, trigger, state_dir, progress = round_("allowed", [])
    try:
        notes.append(f"the page asked '{progress}'")
        browser.wait("window.calibration.state === 'fitted'", "the fit shown", timeout=40, state="window.calibration")
        shown = browser.eval("document.getElementById('progress').textContent + ' ' + document.getElementById('result').textContent")
        browser.screenshot(os.path.join(WORK, "web-calibrate.png"))
        browser.wait("window.calibration.state === 'saved'", "the calibration saved", timeout=20, state="window.calibration")
        page = json.loads(browser.eval("JSON.stringify(window.calibration)"))
        fit = page["fit"]
        if fit["worst_mm"] > 1 or len(fit["residual_mm"]) != 4:
            raise Failure(f"a poor fit of exact touches: {fit}")
        saved = open(os.path.join(state_dir, "calibration.toml")).read()
        if "calibration = [1.1" not in saved:
            raise Failure(f"the state file holds no calibration: {saved}")
        stats = request('{"op":"stats","id":9}')
        if stats.get("reloads") != 1:
            raise Failure(f"the daemon did not reload once after the save: {stats.get('reloads')}")
        notes.append(f"fit shown ('{shown.splitlines()[0] if shown else ''}'), "
                     f"saved by a tap on Save to {page['saved']} and applied (1 reload)")
        # A user outside the socket's group, on a socket opened to everyone: fitted, never saved.
        # (Its folders opened for the search too: run.sh's work folder is mktemp's, 0700.)
        os.chmod(SOCK, 0o666)
        for folder in (os.path.dirname(WORK), WORK):
            os.chmod(folder, 0o755)
        points = json.dumps(page["points"])
        nobody = request('{"op":"calibrate","id":9,"device":1,"save":true,"points":' + points + '}', user="nobody")
        if nobody.get("code") != "forbidden":
            raise Failure(f"a user outside the socket's group saved a calibration: {nobody}")
        notes.append("a user outside the socket's group (nobody, socket made 0666) refused: forbidden")
    finally:
        trigger.close()
        browser.close()
        for p in (bridge, daemon):
            p.terminate()
    # A read-only bridge: the fit is shown, saving refused, nothing written.
    daemon, bridge, browser, trigger, state_dir, _ = round_("read-only", ["--read-only"])
    try:
        # A read-only bridge takes no regions, so the daemon sees no Save button: the browser's
        # own click on it (as in a kiosk whose browser gets the touch).
        browser.wait("window.calibration.state === 'fitted'", "the fit shown", timeout=40, state="window.calibration")
        browser.eval("document.getElementById('save').click()")
        browser.wait("window.calibration.error !== null", "the save refused", timeout=20, state="window.calibration")
        page = json.loads(browser.eval("JSON.stringify(window.calibration)"))
        if "read-only" not in page["error"] or page["saved"] or os.path.exists(os.path.join(state_dir, "calibration.toml")):
            raise Failure(f"a read-only bridge let a page save: {page}")
        notes.append(f"through a --read-only bridge the fit is shown and saving refused ('{page['error']}')")
    finally:
        trigger.close()
        browser.close()
        for p in (bridge, daemon):
            p.terminate()
    say("PASS (" + "; ".join(notes) + ")")


try:
    main()
except (Failure, OSError, ValueError, subprocess.SubprocessError) as e:
    say(f"FAIL: {e}")
    sys.exit(1)

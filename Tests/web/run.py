#!/usr/bin/python3
"""The web bridge end to end (Tests/web/run.sh builds and calls it): the real daemon replays
examples/recordings/web-gallery.events, touchgestured-web serves examples/web, and a headless
Chromium opens the page. The page registers its carousel and list as regions from their DOM
elements; the replay starts only once they are registered (the daemon waits for a second client,
which this script connects then). Then, with plain WebSocket clients: a foreign Origin, a 1 MB
message, 500 connections, the daemon killed and started again. Prints `WEB ...` lines and
`WEB PASS`, or `WEB FAIL: why` and exits 1.

  run.py BIN_DIR WORK_DIR [SCREENSHOT.png]
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import websocket

sys.path.insert(0, os.path.dirname(__file__))
from chromium import Chromium, Failure, free_port, wait_for  # noqa: E402

BIN, WORK = sys.argv[1], sys.argv[2]
SHOT = sys.argv[3] if len(sys.argv) > 3 else os.path.join(WORK, "web-gallery.png")
SOCK = os.path.join(WORK, "gestures.sock")
CONFIG = os.path.join(WORK, "web.toml")
PORT = free_port()
ORIGIN = f"http://127.0.0.1:{PORT}"
MAX_PAGES = 8  # the bridge's --max-connections here, within the daemon's 16 a user


def say(*words):
    print("WEB", *words, flush=True)


def start_daemon(clients):
    """The daemon replaying the gallery once `clients` connections are open."""
    return subprocess.Popen(
        [f"{BIN}/touchgestured", "--config", CONFIG, "--socket", SOCK, "--replay",
         "examples/recordings/web-gallery.events", "--wait-for-clients", str(clients)],
        stderr=open(os.path.join(WORK, "daemon.log"), "a"))


def trigger():
    """A stream client of the daemon's own: connecting it starts the replay."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(SOCK)
    return s


def page_client(origin=ORIGIN):
    return websocket.create_connection(f"ws://127.0.0.1:{PORT}/gestures", origin=origin, timeout=10)


def next_line(ws, kind):
    """The next message of `type` kind (others skipped)."""
    while True:
        line = json.loads(ws.recv())
        if line["type"] == kind:
            return line


def ping(ws, ident):
    ws.send(json.dumps({"op": "ping", "id": ident}))
    while True:
        line = json.loads(ws.recv())
        if line.get("id") == ident:
            return line


def check_page(browser, round_):
    browser.wait("window.demo && window.demo.ready", f"round {round_}: the page's regions registered")
    registered = browser.eval("JSON.stringify(window.demo.regions)")
    say(f"round {round_}: regions registered from DOM elements: {registered}")
    return trigger()


def check_gestures(browser, round_):
    browser.wait(f"window.demo.refreshes >= {round_} && window.demo.slide === 1 && "
                 f"(window.demo.counts.like ?? 0) >= {round_} && (window.demo.counts.tap ?? 0) >= {round_}",
                 f"round {round_}: the recording's gestures in the page")
    state = json.loads(browser.eval("JSON.stringify(window.demo)"))
    say(f"round {round_}: gestures by kind in the page: {json.dumps(state['counts'], sort_keys=True)}")
    for name in ("carousel", "feed"):
        if state["regions"][name]["events"] < 1:
            raise Failure(f"no gesture arrived for the {name} region")
    say(f"round {round_}: slide {state['slide']}, refreshes {state['refreshes']}, region events "
        f"carousel {state['regions']['carousel']['events']}, feed {state['regions']['feed']['events']}")


def check_origin():
    try:
        page_client(origin="http://evil.example").close()
    except websocket.WebSocketBadStatusException as e:
        if e.status_code != 403:
            raise Failure(f"a foreign origin got HTTP {e.status_code}, not 403")
        say("foreign origin: refused with HTTP 403")
        return
    raise Failure("a page from http://evil.example was let in")


def check_big_message(other):
    big = page_client()
    try:
        big.send("x" * (1 << 20))
    except OSError:
        pass
    code = None
    try:
        while True:
            op, frame = big.recv_data_frame(control_frame=True)
            if op == websocket.ABNF.OPCODE_CLOSE:
                code = int.from_bytes(frame.data[:2], "big")
                break
    except (websocket.WebSocketException, OSError):
        pass
    if code != 1009:
        raise Failure(f"a 1 MB message: close code {code}, not 1009")
    if ping(other, "after-big")["type"] != "reply":
        raise Failure("another page lost its daemon after a 1 MB message")
    say("1 MB message: closed with 1009 (message too big); the other page and the daemon go on")


def check_many(other):
    kept, refused = [], 0
    for _ in range(500):
        try:
            kept.append(page_client())
        except websocket.WebSocketBadStatusException as e:
            if e.status_code != 503:
                raise Failure(f"connection past the limit: HTTP {e.status_code}, not 503")
            refused += 1
    if ping(other, "after-many")["type"] != "reply":
        raise Failure("another page lost its daemon during 500 connections")
    for ws in kept:
        ws.close()
    # Every connection here is root's: one user's share is half of --max-connections.
    say(f"500 connections: {len(kept)} taken (with the page and one client: one user's share, {MAX_PAGES // 2}), {refused} refused with HTTP 503; the others go on")
    wait_for(lambda: try_connect(), "a connection once the 500 closed")


def try_connect():
    try:
        page_client().close()
        return True
    except (websocket.WebSocketBadStatusException, OSError):
        return False


def check_restart(browser, daemon, client):
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(10)
    if next_line(client, "bridge")["daemon"] != "down":
        raise Failure("no daemon-down line after the daemon stopped")
    browser.wait("window.demo.status && !window.demo.status.daemon", "the page told the daemon went")
    daemon = start_daemon(clients=3)  # the page, the plain client, the trigger
    if next_line(client, "bridge")["daemon"] != "up":
        raise Failure("no daemon-up line after the daemon came back")
    next_line(client, "hello")
    say("daemon restarted: pages told down, then up and hello, on the same WebSocket")
    return daemon


def main():
    os.makedirs(WORK, exist_ok=True)
    with open(CONFIG, "w") as f:
        f.write("[screen]\nwidth = 1280\nheight = 800\n")
    daemon = start_daemon(clients=2)
    wait_for(lambda: os.path.exists(SOCK), "the daemon's socket")
    bridge = subprocess.Popen(
        [f"{BIN}/touchgestured-web", "--listen", f"127.0.0.1:{PORT}", "--socket", SOCK,
         "--www", "examples/web", "--max-connections", str(MAX_PAGES)],
        stderr=open(os.path.join(WORK, "bridge.log"), "w"))
    browser = None
    try:
        wait_for(try_connect, "the bridge's endpoint")
        browser = Chromium(f"{ORIGIN}/")
        live = check_page(browser, 1)
        check_gestures(browser, 1)
        time.sleep(0.8)  # the carousel's and list's settling transitions, for the picture
        browser.screenshot(SHOT)
        say(f"screenshot: {SHOT}")
        client = page_client()
        next_line(client, "hello")
        check_origin()
        check_big_message(client)
        check_many(client)
        live.close()
        daemon = check_restart(browser, daemon, client)
        live = check_page(browser, 2)
        check_gestures(browser, 2)
        if bridge.poll() is not None:
            raise Failure(f"the bridge exited with {bridge.returncode}")
        say("PASS")
    except (Failure, OSError, websocket.WebSocketException) as e:
        say(f"FAIL: {e}")
        sys.exit(1)
    finally:
        if browser:
            browser.close()
        for p in (bridge, daemon):
            p.terminate()


main()

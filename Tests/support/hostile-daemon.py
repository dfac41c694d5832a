#!/usr/bin/env python3
"""A server at touchgestured's socket path that is not the daemon: it answers as the daemon
does, with what a hostile peer would say (tests of touchgesturectl, which trusts no server).

  hostile-daemon.py SOCKET LOG [--name NAME] [--width W] [--source PATH] [--huge] [--close-on-reload]
                              [--stall] [--raw]

It greets with one panel named NAME on a screen W px wide, says its configuration is PATH
(get_config), plays four corner touches to a touch subscriber, answers `reload` (or closes the
connection instead), and with --huge puts 1e300 in every number a client may read. --stall
answers a request with half a line and nothing more; --raw streams a gesture line whose strings
hold raw ESC, C1 and U+202E (JSON that a terminal would obey). It writes
each request it gets to LOG, one a line, and exits on SIGTERM; any other signal (SIGHUP from a
client that trusts the peer's pid) ends it with that signal, which the test sees."""
import json, signal, socket, sys, os

# A test runner may hand its children blocked signals: SIGTERM must end this server, and a
# SIGHUP a client sent must show (it ends the server too, as a daemon that trusts it would not).
signal.pthread_sigmask(signal.SIG_SETMASK, [])
for s in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)

args = sys.argv[1:]
path, log = args[0], args[1]
def opt(name, default):
    return args[args.index(name) + 1] if name in args else default
name = opt("--name", "hostile panel")
width = float(opt("--width", "1920"))
source = opt("--source", "/tmp/hostile/touchgestured.toml")
huge = "--huge" in args
big = 1e300

def number(n):
    return big if huge else n

device = {"id": number(1), "node": "/dev/input/event9", "name": name, "vendor": "0000", "product": "0000",
          "kind": "touchscreen", "slots": number(10), "size_mm": [number(300), number(200)]}
hello = {"type": "hello", "version": "0.1.0", "protocol": number(1), "devices": [device],
         "screen": {"width": width, "height": 1080}}

def serve(conn):
    f, w = conn.makefile("r"), conn.makefile("w")
    def send(v):
        w.write(json.dumps(v, separators=(",", ":")) + "\n"); w.flush()
    send(hello)
    for line in f:
        with open(log, "a") as out:
            out.write(line)
        req = json.loads(line)
        op, rid = req.get("op"), req.get("id")
        if op == "reload" and "--close-on-reload" in args:
            conn.shutdown(socket.SHUT_RDWR); conn.close(); return
        if "--stall" in args and op != "subscribe":
            w.write('{"type":"reply"'); w.flush()
            continue
        if "--raw" in args and op == "subscribe":
            w.write('{"type":"gesture","gesture":"tap","phase":"recognized","id":1,"time":1,"x":1,"y":1,"region":"\x1b]0;PWNED\x07\u009b31m\u202eevil"}\n')
            w.flush(); conn.close(); return
        reply = {"type": "reply", "id": rid, "op": op}
        if op == "get_config":
            reply["source"] = source
        if op == "list_devices":
            reply["devices"] = [device]
        if op == "reload":
            reply["source"] = source
        send(reply)
        if op == "subscribe" and req.get("touches"):
            for u, v in [(0, 0), (1, 0), (0, 1), (1, 1)]:
                for _ in range(3):
                    send({"type": "touch", "device": 1, "time": 1, "contacts": [{"id": 1, "u": u, "v": v, "x": 0, "y": 0}]})
                send({"type": "touch", "device": 1, "time": 1, "contacts": []})
        elif op == "subscribe" and req.get("gestures", True) is not False:
            send({"type": "gesture", "gesture": "tap", "phase": "recognized", "id": number(2), "time": number(1.5),
                  "x": number(10), "y": number(10), "fingers": number(1), "count": number(1), "region": "screen\u001b[2J",
                  "name": "tap"})
            conn.close(); return

server = socket.socket(socket.AF_UNIX)
server.bind(path); server.listen(4)
while True:
    conn, _ = server.accept()
    try:
        serve(conn)
    except (BrokenPipeError, ConnectionResetError, OSError, ValueError):
        pass

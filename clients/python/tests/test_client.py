"""The client against the real daemon on a replay (the debug build, or TOUCHGESTURED_BIN): the
lines it iterates, its requests and their errors, reconnection, asyncio, the monitor command."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, List

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "clients/python/src"))

from touchgestured import AsyncClient, Client, Gesture, RequestError, request  # noqa: E402

BINARY = os.environ.get("TOUCHGESTURED_BIN", str(ROOT / ".build/debug/touchgestured"))
TOUR = str(ROOT / "examples/recordings/tour.events")


def start(sock: str, *args: str) -> subprocess.Popen:
    p = subprocess.Popen([BINARY, "--socket", sock, "--replay", TOUR, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(200):
        if os.path.exists(sock):
            return p
        time.sleep(0.05)
    p.kill()
    raise RuntimeError("the daemon did not start: " + p.stderr.read().decode(errors="replace"))


@pytest.fixture
def daemon() -> Iterator[str]:
    if not os.access(BINARY, os.X_OK):
        pytest.fail(f"{BINARY} is not built (swift build)")
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "g.sock")
        p = start(sock, "--wait-for-clients", "1", "--loop")
        yield sock
        p.terminate()
        p.wait(10)


def test_gestures_come_typed_and_a_double_tap_is_named_so(daemon: str) -> None:
    seen: List[Gesture] = []
    with Client(daemon, reconnect=False, timeout=30) as c:
        assert c.hello is not None and c.hello.protocol == 1
        for g in c.gestures():
            seen.append(g)
            if len({x.gesture for x in seen}) >= 5 or len(seen) > 400:
                break
    kinds = {g.gesture for g in seen}
    assert {"tap", "pan"} <= kinds, kinds
    assert all(g.name for g in seen)
    assert any(g.phase == "recognized" for g in seen)


def test_requests_answer_and_errors_raise(daemon: str) -> None:
    with Client(daemon, reconnect=False, timeout=30) as c:
        assert c.ping() > 0
        assert "frames" in c.stats()
        assert c.set_regions([{"name": "ok", "rect": [0, 0, 100, 100], "gestures": [{"kind": "tap"}]}]) == ["ok"]
        with pytest.raises(RequestError) as e:
            c.set_regions([{"name": "bad", "rect": [0, 0, -1, 5]}])
        assert e.value.code == "invalid_regions"
        # The lines that came while the requests waited are still iterated.
        c.subscribe(gestures=["tap"])
        assert next(iter(c.gestures())).gesture == "tap"
    assert request("ping", daemon).op == "ping"


def test_it_reconnects_and_subscribes_again() -> None:
    if not os.access(BINARY, os.X_OK):
        pytest.fail(f"{BINARY} is not built (swift build)")
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "g.sock")
        p = start(sock, "--wait-for-clients", "1", "--loop")
        c = Client(sock, timeout=30, max_backoff=0.2)
        with c:
            c.subscribe(gestures=["swipe"])
            it = c.gestures()
            assert next(it).gesture == "swipe"
            p.terminate()
            p.wait(10)
            os.unlink(sock) if os.path.exists(sock) else None
            p = start(sock, "--wait-for-clients", "1", "--loop")
            # The same iteration goes on, on the new daemon, with the subscription sent again.
            assert next(it).gesture == "swipe"
        p.terminate()
        p.wait(10)


def test_asyncio(daemon: str) -> None:
    async def run() -> List[str]:
        async with AsyncClient(daemon, reconnect=False) as c:
            await c.subscribe(gestures=["tap", "long_press"])
            out: List[str] = []
            async for g in c.gestures():
                out.append(g.gesture)
                if len(out) >= 3:
                    return out
        return []

    got = asyncio.run(asyncio.wait_for(run(), 60))
    assert set(got) <= {"tap", "long_press"} and len(got) == 3


def test_monitor_prints_count_lines(daemon: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "clients/python/src"))
    r = subprocess.run([sys.executable, "-m", "touchgestured", "monitor", "--socket", daemon, "--count", "5"],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(lines) == 5 and all(m["type"] == "gesture" for m in lines)
    # The lines as the daemon wrote them: its times keep their six decimals (re-encoding drops them).
    assert all(re.search(r'"time":[0-9]+\.[0-9]{6}[,}]', line) for line in r.stdout.splitlines()), r.stdout
    r = subprocess.run([sys.executable, "-m", "touchgestured", "monitor", "--socket", daemon, "--count", "2", "--pretty"],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2 and not r.stdout.startswith("{"), r.stdout
    # A count under 1 is a usage error naming the flag, as `touchgesturectl monitor` makes it.
    for bad in ("0", "-3", "x"):
        r = subprocess.run([sys.executable, "-m", "touchgestured", "monitor", "--socket", daemon, "--count", bad],
                           capture_output=True, text=True, timeout=60, env=env)
        assert r.returncode == 2 and "--count" in r.stderr and not r.stdout, (bad, r.stderr)


def test_monitor_fails_when_the_daemon_goes_before_its_count() -> None:
    # A script waiting for --count lines must not take the daemon's going for them.
    env = dict(os.environ, PYTHONPATH=str(ROOT / "clients/python/src"))
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "g.sock")
        p = start(sock, "--wait-for-clients", "1")
        try:
            m = subprocess.Popen([sys.executable, "-m", "touchgestured", "monitor", "--socket", sock, "--count", "100000", "--no-reconnect"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            out = ""
            while m.stdout is not None and out.count("\n") < 3:
                out += m.stdout.readline()
            p.terminate()
            p.wait(10)
            rest, err = m.communicate(timeout=30)
        finally:
            p.kill()
        assert m.returncode == 1, err
        assert "the daemon closed the connection" in err, err


def test_asyncio_requests_from_another_task_while_one_iterates(daemon: str) -> None:
    async def run() -> bool:
        c = AsyncClient(daemon, reconnect=False, timeout=10)
        await c.connect()
        lines: List[object] = []

        async def iterate() -> None:
            async for m in c:
                lines.append(m)

        t = asyncio.create_task(iterate())
        replies = await asyncio.gather(*(c.request("ping") for _ in range(10)))
        ok = all(r.op == "ping" for r in replies) and "frames" in (await c.request("stats")).raw
        await c.close()
        await asyncio.wait_for(t, 5)  # close() ends the iteration
        return ok

    assert asyncio.run(run())


def test_a_hostile_peer_is_survived() -> None:
    """A peer that says hello, sends a malformed line and a gesture, then hangs up, again and
    again: the malformed lines are skipped and counted, the gestures come, and the reconnections
    back off (a dozen in 1.5 s at most, not thousands)."""
    import socket
    import threading

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "h.sock")
        server = socket.socket(socket.AF_UNIX)
        server.bind(path)
        server.listen(16)
        accepted = []

        def serve() -> None:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                accepted.append(time.monotonic())
                conn.sendall(b'{"type":"hello","protocol":1,"devices":[],"screen":{}}\n{"type":"gesture","x":"abc"}\n[1]\n'
                             b'{"type":"gesture","gesture":"tap","phase":"recognized","id":1,"x":1,"y":2}\n')
                conn.close()

        threading.Thread(target=serve, daemon=True).start()
        c = Client(path, timeout=5, max_backoff=0.4)
        got: List[Gesture] = []
        start = time.monotonic()
        for g in c.gestures():
            got.append(g)
            if time.monotonic() - start > 1.5:
                break
        server.close()
        assert got and all(g.gesture == "tap" for g in got)
        assert c.malformed >= 2 * len(got)
        assert len(accepted) <= 12, len(accepted)


def test_a_reload_that_drops_a_clients_regions_tells_that_client_alone() -> None:
    """A reload whose file now names another client's region: the asker's reload returns, the
    owner's iteration sees `regions_dropped`, and a reconnection would not set them again."""
    if not os.access(BINARY, os.X_OK):
        pytest.fail(f"{BINARY} is not built (swift build)")
    with tempfile.TemporaryDirectory() as d:
        sock, config = os.path.join(d, "g.sock"), os.path.join(d, "kiosk.toml")
        Path(config).write_text("")
        p = start(sock, "--config", config, "--loop")
        try:
            with Client(sock, reconnect=False, timeout=10) as owner, Client(sock, reconnect=False, timeout=10) as asker:
                owner.subscribe(gestures=False)
                owner.set_regions([{"name": "foo", "rect": [10, 10, 100, 100], "gestures": [{"kind": "tap"}]}])
                Path(config).write_text('[[region]]\nname = "foo"\nrect = [500, 500, 100, 100]\n')
                assert asker.reload() == config
                notice = next(m for m in owner if getattr(m, "code", None))
                assert getattr(notice, "code", None) == "regions_dropped" and "'foo'" in notice.message, notice
                assert "set_regions" not in owner._replay
        finally:
            p.terminate()
            p.wait(10)


UNREAD = b'{"type":"error","code":"line_too_long","message":"a line too long"}\n'


def slow_answerer(path: str, late: float, first: bytes = UNREAD, second: bytes = b"") -> None:
    """A peer that answers its first request `late` s late with `first` (an error with no id: a
    line it could not read), its second with `second` if given, and every other one at once with
    a reply (in order, as the daemon does)."""
    import socket
    import threading

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)

    def serve() -> None:
        conn, _ = server.accept()
        conn.sendall(b'{"type":"hello","protocol":1,"devices":[],"screen":{}}\n')
        lines = conn.makefile("rb")
        for n, line in enumerate(lines):
            request = json.loads(line)
            if n == 0:
                time.sleep(late)
                conn.sendall(first)
            elif n == 1 and second:
                conn.sendall(second)
            else:
                conn.sendall(json.dumps({"type": "reply", "op": request["op"], "id": request["id"]}).encode() + b"\n")
        server.close()

    threading.Thread(target=serve, daemon=True).start()


def test_a_late_error_is_not_taken_for_the_next_requests_answer() -> None:
    """A request's wait times out; its answer, an error with no id, comes after the next request
    was sent: the next request gets its own reply, and the late error goes to the iteration."""
    import socket

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.sock")
        slow_answerer(path, late=0.6)
        with Client(path, reconnect=False, timeout=0.3) as c:
            with pytest.raises(socket.timeout):
                c.request("ping")
            time.sleep(0.5)
            assert c.request("stats").op == "stats"
            assert c.request("ping").op == "ping"
            late = next(iter(c))
            assert late.code == "line_too_long"

    async def run(path: str) -> None:
        c = AsyncClient(path, reconnect=False, timeout=0.3)
        await c.connect()
        with pytest.raises(asyncio.TimeoutError):
            await c.request("ping")
        await asyncio.sleep(0.5)
        assert (await c.request("stats")).op == "stats"
        assert (await c.request("ping")).op == "ping"
        late = await c.__aiter__().__anext__()
        await c.close()
        assert late.code == "line_too_long"

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.sock")
        slow_answerer(path, late=0.6)
        asyncio.run(run(path))


def test_a_late_answer_read_by_the_iteration_is_awaited_no_more() -> None:
    """A timed-out request's late reply, read by the iteration; the next request's answer, an
    error with no id, is that request's (RequestError), not the late one's."""
    import socket

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.sock")
        slow_answerer(path, late=0.5, first=b'{"type":"reply","op":"ping","id":1}\n', second=UNREAD)
        with Client(path, reconnect=False, timeout=0.3) as c:
            with pytest.raises(socket.timeout):
                c.request("ping")
            assert next(iter(c)).id == 1
            with pytest.raises(RequestError, match="line_too_long"):
                c.request("stats")
            assert c.request("ping").op == "ping"

"""A blocking client for touchgestured: iterate over its lines, send requests, reconnect.

    from touchgestured import Client
    with Client() as c:
        c.subscribe(gestures=["tap", "swipe"])
        for g in c.gestures():
            print(g.name, g.phase, g.x, g.y)
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import time
from typing import Any, Dict, Iterator, List, Optional

from .messages import Error, Gesture, Hello, Message, Reply, Touch, parse

#: The daemon's stream socket (gesture lines come at once) and its request socket (one-shot
#: requests: no stream line reaches it before its reply). `TOUCHGESTURED_SOCKET` overrides.
STREAM_SOCKET = "/run/touchgestured/gestures.sock"


def default_socket() -> str:
    return os.environ.get("TOUCHGESTURED_SOCKET", STREAM_SOCKET)


def request_socket(stream: str) -> str:
    """The request socket beside a stream socket (`.sock` -> `-requests.sock`)."""
    return stream[:-5] + "-requests.sock" if stream.endswith(".sock") else stream + "-requests"


class RequestError(Exception):
    """The daemon answered a request with an `error` line (`code`, `message`: docs/PROTOCOL.md)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Client:
    """One connection to the daemon's stream socket (or another path), reconnected with backoff
    when it goes (`reconnect=True`): the last `subscribe` and `set_regions` are sent again, since
    a new connection starts with the defaults (every gesture, no client region)."""

    def __init__(self, path: Optional[str] = None, *, reconnect: bool = True, timeout: Optional[float] = None,
                 max_backoff: float = 5.0) -> None:
        self.path = path or default_socket()
        self.reconnect = reconnect
        self.timeout = timeout
        self.max_backoff = max_backoff
        self.hello: Optional[Hello] = None
        self._sock: Optional[socket.socket] = None
        self._buffer = b""
        self._ids = itertools.count(1)
        self._pending: List[Message] = []
        self._replay: Dict[str, Dict[str, Any]] = {}

    # -- the connection ---------------------------------------------------------------------

    def connect(self) -> Hello:
        """Connects (again) and reads the daemon's `hello`; the last subscription and regions are
        sent again."""
        self.close()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        try:
            s.connect(self.path)
        except OSError:
            s.close()
            raise
        self._sock, self._buffer, self._pending = s, b"", []
        first = self._read()
        if isinstance(first, Error):
            self.close()
            raise RequestError(first.code, first.message)
        if not isinstance(first, Hello):
            self.close()
            raise ConnectionError(f"{self.path}: the daemon did not say hello")
        self.hello = first
        for request in list(self._replay.values()):
            self._call(dict(request))
        return first

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> "Client":
        if self._sock is None:
            self._connect_with_backoff()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _connect_with_backoff(self) -> None:
        delay = 0.1
        while True:
            try:
                self.connect()
                return
            except (OSError, ConnectionError):
                if not self.reconnect:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, self.max_backoff)

    # -- lines ------------------------------------------------------------------------------

    def _read(self) -> Message:
        assert self._sock is not None
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"{self.path}: the daemon closed the connection")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return parse(line)

    def __iter__(self) -> Iterator[Message]:
        """Every line, in order, reconnecting when the connection goes (with `reconnect`)."""
        while True:
            if self._sock is None:
                self._connect_with_backoff()
            try:
                while self._pending:
                    yield self._pending.pop(0)
                yield self._read()
            except (OSError, ConnectionError):
                self.close()
                if not self.reconnect:
                    raise

    def gestures(self) -> Iterator[Gesture]:
        """Only the gesture lines."""
        return (m for m in self if isinstance(m, Gesture))

    def touches(self) -> Iterator[Touch]:
        """Only the touch lines (after `subscribe(touches=True)`)."""
        return (m for m in self if isinstance(m, Touch))

    # -- requests ---------------------------------------------------------------------------

    def request(self, op: str, **fields: Any) -> Reply:
        """Sends `{"op": op, ...fields}` and returns its reply; an `error` raises RequestError.
        Lines that come meanwhile are kept for the iteration."""
        if self._sock is None:
            self._connect_with_backoff()
        return self._call(dict(op=op, **fields))

    def _call(self, request: Dict[str, Any]) -> Reply:
        assert self._sock is not None
        rid = request["id"] = next(self._ids)
        self._sock.sendall((json.dumps(request, separators=(",", ":")) + "\n").encode())
        held: List[Message] = []
        while True:
            m = self._read()
            if isinstance(m, (Reply, Error)) and m.id == rid:
                self._pending.extend(held)
                if isinstance(m, Error):
                    raise RequestError(m.code, m.message)
                return m
            held.append(m)

    def subscribe(self, *, gestures: Any = True, regions: Optional[List[str]] = None,
                  devices: Optional[List[int]] = None, touches: bool = False,
                  coalesce_ms: Optional[int] = None) -> Reply:
        """What this connection gets: gesture kinds (`True`, `False` or a list), regions,
        devices, touch lines, its own hold for continuous updates (0-100 ms)."""
        fields: Dict[str, Any] = {"gestures": gestures, "touches": touches}
        if regions is not None:
            fields["regions"] = regions
        if devices is not None:
            fields["devices"] = devices
        if coalesce_ms is not None:
            fields["coalesce_ms"] = coalesce_ms
        reply = self.request("subscribe", **fields)
        self._replay["subscribe"] = dict(op="subscribe", **fields)
        return reply

    def set_regions(self, regions: List[Dict[str, Any]]) -> List[str]:
        """This client's regions, in the configuration's `[[region]]` schema (docs/CONFIG.md):
        `{"name": "ok", "rect": [x, y, w, h], "gestures": [{"kind": "tap"}]}`. They go when the
        connection does; a reconnection sets them again."""
        reply = self.request("set_regions", regions=regions)
        self._replay["set_regions"] = dict(op="set_regions", regions=regions)
        return list(reply.get("regions", []))

    def clear_regions(self) -> None:
        self.request("clear_regions")
        self._replay.pop("set_regions", None)

    def ping(self) -> float:
        return float(self.request("ping").get("time", 0))

    def stats(self) -> Dict[str, Any]:
        return self.request("stats").raw

    def list_devices(self) -> List[Dict[str, Any]]:
        return list(self.request("list_devices").get("devices", []))

    def get_config(self) -> Dict[str, Any]:
        return self.request("get_config").raw

    def reload(self) -> str:
        return str(self.request("reload").get("source", ""))

    def calibrate(self, device: int, points: List[Dict[str, float]], *, save: bool = False,
                  max_error_mm: Optional[float] = None) -> Dict[str, Any]:
        fields: Dict[str, Any] = {"device": device, "points": points, "save": save}
        if max_error_mm is not None:
            fields["max_error_mm"] = max_error_mm
        return self.request("calibrate", **fields).raw


def request(op: str, path: Optional[str] = None, **fields: Any) -> Reply:
    """One request on the request socket (the stream socket when there is none), and its reply."""
    stream = path or default_socket()
    target = request_socket(stream)
    with Client(target if os.path.exists(target) else stream, reconnect=False, timeout=10) as c:
        return c.request(op, **fields)

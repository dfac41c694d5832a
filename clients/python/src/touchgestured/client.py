"""A blocking client for touchgestured: iterate over its lines, send requests, reconnect.

    from touchgestured import Client
    with Client() as c:
        c.subscribe(gestures=["tap", "swipe"])
        for g in c.gestures():
            print(g.name, g.phase, g.x, g.y)
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import socket
import time
from typing import Any, Deque, Dict, Iterator, List, Optional

from .messages import Error, Gesture, Hello, Message, ProtocolError, Reply, Touch, parse

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


#: The longest line taken from the daemon (its lines are far shorter): a peer that never ends a
#: line cannot grow the client's memory without end.
MAX_LINE = 1 << 20
#: A connection that lasted this long (s) starts the backoff afresh when it drops.
STABLE_AFTER = 5.0


# Errors the daemon sends unprompted, with no id (docs/PROTOCOL.md, "Errors"): no request's answer.
NOTICES = frozenset({"regions_dropped", "idle_timeout"})


def answers_unread(m: Message) -> bool:
    """An error with no id that answers a request line the daemon could not read."""
    return isinstance(m, Error) and m.id is None and m.code not in NOTICES


class _Unanswered:
    """The requests sent on a connection and not answered yet, oldest first. The daemon answers
    a connection's requests in the order they came, so an error with no id (a line it could not
    read) answers the oldest. A request whose wait timed out stays until its answer comes: a late
    answer is then not taken for a newer request's."""

    def __init__(self) -> None:
        self._ids: Deque[int] = collections.deque()

    def sent(self, rid: int) -> None:
        self._ids.append(rid)

    def clear(self) -> None:
        """A new connection: nothing sent on the last one will be answered."""
        self._ids.clear()

    def answered(self, m: Message) -> Optional[int]:
        """The id of the request `m` answers (None: no request's answer, or one not sent here)."""
        if not isinstance(m, (Reply, Error)):
            return None
        if isinstance(m.id, int) and m.id in self._ids:
            self._ids.remove(m.id)
            return m.id
        if answers_unread(m) and self._ids:
            return self._ids.popleft()
        return None


def encode(request: Dict[str, Any]) -> bytes:
    """A request line; ValueError for what JSON cannot carry (NaN, infinity)."""
    return (json.dumps(request, separators=(",", ":"), allow_nan=False) + "\n").encode()


class _Connection:
    """What both clients keep: where, whether and how fast to reconnect, the `hello`, the lines
    skipped, the request ids, the requests a reconnection sends again."""

    def __init__(self, path: Optional[str], reconnect: bool, timeout: Optional[float], max_backoff: float) -> None:
        self.path = path or default_socket()
        self.reconnect = reconnect
        self.timeout = timeout
        self.max_backoff = max_backoff
        self.hello: Optional[Hello] = None
        #: Lines the client could not read (skipped).
        self.malformed = 0
        self._ids = itertools.count(1)
        self._unanswered = _Unanswered()
        self._replay: Dict[str, Dict[str, Any]] = {}
        self._delay = 0.0
        self._connected_at = 0.0

    def _backoff(self) -> float:
        """How long to wait before the next attempt: nothing after a connection that lasted
        `STABLE_AFTER`, else 0.1 s doubling to `max_backoff` (a daemon that says hello and hangs
        up at once is not hammered)."""
        if self._delay == 0.0 and time.monotonic() - self._connected_at < STABLE_AFTER and self._connected_at:
            self._delay = 0.1
        wait = self._delay
        self._delay = min(max(self._delay * 2, 0.1), self.max_backoff)
        return wait

    def _noted(self, m: Message) -> Message:
        """`m`, once what it tells the client is noted: regions the daemon dropped are not set
        again on a reconnection."""
        if isinstance(m, Error) and m.id is None and m.code == "regions_dropped":
            self._replay.pop("set_regions", None)
        return m

    def _hello(self, first: Message) -> Hello:
        """A connection's first line: the daemon's `hello` in protocol 1 (an `error` there, such
        as `too_many_clients`, is raised as a RequestError)."""
        if isinstance(first, Error):
            raise RequestError(first.code, first.message)
        if not isinstance(first, Hello):
            raise ConnectionError(f"{self.path}: the daemon did not say hello")
        if first.protocol != 1:
            raise ConnectionError(f"{self.path}: protocol {first.protocol}, this client speaks 1")
        return first

    def _lasted(self) -> None:
        """A connection is made: the backoff starts afresh once it has lasted."""
        if time.monotonic() - self._connected_at >= STABLE_AFTER:
            self._delay = 0.0


class Client(_Connection):
    """One connection to the daemon's stream socket (or another path). With `reconnect`, when
    the connection goes, iteration connects again with a backoff (0.1 s doubling to
    `max_backoff`, afresh only after a connection that lasted), and sends the last `subscribe`
    and `set_regions` again (a new connection starts with every gesture and no client region).
    `timeout` (s) bounds each read and each request (socket.timeout: TimeoutError)."""

    def __init__(self, path: Optional[str] = None, *, reconnect: bool = True, timeout: Optional[float] = None,
                 max_backoff: float = 5.0) -> None:
        super().__init__(path, reconnect, timeout, max_backoff)
        self._sock: Optional[socket.socket] = None
        self._buffer = bytearray()
        self._scanned = 0
        self._pending: List[Message] = []

    # -- the connection ---------------------------------------------------------------------

    def connect(self) -> Hello:
        """Connects (again) and reads the daemon's `hello`; the last subscription and regions are
        sent again (one the daemon now refuses is dropped, and its RequestError raised)."""
        self.close()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        try:
            s.connect(self.path)
        except OSError:
            s.close()
            raise
        self._sock, self._buffer, self._scanned, self._pending = s, bytearray(), 0, []
        self._unanswered.clear()
        self._connected_at = time.monotonic()
        try:
            first = self._hello(self._read())
        except BaseException:
            self.close()
            raise
        self.hello = first
        for key, request in list(self._replay.items()):
            try:
                self._call(dict(request))
            except RequestError:
                del self._replay[key]
                raise
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
        self._lasted()
        while True:
            wait = self._backoff()
            if wait:
                time.sleep(wait)
            try:
                self.connect()
                return
            except (ConnectionError, FileNotFoundError, ConnectionRefusedError):
                if not self.reconnect:
                    raise

    # -- lines ------------------------------------------------------------------------------

    def _read(self) -> Message:
        """The next line that reads (one that does not is counted in `malformed` and skipped)."""
        while True:
            try:
                return self._noted(parse(self._line()))
            except ProtocolError:
                self.malformed += 1

    def _line(self) -> bytes:
        assert self._sock is not None
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._buffer)
            if len(self._buffer) > MAX_LINE:
                raise ConnectionError(f"{self.path}: a line longer than {MAX_LINE} bytes")
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"{self.path}: the daemon closed the connection")
            self._buffer += chunk

    def __iter__(self) -> Iterator[Message]:
        """Every line, in order; with `reconnect`, across a lost connection (a timeout is no lost
        connection: it is raised)."""
        while True:
            if self._sock is None:
                self._connect_with_backoff()
            try:
                while self._pending:
                    yield self._pending.pop(0)
                m = self._read()
                self._unanswered.answered(m)  # a timed-out request's late answer: no longer awaited
                yield m
            except socket.timeout:
                raise
            except (ConnectionError, OSError):
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
        """Sends `{"op": op, ...fields}` and returns its reply; an `error` raises RequestError,
        `timeout` passing without the reply socket.timeout. Lines that come meanwhile are kept,
        in order, for the iteration."""
        if self._sock is None:
            self._connect_with_backoff()
        return self._call(dict(op=op, **fields))

    def _call(self, request: Dict[str, Any]) -> Reply:
        assert self._sock is not None
        rid = request["id"] = next(self._ids)
        line = encode(request)
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        self._sock.sendall(line)
        self._unanswered.sent(rid)
        held: List[Message] = []
        try:
            while True:
                if deadline is not None and time.monotonic() > deadline:
                    raise socket.timeout(f"no reply to {request['op']} in {self.timeout} s")
                try:
                    m = self._read()
                except ConnectionError as e:
                    raise ConnectionError(f"{e} (while waiting for the reply to {request['op']})") from None
                # Its answer (an error with no id answers the oldest request unanswered: this
                # one, or one whose wait timed out, whose late answer stays for the iteration).
                if self._unanswered.answered(m) == rid:
                    if isinstance(m, Error):
                        raise RequestError(m.code, m.message)
                    return m
                held.append(m)
        finally:
            self._pending.extend(held)

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

"""The asyncio client: the same as `Client`, awaited.

    async with AsyncClient() as c:
        await c.subscribe(gestures=["tap"])
        async for g in c.gestures():
            print(g.name, g.x, g.y)

One task reads the connection and routes each line: a request's reply to the request that awaits
it (from any task), every other line to the iteration, in order.
"""

from __future__ import annotations

import asyncio
import collections
import time
from typing import Any, AsyncIterator, Deque, Dict, List, Optional

from .client import MAX_LINE, RequestError, _Connection, encode
from .messages import Error, Gesture, Hello, Message, ProtocolError, Reply, Touch, parse

#: Lines kept for an iteration that lags (the oldest dropped past it, counted in `dropped`).
MAX_QUEUED = 65536


class AsyncClient(_Connection):
    """One connection; reconnects with backoff (`reconnect=True`), sending the last `subscribe`
    and `set_regions` again. Requests may be awaited from any task, while another iterates."""

    def __init__(self, path: Optional[str] = None, *, reconnect: bool = True, max_backoff: float = 5.0,
                 timeout: Optional[float] = None) -> None:
        super().__init__(path, reconnect, timeout, max_backoff)
        #: Lines dropped from the front of a lagging iteration's queue.
        self.dropped = 0
        self._reader: Optional[asyncio.StreamReader] = None
        self._writer: Optional[asyncio.StreamWriter] = None
        self._task: Optional["asyncio.Task[None]"] = None
        self._waiting: Dict[int, "asyncio.Future[Message]"] = {}
        self._lines: Deque[Message] = collections.deque()
        self._arrived = asyncio.Event()
        self._closed = False
        self._failure: Optional[BaseException] = None

    # -- the connection ---------------------------------------------------------------------

    async def connect(self) -> Hello:
        """Connects (again), reads the `hello`, sends the last subscription and regions again
        (one now refused is dropped and its RequestError raised), then starts the reader."""
        await self._drop()
        self._reader, self._writer = await asyncio.open_unix_connection(self.path, limit=MAX_LINE)
        self._connected_at = time.monotonic()
        try:
            first = self._hello(await self._read())
            self.hello = first
            for key, request in list(self._replay.items()):
                try:
                    await self._inline(dict(request))
                except RequestError:
                    del self._replay[key]
                    raise
        except BaseException:
            await self._drop()
            raise
        self._task = asyncio.get_running_loop().create_task(self._route())
        return first

    async def close(self) -> None:
        """Closes the connection; an iteration running ends, requests waiting fail."""
        self._closed = True
        await self._drop()
        self._arrived.set()

    async def __aenter__(self) -> "AsyncClient":
        self._closed = False
        await self._connect_with_backoff()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _drop(self) -> None:
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except (OSError, ConnectionError):
                pass
        self._reader = self._writer = None
        self._unanswered.clear()
        for f in self._waiting.values():
            if not f.done():
                f.set_exception(ConnectionError(f"{self.path}: the connection went before the reply"))
        self._waiting.clear()

    async def _connect_with_backoff(self) -> None:
        self._lasted()
        while not self._closed:
            wait = self._backoff()
            if wait:
                await asyncio.sleep(wait)
            try:
                await self.connect()
                return
            except (ConnectionError, FileNotFoundError):
                if not self.reconnect:
                    raise

    # -- lines ------------------------------------------------------------------------------

    async def _read(self) -> Message:
        assert self._reader is not None
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError:
                raise ConnectionError(f"{self.path}: the daemon closed the connection") from None
            except asyncio.LimitOverrunError:
                raise ConnectionError(f"{self.path}: a line longer than {MAX_LINE} bytes") from None
            try:
                return self._noted(parse(line))
            except ProtocolError:
                self.malformed += 1

    def _deliver(self, m: Message) -> bool:
        """A reply or error to the request awaiting it (an error with no id to the oldest request
        unanswered, but for the daemon's notices); false for any other line, and for the late
        answer of a request whose wait timed out (it goes to the iteration)."""
        return self._settle(self._unanswered.answered(m), m)

    def _settle(self, rid: Optional[int], m: Message) -> bool:
        """`m`, the answer to request `rid`, to the task awaiting it; false when none does (its
        wait timed out or was cancelled, even as the answer came)."""
        f = None if rid is None else self._waiting.pop(rid, None)
        if f is None or f.done():
            return False
        f.set_result(m)
        return True

    def _queue(self, m: Message) -> None:
        if len(self._lines) >= MAX_QUEUED:
            self._lines.popleft()
            self.dropped += 1
        self._lines.append(m)
        self._arrived.set()

    async def _route(self) -> None:
        """The reader: until the connection goes (then, with `reconnect`, again)."""
        while not self._closed:
            try:
                m = await self._read()
            except (ConnectionError, OSError) as e:
                await self._drop()
                if self._closed:
                    return
                if not self.reconnect:
                    self._failure = e
                    self._arrived.set()
                    return
                try:
                    await self._connect_with_backoff()
                except BaseException as e2:  # a refused replay, a protocol the client does not speak
                    self._failure = e2
                    self._arrived.set()
                return  # connect() started a new reader
            if not self._deliver(m):
                self._queue(m)

    async def __aiter__(self) -> AsyncIterator[Message]:
        """Every line but the replies, in order, until `close()` (or the connection goes, without
        `reconnect`: then its error)."""
        while True:
            while self._lines:
                yield self._lines.popleft()
            if self._failure is not None:
                failure, self._failure = self._failure, None
                raise failure
            if self._closed:
                return
            self._arrived.clear()
            await self._arrived.wait()

    async def gestures(self) -> AsyncIterator[Gesture]:
        async for m in self:
            if isinstance(m, Gesture):
                yield m

    async def touches(self) -> AsyncIterator[Touch]:
        async for m in self:
            if isinstance(m, Touch):
                yield m

    # -- requests ---------------------------------------------------------------------------

    async def _inline(self, request: Dict[str, Any]) -> Reply:
        """A request answered before the reader runs (on connecting): lines meanwhile queued."""
        assert self._writer is not None
        rid = request["id"] = next(self._ids)
        self._writer.write(encode(request))
        self._unanswered.sent(rid)
        while True:
            m = await self._read()
            answered = self._unanswered.answered(m)
            if answered == rid:
                if isinstance(m, Error):
                    raise RequestError(m.code, m.message)
                return m
            # A request another task sent meanwhile is answered to it.
            if not self._settle(answered, m):
                self._queue(m)

    async def request(self, op: str, **fields: Any) -> Reply:
        """Sends a request and awaits its reply: RequestError for an `error`, asyncio's
        TimeoutError after `timeout`. Any task may ask while another iterates."""
        if self._writer is None:
            await self._connect_with_backoff()
        assert self._writer is not None
        rid = next(self._ids)
        fields.pop("id", None)  # the client numbers its requests (as `Client.request`)
        line = encode(dict(op=op, **fields, id=rid))  # refused (NaN) before anything is sent
        future: "asyncio.Future[Message]" = asyncio.get_running_loop().create_future()
        self._waiting[rid] = future
        self._writer.write(line)
        self._unanswered.sent(rid)
        try:
            m = await asyncio.wait_for(future, self.timeout)
        finally:
            self._waiting.pop(rid, None)
        if isinstance(m, Error):
            raise RequestError(m.code, m.message)
        assert isinstance(m, Reply)
        return m

    async def subscribe(self, *, gestures: Any = True, touches: bool = False, **more: Any) -> Reply:
        fields = dict(gestures=gestures, touches=touches, **more)
        reply = await self.request("subscribe", **fields)
        self._replay["subscribe"] = dict(op="subscribe", **fields)
        return reply

    async def set_regions(self, regions: List[Dict[str, Any]]) -> List[str]:
        reply = await self.request("set_regions", regions=regions)
        self._replay["set_regions"] = dict(op="set_regions", regions=regions)
        return list(reply.get("regions", []))

    async def clear_regions(self) -> None:
        await self.request("clear_regions")
        self._replay.pop("set_regions", None)

    async def ping(self) -> float:
        return float((await self.request("ping")).get("time", 0))

    async def stats(self) -> Dict[str, Any]:
        return (await self.request("stats")).raw

    async def list_devices(self) -> List[Dict[str, Any]]:
        return list((await self.request("list_devices")).get("devices", []))

    async def get_config(self) -> Dict[str, Any]:
        return (await self.request("get_config")).raw

    async def reload(self) -> str:
        return str((await self.request("reload")).get("source", ""))

    async def calibrate(self, device: int, points: List[Dict[str, float]], *, save: bool = False,
                        max_error_mm: Optional[float] = None) -> Dict[str, Any]:
        fields: Dict[str, Any] = {"device": device, "points": points, "save": save}
        if max_error_mm is not None:
            fields["max_error_mm"] = max_error_mm
        return (await self.request("calibrate", **fields)).raw

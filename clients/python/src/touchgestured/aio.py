"""The asyncio client: the same as `Client`, awaited.

    async with AsyncClient() as c:
        await c.subscribe(gestures=["tap"])
        async for g in c.gestures():
            print(g.name, g.x, g.y)
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any, AsyncIterator, Dict, List, Optional

from .client import RequestError, default_socket
from .messages import Error, Gesture, Hello, Message, Reply, Touch, parse


class AsyncClient:
    """One connection, read by one task (`__aiter__`); requests are answered through it, so a
    request must be awaited while the lines are being iterated (or before). Reconnects with
    backoff (`reconnect=True`), sending the last `subscribe` and `set_regions` again."""

    def __init__(self, path: Optional[str] = None, *, reconnect: bool = True, max_backoff: float = 5.0) -> None:
        self.path = path or default_socket()
        self.reconnect = reconnect
        self.max_backoff = max_backoff
        self.hello: Optional[Hello] = None
        self._reader: Optional[asyncio.StreamReader] = None
        self._writer: Optional[asyncio.StreamWriter] = None
        self._ids = itertools.count(1)
        self._waiting: Dict[int, "asyncio.Future[Message]"] = {}
        self._replay: Dict[str, Dict[str, Any]] = {}
        self._pending: List[Message] = []

    async def connect(self) -> Hello:
        await self.close()
        self._reader, self._writer = await asyncio.open_unix_connection(self.path, limit=1 << 20)
        first = await self._read()
        if isinstance(first, Error):
            await self.close()
            raise RequestError(first.code, first.message)
        if not isinstance(first, Hello):
            await self.close()
            raise ConnectionError(f"{self.path}: the daemon did not say hello")
        self.hello = first
        for r in list(self._replay.values()):
            await self._call_inline(dict(r))
        return first

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass
        self._reader = self._writer = None
        for f in self._waiting.values():
            if not f.done():
                f.set_exception(ConnectionError(f"{self.path}: the connection went"))
        self._waiting.clear()

    async def __aenter__(self) -> "AsyncClient":
        await self._connect_with_backoff()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _connect_with_backoff(self) -> None:
        delay = 0.1
        while True:
            try:
                await self.connect()
                return
            except (OSError, ConnectionError):
                if not self.reconnect:
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.max_backoff)

    async def _read(self) -> Message:
        assert self._reader is not None
        line = await self._reader.readline()
        if not line.endswith(b"\n"):
            raise ConnectionError(f"{self.path}: the daemon closed the connection")
        return parse(line)

    async def __aiter__(self) -> AsyncIterator[Message]:
        while True:
            if self._reader is None:
                await self._connect_with_backoff()
            try:
                while self._pending:
                    yield self._pending.pop(0)
                m = await self._read()
            except (OSError, ConnectionError):
                await self.close()
                if not self.reconnect:
                    raise
                continue
            if isinstance(m, (Reply, Error)) and isinstance(m.id, int) and m.id in self._waiting:
                self._waiting.pop(m.id).set_result(m)
                continue
            yield m

    async def gestures(self) -> AsyncIterator[Gesture]:
        async for m in self:
            if isinstance(m, Gesture):
                yield m

    async def touches(self) -> AsyncIterator[Touch]:
        async for m in self:
            if isinstance(m, Touch):
                yield m

    def _send(self, request: Dict[str, Any]) -> int:
        assert self._writer is not None
        rid = request["id"] = next(self._ids)
        self._writer.write((json.dumps(request, separators=(",", ":")) + "\n").encode())
        return rid

    async def _call_inline(self, request: Dict[str, Any]) -> Reply:
        """A request answered before anyone iterates (connecting, or no iteration running)."""
        rid = self._send(request)
        while True:
            m = await self._read()
            if isinstance(m, (Reply, Error)) and m.id == rid:
                if isinstance(m, Error):
                    raise RequestError(m.code, m.message)
                return m
            self._pending.append(m)

    async def request(self, op: str, *, inline: bool = True, **fields: Any) -> Reply:
        """Sends a request and awaits its reply (RequestError for an `error`). `inline`: read the
        reply here (nothing else reading); otherwise the iteration running elsewhere delivers it."""
        if self._writer is None:
            await self._connect_with_backoff()
        if inline:
            return await self._call_inline(dict(op=op, **fields))
        future: "asyncio.Future[Message]" = asyncio.get_running_loop().create_future()
        rid = self._send(dict(op=op, **fields))
        self._waiting[rid] = future
        m = await future
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

"""The lines touchgestured sends (docs/PROTOCOL.md), as typed values.

Every line is one JSON object with a `type`; `parse` turns it into one of the classes below and
keeps the whole object in `raw` (fields may be added within protocol version 1: a client ignores
what it does not know, and can still read it there).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union


@dataclass(frozen=True)
class Device:
    id: int
    name: str
    node: str
    vendor: str
    product: str
    kind: str
    slots: int
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def of(d: Dict[str, Any]) -> "Device":
        return Device(_int(d.get("id", 0)), str(d.get("name", "")), str(d.get("node", "")), str(d.get("vendor", "")),
                      str(d.get("product", "")), str(d.get("kind", "")), _int(d.get("slots", 0)), d)


@dataclass(frozen=True)
class _Line:
    """What every line read has: its JSON object (`raw`: fields this client does not name are
    there) and the line as the daemon sent it (`line`, without its newline)."""

    raw: Dict[str, Any] = field(repr=False, compare=False, kw_only=True)
    line: str = field(default="", repr=False, compare=False, kw_only=True)


@dataclass(frozen=True)
class Hello(_Line):
    protocol: int
    version: str
    devices: List[Device]
    screen: Dict[str, Any]


@dataclass(frozen=True)
class Gesture(_Line):
    """A gesture line. `gesture` is the kind (`tap`, `pan`, ...), `name` the configured gesture's
    name (`double_tap` is a `tap` of count 2), `phase` `began`/`changed`/`ended`/`cancelled`/
    `recognized`, `x`/`y` screen pixels."""

    gesture: str
    name: str
    phase: str
    id: int
    sequence: int
    fingers: int
    time: float
    x: float
    y: float
    region: Optional[str]

    def get(self, key: str, default: Any = None) -> Any:
        """Any other field (`direction`, `dx`, `velocity`, `scale`, `count`, ...)."""
        return self.raw.get(key, default)

    def __str__(self) -> str:
        extra = "".join(f" {k}={self.raw[k]}" for k in ("direction", "count", "edge") if k in self.raw)
        return f"{self.time:.3f}s {self.name} {self.phase} #{self.id} {self.fingers} finger(s) at ({self.x:.0f}, {self.y:.0f}){extra}"


@dataclass(frozen=True)
class Contact:
    id: int
    x: float
    y: float
    u: Optional[float]
    v: Optional[float]
    palm: bool


@dataclass(frozen=True)
class Touch(_Line):
    device: int
    time: float
    contacts: List[Contact]


@dataclass(frozen=True)
class Notice(_Line):
    """`idle`, `wake`, `device` and `screen` lines (the kind in `type`; the rest in `raw`)."""

    type: str
    time: float


@dataclass(frozen=True)
class Reply(_Line):
    id: Any
    op: str

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)


@dataclass(frozen=True)
class Error(_Line):
    id: Any
    code: str
    message: str


@dataclass(frozen=True)
class Unknown(_Line):
    """A line of a type this client does not know (a newer daemon's)."""

    type: str


Message = Union[Hello, Gesture, Touch, Notice, Reply, Error, Unknown]


class ProtocolError(ValueError):
    """A line that is not a JSON object with a `type`."""


def parse(line: Union[str, bytes]) -> Message:
    """One line as a typed value; ProtocolError for a line that is not one (not JSON, not an
    object with a string `type`, a known field of the wrong type)."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise ProtocolError(f"not JSON: {e}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise ProtocolError("not an object with a type")
    try:
        typed = _typed(obj)
    except (TypeError, ValueError, AttributeError) as e:
        raise ProtocolError(f"a {obj['type']} line with a field of the wrong type: {e}") from None
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return dataclasses.replace(typed, line=text.rstrip("\r\n"))


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{v!r} is not an integer")
    return v


def _num(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{v!r} is not a number")
    return float(v)


def _typed(obj: Dict[str, Any]) -> Message:
    t = obj["type"]
    if t == "gesture":
        region = obj.get("region")
        return Gesture(str(obj.get("gesture", "")), str(obj.get("name", obj.get("gesture", ""))), str(obj.get("phase", "")),
                       _int(obj.get("id", 0)), _int(obj.get("sequence", 0)), _int(obj.get("fingers", 0)),
                       _num(obj.get("time", 0)), _num(obj.get("x", 0)), _num(obj.get("y", 0)),
                       region if isinstance(region, str) else None, raw=obj)
    if t == "touch":
        contacts = obj.get("contacts", [])
        if not isinstance(contacts, list):
            raise TypeError("contacts is not a list")
        return Touch(_int(obj.get("device", 0)), _num(obj.get("time", 0)),
                     [Contact(_int(c.get("id", 0)), _num(c.get("x", 0)), _num(c.get("y", 0)),
                              None if c.get("u") is None else _num(c["u"]), None if c.get("v") is None else _num(c["v"]),
                              c.get("palm") is True) for c in contacts], raw=obj)
    if t == "hello":
        devices = obj.get("devices", [])
        screen = obj.get("screen", {})
        if not isinstance(devices, list) or not isinstance(screen, dict):
            raise TypeError("devices is not a list, or screen not an object")
        return Hello(_int(obj.get("protocol", 0)), str(obj.get("version", "")),
                     [Device.of(d) for d in devices if isinstance(d, dict)], screen, raw=obj)
    if t in ("idle", "wake", "device", "screen"):
        return Notice(t, _num(obj.get("time", 0)), raw=obj)
    if t == "reply":
        return Reply(obj.get("id"), str(obj.get("op", "")), raw=obj)
    if t == "error":
        return Error(obj.get("id"), str(obj.get("code", "")), str(obj.get("message", "")), raw=obj)
    return Unknown(t, raw=obj)

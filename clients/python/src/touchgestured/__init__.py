"""touchgestured's client: typed lines from the daemon's socket, its requests, reconnection.

Standard library only. `Client` blocks, `AsyncClient` is asyncio's; `python3 -m touchgestured
monitor` prints what the daemon sends. The protocol: docs/PROTOCOL.md of touchgestured.
"""

from .aio import AsyncClient
from .client import STREAM_SOCKET, Client, RequestError, request, request_socket
from .messages import Contact, Device, Error, Gesture, Hello, Message, Notice, ProtocolError, Reply, Touch, Unknown, parse

__all__ = [
    "AsyncClient", "Client", "Contact", "Device", "Error", "Gesture", "Hello", "Message", "Notice", "ProtocolError",
    "Reply", "RequestError", "STREAM_SOCKET", "Touch", "Unknown", "parse", "request", "request_socket",
]
__version__ = "0.1.0"

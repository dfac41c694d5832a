"""python3 -m touchgestured monitor [--socket PATH] [--count N] [--pretty] [--all]: the daemon's
gesture lines as it sends them (JSON, as `touchgesturectl monitor` prints them), until N of them
(each line printed counts) or Ctrl-C; --pretty prints them readable; with --all the device, idle
and wake lines too (not counted)."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from .client import Client, RequestError, default_socket
from .messages import Gesture, Notice


def _positive(text: str) -> int:
    """A count of 1 or more (as `touchgesturectl monitor --count` takes it)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} is not 1 or more")
    return n


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m touchgestured", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("monitor", help="print the gesture lines the daemon sends")
    m.add_argument("--socket", default=default_socket(), help="the stream socket (default: %(default)s)")
    m.add_argument("--count", type=_positive, default=None, help="stop after this many gesture lines, 1 or more (default: never)")
    m.add_argument("--pretty", action="store_true", help="print each line readable instead of as JSON")
    m.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for scripts (--pretty wins)
    m.add_argument("--all", action="store_true", help="also print device, idle and wake lines (not counted)")
    m.add_argument("--no-reconnect", action="store_true", help="stop when the daemon goes, instead of waiting for it")
    args = p.parse_args(argv)
    printed = 0
    try:
        with Client(args.socket, reconnect=not args.no_reconnect) as c:
            for msg in c:
                if not isinstance(msg, Gesture) and not (args.all and isinstance(msg, Notice)):
                    continue
                if not args.pretty:
                    print(msg.line, flush=True)
                elif isinstance(msg, Gesture):
                    print(msg, flush=True)
                else:
                    action = msg.raw.get("action", "")
                    print(f"{msg.time:.3f}s {msg.type}{' ' + action if action else ''}", flush=True)
                if isinstance(msg, Gesture):
                    printed += 1
                    if args.count is not None and printed >= args.count:
                        return 0
    except KeyboardInterrupt:
        return 130
    except (OSError, ConnectionError, RequestError) as e:
        print(f"touchgestured: {e}", file=sys.stderr)
        return 1
    return 0


def monitor() -> int:
    """The `touchgestured-monitor` command: `monitor`'s options alone."""
    return main(["monitor", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())

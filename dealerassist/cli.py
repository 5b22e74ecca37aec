"""``dealerassist`` command line.

Each module in ``dealerassist.commands`` contributes sub-commands through a
``register(subparsers)`` function, so a feature adds its commands without editing this file.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import select
import sys
from collections.abc import Sequence

from dealerassist import commands
from dealerassist.errors import DealerAssistError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dealerassist",
        description="Live dealer-assist for casino tables: cards, rounds, settlement, progressives.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except DealerAssistError as exc:
        print(f"dealerassist: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        if not _stdout_reader_gone():
            raise  # a socket or device peer went away: that is an error to see, not a pipe's end
        # Whoever read our output stopped (``| head``): end quietly, with a shell's SIGPIPE status,
        # and point stdout at nothing so the interpreter's last flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _stdout_reader_gone() -> bool:
    """True when stdout is a pipe whose reading end is closed (poll reports an error on it)."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


if __name__ == "__main__":
    sys.exit(main())

"""``dealerassist`` command line.

Each module listed in ``COMMANDS`` contributes sub-commands through its ``register(subparsers)``
function; a feature adds its commands in its own module and one line here.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import select
import sys
from collections.abc import Sequence

from dealerassist.core.configfiles import use_config_dir
from dealerassist.errors import DealerAssistError

COMMANDS = (
    "analyze",
    "audit",
    "backup",
    "bench",
    "cards",
    "config",
    "demo",
    "devices",
    "export",
    "floor",
    "keys",
    "progressive",
    "protect",
    "replay",
    "run",
    "vision",
    "web",
)


def installed_version() -> str:
    """The installed distribution's version (the wheel's, or the checkout's editable install)."""
    try:
        return importlib.metadata.version("dealerassist")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed: pip install the project)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dealerassist",
        description="Live dealer-assist for casino tables: cards, rounds, settlement, progressives.",
    )
    parser.add_argument("--version", action="version", version=f"dealerassist {installed_version()}")
    parser.add_argument(
        "--config",
        metavar="DIR",
        help="site configuration folder, looked in before $DEALERASSIST_CONFIG, /etc/dealerassist and "
        "the bundled defaults (see 'dealerassist config show')",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"dealerassist.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        use_config_dir(getattr(args, "config", None))
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

"""``dealerassist config show``: where each configuration file comes from."""

from __future__ import annotations

import argparse

from dealerassist.core.configfiles import KINDS, SYSTEM_DIR, available, search_path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("config", help="configuration folders and files")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    show = csub.add_parser(
        "show",
        help="the folders looked in (--config, $DEALERASSIST_CONFIG, /etc/dealerassist, bundled) "
        "and where each file comes from",
    )
    show.set_defaults(handler=_show)


def _show(args: argparse.Namespace) -> int:
    folders = search_path()
    print("folders, first wins:")
    for folder in folders:
        print(f"  {folder.origin:22} {folder.path}")
    if all(f.path != SYSTEM_DIR for f in folders):
        print(f"  ({SYSTEM_DIR} does not exist)")
    for kind in KINDS:
        print(f"{kind}:")
        for name, (path, origin) in available(kind).items():
            print(f"  {name:28} {origin:22} {path}")
    return 0

"""``dealerassist devices``: point dealerassist at a shoe or a jackpot sign by URL and watch it work.

    dealerassist devices watch-shoe socket://127.0.0.1:7001        # print every card, button, alarm
    dealerassist devices sign emu://sign --amount 1234.56          # put an amount on a sign
    dealerassist devices show three-card-poker                     # a table's device settings

URLs are pyserial URLs: /dev/ttyUSB0 (or a udev name), socket://host:port, rfc2217://host:port,
loop://, or emu://shoe?... / emu://sign?... for in-process emulators (docs/protocols/).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from datetime import datetime

from dealerassist.core.money import parse_amount
from dealerassist.errors import DealerAssistError
from dealerassist.events import Event


class DeviceCommandError(DealerAssistError):
    """A device that did not do what the command asked (no link, bad URL, bad arguments)."""


def register(sub: argparse._SubParsersAction) -> None:
    devices = sub.add_parser("devices", help="talk to card shoes and jackpot signs by serial URL")
    dsub = devices.add_subparsers(dest="devices_command", metavar="ACTION", required=True)

    p = dsub.add_parser("watch-shoe", help="print the events a shoe produces until Ctrl-C")
    p.add_argument("url", help="pyserial URL of the shoe, e.g. socket://127.0.0.1:7001 or /dev/ttyUSB0")
    p.add_argument("--table", default="bench", help="table id to stamp on the events (default bench)")
    p.add_argument("--baud", type=int, default=9600, help="line speed (default 9600)")
    p.add_argument("--seconds", type=float, default=None, help="stop after this many seconds")
    p.add_argument("--json", action="store_true", help="print events as JSON lines")
    p.set_defaults(handler=_watch_shoe)

    p = dsub.add_parser("sign", help="send an amount (or a win, pending or fault text) to a jackpot sign")
    p.add_argument("url", help="pyserial URL of the sign, e.g. socket://127.0.0.1:7002")
    p.add_argument("--amount", required=True, help="amount in dollars, e.g. 1234.56")
    p.add_argument("--win", metavar="TABLE", help="announce a hit of --amount at TABLE")
    p.add_argument("--pending", metavar="TABLE", help="show a hit at TABLE awaiting approval")
    p.add_argument("--fault", help="alternate this text with the amount")
    p.add_argument("--address", default="00", help="sign address (default 00 = every sign)")
    p.add_argument("--type", default="Z", dest="type_code", help="sign type code (default Z = every type)")
    p.add_argument("--baud", type=int, default=9600, help="line speed (default 9600)")
    p.add_argument("--timeout", type=float, default=5.0, help="give up after this many seconds")
    p.set_defaults(handler=_sign)

    p = dsub.add_parser("show", help="check and print a table config's device settings")
    p.add_argument("table", help="a table's name (see dealerassist config show) or a .toml path")
    p.set_defaults(handler=_show)


def _stamp() -> str:
    return datetime.now().strftime("%H:%M:%S.%f")[:-3]


def describe(event: Event) -> str:
    """One human line per shoe event; link losses are marked as alarms."""
    data = event.to_dict()
    if event.kind == "card-read":
        card = data["card"] or "?? (unreadable)"
        return f"CARD      #{data['shoe_sequence']} {card}  device time {data['device_time']}"
    if event.kind == "dealer-button":
        return "BUTTON    dealer pressed the shoe button"
    if event.kind == "shoe-status":
        words = [data["status"], data["detail"], "" if data["status"] == "ok" else " ** ALARM **"]
        return "STATUS    " + " ".join(w for w in words if w)
    if event.kind == "device-link":
        if data["up"]:
            return f"LINK UP   {data['device']}: {data['detail']}"
        return f"LINK DOWN {data['device']}: {data['detail']}  ** ALARM **"
    if event.kind == "device-alarm":
        return f"ALARM     {data['device']} {data['code']}: {data['detail']}  ** ALARM **"
    return f"{event.kind.upper():9} {json.dumps(data)}"


def _watch_shoe(args: argparse.Namespace) -> int:
    from firmware_bridge.ports import DeviceConfig
    from firmware_bridge.shoe import ShoeReader

    config = DeviceConfig.for_url(args.url, args.baud)
    lock = threading.Lock()

    def show(event: Event) -> None:
        with lock:
            if args.json:
                print(json.dumps(event.to_dict()), flush=True)
            else:
                print(f"{_stamp()}  {describe(event)}", flush=True)

    reader = ShoeReader(config, args.table, show)
    print(f"watching shoe on {config.url} at {config.baudrate} baud (Ctrl-C to stop)", flush=True)
    reader.start()
    try:
        deadline = None if args.seconds is None else time.monotonic() + args.seconds
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass
    finally:
        reader.stop()
    stats = {**reader.stats, **{f"line {k}": v for k, v in reader.line_figures().items()}}
    counts = ", ".join(f"{k} {v}" for k, v in sorted(stats.items()) if v)
    print(f"stopped: {counts or 'nothing received'}", flush=True)
    return 0


def _sign(args: argparse.Namespace) -> int:
    from firmware_bridge.ports import DeviceConfig
    from firmware_bridge.sign import JackpotSign
    from firmware_bridge.sign.alpha import read_pages
    from firmware_bridge.sign.layout import AMOUNT_LABEL

    cents = parse_amount(args.amount)
    if args.win and args.pending:
        raise DeviceCommandError("give either --win or --pending, not both")
    link: list[str] = []  # the last link report, to say why a sign took nothing

    def note_link(event: Event) -> None:
        link[:] = [getattr(event, "detail", "")]

    config = DeviceConfig.for_url(args.url, args.baud)
    sign = JackpotSign(config, address=args.address, type_code=args.type_code, on_event=note_link)
    if args.win:
        sign.show_win(args.win, cents)
    else:
        sign.show_amount(cents)
        if args.pending:
            sign.show_pending(args.pending, cents)
    sign.set_fault(args.fault)
    sign.start()
    try:
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            shown = sign.displayed()
            if shown["sent_at"] and not shown["pending_update"]:
                break
            time.sleep(0.02)
        else:
            why = link[0] if link and not sign.link_up else "the line is open but the update did not finish"
            raise DeviceCommandError(
                f"the sign on {args.url} took no update within {args.timeout} s ({why}); check the URL, "
                "the cable and that the sign is powered, or give a longer --timeout"
            )
    finally:
        sign.stop()
    print(f"sign on {args.url} now shows:", flush=True)
    amount = (shown["amount_text"] or "").encode()
    for page in read_pages(shown["text_file"].encode("ascii"), {AMOUNT_LABEL: amount}):
        print(f"  [{page.mode:5} {page.color:5}] {page.text}", flush=True)
    return 0


def _show(args: argparse.Namespace) -> int:
    from dealerassist.tablefiles.tables import load_table
    from firmware_bridge.ports import DeviceConfig

    table = load_table(args.table)
    if not table.devices:
        print(f"{table.path}: no [devices] section (the table runs on camera and manual entry only)")
        return 0
    for name, body in sorted(table.devices.items()):
        config = DeviceConfig.from_mapping(body, f"{table.path} [devices.{name}]")
        settings = ", ".join(f"{k}={v}" for k, v in config.to_dict().items() if k != "url" and v is not None)
        print(f"{name:6} {config.url}  ({settings})")
    return 0

"""In-process emulators behind ``emu://`` URLs, kept by name so reopening a URL finds the same device.

``emu://shoe?name=t1&deck=pairs-and-up-52&seed=7&auto=2`` (a card every 2 s) and
``emu://sign?name=pit&address=01&type=!``: the
first open creates and starts the emulator, later opens (a driver reconnecting) plug into it again,
exactly like a cable into the same shoe.
"""

from __future__ import annotations

import threading
from urllib.parse import parse_qs, urlsplit

from firmware_bridge.emulators.base import DeviceEmulator
from firmware_bridge.emulators.shoe import ShoeEmulator
from firmware_bridge.emulators.sign import SignEmulator

_lock = threading.Lock()
_emulators: dict[tuple[str, str], DeviceEmulator] = {}

SHOE_OPTIONS = {"name", "deck", "seed", "script", "baud", "auto"}
SIGN_OPTIONS = {"name", "address", "type", "baud"}


def parse_url(url: str) -> tuple[str, str, dict[str, str]]:
    """``emu://KIND?opts`` to (kind, name, options); a ValueError names what is wrong."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "emu":
        raise ValueError(f"{url!r} is not an emu:// URL")
    kind = (parts.hostname or parts.path.strip("/")).lower()
    allowed = {"shoe": SHOE_OPTIONS, "sign": SIGN_OPTIONS}.get(kind)
    if allowed is None:
        raise ValueError(f"{url!r}: unknown emulated device {kind!r} (known: shoe, sign)")
    options = {key: values[-1] for key, values in parse_qs(parts.query, keep_blank_values=True).items()}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ValueError(f"{url!r}: unknown option {unknown[0]!r} (known: {', '.join(sorted(allowed))})")
    return kind, options.pop("name", "default"), options


def emulator_for_url(url: str) -> DeviceEmulator:
    """The running emulator this URL names, created and started on first use."""
    kind, name, options = parse_url(url)
    with _lock:
        emu = _emulators.get((kind, name))
        if emu is None:
            emu = _create(kind, options)
            emu.start()
            _emulators[(kind, name)] = emu
        return emu


def lookup(kind: str, name: str = "default") -> DeviceEmulator | None:
    with _lock:
        return _emulators.get((kind, name))


def shutdown_all() -> None:
    with _lock:
        emulators = list(_emulators.values())
        _emulators.clear()
    for emu in emulators:
        emu.stop()


def _create(kind: str, options: dict[str, str]) -> DeviceEmulator:
    baud = _int(options, "baud")
    if kind == "shoe":
        return ShoeEmulator(
            deck=options.get("deck", "standard-52"),
            seed=_int(options, "seed"),
            script=options.get("script") or None,
            baudrate=baud,
            auto_deal=_seconds(options, "auto"),
        )
    return SignEmulator(
        address=options.get("address", "01"), type_code=options.get("type", "!"), baudrate=baud
    )


def _seconds(options: dict[str, str], key: str) -> float:
    try:
        value = float(options.get(key, "0"))
    except ValueError:
        value = -1.0
    if not 0 <= value < 86400:
        raise ValueError(f"emu:// option {key} must be seconds like 2 or 0.5, got {options[key]!r}")
    return value


def _int(options: dict[str, str], key: str) -> int | None:
    if key not in options:
        return None
    try:
        return int(options[key])
    except ValueError:
        raise ValueError(f"emu:// option {key} must be a whole number, got {options[key]!r}") from None

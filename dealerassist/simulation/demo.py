"""The whole simulated pit on loopback: what ``dealerassist demo`` starts and stops.

Per game: the bundled example table (``data/tables/<slug>.toml``) with its devices pointed at a shoe
emulator (and, for a game with a progressive bet, a sign emulator) on 127.0.0.1, demo progressive
parameters, the synthetic camera; then the same ``Station`` that ``dealerassist run`` uses, the
dashboard, one account per role with a random password, the supervisor and a dealer per table.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealerassist.core.configfiles import bundled_dir
from dealerassist.core.money import format_amount
from dealerassist.errors import DealerAssistError
from dealerassist.simulation.dealer import PACES, Chances, SimulatedDealer, Tally
from dealerassist.simulation.supervisor import DemoSupervisor
from dealerassist.station.dashboard import DashboardServer, build_dashboard
from dealerassist.station.station import DB_NAME, SNAPSHOTS_NAME, USERS_NAME, Station, make_data_dir
from dealerassist.station.tables import StationTable, check_table
from dealerassist.tablefiles.tables import table_from_mapping

log = logging.getLogger(__name__)

ROLES = ("dealer", "supervisor", "surveillance", "admin")
DEMO_PROGRESSIVE = {"base": "1000", "reset": "1000", "increment": "15", "reserve": "5"}
SUPERVISOR_DELAY_S = {"table": 6.0, "fast": 0.05}


EXAMPLE_TABLES = bundled_dir() / "tables"  # the demo deals the examples, never a site's own tables


class DemoError(DealerAssistError):
    """The demo cannot start as asked."""


def demo_games() -> list[str]:
    """Every game with a bundled example table, in a stable order."""
    return sorted(p.stem for p in EXAMPLE_TABLES.glob("*.toml"))


@dataclass(frozen=True)
class DemoOptions:
    games: Sequence[str]
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 8080
    pace: str = "table"
    rounds: int | None = None
    auto_supervisor: bool = True
    camera: bool = True
    seed: int | None = None
    floor: str | None = None  # ship the demo's log to this floor store (one stream, "demo")
    chances: Chances = field(default_factory=Chances)


class Demo:
    def __init__(self, options: DemoOptions, say: Callable[[str], None] = print) -> None:
        unknown = [g for g in options.games if g not in demo_games()]
        if unknown:
            raise DemoError(f"--game: unknown game {unknown[0]!r} (known: all, {', '.join(demo_games())})")
        if options.pace not in PACES:
            raise DemoError(f"--pace: must be one of {', '.join(PACES)}, got {options.pace!r}")
        self.options = options
        self.say = say
        self.rng = random.Random(options.seed)
        self.emulators: list[Any] = []
        self.shoes: dict[str, Any] = {}
        self.sign_emulators: dict[str, Any] = {}
        self.station: Station | None = None
        self.server: DashboardServer | None = None
        self.supervisor: DemoSupervisor | None = None
        self.dealers: dict[str, SimulatedDealer] = {}
        self.passwords: dict[str, str] = {}
        self.stop_event = threading.Event()
        self._threads: list[threading.Thread] = []

    # --- start --------------------------------------------------------------------------------------

    def start(self) -> None:
        data = self.options.data_dir
        left = earlier_run(data)
        if left:
            raise DemoError(
                f"--data-dir {data}: holds {', '.join(left)} from before; the demo never replaces data "
                "it did not make: name a new or empty folder"
            )
        make_data_dir(data)
        tables = [self._table(slug) for slug in self.options.games]
        cameras = self._cameras(tables)
        self.station = Station(tables, data, sign_rate_hz=8.0, cameras=cameras)
        self.station.start()
        self._accounts()
        try:
            self.server = DashboardServer(build_dashboard(self.station), self.options.host, self.options.port)
        except OSError as exc:
            raise DemoError(
                f"cannot listen on {self.options.host}:{self.options.port}: {exc} (try --port)"
            ) from None
        self.server.start()
        pace = PACES[self.options.pace]
        self.supervisor = DemoSupervisor(
            self.station.pit,
            self.station.controllers,
            auto=self.options.auto_supervisor,
            delay_s=SUPERVISOR_DELAY_S[self.options.pace],
            say=self.say,
        )
        self.supervisor.start()
        for table in tables:
            dealer = SimulatedDealer(
                table.config,
                self.station.pit,
                self.shoes[table.table_id],
                rng=random.Random(self.rng.getrandbits(32)),
                pace=pace,
                chances=self.options.chances,
                camera=cameras.get(table.table_id),
                supervisor=self.supervisor,
                say=self.say,
            )
            self.dealers[table.table_id] = dealer
            thread = threading.Thread(
                target=dealer.run,
                args=(self.stop_event, self.options.rounds),
                name=f"dealer-{table.table_id}",
            )
            self._threads.append(thread)
        for thread in self._threads:
            thread.start()

    def _table(self, slug: str) -> StationTable:
        """The example table for ``slug`` with its devices on this machine's emulators."""
        from firmware_bridge.emulators.shoe import ShoeEmulator
        from firmware_bridge.emulators.sign import SignEmulator

        path = EXAMPLE_TABLES / f"{slug}.toml"
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        table_id = raw["table"]["id"]
        deck = raw["table"].get("deck", "standard-52")
        shoe = ShoeEmulator(deck=deck, seed=self.rng.getrandbits(32), heartbeat=0.5)
        shoe.serve_tcp("127.0.0.1", 0)
        shoe.start()
        self.emulators.append(shoe)
        self.shoes[table_id] = shoe
        raw["devices"] = {"shoe": {"url": shoe.url, "baudrate": 115200}}
        if self.options.floor:
            raw["floor"] = {"url": self.options.floor, "stream": "demo"}
        limit = raw.get("limits", {}).get("progressive")
        if limit is not None and "progressive" not in raw:
            raw["progressive"] = {
                **DEMO_PROGRESSIVE,
                "name": f"{table_id}-progressive",
                "wager": format_amount(_cents(limit["min"])),
            }
        if "progressive" in raw:
            sign = SignEmulator()
            sign.serve_tcp("127.0.0.1", 0)
            sign.start()
            self.emulators.append(sign)
            self.sign_emulators[table_id] = sign
            raw["devices"]["sign"] = {"url": sign.url, "baudrate": 9600}
        return check_table(table_from_mapping(raw, f"{path} (demo devices)"))

    def _cameras(self, tables: Sequence[StationTable]) -> dict[str, Any]:
        if not self.options.camera:
            self.say("camera: off (--no-camera): card reads come from the shoe only")
            return {}
        from dealerassist.simulation.camera import SyntheticTableCamera, load_demo_deck

        loaded = load_demo_deck(self.say)
        if loaded is None:
            return {}
        model, design = loaded
        cameras = {}
        for table in tables:
            table_id = table.table_id
            cameras[table_id] = SyntheticTableCamera(
                table_id, model, design, self.options.data_dir / "snapshots", self._feed(table_id)
            )
        return cameras

    def _feed(self, table_id: str) -> Callable[[Any], None]:
        def feed(event: Any) -> None:
            assert self.station is not None
            try:
                self.station.pit.handle(table_id, event)
            except DealerAssistError as exc:
                log.info("%s: camera %s refused: %s", table_id, event.kind, exc)

        return feed

    def _accounts(self) -> None:
        """One account per role, each with a fresh random password printed once."""
        from dealerassist.web.users import UserStore

        assert self.station is not None
        store = UserStore(self.station.users_path)
        try:
            for role in ROLES:
                password = secrets.token_urlsafe(12)
                store.add(f"demo-{role}", role, password)
                self.passwords[f"demo-{role}"] = password
        finally:
            store.close()

    # --- run and stop -------------------------------------------------------------------------------

    def wait(self) -> None:
        """Until every dealer finished its rounds, or ``stop_event`` is set (Ctrl-C)."""
        while any(t.is_alive() for t in self._threads):
            if self.stop_event.wait(0.2):
                return
        if self.supervisor is not None:
            self.supervisor.finish(timeout=self.supervisor.delay_s + 5)

    def stop(self) -> None:
        self.stop_event.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(timeout=10)
        if self.supervisor is not None:
            self.supervisor.stop()
        if self.server is not None:
            self.server.stop()
        if self.station is not None:
            self.station.stop()
        for emulator in self.emulators:
            emulator.stop()

    def tallies(self) -> dict[str, Tally]:
        return {table: dealer.tally for table, dealer in self.dealers.items()}

    @property
    def db_path(self) -> Path:
        return self.options.data_dir / DB_NAME


def _cents(text: str) -> int:
    from dealerassist.core.money import parse_amount

    return parse_amount(str(text))


def earlier_run(data: Path) -> list[str]:
    """What an earlier run (a demo's or a station's) left in ``data``: its log, accounts, snapshots."""
    names = [f"{name}{suffix}" for name in (DB_NAME, USERS_NAME) for suffix in ("", "-wal", "-journal")]
    return [name for name in [*names, SNAPSHOTS_NAME] if (data / name).exists()]


def unused_beside(data: Path) -> Path:
    """``data`` when no earlier run left anything there, else the first free ``data-2``, ``data-3`` ..."""
    candidate, number = data, 1
    while earlier_run(candidate):
        number += 1
        candidate = data.with_name(f"{data.name}-{number}")
    return candidate

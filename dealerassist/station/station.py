"""One process's tables, assembled: event log, pit, progressives, device drivers, cameras, dashboard.

``Station`` is what ``dealerassist run`` and ``dealerassist demo`` share. Every table's shoe
driver feeds the pit; every progressive controller follows its tracker and drives its sign
through a ``SignFeed``; the sign's and the shoe's link changes go into the table's log as
``device-link`` events (alarms the dashboard shows); ``health()`` says, per table, which links are
up and whether the log answers. A checkpoint of what the progressives derive from the log is
written after a start that had none, every ``checkpoint_every`` records and at a clean stop, so a
start reads only the records after the last one (``dealerassist.storage.checkpoint``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dealerassist.errors import DealerAssistError
from dealerassist.events import Event
from dealerassist.station.camera import CameraFeed, build_pipeline
from dealerassist.station.tables import StationTable

log = logging.getLogger("dealerassist.station")

DB_NAME = "events.sqlite3"  # backups take every *.sqlite3 of the data directory
USERS_NAME = "users.sqlite3"
SNAPSHOTS_NAME = "snapshots"
# Records worth a line in the journal; the log itself keeps everything.
JOURNAL_KINDS = frozenset(
    {
        "round-settled",
        "round-voided",
        "alarm",
        "alarm-cleared",
        "device-link",
        "progressive-hit",
        "progressive-paid",
    }
)


class StationError(DealerAssistError):
    """The station cannot start as asked (its data directory cannot be made, for one)."""


def make_data_dir(data_dir: Path) -> None:
    """Create the directory the log, accounts and snapshots go in, or say why it cannot be."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StationError(
            f"--data-dir {data_dir}: cannot create the data directory ({exc.strerror or exc}); "
            "name a directory this user may write"
        ) from None


class Station:
    """Build with the checked tables and a data directory; ``start()``, then ``stop()``."""

    def __init__(
        self,
        tables: Sequence[StationTable],
        data_dir: str | Path,
        *,
        sign_rate_hz: float = 4.0,
        shoe_silence_s: float = 3.0,
        cameras: Mapping[str, Any] | None = None,
        keys: str | Path | None = None,
        checkpoint_every: int | None = None,
    ) -> None:
        """``keys``: the table key files (default ``$DEALERASSIST_KEYS`` or /etc/dealerassist/keys)."""
        from dealerassist.storage.checkpoint import DEFAULT_EVERY

        self.tables = list(tables)
        self.checkpoint_every = checkpoint_every or DEFAULT_EVERY
        self.checkpoints: Any = None
        self.data_dir = Path(data_dir)
        self.sign_rate_hz = sign_rate_hz
        self.shoe_silence_s = shoe_silence_s
        self.db_path = self.data_dir / DB_NAME
        self.users_path = self.data_dir / USERS_NAME
        self.snapshot_dir = self.data_dir / SNAPSHOTS_NAME
        self.log: Any = None
        self.pit: Any = None
        self.controllers: dict[str, Any] = {}
        self.shoes: dict[str, Any] = {}
        self.signs: dict[str, Any] = {}
        self.sign_lines: dict[str, Any] = {}  # URL -> SignLine: the signs on one line share its port
        self.cameras: dict[str, Any] = dict(cameras or {})
        self.keys = keys
        self.shipper: Any = None
        self._stoppers: list[Callable[[], None]] = []

    # --- life cycle ---------------------------------------------------------------------------

    def start(self) -> None:
        from dealerassist.progressive.controller import ProgressiveController, checkpoint_name
        from dealerassist.storage.checkpoint import CheckpointKeeper
        from dealerassist.storage.eventlog import EventLog
        from dealerassist.tracker.pit import Pit

        make_data_dir(self.data_dir)
        self.log = EventLog(self.db_path, keys=self.keys)
        checkpoint = self.log.checkpoint
        self.pit = Pit(self.log, [t.config for t in self.tables])
        self.pit.subscribe(_journal)
        self._start_shipper()
        from dealerassist.station.logwatch import LogWatch

        self.log_watch = LogWatch(self.log, self.pit, [t.table_id for t in self.tables])
        self.log_watch.start()
        self._stoppers.append(self.log_watch.stop)
        for table in self.tables:
            if table.progressive is not None:
                resume = checkpoint.resume(checkpoint_name(table.table_id)) if checkpoint else None
                controller = ProgressiveController(table.table_id, table.progressive, self.log, resume=resume)
                controller.attach(self.pit.tracker(table.table_id))
                controller.start()
                self._stoppers.append(controller.stop)
                self.controllers[table.table_id] = controller
        self.checkpoints = CheckpointKeeper(
            self.log, self._checkpoint_locks, self.controllers.values, every=self.checkpoint_every
        )
        if checkpoint is None:  # this start read the whole log: the next one need not
            self.checkpoints.write_now()
        self.pit.subscribe(self.checkpoints.on_record)
        self.checkpoints.start()
        for table in self.tables:
            self._start_devices(table)
        log.info(
            "station up: %d table(s) %s, log %s",
            len(self.tables),
            ", ".join(t.table_id for t in self.tables),
            self.db_path,
        )

    def _start_shipper(self) -> None:
        """Ship the log to the floor store, if the tables name one; the table never waits for it."""
        from dealerassist.floor.config import station_floor

        floor = station_floor(self.tables)
        if floor is None:
            return
        from dealerassist.floor.shipper import Shipper

        self.shipper = Shipper(self.db_path, floor).start()
        self.pit.subscribe(self.shipper.wake)
        self._stoppers.append(self.shipper.stop)

    def _start_devices(self, table: StationTable) -> None:
        feed = self.feed(table.table_id)
        if "shoe" in table.serial:
            self._start_shoe(table, feed)
        if "sign" in table.serial:
            self._start_sign(table, feed)
        if table.camera_url and table.table_id not in self.cameras:
            self._start_camera(table, feed)

    def _start_shoe(self, table: StationTable, feed: Callable[[Event], None]) -> None:
        from firmware_bridge.shoe.driver import ShoeReader

        config = table.serial["shoe"]
        reader = ShoeReader(
            config,
            table.table_id,
            feed,
            silence_timeout=self.shoe_silence_s,
            resume=self.pit.tracker(table.table_id).shoe_position(),
            line_alarm_per_minute=config.line_alarm_per_minute,
        )
        reader.start()
        self._stoppers.insert(0, reader.stop)
        self.shoes[table.table_id] = reader

    def _start_sign(self, table: StationTable, feed: Callable[[Event], None]) -> None:
        from dealerassist.progressive.sign import SignFeed
        from firmware_bridge.sign.driver import JackpotSign, SignLine

        config = table.serial["sign"]
        header = dict(table.sign_header)
        shared = next(
            (s for s in self.signs.values() if s.config.url == config.url and s.header == header), None
        )
        if shared is not None:
            # One sign over a linked bank of tables: the first table drives it (a shared meter shows
            # the same amount at every table) and reports its link.
            self.signs[table.table_id] = shared
            return
        line = self.sign_lines.get(config.url)
        if line is None:
            line = self.sign_lines[config.url] = SignLine(config)
        elif line.config != config:
            raise StationError(
                f"table {table.table_id}: [devices.sign] on {config.url} gives other line settings than "
                "another table's sign on the same line; signs on one line share its settings"
            )
        sign = JackpotSign(line, **header, max_rate_hz=self.sign_rate_hz, table=table.table_id, on_event=feed)
        sign.start()
        self._stoppers.insert(0, sign.stop)
        self.signs[table.table_id] = sign
        controller = self.controllers[table.table_id]
        sign_feed = SignFeed(sign)
        controller.subscribe(sign_feed)
        sign_feed(controller.state())

    def _start_camera(self, table: StationTable, feed: Callable[[Event], None]) -> None:
        assert table.camera_url is not None and table.camera_deck is not None
        table_id = table.table_id
        pipeline = build_pipeline(
            table_id, table.config.vision, str(table.config.path), table.camera_deck, self.snapshot_dir
        )
        camera = CameraFeed(table_id, table.camera_url, pipeline, feed)
        camera.start()
        self._stoppers.insert(0, camera.stop)
        self.cameras[table_id] = camera

    def _checkpoint_locks(self) -> list[Any]:
        """What a record passes through, in order: its table's tracker, then the progressives."""
        trackers = [self.pit.tracker(table).lock for table in self.pit.tables()]
        return [*trackers, *(controller.lock for controller in self.controllers.values())]

    def on_stop(self, stop: Callable[[], None]) -> None:
        """Run ``stop`` when the station stops, before the log closes."""
        self._stoppers.append(stop)

    def feed(self, table_id: str) -> Callable[[Event], None]:
        """What a driver calls with each event; refusals are logged by the tracker and raised on."""

        def handle(event: Event) -> None:
            self.pit.handle(table_id, event)

        return handle

    def stop(self) -> None:
        """Drivers first (no new input), then controllers, then a last checkpoint and the log."""
        stoppers, self._stoppers = self._stoppers, []
        for stop in stoppers:
            try:
                stop()
            except Exception:  # one stuck driver must not keep the log from closing
                log.exception("while stopping")
        if self.checkpoints is not None:
            self.checkpoints.stop()
            self.checkpoints.write_now()
        if self.log is not None:
            self.log.close()

    # --- what the dashboard and /healthz show --------------------------------------------------

    def device_probes(self) -> dict[str, Callable[[], Mapping[str, Any]]]:
        """Live status callables for the dashboard's status page (``create_app(devices=...)``)."""
        probes: dict[str, Callable[[], Mapping[str, Any]]] = {}
        for table_id, reader in self.shoes.items():
            probes[f"shoe:{table_id}"] = _shoe_probe(reader)
        for table_id, sign in self.signs.items():
            probes[f"sign:{table_id}"] = _sign_probe(sign)
        for table_id, camera in self.cameras.items():
            probes[f"camera:{table_id}"] = camera.status
        if self.shipper is not None:
            for table in self.tables:
                probes[f"floor:{table.table_id}"] = self.shipper.status
        return probes

    def health(self) -> dict[str, Any]:
        """Per table: every device link (up or not, its URL, the shoe's line trouble counts), the round,
        open alarms; and the log."""
        tables: dict[str, Any] = {}
        links: dict[str, dict[str, Any]] = {}
        for name, probe in self.device_probes().items():
            device, _, owner = name.partition(":")
            links.setdefault(owner, {})[device] = _link(name, probe)
        ok = all(link["up"] for devices in links.values() for link in devices.values())
        for table in self.tables:
            table_id = table.table_id
            devices = links.get(table_id, {})
            snap = self.pit.tracker(table_id).snapshot()
            tables[table_id] = {
                "game": table.config.rules.game,
                "round_id": snap["round_id"],
                "phase": snap["phase"],
                "open_alarms": len(snap["alarms"]),
                "devices": devices,
            }
            controller = self.controllers.get(table_id)
            if controller is not None:
                state = controller.state()
                tables[table_id]["progressive"] = {"status": state["status"], "amount": state["amount"]}
        log_state = self._log_health()
        report = {"ok": ok and log_state["ok"], "tables": tables, "log": log_state}
        if self.shipper is not None:
            report["floor"] = self.shipper.status()
        return report

    def _log_health(self) -> dict[str, Any]:
        """Whether the log answers; never its path (``/healthz`` needs no login), which the journal has."""
        try:
            state = {"ok": True, "last_seq": self.log.last_seq()}
            if self.log.write_problem is not None:
                since, what = self.log.write_problem
                state.update(ok=False, problem=f"cannot be written since {since}: {what}")
            return state
        except Exception as exc:  # a health check reports a broken log, it never raises
            log.error("event log health check failed: %s", exc)
            problem = str(exc).replace(str(self.db_path), "the event log")
            return {"ok": False, "problem": problem}


def _link(name: str, probe: Callable[[], Mapping[str, Any]]) -> dict[str, Any]:
    """One device's line in ``/healthz``; a probe that raises counts as a link down, not a 500."""
    try:
        status = dict(probe())
    except Exception as exc:  # a health check reports a broken probe, it never raises
        log.exception("health probe %s failed", name)
        return {"up": False, "url": "", "problem": f"status probe failed: {exc}"}
    from firmware_bridge.shoe.health import FIGURES

    link: dict[str, Any] = {"up": bool(status.get("ok")), "url": status.get("url", "")}
    if all(name in status for name in FIGURES):
        link["line"] = {name: status[name] for name in FIGURES}
    return link


def _shoe_probe(reader: Any) -> Callable[[], Mapping[str, Any]]:
    def probe() -> Mapping[str, Any]:
        return {
            "ok": reader.link_up,
            "url": reader.config.url,
            "cards": reader.stats.get("cards", 0),
            **reader.line_figures(),  # flat: the status page shows each as a figure of the row
        }

    return probe


def _sign_probe(sign: Any) -> Callable[[], Mapping[str, Any]]:
    def probe() -> Mapping[str, Any]:
        return {
            "ok": sign.link_up,
            "url": sign.config.url,
            "writes": sign.stats.get("writes", 0),
            "answers_reads": sign.answers,  # None until the first read-back
            "restored": sign.stats.get("restored", 0),  # times it had lost what was sent
        }

    return probe


def _journal(record: Any) -> None:
    """A plain line per notable record, for journald or a container log."""
    event = record.event
    if event.kind not in JOURNAL_KINDS:
        return
    data = event.to_dict()
    if event.kind == "round-settled":
        text = f"round {data['round_id']} settled: {len(data['results'])} wager(s)"
    elif event.kind == "round-voided":
        text = f"round {data['round_id']} voided: {data['reason']}"
    elif event.kind == "alarm":
        text = f"ALARM {data['code']} ({data['severity']}): {data['message']}"
    elif event.kind == "device-link":
        text = f"{data['device']} link {'up' if data['up'] else 'DOWN'}: {data.get('detail', '')}"
    else:
        text = ", ".join(f"{k}={v}" for k, v in data.items() if k not in ("kind", "table"))
    level = (
        logging.WARNING
        if event.kind == "alarm" or (event.kind == "device-link" and not data["up"])
        else logging.INFO
    )
    log.log(level, "%s #%d %s: %s", event.table, record.seq, event.kind, text)

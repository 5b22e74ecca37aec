"""Device and database health for the status page: each link's state and its last error.

Live figures (camera frame rate and registration, sign link) come from the callables the process
owner passed to ``create_app(devices=...)``; link changes and shoe statuses come from the log, so
the page also shows what happened while nobody was looking.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from dealerassist.errors import DealerAssistError
from dealerassist.web.runtime import Runtime

log = logging.getLogger(__name__)

EXPECTED_DEVICES = ("camera", "shoe", "sign", "floor")


@dataclass
class DeviceRow:
    name: str
    table: str
    ok: bool | None  # None: nothing known yet
    summary: str
    since: str = ""
    last_error: str = ""
    last_error_at: str = ""
    figures: dict[str, Any] = field(default_factory=dict)


def collect(rt: Runtime) -> dict[str, Any]:
    """Rows for every expected device of every table, the live figures and the database."""
    index = rt.index().refresh()
    rows: list[DeviceRow] = []
    for table in rt.table_ids():
        configured = set(getattr(rt.tables[table], "devices", {}) or {})
        for device in EXPECTED_DEVICES:
            state = index.devices.get((table, device))
            live = _live(rt, device, table)
            if state is None and not live and device not in configured:
                continue
            row = DeviceRow(device, table, None, "no report yet")
            if state is not None:
                row.ok, row.summary, row.since = (
                    state.up,
                    ("up" if state.up else "DOWN") + (f": {state.detail}" if state.detail else ""),
                    state.at,
                )
                row.last_error, row.last_error_at = state.last_error, state.last_error_at
            if live:
                row.figures = {
                    k: v for k, v in live.items() if k not in ("ok", "last_error", "last_error_at")
                }
                if "ok" in live:
                    row.ok = bool(live["ok"])
                    row.summary = "up" if row.ok else "DOWN"
                if live.get("last_error"):
                    row.last_error = str(live["last_error"])
                    row.last_error_at = str(live.get("last_error_at", ""))
            rows.append(row)
    return {"devices": rows, "database": _database(rt), "sse_clients": rt.fanout.client_count}


def _live(rt: Runtime, device: str, table: str) -> dict[str, Any]:
    """Figures from the registered callable (``"camera"`` or ``"camera:tcp-1"``), errors included."""
    probe = rt.devices.get(f"{device}:{table}") or rt.devices.get(device)
    if probe is None:
        return {}
    try:
        return dict(probe())
    except Exception as exc:  # a status probe must never take the status page down
        log.exception("status probe %s:%s failed", device, table)
        return {"ok": False, "last_error": f"status probe failed: {exc}"}


def _database(rt: Runtime) -> dict[str, Any]:
    out: dict[str, Any] = {"ok": True, "last_error": ""}
    try:
        out["last_seq"] = rt.log.last_seq()
    except (DealerAssistError, sqlite3.Error) as exc:
        out["ok"] = False
        # The file's place on disk is the operator's business (the journal names it), not a screen's.
        out["last_error"] = str(exc).replace(str(getattr(rt.log, "path", "")) or "\x00", "the event log")
    verified = rt.last_verification
    if verified is not None:
        out["chain"] = verified
        if not verified["ok"]:
            out["ok"] = False
            out["last_error"] = f"hash chain broken at seq {verified['first_bad']}: {verified['problem']}"
    return out

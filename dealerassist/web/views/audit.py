"""Surveillance (read-only): round history, a round's timeline, chain verification, exports, analytics."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import takewhile
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, render_template, request, send_file, url_for

from dealerassist.storage.eventlog import decode_row, export_line
from dealerassist.web import analytics as table_analytics
from dealerassist.web.history import RoundFilter, RoundSummary
from dealerassist.web.records import describe
from dealerassist.web.runtime import runtime
from dealerassist.web.views import audience, client_address, current_user, render_error, requires

bp = Blueprint("audit", __name__, url_prefix="/surveillance")

OUTCOMES = ("settled", "voided", "open", "win", "lose", "push", "forfeit")


class FilterError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _time_arg(name: str) -> str | None:
    raw = (request.args.get(name) or "").strip()
    if not raw:
        return None
    try:
        return datetime.fromisoformat(raw).isoformat()
    except ValueError:
        raise FilterError(name, f"must be a date or date-time like 2026-11-29T14:00, got {raw!r}") from None


def _filter_from_args() -> RoundFilter:
    rt = runtime()
    table = request.args.get("table") or None
    if table is not None and table not in rt.tables:
        raise FilterError("table", f"no table {table!r}")
    seat_text = (request.args.get("seat") or "").strip()
    if seat_text and not (seat_text.isascii() and seat_text.isdigit() and len(seat_text) <= 3):
        raise FilterError("seat", f"must be a seat number, got {seat_text[:40]!r}")
    outcome = request.args.get("outcome") or None
    if outcome is not None and outcome not in OUTCOMES:
        raise FilterError("outcome", f"must be one of {', '.join(OUTCOMES)}, got {outcome!r}")
    return RoundFilter(
        table=table,
        game=request.args.get("game") or None,
        seat=int(seat_text) if seat_text else None,
        outcome=outcome,
        since=_time_arg("since"),
        until=_time_arg("until"),
        voids_only=request.args.get("voids") in ("1", "on", "true"),
        alarms_only=request.args.get("alarms") in ("1", "on", "true"),
    )


def _find() -> list[RoundSummary] | Any:
    rt = runtime()
    try:
        flt = _filter_from_args()
    except FilterError as exc:
        return render_error(400, exc.field, exc.message)
    games = {t: rt.game_of(t) for t in rt.table_ids()}
    return rt.index().refresh().find(flt, games)


@bp.get("/")
@requires("audit")
def history() -> Any:
    rt = runtime()
    found = _find()
    if not isinstance(found, list):
        return found
    games = sorted({rt.game_of(t) for t in rt.table_ids()})
    return render_template(
        "history.html",
        rounds=found[:500],
        total=len(found),
        tables=rt.table_ids(),
        games=games,
        outcomes=OUTCOMES,
        args=request.args,
        game_of=rt.game_of,
        verification=rt.last_verification,
        query=request.query_string.decode(),
        last_seq=rt.log.last_seq(),
    )


@bp.get("/rounds/<table>/<int:round_id>")
@requires("audit")
def round_detail(table: str, round_id: int) -> Any:
    rt = runtime()
    summary = rt.index().refresh().rounds.get((table, round_id))
    if summary is None:
        return render_error(404, "round_id", f"no round {round_id} at table {table!r}")
    records = rt.reader.records(after=summary.first_seq - 1, table=table)
    return render_template(
        "round.html",
        round=summary,
        timeline=timeline(takewhile(lambda rec: rec.seq <= summary.last_seq, records), table),
        game=rt.game_of(table),
        verification=rt.last_verification,
    )


def timeline(records: Iterable[Any], table: str) -> list[dict[str, Any]]:
    """A round's records as its timeline shows them, each as the signed-in user may see it."""
    out = []
    viewer = audience(table)
    for rec in records:
        seen = viewer.record(rec)
        if seen is None:
            continue
        event = seen["event"]
        snapshot = event.get("snapshot")
        out.append(
            {
                "seq": rec.seq,
                "at": rec.recorded_at,
                "kind": event["kind"],
                "text": describe(event),
                "event": event,
                "hash": rec.hash,
                "snapshot": url_for("audit.snapshot", name=snapshot) if _snapshot_path(snapshot) else None,
            }
        )
    return out


def _snapshot_path(name: Any) -> Path | None:
    """A camera snapshot inside the configured snapshot directory, never outside it."""
    base = runtime().snapshot_dir
    if base is None or not isinstance(name, str) or not name or "\x00" in name:
        return None
    try:
        path = (base / name).resolve()
        if base.resolve() not in path.parents or not path.is_file():
            return None
    except OSError:  # a name too long for the file system is no snapshot either
        return None
    return path


@bp.get("/snapshots/<path:name>")
@requires("audit")
def snapshot(name: str) -> Any:
    path = _snapshot_path(name)
    if path is None:
        abort(404)
    return send_file(path)


@bp.post("/verify")
@requires("audit")
def verify() -> Any:
    rt = runtime()
    result = rt.verify_chain()
    rt.record_user_action(current_user(), "verify-chain", client=client_address(), ok=result["ok"])
    if request.mimetype == "application/json" or request.accept_mimetypes.best == "application/json":
        return result
    return render_template("verify.html", result=result)


# A long export goes out in batches with a short pause between them: the same process serves the
# live screens and runs the trackers, and a download may take a little longer where a dealer's
# screen must not be late (see the export figures of ``bench dashboard``).
EXPORT_BATCH = 25
EXPORT_PAUSE_S = 0.003


def _paced(lines: Iterator[str]) -> Iterator[str]:
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) == EXPORT_BATCH:
            yield "".join(batch)
            batch.clear()
            time.sleep(EXPORT_PAUSE_S)
    if batch:
        yield "".join(batch)


def _download(body: Iterator[str], name: str, mimetype: str) -> Response:
    response = Response(_paced(body), mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/export.csv")
@requires("audit")
def export_csv() -> Any:
    found = _find()
    if not isinstance(found, list):
        return found
    rt = runtime()
    rt.record_user_action(
        current_user(), "export", client=client_address(), format="csv", query=request.query_string.decode()
    )

    def rows() -> Iterator[str]:
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(
            [
                "table",
                "game",
                "round_id",
                "opened_at",
                "closed_at",
                "outcome",
                "seats",
                "wagered_cents",
                "paid_cents",
                "house_net_cents",
                "alarms",
                "void_reason",
                "dealer",
                "first_seq",
                "last_seq",
            ]
        )
        for r in found:
            writer.writerow(
                [
                    r.table,
                    rt.game_of(r.table),
                    r.round_id,
                    r.opened_at,
                    r.closed_at,
                    r.outcome,
                    " ".join(map(str, sorted(r.seats))),
                    r.wagered,
                    r.paid,
                    r.house_net,
                    " ".join(r.alarms),
                    r.void_reason,
                    r.dealer,
                    r.first_seq,
                    r.last_seq,
                ]
            )
            yield buf.getvalue()
            buf.seek(0)
            buf.truncate()
        if not found:
            yield buf.getvalue()

    return _download(rows(), "rounds.csv", "text/csv")


@bp.get("/export.jsonl")
@requires("audit")
def export_jsonl() -> Any:
    """Every log record of the filtered rounds, in the log's export form (one JSON object a line)."""
    found = _find()
    if not isinstance(found, list):
        return found
    rt = runtime()
    rt.record_user_action(
        current_user(), "export", client=client_address(), format="jsonl", query=request.query_string.decode()
    )
    spans: dict[str, list[tuple[int, int]]] = {}
    viewer = audience()
    for r in sorted(found, key=lambda r: r.first_seq):
        spans.setdefault(r.table, []).append((r.first_seq, r.last_seq))

    def lines() -> Iterator[str]:
        # One pass through the log in seq order (a query per round would read a page per round).
        if not spans:
            return
        start = min(s[0][0] for s in spans.values())
        end = max(last for table_spans in spans.values() for _first, last in table_spans)
        at = dict.fromkeys(spans, 0)
        whole = viewer.sees_whole_records
        for row in rt.reader.rows(after=start - 1):
            seq, table = row[0], row[2]
            if seq > end:
                return
            table_spans = spans.get(table)
            if table_spans is None:
                continue
            i = at[table]
            while i < len(table_spans) and table_spans[i][1] < seq:
                i += 1
            at[table] = i
            if i < len(table_spans) and table_spans[i][0] <= seq:
                if whole:
                    yield export_line(row)
                elif (seen := viewer.export(decode_row(row))) is not None:
                    yield json.dumps(seen, default=str) + "\n"

    return _download(lines(), "records.jsonl", "application/x-ndjson")


@bp.get("/analytics")
@requires("audit")
def analytics() -> Any:
    rt = runtime()
    found = _find()
    if not isinstance(found, list):
        return found
    report = table_analytics.build(found, shifts=rt.shifts)
    return render_template("analytics.html", report=report, tables=rt.table_ids(), args=request.args)

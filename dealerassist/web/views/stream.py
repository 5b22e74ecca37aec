"""Server-Sent Events: the event log, live, with ``Last-Event-ID`` = the log's ``seq``.

A page passes the ``seq`` it was rendered at as ``?after=``; on a reconnect the browser's
``Last-Event-ID`` header takes over, so a dropped connection misses nothing. Browsers receive
``record`` messages (one log record each), comments as keep-alives, and a final ``overflow``
message if they fell so far behind that the server cut them off (they then reconnect and replay).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from dealerassist.web.fanout import Dropped, Subscription
from dealerassist.web.records import is_progressive, record_json
from dealerassist.web.runtime import runtime
from dealerassist.web.views import render_error, requires

bp = Blueprint("stream", __name__)


def _start_seq() -> int | str:
    """The seq to replay after, or an error text naming the bad field.

    An id beyond the log's end (a browser that saw another log) starts at the end, or the
    client would wait for seqs that already went by.
    """
    last = int(runtime().log.last_seq())
    for field, raw in (
        ("Last-Event-ID", request.headers.get("Last-Event-ID")),
        ("after", request.args.get("after")),
    ):
        if raw is None or raw == "":
            continue
        if not raw.isdigit():
            return f"{field}: must be a log seq (a whole number >= 0), got {raw!r}"
        return min(int(raw), last)
    return last


def _events(sub: Subscription, render: Callable[[Any], str], heartbeat: float) -> Iterator[str]:
    """The body of a stream (runs after the view returned: no request or app context here)."""
    try:
        yield "retry: 1500\n\n"
        while True:
            try:
                record = sub.next(timeout=heartbeat)
            except Dropped as exc:
                yield f"event: overflow\ndata: {json.dumps({'message': str(exc)})}\n\n"
                return
            yield ": keep-alive\n\n" if record is None else render(record)
    finally:
        sub.close()


def _respond(sub: Subscription, render: Callable[[Any], str]) -> Response:
    heartbeat = float(current_app.config.get("SSE_HEARTBEAT", 15.0))
    response = Response(_events(sub, render, heartbeat), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _record_message(record: Any) -> str:
    return f"id: {record.seq}\nevent: record\ndata: {json.dumps(record_json(record), default=str)}\n\n"


@bp.get("/stream")
@requires("status")
def records() -> Any:
    """Every record (or one table's, with ``?table=``) after the client's last seen seq."""
    rt = runtime()
    start = _start_seq()
    if isinstance(start, str):
        return render_error(400, start.split(":")[0], start)
    table = request.args.get("table") or None
    if table is not None and table not in rt.tables:
        return render_error(404, "table", f"no table {table!r} (tables: {', '.join(rt.table_ids())})")
    accept = None if table is None else (lambda r: r.event.table == table)
    return _respond(rt.fanout.connect(start, accept), _record_message)


@bp.get("/sign/stream")
def sign() -> Any:
    """Public stream for the jackpot sign screen: the progressive state after each change."""
    rt = runtime()
    start = _start_seq()
    if isinstance(start, str):
        return render_error(400, start.split(":")[0], start)
    controller = rt.progressive_for(request.args.get("table"))
    if controller is None:
        return render_error(404, "table", "no progressive is configured for this table")

    def render(record: Any) -> str:
        return f"id: {record.seq}\nevent: sign\ndata: {json.dumps(controller.state(), default=str)}\n\n"

    return _respond(rt.fanout.connect(start, is_progressive), render)

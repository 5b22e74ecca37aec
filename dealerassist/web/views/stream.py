"""Server-Sent Events: the event log, live, with ``Last-Event-ID`` = the log's ``seq``.

A page passes the ``seq`` it was rendered at as ``?after=``; on a reconnect the browser's
``Last-Event-ID`` header takes over, so a dropped connection misses nothing. Browsers receive
``record`` messages (one log record each), comments as keep-alives, and a final ``overflow``
message if they fell so far behind that the server cut them off (they then reconnect and replay).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from dealerassist.web.fanout import Dropped, Ended, Subscription, TooManyStreams
from dealerassist.web.records import is_progressive
from dealerassist.web.runtime import runtime
from dealerassist.web.views import audience, render_error, requires, session_owner

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
        if not (raw.isascii() and raw.isdigit()):
            return f"{field}: must be a log seq (a whole number >= 0), got {raw[:40]!r}"
        return last if len(raw) > 19 else min(int(raw), last)  # 20+ digits: past any log's end
    return last


def _events(
    sub: Subscription, render: Callable[[Any], str | None], heartbeat: float, alive: Callable[[], bool]
) -> Iterator[str]:
    """The body of a stream (runs after the view returned: no request or app context here)."""
    try:
        yield "retry: 1500\n\n"
        while True:
            try:
                record = sub.next(timeout=heartbeat)
            except Dropped as exc:
                yield f"event: overflow\ndata: {json.dumps({'message': str(exc)})}\n\n"
                return
            except Ended:
                yield 'event: ended\ndata: {"message": "signed out"}\n\n'
                return
            if record is None:
                if not alive():
                    yield 'event: ended\ndata: {"message": "signed out"}\n\n'
                    return
                yield ": keep-alive\n\n"
                continue
            message = render(record)
            if message is not None:
                yield message
    finally:
        sub.close()


class _Body:
    """The stream's body; closing it frees the subscription even if the server never started
    reading it (a generator that never ran ignores ``close``, and its slot would be held)."""

    def __init__(self, sub: Subscription, events: Generator[str, None, None]) -> None:
        self._sub = sub
        self._events = events

    def __iter__(self) -> Iterator[str]:
        return self._events

    def close(self) -> None:
        self._events.close()
        self._sub.close()


def _respond(sub: Subscription, render: Callable[[Any], str | None], alive: Callable[[], bool]) -> Response:
    heartbeat = float(current_app.config.get("SSE_HEARTBEAT", 15.0))
    response = Response(_Body(sub, _events(sub, render, heartbeat, alive)), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


# The public sign page's streams share one allowance, so anonymous clients cannot take the
# threads the dealers' and supervisors' screens need.
SIGN_STREAMS = 32


def _connect(
    after: int, accept: Any, table: str | None, owner: str, limit: int | None = None
) -> Subscription | Any:
    try:
        return runtime().fanout.connect(after, accept, table=table, owner=owner, owner_limit=limit)
    except TooManyStreams as exc:
        return render_error(429, "stream", f"{exc}: close another screen first")


@bp.get("/stream")
@requires("status")
def records() -> Any:
    """The records the signed-in role may see (of one table with ``?table=``) after the client's
    last seen seq; a dealer's stream without a table carries device records only."""
    rt = runtime()
    start = _start_seq()
    if isinstance(start, str):
        return render_error(400, start.split(":")[0], start)
    table = request.args.get("table") or None
    if table is not None and table not in rt.tables:
        return render_error(404, "table", f"no table {table[:40]!r} (tables: {', '.join(rt.table_ids())})")
    viewer = audience(table)
    owner = session_owner()
    sub = _connect(start, lambda r: viewer.admits(str(r.event.table), str(r.event.kind)), table, owner)
    if not isinstance(sub, Subscription):
        return sub

    def render(record: Any) -> str | None:
        seen = viewer.record(record)
        if seen is None:
            return None
        return f"id: {record.seq}\nevent: record\ndata: {json.dumps(seen, default=str)}\n\n"

    users = rt.users
    return _respond(sub, render, lambda: users.session_alive(owner))


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

    sub = _connect(start, is_progressive, None, "sign-screens", SIGN_STREAMS)
    if not isinstance(sub, Subscription):
        return sub
    return _respond(sub, render, lambda: True)

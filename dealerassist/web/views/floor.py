"""Surveillance across the floor: every table's rounds in the floor store (``audit`` roles only).

Only when the station's ``[floor]`` section names a ``search_url`` (a ``floor_reader`` role); else
these routes answer 404 saying so. A round of one of this station's tables links to its timeline
here; any other shows the floor copy's records. A floor store that cannot answer is a 503 with its
reason, never a traceback: the connection and every query have a time limit.
"""

from __future__ import annotations

import functools
from typing import Any

from flask import Blueprint, jsonify, render_template, request, url_for

from dealerassist.web import floorsearch
from dealerassist.web.floorsearch import SearchError
from dealerassist.web.history import RoundSummary, round_summaries
from dealerassist.web.runtime import runtime
from dealerassist.web.views import F, render_error, requires
from dealerassist.web.views.audit import timeline

bp = Blueprint("floor", __name__)

NOT_CONFIGURED = (
    "no floor store to search: the station's [floor] section names no search_url "
    "(a floor_reader role, see docs/floor.md)"
)


class _Links:
    """Where each round found is shown: its timeline here when this station's log holds it, else
    the floor copy. The station's rounds are read once per request, not once per round."""

    def __init__(self) -> None:
        self.local = runtime().index().refresh().rounds.keys()

    def on_station(self, r: RoundSummary) -> bool:
        return (r.table, r.round_id) in self.local

    def href(self, r: RoundSummary) -> str:
        endpoint = "audit.round_detail" if self.on_station(r) else "floor.floor_round"
        return url_for(endpoint, table=r.table, round_id=r.round_id)


def _with_floor(view: F) -> F:
    """Views that need a floor store to search: they get its URL, and a ``SearchError`` they let
    through becomes its 400 or 503; without a ``search_url`` the answer is a 404 saying so."""

    @functools.wraps(view)
    def inner(*args: Any, **kwargs: Any) -> Any:
        url = runtime().floor_search_url
        if url is None:
            return render_error(404, "floor", NOT_CONFIGURED)
        try:
            return view(url, *args, **kwargs)
        except SearchError as exc:
            return render_error(exc.status, exc.field, exc.message)

    return inner  # type: ignore[return-value]


@bp.get("/surveillance/floor")
@requires("audit")
@_with_floor
def floor_search(url: str) -> Any:
    """The search form and, once asked, a page of rounds; a problem is shown on the page."""
    found, problem, status = None, None, 200
    if request.args:
        try:
            found = floorsearch.search(url, floorsearch.parse(request.args))
        except SearchError as exc:
            problem, status = f"{exc.field}: {exc.message}", exc.status
    page = render_template("floor.html", args=request.args, href=_Links().href, found=found, problem=problem)
    return page, status


@bp.get("/surveillance/floor/rounds/<table>/<int:round_id>")
@requires("audit")
@_with_floor
def floor_round(url: str, table: str, round_id: int) -> Any:
    """The floor copy of a round: its records as the floor received them."""
    records = floorsearch.round_records(url, table, round_id)
    summary = round_summaries(records).get((table, round_id))
    if summary is None:
        return render_error(404, "round_id", f"the floor store holds no round {round_id} of table {table!r}")
    return render_template("floor_round.html", round=summary, timeline=timeline(records, table))


@bp.get("/api/floor/rounds")
@requires("audit")
@_with_floor
def floor_rounds_api(url: str) -> Any:
    filters = floorsearch.parse(request.args)
    found = floorsearch.search(url, filters)
    links = _Links()
    return jsonify(
        total=found.total,
        page=filters.page,
        pages=found.pages,
        per_page=filters.per_page,
        rounds=[_as_json(r, links) for r in found.rounds],
    )


def _as_json(r: RoundSummary, links: _Links) -> dict[str, Any]:
    return {
        "table": r.table,
        "round_id": r.round_id,
        "opened_at": r.opened_at,
        "closed_at": r.closed_at,
        "outcome": r.outcome,
        "void_reason": r.void_reason,
        "seats": sorted(r.seats),
        "wagered": r.wagered,
        "paid": r.paid,
        "house_net": r.house_net,
        "alarms": r.alarms,
        "dealer": r.dealer,
        "on_station": links.on_station(r),
        "href": links.href(r),
    }

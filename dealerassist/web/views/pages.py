"""The people-facing screens: dealer (per table), supervisor, jackpot sign and device status.

Each live screen is a full page around a panel; the page's script re-fetches the panel (the same
template) whenever the event stream brings a record, so the first paint and every update are drawn
by one template and there is no polling. Panels come through ``panels.render_panel``: drawn once
per state however many screens show it.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for

from dealerassist.web import status as device_status
from dealerassist.web.panels import render_panel
from dealerassist.web.runtime import runtime
from dealerassist.web.tables import dealer_view, supervisor_view
from dealerassist.web.views import render_error, requires

bp = Blueprint("pages", __name__)


@bp.get("/healthz")
def healthz() -> Any:
    rt = runtime()
    return {"ok": True, "last_seq": rt.log.last_seq(), "sse_clients": rt.fanout.client_count}


@bp.get("/tables")
@requires("view-table")
def dealer_index() -> Any:
    rt = runtime()
    ids = rt.table_ids()
    if len(ids) == 1:
        return redirect(url_for("pages.dealer", table=ids[0]))
    return render_template("tables.html", tables=[(t, rt.table_name(t), rt.game_of(t)) for t in ids])


def _known(table: str) -> bool:
    return table in runtime().tables


@bp.get("/tables/<table>")
@requires("view-table")
def dealer(table: str) -> Any:
    if not _known(table):
        return render_error(404, "table", f"no table {table!r}")
    rt = runtime()
    return render_template("dealer.html", view=dealer_view(table), last_seq=rt.log.last_seq())


@bp.get("/tables/<table>/panel")
@requires("view-table")
def dealer_panel(table: str) -> Any:
    if not _known(table):
        return render_error(404, "table", f"no table {table!r}")
    return render_panel("partials/dealer_panel.html", view=dealer_view(table))


@bp.get("/supervisor")
@requires("supervise")
def supervisor() -> Any:
    return render_template("supervisor.html", views=supervisor_view(), last_seq=runtime().log.last_seq())


@bp.get("/supervisor/panel")
@requires("supervise")
def supervisor_panel() -> Any:
    return render_panel("partials/supervisor_panel.html", views=supervisor_view())


@bp.get("/sign")
def sign() -> Any:
    """Full-screen jackpot amount, public like the physical sign it mirrors: ``?table=`` shows
    that table's progressive, no table every progressive (each once, however many tables share
    it), one above the other."""
    rt = runtime()
    table = request.args.get("table") or ""
    found = rt.progressives()
    if table:
        if not _known(table):
            return render_error(404, "table", f"no table {table!r}")
        chosen = {table: found[table]} if table in found else {}
        missing = f"table {table} has no progressive"
    else:
        chosen = {}
        for table_id, controller in sorted(found.items()):
            if all(controller is not c for c in chosen.values()):
                chosen[table_id] = controller
        missing = "no progressive is configured"
    signs = [(table_id, controller.state()) for table_id, controller in chosen.items()]
    return render_template("sign.html", signs=signs, missing=missing, last_seq=rt.log.last_seq())


@bp.get("/status")
@requires("status")
def status() -> Any:
    return render_template(
        "status.html", view=device_status.collect(runtime()), last_seq=runtime().log.last_seq()
    )


@bp.get("/status/panel")
@requires("status")
def status_panel() -> Any:
    return render_template("partials/status_panel.html", view=device_status.collect(runtime()))

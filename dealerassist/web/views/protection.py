"""Game protection for surveillance: the flags with their evidence, and who looked and cleared.

Only roles that ``audit`` (surveillance, admin) reach these routes; a dealer or supervisor gets a
403 and finds no link to them. Flags come from ``Runtime.protection`` (bounded, cached: see
``dealerassist.web.protection``); a review is checked against the flags as they stand now and
written to the log by the dashboard's writer like every other dashboard record.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for

from dealerassist.errors import DealerAssistError
from dealerassist.protection.reviews import ReviewedFlag, ReviewError
from dealerassist.storage.eventlog import parse_instant
from dealerassist.web.actions import ActionError
from dealerassist.web.protection import Findings
from dealerassist.web.runtime import runtime
from dealerassist.web.views import current_user, render_error, requires
from dealerassist.web.views.api import json_body

bp = Blueprint("protection", __name__)


class _BadWindow(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _window(source: Any) -> tuple[str | None, str | None]:
    """``from``/``to`` of the request (ISO-8601, UTC unless they say); ``_BadWindow`` names a bad one."""
    found: list[str | None] = []
    for name in ("from", "to"):
        raw = str(source.get(name) or "").strip()
        try:
            found.append(parse_instant(raw, name) if raw else None)
        except DealerAssistError as exc:
            raise _BadWindow(name, str(exc).split(": ", 1)[-1]) from None
    return found[0], found[1]


def _findings(source: Any) -> Findings | Any:
    """The flags of the request's window, or the 400 naming a bad ``from``/``to``."""
    try:
        window = _window(source)
    except _BadWindow as exc:
        return render_error(400, exc.field, str(exc))
    return runtime().protection.findings(*window)


def _timelines(flag: ReviewedFlag) -> list[tuple[int, str | None]]:
    """Each evidence round with the link to its timeline (None when the index has no such round).

    A dealer flag over several tables names rounds by number only: the round of that number at
    one of the flag's tables that the flagged dealer dealt is the one meant."""
    rounds = runtime().index().rounds_list()
    known = {(r.table, r.round_id): r for r in rounds}
    tables = flag.flag.table.split(",")
    dealer = flag.flag.statistic.get("dealer")
    out = []
    for round_id in flag.flag.rounds:
        found = [known[(t, round_id)] for t in tables if (t, round_id) in known]
        if len(found) > 1:
            found = [r for r in found if r.dealer == dealer] or found
        link = url_for("audit.round_detail", table=found[0].table, round_id=round_id) if found else None
        out.append((round_id, link))
    return out


@bp.get("/surveillance/protection")
@requires("audit")
def page() -> Any:
    found = _findings(request.args)
    if not isinstance(found, Findings):
        return found
    return render_template(
        "protection.html",
        found=found,
        links={f.id: _timelines(f) for f in found.flags},
        args=request.args,
    )


@bp.get("/api/protection")
@requires("audit")
def api() -> Any:
    found = _findings(request.args)
    if not isinstance(found, Findings):
        return found
    body = found.to_dict()
    for flag, entry in zip(found.flags, body["flags"], strict=True):
        entry["timelines"] = [{"round": r, "url": link} for r, link in _timelines(flag)]
    return jsonify(body)


def _review(body: Any) -> Any:
    """Check the review against the flags as they stand and write it; the record, or an error."""
    rt = runtime()
    user = current_user()
    assert user is not None
    with rt.protection.review_lock:  # two clicks on one flag: the second sees the first's record
        found = _findings(body)
        if not isinstance(found, Findings):
            return found
        try:
            event = rt.protection.reviews().review(
                found.report.flags,
                body.get("flag"),
                body.get("action"),
                user=user.name,
                role=user.role,
                note=body.get("note") or "",
            )
        except ReviewError as exc:
            return render_error(exc.status, exc.field, exc.message)
        return rt.record(event)


@bp.post("/api/protection/reviews")
@requires("audit")
def api_review() -> Any:
    body = json_body()
    if isinstance(body, ActionError):
        fields = "flag, action (looked or cleared), note"
        return render_error(body.status, body.field, f"{body.message}: {fields}")
    done = _review(body)
    if not hasattr(done, "seq"):
        return done
    return jsonify(ok=True, seq=done.seq, review=done.event.to_dict())


@bp.post("/surveillance/protection/reviews")
@requires("audit")
def form_review() -> Any:
    done = _review(request.form)
    if not hasattr(done, "seq"):
        return done
    flash(f"{done.event.subject}: {done.event.action} (record {done.seq})")
    window = {k: request.form[k] for k in ("from", "to") if request.form.get(k)}
    return redirect(url_for("protection.page", **window), code=303)

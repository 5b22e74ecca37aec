"""JSON API: one POST per table action, plus the read-only views the pages are drawn from.

Every answer to bad input is a 4xx ``{"error", "field", "message"}``; a request the tracker
refuses (a rule, an impossible card) is a 409 naming the rule, and is itself in the log as a
``refused`` event.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, jsonify, request

from dealerassist.errors import DealerAssistError, RuleViolation, StorageUnavailable
from dealerassist.web import openapi, progressive_ops
from dealerassist.web.actions import ACTIONS, ActionError, available, build_event
from dealerassist.web.runtime import runtime
from dealerassist.web.security import allowed
from dealerassist.web.tables import snapshot_of
from dealerassist.web.views import (
    audience,
    client_address,
    current_user,
    render_error,
    requires,
    whole_number,
)

bp = Blueprint("api", __name__, url_prefix="/api")


def json_body() -> dict[str, Any] | ActionError:
    """The request's JSON object, or its form fields; an ``ActionError`` for anything else."""
    if request.mimetype == "application/json":
        try:
            body = request.get_json(silent=True)
        except RecursionError:  # nested thousands deep: not an action body
            return ActionError(400, "body", "must be a JSON object (nested too deep)")
        if not isinstance(body, dict):
            return ActionError(400, "body", "must be a JSON object")
        return body
    return {k: v for k, v in request.form.items()}


def _table_or_404(table: str) -> str | None:
    return table if table in runtime().tables else None


@bp.get("/openapi.json")
def openapi_spec() -> Any:
    return jsonify(openapi.spec())


@bp.get("/tables")
@requires("status")
def tables() -> Any:
    rt = runtime()
    return jsonify(
        tables=[{"id": t, "name": rt.table_name(t), "game": rt.game_of(t)} for t in rt.table_ids()],
        last_seq=rt.log.last_seq(),
    )


@bp.get("/tables/<table>/snapshot")
@requires("view-table")
def snapshot(table: str) -> Any:
    if _table_or_404(table) is None:
        return render_error(404, "table", f"no table {table!r}")
    return jsonify(snapshot=snapshot_of(table), last_seq=runtime().log.last_seq())


@bp.post("/tables/<table>/actions/<kind>")
@requires("play")
def act(table: str, kind: str) -> Any:
    rt = runtime()
    user = current_user()
    assert user is not None
    if _table_or_404(table) is None:
        return render_error(404, "table", f"no table {table!r} (tables: {', '.join(rt.table_ids())})")
    action = ACTIONS.get(kind)
    if action is None or kind not in available():
        return render_error(
            404, "action", f"unknown action {kind!r} (actions: {', '.join(sorted(available()))})"
        )
    if not allowed(user.role, action.permission):
        return render_error(403, "role", f"a {user.role} may not {kind} (supervisor needed)")
    body = json_body()
    if isinstance(body, ActionError):
        return render_error(body.status, body.field, body.message)
    try:
        event = build_event(kind, body, table=table, user=user.name, role=user.role)
    except ActionError as exc:
        # Refused before the tracker saw it: logged here so the attempt is not lost.
        rt.record_user_action(
            user,
            "rejected-input",
            table=table,
            client=client_address(),
            input_kind=kind,
            field=exc.field,
            message=exc.message,
            input=_as_text(body_without_token(body)),
        )
        return render_error(exc.status, exc.field, exc.message)
    if "user" not in event.to_dict():
        rt.record_user_action(user, kind, table=table, client=client_address(), **body_without_token(body))
    try:
        caused = rt.pit.handle(table, event)
    except RuleViolation as exc:
        return jsonify(
            error="refused", field=getattr(exc, "rule", "rule"), rule=exc.rule, message=exc.message
        ), 409
    except StorageUnavailable:
        raise  # not a refusal: nothing was recorded (503, the app's handler)
    except DealerAssistError as exc:
        return jsonify(error="refused", field=getattr(exc, "field", kind), message=str(exc)), 409
    return jsonify(ok=True, caused=[e.to_dict() for e in caused or []], last_seq=rt.log.last_seq())


def _as_text(body: dict[str, Any], limit: int = 2000) -> str:
    """A request body as JSON text for the log, whatever it holds (NaN, huge numbers, nesting)."""
    text = json.dumps(body, default=str, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def body_without_token(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "csrf_token"}


@bp.get("/progressive")
def progressive_state() -> Any:
    """The jackpot as the sign shows it (public, like the sign itself); ``?table=`` picks one."""
    controller = runtime().progressive_for(request.args.get("table"))
    if controller is None:
        return render_error(404, "table", "no progressive is configured for this table")
    return jsonify(controller.state())


@bp.post("/progressive/<op>")
@requires("supervise")
def progressive(op: str) -> Any:
    rt = runtime()
    user = current_user()
    assert user is not None
    body = json_body()
    if isinstance(body, ActionError):
        return render_error(body.status, body.field, body.message)
    body = body_without_token(body)
    table = str(body.pop("table", "") or "")
    controller = rt.progressive_for(table)
    if controller is None:
        return render_error(404, "table", f"no progressive is configured for table {table!r}")
    try:
        result = progressive_ops.run(controller, op, body, user=user.name, role=user.role)
    except ActionError as exc:
        return render_error(exc.status, exc.field, exc.message)
    except RuleViolation as exc:
        return jsonify(error="refused", field=exc.rule, rule=exc.rule, message=exc.message), 409
    if op == "params":
        rt.record_user_action(
            user, "progressive-params", table=controller.table, client=client_address(), **body
        )
    rt.fanout.catch_up()
    return jsonify(ok=True, result=result, state=controller.state())


@bp.get("/records")
@requires("audit")
def records() -> Any:
    rt = runtime()
    after = whole_number(request.args.get("after", "0"), "after")
    if not isinstance(after, int):
        return after
    limit = whole_number(request.args.get("limit", "500"), "limit", low=1, high=5000)
    if not isinstance(limit, int):
        return limit
    table = request.args.get("table") or None
    viewer = audience(table)
    out = []
    for rec in rt.reader.records(after=after, table=table):
        seen = viewer.record(rec)
        if seen is not None:
            out.append(seen)
        if len(out) >= limit:
            break
    return jsonify(records=out, last_seq=rt.log.last_seq())

"""Log records as the browser and people see them: JSON for the stream, one line for a timeline."""

from __future__ import annotations

from typing import Any

from dealerassist.core.money import format_amount

PROGRESSIVE_PREFIX = "progressive"
# Fields every line already shows another way (the who and why suffixes, the round header).
_SHOWN_APART = frozenset({"kind", "table", "user", "role", "round_id", "reason"})
_LONGEST = 200


def is_progressive(record: Any) -> bool:
    return str(record.event.kind).startswith(PROGRESSIVE_PREFIX)


def _money(value: Any) -> str:
    return format_amount(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)


def describe(event: dict[str, Any]) -> str:
    """One human line for an event dict (``Event.to_dict()``), for timelines and exports."""
    kind = event.get("kind", "")
    who = f" by {event['user']}" if event.get("user") else ""
    why = f" ({event['reason']})" if event.get("reason") else ""
    if kind == "card-dealt":
        face = "up" if event.get("face_up", True) else "down"
        conf = event.get("confidence")
        conf_text = f", confidence {conf:.2f}" if isinstance(conf, float) and conf < 1 else ""
        return (
            f"{event.get('position')} card {event.get('index', 0) + 1}: {event.get('card')} face {face}"
            + (f" from {event.get('source')}{conf_text}" if event.get("source") else "")
        )
    if kind == "card-moved":
        moved_from = f"{event.get('from_position')} card {event.get('from_index', 0) + 1}"
        moved_to = f"{event.get('position')} card {event.get('index', 0) + 1}"
        return f"{event.get('card')} moved from {moved_from} to {moved_to}"
    if kind == "card-read":
        return f"{event.get('source')} read {event.get('card') or 'unreadable card'}" + (
            f" at {event['position']}" if event.get("position") else ""
        )
    if kind == "wager":
        return f"seat {event.get('seat')} {event.get('bet')} {_money(event.get('amount'))}{who}"
    if kind == "decision":
        extra = f" {_money(event['amount'])}" if event.get("amount") else ""
        return f"{event.get('position')} {event.get('action')}{extra}"
    if kind == "phase":
        return f"phase: {event.get('phase')}"
    if kind == "alarm":
        return f"ALARM {event.get('code')}: {event.get('message')}"
    if kind == "round-settled":
        results = event.get("results") or []
        paid = sum(int(r.get("win", 0)) + int(r.get("returned", 0)) for r in results)
        settings = "".join(
            f"; {position} " + " | ".join(f"{name} {' '.join(cards)}" for name, cards in hands.items())
            for position, hands in (event.get("settings") or {}).items()
        )
        return f"round settled: {len(results)} wagers, {format_amount(paid)} paid out{settings}"
    if kind == "round-voided":
        return f"round voided: {event.get('reason')}"
    if kind == "refused":
        return f"refused {event.get('input_kind', '')}: {event.get('message')} [rule {event.get('rule')}]"
    if kind == "user-action":
        return f"{event.get('user') or '?'} {event.get('action')}"
    fields = ", ".join(
        f"{k}={v}" for k, v in event.items() if k not in _SHOWN_APART and v not in ("", None, [], {})
    )
    if len(fields) > _LONGEST:
        fields = fields[: _LONGEST - 1] + "…"  # the full record is one click away (JSONL export)
    return f"{kind}{': ' + fields if fields else ''}{who}{why}"


def when(recorded_at: str) -> str:
    """``2026-11-29T14:26:09.166339Z`` as ``2026-11-29 14:26:09`` (UTC) for tables people read."""
    return recorded_at[:19].replace("T", " ") if recorded_at else ""

"""docs/event-kinds.md documents every kind and field the tracker reads or writes; the examples in it
and in docs/events.md decode."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from dealerassist.events import EVENT_FORMAT_VERSION, event_from_dict, event_types
from dealerassist.tracker import events as tracker_events

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC = (DOCS / "events.md").read_text(encoding="utf-8")
KINDS_DOC = (DOCS / "event-kinds.md").read_text(encoding="utf-8")
OWNED = sorted(
    kind
    for kind, cls in event_types().items()
    if cls.__module__ in ("dealerassist.events", tracker_events.__name__)
)


def _section(kind: str) -> str:
    match = re.search(rf"^#+ `{re.escape(kind)}`.*?$(.*?)(?=^#+ |\Z)", KINDS_DOC, re.M | re.S)
    assert match, f"docs/event-kinds.md has no section for {kind}"
    return match.group(1)


@pytest.mark.parametrize("kind", OWNED)
def test_every_kind_and_field_is_documented(kind: str) -> None:
    text = _section(kind)
    for field in dataclasses.fields(event_types()[kind]):
        if field.name != "table":
            assert f"`{field.name}`" in text, f"{kind}.{field.name} is not documented"


def test_examples_are_valid_events() -> None:
    blocks = re.findall(r"```json\n(.*?)\n```", DOC + KINDS_DOC, re.S)
    assert len(blocks) >= 20
    for block in blocks:
        data = json.loads(block)
        event = event_from_dict(data["event"] if "seq" in data else data)
        assert event.kind in OWNED


def test_format_version_is_stated() -> None:
    assert f"Format version: **{EVENT_FORMAT_VERSION}**" in DOC

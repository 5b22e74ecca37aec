"""Fixtures for tracker tests: a high-card table on a real (file or in-memory) event log."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from highcard_game import high_card_rules
from table_helpers import TABLE, Table

from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker import Tracker


@pytest.fixture
def memory_log() -> Iterator[EventLog]:
    log = EventLog(":memory:")
    yield log
    log.close()


@pytest.fixture
def make_table(memory_log: EventLog) -> Callable[..., Table]:
    def make(log: EventLog | None = None, **overrides: Any) -> Table:
        return Table(Tracker(high_card_rules(TABLE, **overrides), log or memory_log))

    return make


@pytest.fixture
def table(make_table: Callable[..., Table]) -> Table:
    return make_table()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "events.db"

"""Fixtures of the dashboard tests (helpers live in ``dashboard_fixtures``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dashboard_fixtures import Dashboard, make_dashboard

from dealerassist.tablefiles.tables import load_table


@pytest.fixture
def dash(tmp_path: Path) -> Iterator[Dashboard]:
    board = make_dashboard(tmp_path, [load_table("three-card-poker")])
    yield board
    board.log.close()
    board.users.close()

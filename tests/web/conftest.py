"""Fixtures of the dashboard tests (helpers live in ``dashboard_fixtures``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from dashboard_fixtures import Dashboard, make_dashboard

from dealerassist.core.tables import TABLES_DIR, load_table


@pytest.fixture
def dash(tmp_path: Path) -> Iterator[Dashboard]:
    board = make_dashboard(tmp_path, [load_table(TABLES_DIR / "three-card-poker.toml")])
    yield board
    board.log.close()
    board.users.close()

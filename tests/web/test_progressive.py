"""The sign page and the supervisor's progressive operations, against a real progressive controller."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from dashboard_fixtures import TCP, Dashboard, attach_progressive, make_dashboard, pai_gow_with_progressive

from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.params import params_from_table
from dealerassist.tablefiles.tables import load_table, table_from_mapping

PG = "fupg-1"


@pytest.fixture
def jackpot(tmp_path: Path) -> Iterator[tuple[Dashboard, object]]:
    config = pai_gow_with_progressive()
    board = make_dashboard(tmp_path, [config, load_table("three-card-poker")])
    yield board, attach_progressive(board, config)
    board.log.close()


def _op(board: Dashboard, name: str, op: str, **body: object) -> object:
    session = board.client(name)
    return session.post_json(f"/api/progressive/{op}", {"table": PG, **body})


def test_sign_page_is_public_and_shows_the_meter(jackpot: tuple[Dashboard, object]) -> None:
    board, controller = jackpot
    visitor = board.client()
    page = visitor.get(f"/sign?table={PG}").get_data(as_text=True)
    assert "$10,000.00" in page and "fortune-link" in page
    assert visitor.get(f"/api/progressive?table={PG}").get_json()["amount"] == 1_000_000
    assert visitor.get(f"/api/progressive?table={TCP}").status_code == 404
    dealer = board.client("dana")
    dealer.act(PG, "round-open")
    dealer.act(PG, "wager", seat=1, bet="wager", amount="10")
    dealer.act(PG, "wager", seat=1, bet="progressive", amount="1")
    dealer.act(PG, "betting-closed")
    assert controller.state()["amount"] == 1_000_015  # 15% of $1
    assert "$10,000.15" in visitor.get(f"/sign?table={PG}").get_data(as_text=True)
    assert "Jackpot <strong>$10,000.15" in dealer.get(f"/tables/{PG}/panel").get_data(as_text=True)


def test_supervisor_changes_parameters_with_a_reason(jackpot: tuple[Dashboard, object]) -> None:
    board, controller = jackpot
    assert _op(board, "dana", "params", increment="20", reason="x").status_code == 403
    missing = _op(board, "sam", "params", increment="20")
    assert missing.status_code == 422 and missing.get_json()["field"] == "reason"
    bad = _op(board, "sam", "params", increment="120", reason="typo test")
    assert bad.status_code == 422 and bad.get_json()["field"] == "increment"
    unknown = _op(board, "sam", "params", colour="red", reason="x")
    assert unknown.status_code == 422 and unknown.get_json()["field"] == "colour"
    ok = _op(board, "sam", "params", increment="20", reason="new rate from the gaming board")
    assert ok.status_code == 200, ok.get_json()
    assert controller.params.to_dict()["increment"] == "20"
    changed = [r.event for r in board.log.records() if r.event.kind == "progressive-params"]
    assert changed[-1].user == "sam" and changed[-1].new["increment"] == "20"
    notes = [r.event for r in board.log.records() if getattr(r.event, "action", "") == "progressive-params"]
    assert notes[-1].detail["reason"] == "new rate from the gaming board"


def test_parameters_change_only_between_rounds(jackpot: tuple[Dashboard, object]) -> None:
    board, _ = jackpot
    board.client("dana").act(PG, "round-open")
    refused = _op(board, "sam", "params", increment="20", reason="mid-round")
    assert refused.status_code == 409 and refused.get_json()["rule"] == "progressive-round-open"


def test_meter_corrections_and_confirmations_are_checked(jackpot: tuple[Dashboard, object]) -> None:
    board, controller = jackpot
    ok = _op(board, "sam", "correct", meter="+5.00", reason="audit found a missed contribution")
    assert ok.status_code == 200 and controller.state()["amount"] == 1_000_500
    assert _op(board, "sam", "correct", meter="5.00").get_json()["field"] == "reason"
    assert _op(board, "sam", "correct", meter="five", reason="x").get_json()["field"] == "meter"
    before = controller.state()["amount"]
    for doubled in ("--5", "+-5", "-+5", "++5"):
        refused = _op(board, "sam", "correct", meter=doubled, reason="x")
        assert refused.status_code == 422 and refused.get_json()["field"] == "meter", doubled
    assert controller.state()["amount"] == before
    below = _op(board, "sam", "correct", meter="-1,000,000", reason="x")
    assert below.status_code == 409 and below.get_json()["rule"] == "progressive-correction"
    nothing = _op(board, "sam", "confirm-paid", hit_id="no-such-hit")
    assert nothing.status_code == 409 and nothing.get_json()["rule"] == "progressive-no-hit"
    assert _op(board, "sam", "open-the-vault").status_code == 404
    assert (
        board.client("sam").post_json("/api/progressive/params", {"table": TCP, "reason": "x"}).status_code
        == 404
    )
    page = board.client("sam").get("/supervisor").get_data(as_text=True)
    assert "Progressive fortune-link: $10,005.00" in page


def test_sign_page_never_shows_a_meter_never_read(tmp_path: Path) -> None:
    """A linked meter unreachable since start-up and nothing in the log: the page shows no amount."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = pai_gow_with_progressive()
    board = make_dashboard(tmp_path, [config])
    link = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    params = replace(params_from_table(config), link=link)  # nothing listens there
    controller = ProgressiveController(PG, params, board.log)
    board.runtime.progressive = {PG: controller}
    try:
        page = board.client().get(f"/sign?table={PG}").get_data(as_text=True)
        assert controller.state()["known"] is False
        assert "$0.00" not in page and 'data-cents=""' in page and "LINK DOWN" in page
    finally:
        controller.stop()
        board.log.close()


def test_sign_shows_every_progressive_or_the_named_one(tmp_path: Path) -> None:
    fortune = pai_gow_with_progressive()
    raw = dict(fortune.raw)
    raw["table"] = {**raw["table"], "id": "fupg-2", "name": "Face Up Pai Gow 2"}
    raw["progressive"] = {**raw["progressive"], "name": "dragon-link", "base": "5000"}
    dragon = table_from_mapping(raw, "second pai gow table")
    board = make_dashboard(tmp_path, [fortune, dragon, load_table("three-card-poker")])
    attach_progressive(board, fortune)
    attach_progressive(board, dragon)
    visitor = board.client()

    both = visitor.get("/sign").get_data(as_text=True)
    assert "fortune-link" in both and "$10,000.00" in both
    assert "dragon-link" in both and "$5,000.00" in both
    assert "/sign/stream?table=fupg-1" in both and "/sign/stream?table=fupg-2" in both

    one = visitor.get("/sign?table=fupg-2").get_data(as_text=True)
    assert "dragon-link" in one and "fortune-link" not in one

    # A table without a progressive says so, and the page opens no stream that would 404.
    none = visitor.get(f"/sign?table={TCP}")
    assert none.status_code == 200
    text = none.get_data(as_text=True)
    assert f"table {TCP} has no progressive" in text and "NO PROGRESSIVE" in text
    assert "/sign/stream" not in text
    assert visitor.get("/sign?table=nope").status_code == 404
    board.log.close()

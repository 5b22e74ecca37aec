"""After a blackjack split the hands can be rebuilt from the log's records alone: ``card-dealt``
places each card, ``card-moved`` moves the split card to the second hand."""

from __future__ import annotations

from pathlib import Path

from dealerassist.events import event_from_dict
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker.replay import Replayer, read_replay_file

ROUND_FILE = Path(__file__).resolve().parents[1] / "rounds" / "perfect-pairs-blackjack.jsonl"


def rebuild(records: list[dict]) -> dict[int, dict[str, list[str]]]:
    """Round -> position -> cards, from the records as an auditor reads them (no game code)."""
    layout: dict[int, dict[str, dict[int, str]]] = {}
    for record in records:
        hands = layout.setdefault(record.get("round_id") or 0, {})
        if record["kind"] == "card-dealt":
            hands.setdefault(record["position"], {})[record["index"]] = record["card"]
        elif record["kind"] == "card-moved":
            left = hands[record["from_position"]].pop(record["from_index"])
            assert left == record["card"], record
            hands.setdefault(record["position"], {})[record["index"]] = record["card"]
    return {
        round_id: {p: [cards[i] for i in sorted(cards)] for p, cards in hands.items() if cards}
        for round_id, hands in layout.items()
    }


def test_split_hands_are_rebuilt_from_the_records_alone(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    report = Replayer(base_dir=ROUND_FILE.parent, log=log).run(read_replay_file(ROUND_FILE))
    assert report.ok
    records = [event_from_dict(r.event.to_dict()).to_dict() for r in log.records()]
    log.close()
    moved = [r for r in records if r["kind"] == "card-moved"]
    assert moved, "the file's rounds split"
    first = moved[0]
    assert (first["from_position"], first["from_index"], first["position"], first["index"]) == (
        "seat-1",
        1,
        "seat-1.2",
        0,
    )
    rebuilt = rebuild(records)
    assert rebuilt[1] == {
        "seat-1": ["8H", "3D", "KS"],
        "seat-1.2": ["8H", "2C", "5S"],
        "seat-3": ["TS", "9C"],
        "dealer": ["7D", "6C", "4H"],
    }
    for line in read_replay_file(ROUND_FILE):
        expect = line.data.get("data", {}).get("expect", {}) if line.data.get("kind") == "meta" else {}
        for position, cards in expect.get("dealt", {}).items():
            assert rebuilt[expect["round_id"]][position] == cards, (expect["round_id"], position)

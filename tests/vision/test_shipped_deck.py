"""The demo's deck file ships enrolled (dealerassist/data/vision/decks): the demo and the tests load
it and nothing trains. Its guards: it must still read its own cards and generated tables with this
code, and when it is of another reading format the demo's camera is off saying what to run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dealerassist.simulation import artwork
from dealerassist.simulation.camera import load_demo_deck
from dealerassist.simulation.scoring import Tally, score_frame
from dealerassist.vision import enrollment
from dealerassist.vision.deck import DECK_FORMAT, DeckModel, bundled_deck, remake_command
from dealerassist.vision.reader import CardReader
from dealerassist.vision.scenes import make_scene

from .conftest import lay_cards

SHIPPED = bundled_deck(artwork.TUNING_DESIGN)
# What the shipped deck reads in GUARD_SCENES generated tables (seeded) when it is current; a
# change to the reading features that leaves DECK_FORMAT alone falls far below.
GUARD_SCENES = 8
GUARD_CORRECT = 0.9


def _stale(why: str) -> str:
    return (
        f"the shipped deck file {SHIPPED} no longer reads with this code ({why}): if the reading "
        f"features changed, bump DECK_FORMAT in dealerassist/vision/deck.py and make the file again "
        f"with '{remake_command(SHIPPED)}' (see dealerassist/data/vision/decks/README.md)"
    )


def test_the_demo_loads_the_shipped_deck_without_training(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_training(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the demo trained a network")

    monkeypatch.setattr(enrollment, "enroll", no_training)
    said: list[str] = []
    loaded = load_demo_deck(said.append)
    assert loaded is not None, said
    model, design = loaded
    assert model.name == artwork.TUNING_DESIGN and said == []
    assert set(design) >= {"AS", "KD", "back"}


def test_the_shipped_deck_reads_its_own_cards(deck: DeckModel, design: dict[str, np.ndarray]) -> None:
    reader = CardReader(deck)
    codes = [code for code in design if code != "back"]
    misread = []
    for start in range(0, len(codes), 13):
        batch = codes[start : start + 13]
        placed = [
            (code, (110 + 165 * (i % 7), 190 + 340 * (i // 7)), 12.0 * (i % 5) - 24, True)
            for i, code in enumerate(batch)
        ]
        placed.append(("back", (1200, 360), 90.0, False))
        found = {s.card for s in reader.read(lay_cards(design, placed)) if s.card is not None}
        misread += [f"{code} not read" for code in batch if code not in found]
        misread += [f"{name} read where none lies" for name in found - set(batch)]
    assert not misread, _stale(f"its own cards: {', '.join(misread)}")


def test_the_shipped_deck_reads_generated_tables(deck: DeckModel, design: dict[str, np.ndarray]) -> None:
    reader = CardReader(deck)
    rng = np.random.default_rng(56)
    tally = Tally()
    for scene in range(GUARD_SCENES):
        frame, truth = make_scene(design, rng)
        found = [s.to_json() for s in reader.read(frame)]
        tally.add(score_frame(found, [c.to_json() for c in truth], f"scene {scene}"))
    right = tally.correct / max(tally.face_up_visible, 1)
    assert tally.face_up_visible > 30
    assert right >= GUARD_CORRECT and tally.wrong == 0 and tally.face_down_read_as_face == 0, _stale(
        f"{tally.correct} of {tally.face_up_visible} face-up cards in generated tables read right, "
        f"{tally.wrong} wrong, {tally.face_down_read_as_face} face-down named"
    )


def _with_format(source: Path, out: Path, version: int) -> Path:
    with np.load(source, allow_pickle=False) as data:
        arrays = {key: data[key] for key in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    meta["format"] = version
    with open(out, "wb") as file:
        np.savez_compressed(file, meta=np.array(json.dumps(meta)), **arrays)
    return out


def test_a_stale_shipped_deck_turns_the_demo_camera_off_saying_how_to_remake_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = tmp_path / "vision" / "decks" / f"{artwork.TUNING_DESIGN}.npz"
    shipped.parent.mkdir(parents=True)
    _with_format(SHIPPED, shipped, DECK_FORMAT + 1)
    monkeypatch.setattr("dealerassist.vision.deck.bundled_dir", lambda: tmp_path)
    said: list[str] = []
    assert load_demo_deck(said.append) is None
    [line] = said
    assert line.startswith("camera: off (") and f"format {DECK_FORMAT + 1}" in line
    assert f"--out dealerassist/data/vision/decks/{artwork.TUNING_DESIGN}.npz" in line

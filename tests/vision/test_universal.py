"""The universal classifier's file and an enrollment that trains nothing: the deck is measured
(index place, back) and reads with the classifier it is given."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealerassist.cli import main
from dealerassist.vision import artwork, enrollment
from dealerassist.vision.deck import DECK_FORMAT, DeckFileError, DeckModel
from dealerassist.vision.reader import CardReader
from dealerassist.vision.universal import load_universal, save_universal

from .conftest import lay_cards

RECIPE = "dealerassist vision train-universal --out u.npz --scenes-per-card 8 --tables 16 --members 2"


@pytest.fixture
def no_training(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a network was trained")

    monkeypatch.setattr(enrollment, "in_training_processes", refuse)


def test_a_classifier_file_keeps_its_networks_and_refuses_another_format(
    deck: DeckModel, tmp_path: Path
) -> None:
    path = tmp_path / "u.npz"
    save_universal(deck.net, path, ["kennard-2color"], RECIPE)
    loaded = load_universal(path)
    for name, array in deck.net.arrays().items():
        np.testing.assert_array_equal(loaded.arrays()[name], array)
    with np.load(path, allow_pickle=False) as data:
        arrays = {key: data[key] for key in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    meta["format"] = DECK_FORMAT + 1
    with open(path, "wb") as out:
        np.savez_compressed(out, meta=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(DeckFileError) as refused:
        load_universal(path)
    assert "\n" not in str(refused.value) and f"format {DECK_FORMAT + 1}" in str(refused.value)
    assert RECIPE in str(refused.value)
    deck.save(tmp_path / "deck.npz")  # a deck file is no universal classifier
    with pytest.raises(DeckFileError, match="not a universal classifier file"):
        load_universal(tmp_path / "deck.npz")
    with pytest.raises(DeckFileError, match="no such file"):
        load_universal(tmp_path / "missing.npz")


def test_enrolling_with_a_classifier_trains_nothing_and_reads(
    deck: DeckModel, kennard_dir: Path, design: dict, no_training: None
) -> None:
    model = enrollment.enroll(kennard_dir, net=deck.net)
    assert model.window == deck.window and model.rank_box == pytest.approx(deck.rank_box)
    assert model.check["named_right"] > 0.8
    frame = lay_cards(design, [("KD", (300, 300), 10.0, True), ("4C", (700, 360), -20.0, True)])
    assert {s.card for s in CardReader(model).read(frame)} == {"KD", "4C"}


def test_vision_enroll_universal_writes_exactly_the_file_named(
    deck: DeckModel, kennard_dir: Path, tmp_path: Path, capsys, no_training: None
) -> None:
    classifier = tmp_path / "u.npz"
    save_universal(deck.net, classifier, ["kennard-2color"], RECIPE)
    out = tmp_path / "decks" / "house"
    args = ["vision", "enroll", str(kennard_dir), "--out", str(out), "--universal", str(classifier)]
    assert main(args) == 0
    assert f"-> {out}\n" in capsys.readouterr().out
    assert sorted(p.name for p in out.parent.iterdir()) == ["house"]
    assert DeckModel.load(out).name == "kennard-2color"


@pytest.mark.slow
def test_train_universal_learns_the_training_designs_and_leaves_out_one_without_indices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    blank = tmp_path / "blank"  # a design whose cards print no index at all
    blank.mkdir()
    for name in artwork.card_names():
        cv2.imwrite(str(blank / f"{name}.png"), np.full((420, 300, 3), 255, np.uint8))
    monkeypatch.setattr(artwork, "design_split", lambda: {"train": ["kennard-2color", "blank"]})
    design_dir = artwork.design_dir
    monkeypatch.setattr(artwork, "design_dir", lambda name: blank if name == "blank" else design_dir(name))
    out = tmp_path / "u.npz"
    args = ["vision", "train-universal", "--out", str(out), "--scenes-per-card", "1", "--tables", "1"]
    assert main([*args, "--members", "1"]) == 0
    said = capsys.readouterr().out
    assert f"left out: {blank}: no rank and suit found" in said
    assert f"universal classifier of 1 designs -> {out}" in said
    assert len(load_universal(out).members) == 1
    with np.load(out, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
    assert meta["designs"] == ["kennard-2color"] and meta["recipe"].startswith(
        f"dealerassist vision train-universal --out {out} --scenes-per-card 1 --tables 1 --members 1"
    )

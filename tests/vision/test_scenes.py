"""Synthetic scenes and their scoring: complete truth, and a tally that counts as the bench reports."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from dealerassist.commands.bench import load
from dealerassist.simulation.scoring import Tally, score_frame
from dealerassist.vision.scenes import FRAME_SIZE, gaussian_noise, load_design, make_scene, write_scenes

from .conftest import lay_cards


def test_scenes_are_reproducible_and_their_truth_is_complete(kennard_dir: Path, tmp_path: Path) -> None:
    first = write_scenes(kennard_dir, tmp_path / "a", 2, seed=3, cards=6)
    again = write_scenes(kennard_dir, tmp_path / "b", 2, seed=3, cards=6)
    for one, two in zip(first, again, strict=True):
        assert one.read_bytes() == two.read_bytes()
        truth = json.loads(one.with_suffix(".json").read_text())
        assert truth["size"] == list(FRAME_SIZE) and truth["design"] == "kennard-2color"
        assert len(truth["cards"]) == 6
        codes = [c["card"] for c in truth["cards"]]
        assert len(set(codes)) == 6  # one deck: no card twice
        for card in truth["cards"]:
            quad = np.array(card["quad"])
            height = np.linalg.norm(quad[3] - quad[0])
            assert 50 < height < 200
            assert isinstance(card["face_up"], bool) and isinstance(card["index_visible"], bool)


def test_scene_cards_cover_the_issue_ranges(design) -> None:
    rng = np.random.default_rng(0)
    heights, downs, hidden = [], 0, 0
    for _ in range(6):
        frame, truth = make_scene(design, rng, cards=14)
        assert frame.shape == (FRAME_SIZE[1], FRAME_SIZE[0], 3)
        for card in truth:
            heights.append(float(np.linalg.norm(card.quad[3] - card.quad[0])))
            downs += not card.face_up
            hidden += not card.index_visible
    assert min(heights) < 100 and max(heights) > 150
    assert downs > 0


def _truth(code: str, quad: list[list[float]], face_up: bool = True, visible: bool = True) -> dict:
    return {"card": code, "face_up": face_up, "quad": quad, "index_visible": visible}


def test_score_frame_counts_right_wrong_abstained_and_false() -> None:
    a = [[0, 0], [70, 0], [70, 100], [0, 100]]
    b = [[200, 0], [270, 0], [270, 100], [200, 100]]
    c = [[400, 0], [470, 0], [470, 100], [400, 100]]
    d = [[600, 0], [670, 0], [670, 100], [600, 100]]
    truth = [_truth("AS", a), _truth("KD", b), _truth("2C", c), _truth("9H", d, face_up=False)]
    found = [
        {"card": "AS", "confidence": 1.0, "face_up": True, "quad": a},
        {"card": "KH", "confidence": 0.9, "face_up": True, "quad": b},
        {"card": None, "confidence": 0.0, "face_up": True, "quad": c},
        {"card": None, "confidence": 0.8, "face_up": False, "quad": d},
        {
            "card": "5S",
            "confidence": 0.9,
            "face_up": True,
            "quad": [[900, 500], [970, 500], [970, 600], [900, 600]],
        },
    ]
    tally = score_frame(found, truth, "t")
    assert (tally.correct, tally.abstained, tally.face_up_visible) == (1, 1, 3)
    assert tally.wrong == 2  # KD read as KH, and a 5S where there is no card
    assert (tally.face_down, tally.face_down_seen, tally.face_down_read_as_face) == (1, 1, 0)
    assert tally.false_detections == 1
    total = Tally()
    total.add(tally)
    total.add(tally)
    assert total.summary()["correct_pct"] == round(100 / 3, 3)


def test_classic_baseline_reads_an_isolated_card(kennard_dir: Path, design) -> None:
    frame = lay_cards(design, [("QD", (640, 360), 8, True)], height=180)
    found = load("vision").ClassicReader(kennard_dir).read(frame)
    assert [s.card for s in found] == ["QD"]


def test_score_frame_splits_the_right_reads_by_card_height() -> None:
    small = [[0, 0], [56, 0], [56, 80], [0, 80]]  # 80 px: below the first band edge
    middle = [[200, 0], [270, 0], [270, 100], [200, 100]]  # 100 px
    large = [[400, 0], [540, 0], [540, 200], [400, 200]]  # 200 px: above the last edge
    hidden = _truth("3C", middle, visible=False)
    truth = [_truth("AS", small), _truth("KD", middle), _truth("2C", large), hidden]
    found = [
        {"card": "AS", "confidence": 1.0, "face_up": True, "quad": small},
        {"card": None, "confidence": 0.0, "face_up": True, "quad": middle},
        {"card": "2S", "confidence": 1.0, "face_up": True, "quad": large},
    ]
    tally = score_frame(found, truth)
    # visible, right, wrong per band; a hidden index counts nowhere
    assert tally.by_height == [[1, 1, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0], [1, 0, 1]]
    total = Tally()
    total.add(tally)
    total.add(tally)
    assert total.by_height[0] == [2, 2, 0] and total.by_height[4] == [2, 0, 2]
    assert sum(band[0] for band in total.by_height) == total.face_up_visible == 6


def test_gaussian_noise_has_its_sigma_comes_fresh_and_follows_its_generator() -> None:
    first = gaussian_noise((720, 1280, 3), 6.0, np.random.default_rng(5))
    assert first.dtype == np.float32 and first.shape == (720, 1280, 3)
    # Every channel: cv2.randn(noise, 0.0, sigma) once gave a three-channel frame noise in blue alone.
    assert np.allclose(first.reshape(-1, 3).std(axis=0), 6.0, atol=0.05)
    assert np.allclose(first.reshape(-1, 3).mean(axis=0), 0.0, atol=0.05)
    again = gaussian_noise((720, 1280, 3), 6.0, np.random.default_rng(5))
    assert np.array_equal(first, again)  # a seed gives the same frame
    first += 100.0  # a caller owns its array: the bank it was cut from is untouched
    assert np.array_equal(again, gaussian_noise((720, 1280, 3), 6.0, np.random.default_rng(5)))
    other = gaussian_noise((720, 1280, 3), 6.0, np.random.default_rng(6))
    assert abs(float(np.corrcoef(other.ravel()[:100_000], again.ravel()[:100_000])[0, 1])) < 0.02
    neighbours = again[:, :-1, 0].ravel(), again[:, 1:, 0].ravel()
    assert abs(float(np.corrcoef(*neighbours)[0, 1])) < 0.02  # within a frame, as independent as fresh values


def test_another_sensor_generator_is_another_frame_of_the_same_still_table(kennard_dir: Path) -> None:
    design = load_design(kennard_dir)
    first, truth = make_scene(design, np.random.default_rng(4), 6)
    again, same_truth = make_scene(design, np.random.default_rng(4), 6, sensor=None)
    assert np.array_equal(first, again)
    next_frame, next_truth = make_scene(design, np.random.default_rng(4), 6, sensor=np.random.default_rng(9))
    tables = [[c.to_json() for c in cards] for cards in (truth, same_truth, next_truth)]
    assert tables[0] == tables[1] == tables[2]
    difference = np.abs(next_frame.astype(np.int16) - first.astype(np.int16))
    assert difference.any() and float(difference.mean()) < 8.0  # noise apart, the same picture


def test_gaussian_noise_larger_than_its_bank_is_drawn_afresh() -> None:
    large = gaussian_noise((1080, 1920, 3), 2.0, np.random.default_rng(1))  # 6.2 M values
    assert large.dtype == np.float32 and abs(float(large.std()) - 2.0) < 0.01

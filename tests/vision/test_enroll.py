"""Deck enrollment: one image per card in, a trained index classifier out; bad folders named clearly."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealerassist.core.cards import FULL_DECK
from dealerassist.vision import blas, enrollment
from dealerassist.vision.deck import DeckFileError, DeckModel, load_card_image, read_card_png
from dealerassist.vision.enrollment import (
    DRAW_BYTES_PER_SCENE,
    DRAW_BYTES_PER_TABLE,
    MEMBERS,
    MIN_INDEXES_FOUND,
    available_memory,
    enroll,
    in_training_processes,
    index_place,
    index_start,
    training_memory,
    training_workers,
)
from dealerassist.vision.index_features import feature_size, window_features
from dealerassist.vision.indexnet import HEADS, HIDDEN, SURE

from .conftest import ink_into_the_pips


def test_enrollment_finds_where_the_index_is_printed(deck: DeckModel) -> None:
    assert 1.3 < deck.aspect < 1.5
    x0, y0, x1, y1 = deck.rank_box
    assert 0 < x0 < x1 < 0.2 and 0 < y0 < y1 < 0.25
    # The classifier's window holds the rank and the suit below it, and stops short of the middle
    # of the card (where an upper card of a fan may already lie).
    assert x1 < deck.window.across <= 0.24 and y1 + 0.5 * (y1 - y0) < deck.window.down <= 0.5


def _clean_index_windows(design, deck: DeckModel) -> tuple[list[str], np.ndarray]:
    """Every card's own top-left index window at a camera size (120 px), laid 13 cards a frame."""
    from dealerassist.vision.index_window import sample_windows

    from .conftest import lay_cards

    all_codes, all_windows = [], []
    for start in range(0, 52, 13):
        codes = [c for c in design if c != "back"][start : start + 13]
        cards = [(code, (90 + 95 * i, 200 + 300 * (i % 2)), 0, True) for i, code in enumerate(codes)]
        frame = lay_cards(design, cards, height=120)
        width = 120 / deck.aspect
        corners = np.array([[x - width / 2, y - 60] for _, (x, y), _, _ in cards])
        n = len(cards)
        all_codes += codes
        all_windows.append(
            sample_windows(
                frame,
                corners,
                np.tile([1.0, 0.0], (n, 1)),
                np.tile([0.0, 1.0], (n, 1)),
                np.full(n, 120.0),
                deck.window,
            )
        )
    return all_codes, np.concatenate(all_windows)


def test_the_classifier_names_every_card_from_its_clean_image(deck: DeckModel, design) -> None:
    """Each card's own top-left index, at a camera size, names that card and no other."""
    codes, windows = _clean_index_windows(design, deck)
    names, probability, _ = deck.net.best(window_features(windows))
    assert names == codes
    assert (probability > 0.9).all()


def test_the_shipped_start_fits_the_networks_enrollment_trains_and_reads_a_deck_it_learnt(
    deck: DeckModel, design
) -> None:
    """Enrollment's members begin at the shipped start: it must fit today's features and layers,
    and be learnt (kennard-2color is one of its training designs), not random weights."""
    start = index_start()
    assert len(start.members) >= MEMBERS
    layers = list(itertools.pairwise([feature_size(), *HIDDEN, sum(HEADS)]))
    assert all([w.shape for w in member.weights] == layers for member in start.members)
    codes, windows = _clean_index_windows(design, deck)
    names, probability, _ = start.best(window_features(windows))
    named_right = sum(
        name == code and p >= SURE for name, code, p in zip(names, codes, probability, strict=True)
    )
    assert named_right >= 40


def test_deck_file_round_trip(deck: DeckModel, tmp_path: Path) -> None:
    path = tmp_path / "deck.npz"
    deck.save(path)
    loaded = DeckModel.load(path)
    assert loaded.name == deck.name
    assert loaded.rank_box == pytest.approx(deck.rank_box)
    assert loaded.window == deck.window
    for name, array in deck.net.arrays().items():
        np.testing.assert_array_equal(loaded.net.arrays()[name], array)
    np.testing.assert_array_equal(loaded.back_features, deck.back_features)


def test_a_deck_file_is_written_under_exactly_the_name_given(deck: DeckModel, tmp_path: Path) -> None:
    path = tmp_path / "house-deck"  # no suffix: numpy alone would have written house-deck.npz
    deck.save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["house-deck"]
    assert DeckModel.load(path).name == deck.name


def test_a_deck_file_of_the_older_format_is_refused_and_says_so(deck: DeckModel, tmp_path: Path) -> None:
    path = tmp_path / "old.npz"
    np.savez(path, meta=np.array('{"format": 2, "name": "x"}'))  # one network, before the committee
    with pytest.raises(DeckFileError) as refused:
        DeckModel.load(path)
    message = str(refused.value)
    assert "\n" not in message and f"{path}: deck file format 2, this code reads format 3" in message
    assert f"dealerassist vision enroll CARD_FOLDER --out {path}" in message


def test_a_file_that_is_not_a_deck_is_refused_with_its_name(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.npz"
    bogus.write_bytes(b"not a deck")
    with pytest.raises(DeckFileError, match=r"bogus\.npz: not a deck file") as refused:
        DeckModel.load(bogus)
    assert "pickle" not in str(refused.value)  # numpy's advice to load it unsafely is not passed on
    with pytest.raises(DeckFileError, match=r"nope\.npz: no such deck file"):
        DeckModel.load(tmp_path / "nope.npz")


def _faces(folder: Path) -> dict[str, np.ndarray]:
    return {card.code: load_card_image(folder / f"{card.code}.png") for card in FULL_DECK}


def test_cards_whose_index_runs_into_the_pips_leave_its_place_to_the_others(kennard_dir: Path) -> None:
    faces = _faces(kennard_dir)
    clear = index_place(kennard_dir, faces)
    assert clear.not_found == ()
    crowded = dict(faces, **{code: ink_into_the_pips(faces[code]) for code in ("4C", "8H", "KS")})
    place = index_place(kennard_dir, crowded)
    assert set(place.not_found) == {"4C", "8H", "KS"}
    assert place.rank_box == pytest.approx(clear.rank_box) and place.window == clear.window


def test_a_folder_where_few_cards_show_an_index_is_refused_naming_them(kennard_dir: Path) -> None:
    faces = _faces(kennard_dir)
    blotted = list(faces)[: 53 - MIN_INDEXES_FOUND]  # one card more than the rest can stand for
    crowded = dict(faces, **{code: ink_into_the_pips(faces[code]) for code in blotted})
    with pytest.raises(DeckFileError, match=re.escape(f"of {len(blotted)} of 52 cards ({blotted[0]}.png, ")):
        index_place(kennard_dir, crowded)
    one_back = dict(crowded, **{blotted[0]: faces[blotted[0]]})
    assert len(index_place(kennard_dir, one_back).not_found) == 52 - MIN_INDEXES_FOUND


def test_missing_cards_are_listed(kennard_dir: Path, tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    shutil.copytree(kennard_dir, partial)
    (partial / "QH.png").unlink()
    (partial / "back.png").unlink()
    with pytest.raises(DeckFileError, match=r"missing QH\.png, back\.png"):
        enroll(partial)


def test_a_start_file_that_cannot_be_read_is_named_before_training(
    kennard_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "index-start-1.npz"
    broken.write_bytes(b"PK\x03\x04 cut short")
    monkeypatch.setattr(enrollment, "index_start_path", lambda: broken)
    index_start.cache_clear()
    try:
        with pytest.raises(DeckFileError, match=f"{broken}: cannot load the networks enrollment starts from"):
            enroll(kennard_dir)
    finally:
        index_start.cache_clear()


def test_a_committee_of_no_networks_is_refused_before_training(kennard_dir: Path) -> None:
    with pytest.raises(ValueError, match="at least one member, not 0"):
        enroll(kennard_dir, members=0)


def test_an_image_too_small_to_enroll_is_named(kennard_dir: Path, tmp_path: Path) -> None:
    small = tmp_path / "small"
    shutil.copytree(kennard_dir, small)
    cv2.imwrite(str(small / "7C.png"), np.full((40, 30, 3), 255, np.uint8))
    with pytest.raises(DeckFileError, match=r"7C\.png: 30x40 px is too small"):
        enroll(small)


def test_card_images_read_alike_whichever_png_they_are(kennard_dir: Path, tmp_path: Path) -> None:
    """Grey, 16-bit and alpha-less PNGs of a card read as the 8-bit BGRA image they show."""
    colour = cv2.imread(str(kennard_dir / "KD.png"), cv2.IMREAD_UNCHANGED)
    grey = cv2.cvtColor(colour[:, :, :3], cv2.COLOR_BGR2GRAY)
    kinds = {"16-bit.png": colour.astype(np.uint16) * 257, "opaque.png": colour[:, :, :3], "grey.png": grey}
    for name, image in kinds.items():
        cv2.imwrite(str(tmp_path / name), image)
    assert np.array_equal(read_card_png(tmp_path / "16-bit.png"), colour)
    opaque = read_card_png(tmp_path / "opaque.png")
    assert np.array_equal(opaque[:, :, :3], colour[:, :, :3]) and (opaque[:, :, 3] == 255).all()
    seen_grey = read_card_png(tmp_path / "grey.png")
    assert seen_grey.shape == colour.shape and all(np.array_equal(seen_grey[:, :, c], grey) for c in range(3))
    assert np.array_equal(load_card_image(tmp_path / "opaque.png"), colour[:, :, :3])


def test_an_unreadable_image_is_named(kennard_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(kennard_dir, broken)
    (broken / "AS.png").write_bytes(b"\x89PNG garbage")
    with pytest.raises(DeckFileError, match=r"AS\.png: cannot read this image"):
        enroll(broken)


@pytest.mark.skipif(
    "OPENBLAS_CORETYPE" not in blas.training_environment(),
    reason="a processor without AVX2: its own kernels train",
)
def test_networks_train_on_the_same_kernels_whatever_this_machine_would_choose(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An AVX-512 Intel processor makes OpenBLAS choose its SkylakeX kernels, which add up products
    # in another order: the networks, and every read that hangs on their last bits, would differ.
    monkeypatch.setenv("OPENBLAS_CORETYPE", "SkylakeX")
    assert in_training_processes(blas.openblas_setting, ["architecture"] * 2) == [blas.TRAINING_KERNELS] * 2
    assert os.environ["OPENBLAS_CORETYPE"] == "SkylakeX"  # this process's environment is left as it was


@pytest.mark.skipif(blas.openblas_setting("num_threads") is None, reason="numpy without a bundled OpenBLAS")
def test_networks_train_on_one_thread_whatever_this_machine_has(monkeypatch: pytest.MonkeyPatch) -> None:
    # OpenBLAS adds up a product on one thread in another order than on several, and a machine
    # with one core has no other: trained on two threads, the demo deck differed from the one a
    # process held to one core enrolled.
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    assert in_training_processes(blas.openblas_setting, ["num_threads"] * 2) == [1, 1]
    assert os.environ["OPENBLAS_NUM_THREADS"] == "2"


def test_training_processes_are_as_many_as_cores_jobs_and_free_memory_allow() -> None:
    gb = 1_000_000_000
    assert training_workers(2, 4 * gb, cores=2, available=20 * gb) == 2
    assert training_workers(2, 4 * gb, cores=2, available=5 * gb) == 1  # not two: one after the other
    assert training_workers(3, 1 * gb, cores=8, available=None) == 3  # memory unknown: cores and jobs decide
    assert training_workers(4, 1 * gb, cores=2, available=20 * gb) == 2
    assert training_workers(2, 4 * gb, cores=None, available=20 * gb) == 1
    assert training_workers(2, 4 * gb, cores=2, available=1 * gb) == 1  # too little for one: it still tries


def _training_process(_: None) -> int:
    return os.getpid()


def test_networks_train_one_after_the_other_where_memory_holds_one_and_the_operator_is_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dealerassist.vision import enrollment

    gb = 1_000_000_000
    monkeypatch.setattr(enrollment.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(enrollment, "available_memory", lambda: 5 * gb)
    told: list[str] = []
    first, second = in_training_processes(_training_process, [None, None], 4 * gb, told.append)
    assert first == second != os.getpid()  # one process trained both
    assert told == [
        "the free memory holds 1 training process(es) of some 4.0 GB: the 2 networks train 1 at a "
        "time, which takes longer"
    ]
    monkeypatch.setattr(enrollment, "available_memory", lambda: 20 * gb)
    told.clear()
    in_training_processes(_training_process, [None, None], 4 * gb, told.append)
    assert told == []  # two fit: nothing to say


def test_a_training_process_is_budgeted_for_the_draw_it_makes(design, deck: DeckModel) -> None:
    # The budget per scene and per table covers the rows they really make, without asking for
    # twice what they need (which would train one network at a time where two fit).
    from dealerassist.vision.training import render_samples, scene_samples

    rng = np.random.default_rng(3)
    rendered, _ = render_samples(design, deck.window, rng, 2)
    mined, _ = scene_samples(design, deck.window, rng, 6, deck.rank_box)
    assert 0.7 * DRAW_BYTES_PER_SCENE < rendered.nbytes / 2 <= DRAW_BYTES_PER_SCENE
    assert 0.5 * DRAW_BYTES_PER_TABLE < mined.nbytes / 6 <= 1.5 * DRAW_BYTES_PER_TABLE
    assert training_memory(600, 1200) > training_memory(300, 600) > 2 * (rendered.nbytes / 2 * 300)
    free = available_memory()
    assert free is None or 0 < free < 1 << 50


def _interrupted(_: None) -> str:
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    except KeyboardInterrupt:
        return "raised in the worker"
    return "carried on"


def test_a_training_process_interrupted_ends_and_breaks_the_pool() -> None:
    # Raised in the worker as KeyboardInterrupt, a Ctrl-C that landed inside numba's compiler came
    # back as "no compiled object yet": the demo stopped with a traceback instead of saying why.
    with pytest.raises(BrokenProcessPool):
        in_training_processes(_interrupted, [None])


def _train_until_stopped(pid_file: str) -> None:
    Path(pid_file).write_text(str(os.getpid()))
    time.sleep(120)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_training_processes_end_when_their_parent_is_killed(tmp_path: Path) -> None:
    # A benchmark killed with SIGTERM while enrolling left its trainers running, orphaned, for half
    # an hour. Killed here without a chance to clean up, the parent must still take them with it.
    pid_file = tmp_path / "worker.pid"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from dealerassist.vision.enrollment import in_training_processes\n"
            "from tests.vision.test_enroll import _train_until_stopped\n"
            "in_training_processes(_train_until_stopped, [sys.argv[1]])\n",
            str(pid_file),
        ],
        cwd=Path(__file__).parents[2],
    )
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert parent.poll() is None, "the parent ended before its worker started"
            assert time.monotonic() < deadline, "the worker never started"
            time.sleep(0.05)
        worker = int(pid_file.read_text())
        parent.kill()
        parent.wait(10)
        deadline = time.monotonic() + 10
        while _alive(worker):
            assert time.monotonic() < deadline, "the training process outlived its parent"
            time.sleep(0.05)
    finally:
        parent.kill()
        parent.wait(10)


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped by init, counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"

"""``dealerassist vision``: enroll, scenes, read (JSON, --out-dir, --zones), calibrate, and clean errors."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from dealerassist.cli import main
from dealerassist.core.configfiles import bundled_dir
from dealerassist.simulation.layout import DEMO_MARKERS, DEMO_ZONES, render_layout
from dealerassist.vision.deck import DeckModel
from dealerassist.vision.enrollment import MEMBERS
from dealerassist.vision.index_features import feature_size
from dealerassist.vision.indexnet import HEADS, HIDDEN, Committee

from .conftest import ink_into_the_pips


@pytest.fixture(scope="module")
def deck_file(deck: DeckModel, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("deck") / "kennard.npz"
    deck.save(path)
    return path


def test_enroll_writes_a_deck_file(kennard_dir: Path, tmp_path: Path, capsys) -> None:
    folder, out = tmp_path / "house", tmp_path / "decks" / "k.npz"
    shutil.copytree(kennard_dir, folder)
    crowded = ink_into_the_pips(cv2.imread(str(folder / "4C.png"), cv2.IMREAD_UNCHANGED))
    cv2.imwrite(str(folder / "4C.png"), crowded)
    ace = cv2.imread(str(folder / "AS.png"), cv2.IMREAD_UNCHANGED)
    cv2.imwrite(str(folder / "AS.png"), cv2.cvtColor(ace[:, :, :3], cv2.COLOR_BGR2GRAY))  # a grey scan
    king = cv2.imread(str(folder / "KD.png"), cv2.IMREAD_UNCHANGED)
    cv2.imwrite(str(folder / "KD.png"), king.astype(np.uint16) * 257)  # a 16-bit export
    quick = ["--training-scenes", "6", "--tables", "3"]  # the command, not the classifier, is tested here
    named = ["--name", "house-red", "--members", "3"]
    assert main(["vision", "enroll", str(folder), "--out", str(out), *named, *quick]) == 0
    loaded = DeckModel.load(out)
    assert loaded.name == "house-red" and len(loaded.net.members) == 3
    printed = capsys.readouterr().out
    assert "no rank and suit found apart from the pips on 4C: where the other 51 cards print them" in printed
    assert f"fresh index windows: {100 * loaded.check['named_right']:.1f} % named right" in printed
    assert loaded.check["index_windows"] > 150


def test_index_start_learns_networks_that_enrollment_can_start_from(
    kennard_dir: Path, tmp_path: Path, capsys
) -> None:
    crowded = tmp_path / "crowded"  # most indices run into the pips: no place to learn from
    shutil.copytree(kennard_dir, crowded)
    for image_path in sorted(crowded.glob("[2-9T]*.png")):
        image = cv2.imread(str(image_path), cv2.IMREAD_UNCHANGED)
        cv2.imwrite(str(image_path), ink_into_the_pips(image))
    out = tmp_path / "start.npz"
    designs = [str(kennard_dir), str(crowded)]
    assert main(["vision", "index-start", "--designs", *designs, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"{crowded} left out: {crowded}: no rank and suit found" in printed
    assert "windows of 1 designs; training 2 network(s)" in printed
    with np.load(out) as data:
        start = Committee.from_arrays(data)
    layers = list(itertools.pairwise([feature_size(), *HIDDEN, sum(HEADS)]))
    assert len(start.members) == MEMBERS
    assert all([w.shape for w in member.weights] == layers for member in start.members)
    assert not np.array_equal(start.members[0].weights[0], start.members[1].weights[0])  # own seeds


def test_enroll_and_index_start_refuse_an_out_they_cannot_write_before_training(
    kennard_dir: Path, tmp_path: Path, capsys
) -> None:
    (tmp_path / "a-file").write_text("")
    cases = (
        (tmp_path / "a-file" / "deck.npz", "cannot write a file there"),
        (tmp_path, "a folder, not a file to write"),
    )
    for out, message in cases:
        for command in (["enroll", str(kennard_dir)], ["index-start", "--designs", str(kennard_dir)]):
            assert main(["vision", *command, "--out", str(out)]) == 1
            captured = capsys.readouterr()
            assert f"dealerassist: error: {out}: {message}" in captured.err
            assert "enrolling" not in captured.out and "drawing" not in captured.out  # nothing trained


def test_enroll_refuses_a_bad_folder_before_training(tmp_path: Path, capsys) -> None:
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "AS.png").write_bytes(b"")
    (tmp_path / "empty").mkdir()
    cases = (
        (tmp_path / "nope", "not a folder of card images: a deck folder holds one clean image per card"),
        (tmp_path / "half", "1 of the 53 card images: a deck folder holds one clean image per card"),
        (tmp_path / "empty", "0 of the 53 card images: a deck folder holds one clean image per card"),
    )
    for folder, message in cases:
        assert main(["vision", "enroll", str(folder), "--out", str(tmp_path / "d.npz")]) == 1
        captured = capsys.readouterr()
        assert message in captured.err and "enrolling" not in captured.out
    assert not (tmp_path / "d.npz").exists()


def test_scenes_then_read_with_out_dir(deck_file: Path, tmp_path: Path, capsys) -> None:
    scenes = tmp_path / "scenes"
    assert (
        main(
            [
                "vision",
                "scenes",
                "--design",
                "kennard-2color",
                "--out",
                str(scenes),
                "--count",
                "2",
                "--cards",
                "4",
                "--seed",
                "5",
            ]
        )
        == 0
    )
    truth = json.loads((scenes / "scene-0001.json").read_text())
    assert len(truth["cards"]) == 4 and {"card", "face_up", "quad", "index_visible"} <= set(truth["cards"][0])
    capsys.readouterr()
    frames = sorted(str(p) for p in scenes.glob("*.jpg"))
    out = tmp_path / "read"
    assert main(["vision", "read", "--deck", str(deck_file), "--out-dir", str(out), *frames]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(printed) == 2
    for frame, listing in zip(frames, printed, strict=True):
        stem = Path(frame).stem
        assert json.loads((out / f"{stem}.json").read_text()) == listing
        assert cv2.imread(str(out / f"{stem}-read.png")) is not None
        truth_cards = {c["card"] for c in json.loads(Path(frame).with_suffix(".json").read_text())["cards"]}
        assert {s["card"] for s in listing if s["card"]} <= truth_cards  # nothing read that is not there


def _table_file(tmp_path: Path, extra: str = "") -> Path:
    base = (bundled_dir() / "tables" / "three-card-poker.toml").read_text()
    lines = ["", "[vision.markers]"] + [f"{k} = [{x}, {y}]" for k, (x, y) in DEMO_MARKERS.items()]
    lines += ["", "[vision.zones]"] + [f'"{k}" = {v}' for k, v in DEMO_ZONES.items()]
    path = tmp_path / "table.toml"
    path.write_text(base + extra + "\n".join(lines) + "\n")
    return path


def test_read_with_zones_names_the_zone(deck_file: Path, design, tmp_path: Path, capsys) -> None:
    frame = tmp_path / "table.png"
    cv2.imwrite(str(frame), render_layout(design, {"seat-2": [("KH", True)], "dealer": [("3C", False)]}))
    assert (
        main(["vision", "read", "--deck", str(deck_file), "--zones", str(_table_file(tmp_path)), str(frame)])
        == 0
    )
    listing = json.loads(capsys.readouterr().out)
    assert {(s["card"], s["zone"]) for s in listing if s["card"]} == {("KH", "seat-2")}
    assert any(not s["face_up"] and s["zone"] == "dealer" for s in listing)


def test_calibrate_then_read_without_markers(deck_file: Path, design, tmp_path: Path, capsys) -> None:
    frame = tmp_path / "plain.png"
    cv2.imwrite(str(frame), render_layout(design, {"seat-5": [("2D", True)]}, markers={}))
    cal = tmp_path / "cal.json"
    # The synthetic camera maps the layout corners (0,0)-(1200,650) to these image points.
    assert (
        main(
            [
                "vision",
                "calibrate",
                "--frame",
                str(frame),
                "--image-points",
                "51.2,8 1228.8,8 1276,712 4,712",
                "--layout-points",
                "0,0 1200,0 1200,650 0,650",
                "--out",
                str(cal),
            ]
        )
        == 0
    )
    capsys.readouterr()
    table = _table_file(tmp_path)
    assert (
        main(
            [
                "vision",
                "read",
                "--deck",
                str(deck_file),
                "--zones",
                str(table),
                "--calibration",
                str(cal),
                str(frame),
            ]
        )
        == 0
    )
    listing = json.loads(capsys.readouterr().out)
    assert [(s["card"], s["zone"]) for s in listing if s["card"]] == [("2D", "seat-5")]


def test_a_missing_frame_is_named_without_opencvs_own_warning(deck_file: Path, tmp_path: Path, capfd) -> None:
    assert main(["vision", "read", "--deck", str(deck_file), str(tmp_path / "nope.png")]) == 1
    err = capfd.readouterr().err  # OpenCV writes its warnings straight to the process's stderr
    assert "nope.png: no such file" in err
    assert "imread" not in err
    assert main(["vision", "read", "--deck", str(deck_file), str(tmp_path)]) == 1
    assert f"{tmp_path}: not a file" in capfd.readouterr().err


def test_read_into_a_closed_pipe_ends_quietly_and_keeps_the_saved_read(
    deck_file: Path, tmp_path: Path
) -> None:
    """``vision read ... | head`` whose reader has gone: no traceback, a shell's SIGPIPE status,
    and the frame's --out-dir files written before its line was refused."""
    scenes = ["vision", "scenes", "--design", "kennard-2color", "--out", str(tmp_path), "--count", "2"]
    assert main(scenes) == 0
    frames = sorted(str(p) for p in tmp_path.glob("*.jpg"))
    out = tmp_path / "read"
    read = ["vision", "read", "--deck", str(deck_file), "--out-dir", str(out), *frames]
    reading, writing = os.pipe()
    os.close(reading)  # the pipe's reader is gone before the first line
    try:
        done = subprocess.run(
            [sys.executable, "-m", "dealerassist.cli", *read],
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        os.close(writing)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
    listing = json.loads((out / f"{Path(frames[0]).stem}.json").read_text())
    assert isinstance(listing, list) and cv2.imread(str(out / f"{Path(frames[0]).stem}-read.png")) is not None


def test_user_errors_are_reported_cleanly(deck_file: Path, tmp_path: Path, capsys) -> None:
    text = tmp_path / "notes.png"
    text.write_text("hello")
    assert main(["vision", "read", "--deck", str(deck_file), str(text)]) == 1
    err = capsys.readouterr().err
    assert "not an image" in err and "JPEG, PNG" in err
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((20, 30, 3), np.uint8))
    assert main(["vision", "read", "--deck", str(deck_file), str(tiny)]) == 1
    err = capsys.readouterr().err
    assert "30x20 px is too small" in err and "at least 64x64" in err
    assert main(["vision", "read", "--deck", str(text), str(text)]) == 1
    assert "not a deck file" in capsys.readouterr().err
    frame = tmp_path / "f.png"
    cv2.imwrite(str(frame), cv2.UMat(200, 300, cv2.CV_8UC3).get())
    assert (
        main(
            [
                "vision",
                "calibrate",
                "--frame",
                str(frame),
                "--image-points",
                "1,1 2,2 3",
                "--layout-points",
                "0,0 1,0 1,1 0,1",
                "--out",
                str(tmp_path / "c.json"),
            ]
        )
        == 1
    )
    assert "expected four 'x,y' pairs" in capsys.readouterr().err
    assert (
        main(
            [
                "vision",
                "calibrate",
                "--frame",
                str(frame),
                "--image-points",
                "1,1 250,1 250,190 999,5",
                "--layout-points",
                "0,0 1,0 1,1 0,1",
                "--out",
                str(tmp_path / "c.json"),
            ]
        )
        == 1
    )
    assert "999,5 outside the 300x200 frame" in capsys.readouterr().err
    assert main(["vision", "scenes", "--design", "no-such-deck", "--out", str(tmp_path / "s")]) == 1
    assert "unknown card design" in capsys.readouterr().err


def test_an_image_cut_short_is_refused_not_read_as_an_empty_table(
    deck_file: Path, tmp_path: Path, capfd
) -> None:
    # OpenCV decodes the part of a JPEG that is there, greys out the rest and only warns: the
    # reader then listed no cards, exit 0, for a photo that shows some.
    frame = (np.random.default_rng(1).random((200, 300, 3)) * 255).astype(np.uint8)
    for suffix in (".jpg", ".png"):
        whole = cv2.imencode(suffix, frame)[1].tobytes()
        (tmp_path / f"whole{suffix}").write_bytes(whole)
        (tmp_path / f"cut{suffix}").write_bytes(whole[: len(whole) * 2 // 3])
        assert main(["vision", "read", "--deck", str(deck_file), str(tmp_path / f"cut{suffix}")]) == 1
        assert f"cut{suffix}: the image ends early" in capfd.readouterr().err
        assert main(["vision", "read", "--deck", str(deck_file), str(tmp_path / f"whole{suffix}")]) == 0
        capfd.readouterr()

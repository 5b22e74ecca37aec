"""The demo camera's enrolled-deck cache: a damaged cache file, or one enrolled by other vision
code, is enrolled again and replaced; a cache that cannot be written costs the next demo an
enrollment, never this demo its camera."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest

from dealerassist.simulation.camera import load_demo_deck
from dealerassist.vision import artwork, enrollment
from dealerassist.vision.deck import DeckModel, vision_code_version


@pytest.fixture(autouse=True)
def quick_enrollment(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the cache, not the classifier: enroll with a small training set."""
    full = enrollment.enroll
    monkeypatch.setattr(enrollment, "enroll", lambda folder: full(folder, scenes_per_card=4, tables=2))


def test_a_damaged_cache_is_enrolled_again_and_replaced(tmp_path: Path) -> None:
    cached = tmp_path / f"{artwork.TUNING_DESIGN}-{vision_code_version()}.npz"
    cached.write_bytes(b"half a file from a full disk")
    lines: list[str] = []
    loaded = load_demo_deck(tmp_path, lines.append)
    assert loaded is not None
    assert any("enrolling" in line for line in lines)
    assert DeckModel.load(cached).name == loaded[0].name


def test_a_cache_renamed_from_other_codes_deck_is_enrolled_again(tmp_path: Path) -> None:
    cached = tmp_path / f"{artwork.TUNING_DESIGN}-{vision_code_version()}.npz"
    made = load_demo_deck(tmp_path / "first", lambda _line: None)
    assert made is not None and made[0].enrolled_by == vision_code_version()
    replace(made[0], enrolled_by="0123456789ab").save(cached)  # another code's deck under this name
    lines: list[str] = []
    loaded = load_demo_deck(tmp_path, lines.append)
    assert loaded is not None
    assert any("enrolling" in line for line in lines)
    assert DeckModel.load(cached).enrolled_by == vision_code_version()


def test_a_cache_that_cannot_be_written_leaves_the_camera_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "decks"
    blocker.write_text("a file where the cache directory should go\n", encoding="utf-8")
    lines: list[str] = []
    with caplog.at_level(logging.WARNING, logger="dealerassist.simulation.camera"):
        loaded = load_demo_deck(blocker / "cache", lines.append)
    assert loaded is not None
    assert not any(line.startswith("camera: off") for line in lines)
    assert "not written" in caplog.text and "enrolls the deck again" in caplog.text

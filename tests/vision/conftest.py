"""Shared fixtures: the CC0 development deck (kennard-2color) and its shipped deck file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dealerassist.simulation import artwork
from dealerassist.simulation.camera import load_demo_deck
from dealerassist.vision.deck import DeckModel
from dealerassist.vision.reader import CardReader
from dealerassist.vision.scenes import load_design


@pytest.fixture(scope="session")
def kennard_dir() -> Path:
    return artwork.shared_cardart() / artwork.TUNING_DESIGN


@pytest.fixture(scope="session")
def deck() -> DeckModel:
    """The demo's deck file, shipped enrolled: nothing trains in the tests
    (tests/simulation/test_demo_deck.py fails when it no longer reads its own cards)."""
    said: list[str] = []
    loaded = load_demo_deck(said.append)
    assert loaded is not None, said
    return loaded[0]


@pytest.fixture(scope="session")
def reader(deck: DeckModel) -> CardReader:
    return CardReader(deck)


@pytest.fixture(scope="session")
def design(kennard_dir: Path) -> dict[str, np.ndarray]:
    return load_design(kennard_dir)


def lay_cards(
    design: dict[str, np.ndarray],
    cards: list[tuple[str, tuple[float, float], float, bool]],
    felt: tuple[int, int, int] = (50, 110, 40),
    height: float = 150.0,
) -> np.ndarray:
    """A 1280x720 frame with cards (code, centre, angle in degrees, face up) laid flat on felt."""
    from dealerassist.vision.scenes import paste_card

    canvas = np.empty((720, 1280, 3), np.float32)
    canvas[:] = felt
    for code, (cx, cy), angle, face_up in cards:
        image = design[code] if face_up else design["back"]
        width = height * image.shape[1] / image.shape[0]
        corners = np.array(
            [
                [-width / 2, -height / 2],
                [width / 2, -height / 2],
                [width / 2, height / 2],
                [-width / 2, height / 2],
            ]
        )
        rad = np.deg2rad(angle)
        turn = np.array([[np.cos(rad), -np.sin(rad)], [np.sin(rad), np.cos(rad)]])
        paste_card(canvas, image, corners @ turn.T + [cx, cy])
    frame = np.clip(canvas, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def ink_into_the_pips(image: np.ndarray) -> np.ndarray:
    """The card with both its indexes joined by a stroke of ink to the pips beside them."""
    joined = image.copy()
    h, w = image.shape[:2]
    ink = (0, 0, 0, 255)[: image.shape[2]]  # opaque where the image has an alpha channel
    for (x0, y0), (x1, y1) in (((0.07, 0.1), (0.5, 0.45)), ((0.93, 0.9), (0.5, 0.55))):
        cv2.line(joined, (int(x0 * w), int(y0 * h)), (int(x1 * w), int(y1 * h)), ink, max(3, w // 25))
    return joined

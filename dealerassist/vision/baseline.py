"""The classic card reader, kept as the benchmark's baseline.

Threshold the frame, take every outline that approximates to four corners, warp it upright and
match its top-left corner against each enrolled card's corner. It cannot see a card whose outline
merges with a neighbour's (fans, touching cards) and it never abstains: the best match is the read.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from dealerassist.vision.deck import load_card_image
from dealerassist.vision.scenes import card_names
from dealerassist.vision.sighting import CardSighting

WARP_SIZE = (200, 280)
TEMPLATE = (5, 5, 32, 80)  # x, y, w, h of the index in the warped clean card
SEARCH = (0, 0, 44, 92)  # where it is looked for in a warped frame card (slack for outline error)


class ClassicReader:
    """Contour + four-corner approximation + corner template match."""

    def __init__(self, folder: str | Path) -> None:
        folder = Path(folder)
        self.templates: dict[str, np.ndarray] = {}
        for name in card_names():
            image = cv2.resize(
                load_card_image(folder / f"{name}.png"), WARP_SIZE, interpolation=cv2.INTER_AREA
            )
            self.templates[name] = self._crop(image, TEMPLATE)

    @staticmethod
    def _crop(card: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
        x, y, w, h = box
        return cv2.cvtColor(card[y : y + h, x : x + w], cv2.COLOR_BGR2GRAY)

    def read(self, frame: np.ndarray) -> list[CardSighting]:
        gray = cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        _, binary = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        found = []
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < 2000:
                continue
            approx = cv2.approxPolyDP(contour, 0.02 * cv2.arcLength(contour, True), True)
            if len(approx) != 4 or not cv2.isContourConvex(approx):
                continue
            quad = _upright(approx.reshape(4, 2).astype(np.float32))
            found.append(self._read_quad(frame, quad))
        return found

    def _read_quad(self, frame: np.ndarray, quad: np.ndarray) -> CardSighting:
        w, h = WARP_SIZE
        target = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        best_name, best_score, best_quad = "back", -1.0, quad
        for turn in (0, 2):
            turned = np.roll(quad, -turn, axis=0)
            card = cv2.warpPerspective(frame, cv2.getPerspectiveTransform(turned, target), WARP_SIZE)
            corner = self._crop(card, SEARCH)
            for name, template in self.templates.items():
                score = float(cv2.matchTemplate(corner, template, cv2.TM_CCOEFF_NORMED).max())
                if score > best_score:
                    best_name, best_score, best_quad = name, score, turned
        face_up = best_name != "back"
        return CardSighting(
            best_name if face_up else None, max(0.0, min(1.0, best_score)), face_up, best_quad
        )


def _upright(quad: np.ndarray) -> np.ndarray:
    """Order four points clockwise starting at a corner whose next side is a short side."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]
    if np.linalg.norm(quad[1] - quad[0]) > np.linalg.norm(quad[2] - quad[1]):
        quad = np.roll(quad, -1, axis=0)
    return quad

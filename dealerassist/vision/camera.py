"""Camera sources: a device index, a video file or a stream URL, opened through OpenCV.

``CameraLink`` watches the source: when it stops delivering frames it reports the link down
(``DeviceLink(device="camera", up=False)``), reopens with growing back-off, and reports the link
up again with the first good frame, so a pulled cable is an alarm rather than an empty table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import cv2
import numpy as np

from dealerassist.errors import DealerAssistError
from dealerassist.events import DeviceLink, Event

BACKOFF_SECONDS = (0.5, 1.0, 2.0, 5.0, 10.0)
SCHEMES = {"rtsp", "rtsps", "http", "https", "file", "synthetic"}


class CameraError(DealerAssistError):
    """A camera URL that cannot be understood."""


class FrameSource(Protocol):
    url: str

    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


class VideoSource:
    """One opened ``cv2.VideoCapture``: ``0`` (device index), a file path, or rtsp/http URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        target: int | str = int(url) if url.isdigit() else url
        self.capture = cv2.VideoCapture(target)
        if not self.capture.isOpened():
            self.capture.release()
            raise OSError(f"camera {url!r} cannot be opened")

    def read(self) -> np.ndarray | None:
        ok, frame = self.capture.read()
        return frame if ok and frame is not None and frame.size > 0 else None

    def close(self) -> None:
        self.capture.release()


def parse_camera_url(url: str) -> str:
    """Accept what ``cv2.VideoCapture`` can open; refuse empty or obviously wrong input early."""
    text = url.strip()
    if not text:
        raise CameraError("camera url: empty (use a device index such as 0, a video file or rtsp://...)")
    if "://" in text and text.split("://", 1)[0] not in SCHEMES:
        raise CameraError(f"camera url {url!r}: unknown scheme (device index, file, rtsp://, http://)")
    return text


class CameraLink:
    """Delivers frames from a source that may drop out; reports link changes as events."""

    def __init__(
        self,
        table: str,
        open_source: Callable[[], FrameSource],
        on_event: Callable[[Event], None],
        *,
        url: str = "",
        backoff: Sequence[float] = BACKOFF_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
        max_reopen: int | None = None,
    ) -> None:
        self.table = table
        self.open_source = open_source
        self.on_event = on_event
        self.url = url
        self.backoff = tuple(backoff)
        self.sleep = sleep
        self.max_reopen = max_reopen
        self.up: bool | None = None
        self._source: FrameSource | None = None
        self._stopped = False

    def _set_link(self, up: bool, detail: str) -> None:
        if self.up is up:
            return
        self.up = up
        self.on_event(DeviceLink(table=self.table, device="camera", up=up, detail=detail, url=self.url))

    def stop(self) -> None:
        self._stopped = True
        if self._source is not None:
            self._source.close()
            self._source = None

    def frames(self) -> Iterator[np.ndarray]:
        """Frames until ``stop()`` (or ``max_reopen`` failed reopen attempts in a row)."""
        failures = 0
        while not self._stopped:
            frame, problem = self._next_frame()
            if frame is not None:
                failures = 0
                self._set_link(True, "frames arriving")
                yield frame
                continue
            self._set_link(False, problem)
            if self._stopped or (self.max_reopen is not None and failures >= self.max_reopen):
                return
            self.sleep(self.backoff[min(failures, len(self.backoff) - 1)])
            failures += 1

    def _next_frame(self) -> tuple[np.ndarray | None, str]:
        """The source's next frame, opening it first if need be; or None and why, the source closed."""
        if self._source is None:
            try:
                self._source = self.open_source()
            except OSError as exc:
                return None, str(exc)
        frame = self._source.read()
        if frame is None:
            self._source.close()
            self._source = None
        return frame, "camera stopped delivering frames"

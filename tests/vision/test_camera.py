"""Camera link against a real video file: frames flow, a source that stops is reported and reopened."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dealerassist.events import DeviceLink, Event
from dealerassist.vision.camera import CameraError, CameraLink, VideoSource, parse_camera_url


def _video(path: Path, frames: int) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (160, 120))
    assert writer.isOpened()
    for i in range(frames):
        writer.write(np.full((120, 160, 3), 20 * i % 255, np.uint8))
    writer.release()
    return path


def test_a_video_file_that_ends_raises_a_link_alarm_and_is_reopened(tmp_path: Path) -> None:
    video = _video(tmp_path / "table.avi", 3)
    events: list[Event] = []
    waits: list[float] = []
    link = CameraLink(
        "tcp-1",
        lambda: VideoSource(str(video)),
        events.append,
        url=str(video),
        backoff=(0.1, 0.2),
        sleep=waits.append,
    )
    frames = []
    for frame in link.frames():
        frames.append(frame)
        if len(frames) == 5:
            link.stop()
    assert len(frames) == 5  # 3 frames, the file ended, reopened, 2 more
    assert [(e.device, e.up) for e in events if isinstance(e, DeviceLink)] == [
        ("camera", True),
        ("camera", False),
        ("camera", True),
    ]
    assert events[1].table == "tcp-1" and events[1].url == str(video)
    assert waits == [0.1]


def test_a_camera_that_never_opens_backs_off_and_stays_down(tmp_path: Path) -> None:
    events: list[Event] = []
    waits: list[float] = []
    missing = str(tmp_path / "nothing.avi")
    link = CameraLink(
        "tcp-1",
        lambda: VideoSource(missing),
        events.append,
        backoff=(0.5, 1.0, 2.0),
        sleep=waits.append,
        max_reopen=4,
    )
    assert list(link.frames()) == []
    assert waits == [0.5, 1.0, 2.0, 2.0]
    assert [(e.up, "cannot be opened" in e.detail) for e in events] == [(False, True)]


def test_camera_urls_are_checked() -> None:
    assert parse_camera_url(" 0 ") == "0"
    assert parse_camera_url("rtsp://cam/stream") == "rtsp://cam/stream"
    with pytest.raises(CameraError, match="empty"):
        parse_camera_url("  ")
    with pytest.raises(CameraError, match="unknown scheme"):
        parse_camera_url("ftp://cam/x")

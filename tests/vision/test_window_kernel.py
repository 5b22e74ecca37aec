"""The compiled feature loops give, bit for bit, what the whole-array OpenCV and numpy passes gave:
the decks in use were trained on those numbers."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from dealerassist.vision.index_features import (
    CELL,
    INK_CELL,
    _pooled,
    feature_size,
    features_by_passes,
    window_features,
)
from dealerassist.vision.index_window import WINDOW_PX
from dealerassist.vision.window_kernel import (
    DARKEST_PAPER,
    LANES,
    PAPER_SHARE,
    _block_means,
    _blocks,
    _paired_sums,
    _paper_levels,
)


def _windows(rng: np.random.Generator, n: int) -> np.ndarray:
    """Windows like a frame's: paper of some tint and level, ink strokes, felt, a dark one."""
    cols, rows = WINDOW_PX
    windows = np.empty((n, rows, cols, 3), np.uint8)
    for k in range(n):
        paper = rng.integers(20, 256, 3)
        window = np.clip(paper + rng.normal(0, rng.uniform(0, 12), (rows, cols, 3)), 0, 255)
        for _ in range(rng.integers(0, 6)):
            y, x = rng.integers(0, rows), rng.integers(0, cols)
            window[y : y + rng.integers(2, 14), x : x + rng.integers(2, 10)] = rng.integers(0, 120, 3)
        windows[k] = window.astype(np.uint8)
    windows[0] = 255  # blank paper: no ink at all
    windows[1] = 12  # darker than the lowest paper level
    return windows


def test_features_are_the_stacked_passes_to_the_last_bit() -> None:
    windows = _windows(np.random.default_rng(3), 300)
    features = window_features(windows)
    assert features.shape == (300, feature_size())
    assert features.dtype == np.float32
    expected = features_by_passes(windows)
    assert np.array_equal(features, expected)
    assert np.array_equal(np.signbit(features), np.signbit(expected))


def _paired_sums_of(values: np.ndarray) -> np.ndarray:
    total = np.empty(LANES, np.float32)
    _paired_sums(values, total)
    return total


def _column_sums(values: np.ndarray) -> np.ndarray:
    """numpy's sum of each column as a row of its own (summed down a 2-D array, numpy adds row
    after row, not in pairs)."""
    return np.array([np.ascontiguousarray(column).sum() for column in values.T], np.float32)


@pytest.mark.parametrize("length", [1, 7, 8, 9, 64, 128, 129, 255, 256, 257, 1000, 1152, 2049])
def test_paired_sums_add_each_lane_in_numpys_order(length: int) -> None:
    rng = np.random.default_rng(length)
    values = (rng.standard_normal((length, LANES)) * 10.0 ** rng.uniform(-3, 3, (length, LANES))).astype(
        np.float32
    )
    assert np.array_equal(_paired_sums_of(values), _column_sums(values))
    negative_zeros = np.full((length, LANES), -0.0, np.float32)
    assert np.array_equal(
        np.signbit(_paired_sums_of(negative_zeros)), np.signbit(_column_sums(negative_zeros))
    )


@pytest.mark.parametrize("block", [CELL, INK_CELL, 4])
def test_block_means_are_opencvs_area_pooling_in_every_lane(block: int) -> None:
    cols, rows = WINDOW_PX
    planes = (np.random.default_rng(block).standard_normal((LANES, rows, cols)) * 1e3).astype(np.float32)
    starts, offsets = _blocks(block, rows, cols)
    across_lanes = np.ascontiguousarray(planes.reshape(LANES, -1).T)  # (pixels, lanes)
    means, ahead, behind = (np.empty((len(starts), LANES), np.float32) for _ in range(3))
    for c, start in enumerate(starts):
        _block_means(across_lanes, start, offsets, means[c], -np.inf, np.inf)
        _block_means(across_lanes, start, offsets, ahead[c], 0.0, np.inf)
        _block_means(across_lanes, start, offsets, behind[c], -np.inf, 0.0)
    for lane, plane in enumerate(planes):
        assert np.array_equal(means[:, lane], _pooled(plane, block).ravel())
        assert np.array_equal(ahead[:, lane], _pooled(np.maximum(plane, 0), block).ravel())
        assert np.array_equal(behind[:, lane], _pooled(np.minimum(plane, 0), block).ravel())


@pytest.mark.parametrize("n", [1, LANES - 1, LANES, LANES + 1, 3 * LANES + 5])
def test_a_batch_not_filling_its_lanes_reads_as_a_full_one(n: int) -> None:
    # The last batch's lanes past its windows are worked out on blank pixels and dropped.
    windows = _windows(np.random.default_rng(n + 100), max(n, 2))[:n]
    assert np.array_equal(window_features(windows), features_by_passes(windows))


def test_bgra_windows_read_as_their_bgr_pixels() -> None:
    windows = _windows(np.random.default_rng(8), 40)
    with_alpha = np.concatenate([windows, np.full((*windows.shape[:3], 1), 255, np.uint8)], axis=3)
    assert np.array_equal(window_features(with_alpha), window_features(windows))


@pytest.mark.parametrize("darkest", [0, 40, 200])
def test_paper_levels_are_each_windows_share_of_its_sampled_darkest_channels(darkest: int) -> None:
    cols, rows = WINDOW_PX
    rng = np.random.default_rng(darkest)
    colours = rng.integers(darkest, 256, (rows * cols, LANES, 4), dtype=np.uint8)
    colours[:, : LANES // 2] = np.where(rng.random((rows * cols, LANES // 2, 1)) < 0.7, 230, 10)  # long runs
    levels = np.empty(LANES, np.float32)
    _paper_levels(colours.view(np.uint32)[..., 0], levels)
    samples = colours[::4, :, :3].min(axis=2)  # every fourth pixel's darkest channel, per window
    share = np.sort(samples, axis=0)[int(PAPER_SHARE * (len(samples) - 1))]
    assert np.array_equal(levels, np.maximum(share, DARKEST_PAPER).astype(np.float32))


def test_loops_loaded_from_the_cache_give_what_the_first_compile_gave(tmp_path) -> None:
    """The first process compiles the loops into the cache, the next loads them from it: that
    second path once crashed (a recursive sum), so both run here, each in a process of its own."""
    np.save(tmp_path / "windows.npy", _windows(np.random.default_rng(5), 40))
    script = (
        "import sys, numpy as np\n"
        "from dealerassist.vision.index_features import window_features\n"
        "np.save(sys.argv[2], window_features(np.load(sys.argv[1])))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    for run in ("compiled", "cached"):
        done = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / "windows.npy"), str(tmp_path / f"{run}.npy")],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
    assert any((tmp_path / "cache").rglob("*.nbc"))
    expected = features_by_passes(np.load(tmp_path / "windows.npy"))
    assert np.array_equal(np.load(tmp_path / "compiled.npy"), expected)
    assert np.array_equal(np.load(tmp_path / "cached.npy"), expected)

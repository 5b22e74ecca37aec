"""The index classifier's parts: window sampling, features that do not depend on the batch, and
a network that learns and keeps what it learned through a deck file."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dealerassist.vision.index_features import INK_CELL, feature_size, ink_around, ink_cell, window_features
from dealerassist.vision.index_window import (
    LARGEST_SAMPLED,
    MARGIN,
    REMAP_WINDOWS,
    WINDOW_PX,
    IndexWindow,
    _remap_windows,
    _window_maps,
    sample_windows,
    sampling_image,
)
from dealerassist.vision.indexnet import BACK, HEADS, NONE, Committee, IndexNet, _flush_subnormals, train

WINDOW = IndexWindow(0.125, 0.25)


def _frame(seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).random((360, 640, 3)) * 255).astype(np.uint8)


def test_a_window_is_the_corner_region_turned_upright() -> None:
    """A frame turned a quarter round and sampled along the turned axes gives the same window."""
    frame = _frame()
    turned = np.rot90(frame).copy()  # (x, y) -> (y, W - 1 - x)
    point = np.array([200.0, 100.0])
    height = 120.0
    upright = sample_windows(
        frame, point[None], np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), [height], WINDOW
    )
    moved = np.array([[point[1], frame.shape[1] - 1 - point[0]]])
    seen = sample_windows(turned, moved, np.array([[0.0, -1.0]]), np.array([[1.0, 0.0]]), [height], WINDOW)
    assert upright.shape == (1, WINDOW_PX[1], WINDOW_PX[0], 4)
    assert np.abs(upright.astype(int) - seen.astype(int)).max() <= 1


def test_large_cards_are_sampled_from_a_halved_frame_not_aliased() -> None:
    """A fine pattern under a large card's window averages out instead of beating into stripes."""
    stripes = np.zeros((720, 1280, 3), np.uint8)
    stripes[:, ::2] = 255  # one-pixel stripes
    axes = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    big = sample_windows(stripes, np.array([[300.0, 200.0]]), *axes, [330.0], WINDOW)[..., :3]
    assert big.std() < 40  # grey, not stripes
    assert abs(float(big.mean()) - 127) < 20


@pytest.mark.parametrize("rows", [(-0.05, 1.05), (0.45, 0.55), (-0.05, 0.05), (0.95, 1.05)])
@pytest.mark.parametrize("shape", [(720, 1280), (363, 517)])
def test_large_cards_are_read_from_the_halved_frame_at_half_their_size(
    shape: tuple[int, int], rows: tuple[float, float]
) -> None:
    """A large card's window is the halved frame's at half the card's place and size, wherever the
    cards lie: inside, at the frame's edges, partly off it, many or few."""
    rng = np.random.default_rng(11)
    frame = (rng.random((*shape, 3)) * 255).astype(np.uint8)
    n = 60 if rows == (-0.05, 1.05) else 20
    low, high = (
        (np.array([0.0, rows[0]]) - [0.03, 0]) * shape[::-1],
        (np.array([1.03, rows[1]])) * shape[::-1],
    )
    points = rng.uniform(low, high, (n, 2))
    angles = rng.uniform(0, 2 * np.pi, n)
    x_axes = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    y_axes = np.stack([-x_axes[:, 1], x_axes[:, 0]], axis=1)
    heights = rng.uniform(LARGEST_SAMPLED + 1, 2 * LARGEST_SAMPLED, n)
    window = IndexWindow(0.2, 0.46)
    sampled = sample_windows(frame, points, x_axes, y_axes, heights, window)
    corners = np.concatenate([points / 2, x_axes, y_axes, heights[:, None] / 2], axis=1)
    whole = _remap_windows(cv2.pyrDown(frame), corners, window)
    assert np.array_equal(sampled, whole)


def test_colour_windows_are_the_pixels_remap_gives_the_three_channel_frame() -> None:
    """Sampling through a fourth, unused channel changes no value: each window is what a plain
    remap of the frame gives at its map, also where it runs off the frame."""
    rng = np.random.default_rng(5)
    frame = _frame(2)
    n = 40
    points = rng.uniform(-30, [frame.shape[1] + 30, frame.shape[0] + 30], (n, 2))
    angles = rng.uniform(0, 2 * np.pi, n)
    x_axes = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    y_axes = np.stack([-x_axes[:, 1], x_axes[:, 0]], axis=1)
    corners = np.concatenate([points, x_axes, y_axes, rng.uniform(60, 200, (n, 1))], axis=1)
    maps_x, maps_y = _window_maps(corners, WINDOW)
    plain = cv2.remap(frame, maps_x, maps_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    np.testing.assert_array_equal(
        _remap_windows(frame, corners, WINDOW)[..., :3], plain.reshape(n, WINDOW_PX[1], WINDOW_PX[0], 3)
    )


def test_window_maps_are_float32_broadcasting_to_the_last_bit() -> None:
    """Decks are trained on windows sampled at these maps: they must round each
    product and sum as float32 arrays do, with no multiply and add fused into one."""
    rng = np.random.default_rng(12)
    n = 50
    points = rng.uniform(-40, 1300, (n, 2))
    angles = rng.uniform(0, 2 * np.pi, n)
    x_axes = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    y_axes = np.stack([-x_axes[:, 1], x_axes[:, 0]], axis=1)
    heights = rng.uniform(60, 220, n)
    maps_x, maps_y = _window_maps(np.concatenate([points, x_axes, y_axes, heights[:, None]], axis=1), WINDOW)
    cols, rows = WINDOW_PX
    u = (-MARGIN + (np.arange(cols) + 0.5) / cols * (WINDOW.across + MARGIN)).astype(np.float32)
    v = (-MARGIN + (np.arange(rows) + 0.5) / rows * (WINDOW.down + MARGIN)).astype(np.float32)
    for axis, made in ((0, maps_x), (1, maps_y)):
        across = (
            points[:, axis, None].astype(np.float32)
            + (heights[:, None] * x_axes).astype(np.float32)[:, axis, None] * u
        )
        down = (heights[:, None] * y_axes).astype(np.float32)[:, axis, None] * v
        expected = (across[:, None, :] + down[:, :, None]).reshape(n * rows, cols)
        assert made.dtype == np.float32
        assert np.array_equal(made.view(np.uint32), expected.view(np.uint32))


def test_ink_around_a_window_is_each_cell_middle_sampled_against_the_maps_own_paper() -> None:
    """The ink maps round many windows at once (sampled as one long row a map, which remap reads
    faster) hold what sampling each cell's middle on its own gives: 1 less its darkest channel
    over the map's paper white, at least 0."""
    rng = np.random.default_rng(8)
    frame = _frame(3)
    n, pad = 12, (6, 8)
    points = rng.uniform(-20, [frame.shape[1] + 20, frame.shape[0] + 20], (n, 2))
    angles = rng.uniform(0, 2 * np.pi, n)
    x_axes = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    y_axes = np.stack([-x_axes[:, 1], x_axes[:, 0]], axis=1)
    heights = rng.uniform(60, 200, n)
    maps = ink_around(frame, points, x_axes, y_axes, heights, WINDOW, pad)
    cols, rows = WINDOW_PX[0] // INK_CELL + 2 * pad[0], WINDOW_PX[1] // INK_CELL + 2 * pad[1]
    assert maps.shape == (n, rows, cols)
    cell_across, cell_down = ink_cell(WINDOW)
    u = -MARGIN + (np.arange(-pad[0], cols - pad[0]) + 0.5) * cell_across
    v = -MARGIN + (np.arange(-pad[1], rows - pad[1]) + 0.5) * cell_down
    for k in range(n):
        step_x, step_y = heights[k] * x_axes[k], heights[k] * y_axes[k]
        at = [
            (points[k, axis] + step_x[axis] * u[None, :] + step_y[axis] * v[:, None]).astype(np.float32)
            for axis in (0, 1)
        ]
        cells = cv2.remap(frame, at[0], at[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        darkest = cells.min(axis=2).astype(np.float32)
        paper = max(np.sort(darkest.ravel())[int(0.85 * (darkest.size - 1))], np.float32(30.0))
        np.testing.assert_array_equal(maps[k], np.maximum(1.0 - darkest / paper, 0.0))


def test_windows_from_the_frame_made_once_for_sampling_are_the_frames_own() -> None:
    """The reader makes the four-channel frame once and samples it twice; small cards and large
    ones (sampled from the halved frame) come out as from the frame itself."""
    rng = np.random.default_rng(9)
    frame = _frame(4)
    n = 30
    points = rng.uniform(0, [frame.shape[1], frame.shape[0]], (n, 2))
    angles = rng.uniform(0, 2 * np.pi, n)
    x_axes = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    y_axes = np.stack([-x_axes[:, 1], x_axes[:, 0]], axis=1)
    heights = rng.uniform(60, 2.5 * LARGEST_SAMPLED, n)
    made = sampling_image(frame)
    assert made.shape[2] == 4
    np.testing.assert_array_equal(
        sample_windows(made, points, x_axes, y_axes, heights, WINDOW),
        sample_windows(frame, points, x_axes, y_axes, heights, WINDOW),
    )
    grey = frame[:, :, 0].copy()
    assert sampling_image(grey) is grey  # anything but a BGR frame is read as given


def test_more_windows_than_one_remap_takes_are_sampled_alike() -> None:
    # A cluttered frame can give hundreds of candidates; OpenCV's remap refuses maps of 32767 rows.
    rng = np.random.default_rng(3)
    frame = rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    n = 2 * REMAP_WINDOWS + 37
    points = np.column_stack([rng.uniform(50, 1200, n), rng.uniform(50, 650, n)])
    x_axes = np.tile([1.0, 0.0], (n, 1))
    y_axes = np.tile([0.0, 1.0], (n, 1))
    heights = rng.uniform(70, 200, n)
    window = IndexWindow(0.125, 0.25)
    every = sample_windows(frame, points, x_axes, y_axes, heights, window)
    assert every.shape == (n, WINDOW_PX[1], WINDOW_PX[0], 4)
    for k in (0, REMAP_WINDOWS, n - 1):
        alone = sample_windows(
            frame, points[k : k + 1], x_axes[k : k + 1], y_axes[k : k + 1], heights[k : k + 1], window
        )
        np.testing.assert_array_equal(every[k], alone[0])


def test_features_of_a_window_do_not_depend_on_its_neighbours_in_the_batch() -> None:
    rng = np.random.default_rng(3)
    windows = (rng.random((5, WINDOW_PX[1], WINDOW_PX[0], 3)) * 255).astype(np.uint8)
    together = window_features(windows)
    alone = np.concatenate([window_features(windows[i : i + 1]) for i in range(5)])
    assert together.shape == (5, feature_size())
    np.testing.assert_allclose(together, alone, rtol=1e-5, atol=1e-6)
    assert window_features(windows[:0]).shape == (0, feature_size())


def test_ink_features_ignore_the_light_level() -> None:
    """A window and the same window at 60 % of the light describe the same print."""
    rng = np.random.default_rng(4)
    window = np.full((1, WINDOW_PX[1], WINDOW_PX[0], 3), 230, np.uint8)
    window[0, 10:30, 8:14] = (40, 40, 200)  # a red stroke
    window[0] += rng.integers(0, 5, window.shape[1:], dtype=np.uint8)
    dim = (window.astype(np.float32) * 0.6).astype(np.uint8)
    bright, dimmed = window_features(window)[0], window_features(dim)[0]
    assert np.corrcoef(bright, dimmed)[0, 1] > 0.98


def _toy_problem() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Four well-separated classes (an ace, a king, nothing, a back): their centres, 800 noisy
    feature rows around them and the rows' labels."""
    rng = np.random.default_rng(5)
    codes = ["AS", "KH", NONE, BACK]
    centres = rng.normal(0, 1, (len(codes), feature_size())).astype(np.float32) * 3
    labels = np.array([codes[i % 4] for i in range(800)])
    features = centres[np.arange(800) % 4] + rng.normal(0, 1, (800, feature_size())).astype(np.float32)
    return centres, features, labels


@pytest.mark.parametrize("hidden", [(32,), (32, 16)])
def test_the_network_learns_a_separable_toy_problem_and_survives_its_arrays(hidden: tuple[int, ...]) -> None:
    centres, features, labels = _toy_problem()
    net = train(features, labels, np.random.default_rng(6), hidden=hidden, epochs=16)
    assert [w.shape[1] for w in net.weights] == [*hidden, sum(HEADS)]
    names, probability, kind = net.best(centres)
    assert names[:2] == ["AS", "KH"] and (probability[:2] > 0.9).all()
    assert kind[2].argmax() == 0 and kind[3].argmax() == 2  # nothing; a back
    copy = IndexNet.from_arrays(net.arrays())
    np.testing.assert_array_equal(copy.best(centres)[1], probability)


def test_training_over_its_own_rows_trains_the_same_network_and_standardises_them() -> None:
    # Enrollment lets a network standardise its gigabyte draw in place rather than in a copy.
    _, features, labels = _toy_problem()
    kept = features.copy()
    copied = train(features, labels, np.random.default_rng(6), hidden=(32,), epochs=2)
    np.testing.assert_array_equal(features, kept)  # by default the caller's rows are left alone
    in_place = train(features, labels, np.random.default_rng(6), hidden=(32,), epochs=2, overwrite=True)
    for key, value in copied.arrays().items():
        np.testing.assert_array_equal(in_place.arrays()[key], value)
    np.testing.assert_allclose(features.mean(axis=0), 0.0, atol=1e-4)
    np.testing.assert_allclose(features, (kept - copied.mean) * copied.scale, rtol=1e-6, atol=1e-6)


def test_a_network_started_from_another_begins_at_its_weights_and_keeps_its_standardisation() -> None:
    centres, features, labels = _toy_problem()
    start = train(features, labels, np.random.default_rng(6), hidden=(32,), epochs=8)
    # Rows of another design: shifted, so standardising them afresh would move the mean.
    shifted = features + 0.5
    unchanged = train(shifted, labels, np.random.default_rng(7), hidden=(32,), epochs=0, start=start)
    for key, value in start.arrays().items():
        np.testing.assert_array_equal(unchanged.arrays()[key], value)
    further = train(shifted, labels, np.random.default_rng(7), hidden=(32,), epochs=2, start=start)
    np.testing.assert_array_equal(further.mean, start.mean)
    np.testing.assert_array_equal(further.scale, start.scale)
    assert not np.array_equal(further.weights[0], start.weights[0])
    assert further.best(centres + 0.5)[0][:2] == ["AS", "KH"]
    # What names them is the start: a network of random weights is sure of nothing.
    assert (
        train(shifted, labels, np.random.default_rng(7), hidden=(32,), epochs=0).best(centres)[1].max() < 0.9
    )


def test_a_starting_network_of_another_shape_is_refused_before_training() -> None:
    _, features, labels = _toy_problem()
    start = train(features, labels, np.random.default_rng(6), hidden=(32,), epochs=1)
    with pytest.raises(ValueError, match=r"starting network's layers .* do not fit"):
        train(features, labels, np.random.default_rng(6), hidden=(16,), start=start)
    with pytest.raises(ValueError, match=r"do not fit 10 features"):
        train(features[:, :10], labels, np.random.default_rng(6), hidden=(32,), start=start)


def test_a_deck_network_of_one_hidden_layer_keeps_the_arrays_it_was_saved_with() -> None:
    # Decks enrolled before the second hidden layer hold net_w1, net_b1, net_w2, net_b2 only.
    centres, features, labels = _toy_problem()
    net = train(features, labels, np.random.default_rng(6), hidden=(32,), epochs=2)
    arrays = net.arrays()
    assert sorted(arrays) == ["net_b1", "net_b2", "net_mean", "net_scale", "net_w1", "net_w2"]
    standardised = (centres - arrays["net_mean"]) * arrays["net_scale"]
    hidden = np.maximum(standardised @ arrays["net_w1"] + arrays["net_b1"], 0)
    logits = hidden @ arrays["net_w2"] + arrays["net_b2"]
    rank = IndexNet.from_arrays(arrays).heads(centres)[0]
    expected = np.exp(logits[:, :13] - logits[:, :13].max(axis=1, keepdims=True))
    np.testing.assert_allclose(rank, expected / expected.sum(axis=1, keepdims=True), rtol=1e-5)
    with pytest.raises(KeyError, match="no network layers"):
        IndexNet.from_arrays({"net_mean": arrays["net_mean"], "net_scale": arrays["net_scale"]})


def _subnormal_count(values: np.ndarray) -> int:
    return int(((values != 0) & (np.abs(values) < np.finfo(np.float32).tiny)).sum())


def test_a_network_saved_with_subnormal_weights_reads_as_with_them_zeroed_and_keeps_none() -> None:
    # A unit no window switches on: its weights shrank into the subnormal range during training.
    _, features, labels = _toy_problem()
    arrays = train(features, labels, np.random.default_rng(6), hidden=(32, 16), epochs=2).arrays()
    dead = {key: value.copy() for key, value in arrays.items()}
    dead["net_w1"][:, 3] = np.float32(3e-39)
    dead["net_w2"][3, :] = -np.float32(2e-40)
    dead["net_b1"][3] = -1.0
    zeroed = {key: value.copy() for key, value in dead.items()}
    zeroed["net_w1"][:, 3] = 0
    zeroed["net_w2"][3, :] = 0
    loaded = IndexNet.from_arrays(dead)
    assert sum(_subnormal_count(w) for w in loaded.weights) == 0
    assert _subnormal_count(dead["net_w1"]) == len(dead["net_w1"])  # the saved arrays stay as saved
    for mine, plain in zip(loaded.heads(features), IndexNet.from_arrays(zeroed).heads(features), strict=True):
        np.testing.assert_array_equal(mine, plain)


def test_flushing_zeroes_subnormals_only() -> None:
    tiny = np.finfo(np.float32).tiny
    values = np.array([0.0, tiny, -tiny, tiny / 2, -tiny / 1e6, 1.5, -3e-30, 1e30], np.float32)
    _flush_subnormals(values)
    np.testing.assert_array_equal(values, np.array([0.0, tiny, -tiny, 0, 0, 1.5, -3e-30, 1e30], np.float32))


def test_a_committee_names_only_what_all_members_name() -> None:
    centres, features, labels = _toy_problem()
    honest = train(features, labels, np.random.default_rng(6), hidden=(32,), epochs=8)
    swapped = train(features, _swapped_labels(labels), np.random.default_rng(7), hidden=(32,), epochs=8)
    _, alone, _ = honest.best(centres[:2])
    names, probability, _ = Committee((honest, honest)).best(centres[:2])
    assert names == ["AS", "KH"]
    np.testing.assert_allclose(probability, alone, rtol=1e-5)  # agreeing with itself changes nothing
    names, probability, kind = Committee((honest, swapped)).best(centres)
    assert (probability[:2] == 0).all()  # one says ace, the other king: no card
    assert kind[3].argmax() == 2  # both still see the back
    copy = Committee.from_arrays(Committee((honest, swapped)).arrays())
    np.testing.assert_array_equal(copy.best(centres)[2], kind)
    assert len(copy.members) == 2


def _swapped_labels(labels: np.ndarray) -> np.ndarray:
    """The toy labels with the ace and the king trading names: a member sure of the wrong card."""
    return np.where(labels == "AS", "KH", np.where(labels == "KH", "AS", labels))


def test_two_of_three_members_name_a_card_the_third_calls_another() -> None:
    centres, features, labels = _toy_problem()
    honest = train(features, labels, np.random.default_rng(6), hidden=(32,), epochs=8)
    also_honest = train(features, labels, np.random.default_rng(8), hidden=(32,), epochs=8)
    swapped = train(features, _swapped_labels(labels), np.random.default_rng(7), hidden=(32,), epochs=8)
    three = Committee((swapped, honest, also_honest))
    assert three.needed == 2 and Committee((honest, swapped)).needed == 2
    names, probability, kind = three.best(centres)
    assert names[:2] == ["AS", "KH"]  # the first member is outvoted
    own = [member.best(centres)[1].astype(np.float64) for member in (honest, also_honest)]
    np.testing.assert_allclose(probability[:2], np.sqrt(own[0] * own[1])[:2], rtol=1e-6)
    assert kind[3].argmax() == 2  # all three still see the back
    names, probability, _ = Committee((honest, swapped, _copy_of(swapped))).best(centres[:2])
    assert names == ["KH", "AS"]  # two sure of the wrong card outvote one: a majority, not a veto
    copy = Committee.from_arrays(three.arrays())
    assert len(copy.members) == 3
    np.testing.assert_array_equal(copy.best(centres)[1], three.best(centres)[1])


def _copy_of(net: IndexNet) -> IndexNet:
    return IndexNet.from_arrays(net.arrays())


def test_three_members_give_the_probability_of_a_card_two_of_them_are_sure_of() -> None:
    centres, features, labels = _toy_problem()
    honest = train(features, labels, np.random.default_rng(6), hidden=(32,), epochs=8)
    also_honest = train(features, labels, np.random.default_rng(8), hidden=(32,), epochs=8)
    swapped = train(features, _swapped_labels(labels), np.random.default_rng(7), hidden=(32,), epochs=8)
    rows = np.concatenate([centres[:2], features[:40]])
    cards = ["AS", "KH"] + ["KH" if i % 2 else "AS" for i in range(40)]
    own = np.array([m.probability_of(rows, cards).astype(np.float64) for m in (swapped, honest, also_honest)])
    surest_two = np.sort(own, axis=0)[1:]
    joint = Committee((swapped, honest, also_honest)).probability_of(rows, cards, 0.9)
    reachable = (surest_two >= 0.81).all(axis=0)
    np.testing.assert_allclose(joint[reachable], np.sqrt(surest_two.prod(axis=0))[reachable], rtol=1e-6)
    assert (joint[~reachable] < 0.9).all()
    assert reachable[:2].all() and (joint[:2] > 0.9).all()  # the two honest members outvote the first
    assert (~reachable).any()


def test_a_committee_gives_the_probability_of_a_named_card_where_it_can_be_sure() -> None:
    centres, features, labels = _toy_problem()
    first = train(features, labels, np.random.default_rng(6), hidden=(32,), epochs=8)
    second = train(features, labels, np.random.default_rng(8), hidden=(32,), epochs=8)
    rows = np.concatenate([centres[:2], features[:40]])
    cards = ["AS", "KH"] + ["KH" if i % 2 else "AS" for i in range(40)]
    own = [member.probability_of(rows, cards).astype(np.float64) for member in (first, second)]
    mean = np.sqrt(own[0] * own[1])
    joint = Committee((first, second)).probability_of(rows, cards, 0.9)
    reachable = own[0] >= 0.81  # the first member's share of a geometric mean of 0.9
    np.testing.assert_allclose(joint[reachable], mean[reachable], rtol=1e-6)
    assert (joint[~reachable] == 0).all()
    assert reachable[:2].all() and (joint[:2] > 0.9).all()  # the ace and king centres themselves
    assert (~reachable).any()  # half the rows name the other card: they cannot be sure of it


def test_training_refuses_an_unknown_label() -> None:
    with pytest.raises(ValueError, match=r"card codes, 'none' or 'back'; got \['ZZ'\]"):
        train(np.zeros((2, feature_size()), np.float32), np.array(["AS", "ZZ"]), np.random.default_rng(0))

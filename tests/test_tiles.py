"""The tile coder: the book's offsets worked by hand, one batched call, its numba twin, hashing and its collisions."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rltorch.errors import RLTorchError
from rltorch.features import TileCoder, features_from_config
from rltorch.features.tiles import active_tiles, hashed
from rltorch.values.linear import LinearValueFunction


def test_offsets_are_the_books_1_3_worked_by_hand() -> None:
    # [0, 4] x [0, 4] with 2 tiles of width 2 per dimension, 4 tilings: a unit is 2/4 = 0.5 of a state.
    # Tiling i is displaced by (i, 3i) units; per dimension (2 * 4 + 3 * (2d + 1)) // 4 + 1 = 3 and 5 tiles.
    coder = TileCoder([0.0, 0.0], [4.0, 4.0], tilings=4, tiles=2)
    assert coder.counts.tolist() == [3, 5] and coder.size == 4 * 15
    # state (1.2, 0.3): q = floor(x / 0.5) = (2, 0); tiling i: ((2 + i) // 4, (0 + 3i) // 4) = (0,0) (0,0) (1,1) (1,2)
    expected = [0 * 15 + 0 * 5 + 0, 1 * 15 + 0, 2 * 15 + 1 * 5 + 1, 3 * 15 + 1 * 5 + 2]
    assert coder.active(torch.tensor([[1.2, 0.3]], dtype=torch.float64))[0].tolist() == expected
    assert coder.active_count == 4


def test_states_outside_the_box_are_clipped_to_its_edge() -> None:
    coder = TileCoder([0.0, 0.0], [4.0, 4.0], tilings=4, tiles=2)
    inside = coder.active(torch.tensor([[0.0, 4.0]], dtype=torch.float64))
    outside = coder.active(torch.tensor([[-3.0, 9.0]], dtype=torch.float64))
    assert torch.equal(inside, outside)


def test_one_batched_call_equals_state_by_state_and_the_numba_twin() -> None:
    coder = TileCoder([-1.2, -0.07], [0.5, 0.07], tilings=8, tiles=8)
    states = torch.rand(500, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    states = states * torch.tensor([2.0, 0.2], dtype=torch.float64) + torch.tensor([-1.3, -0.1], dtype=torch.float64)
    batch = coder.active(states)
    out = np.empty(8, dtype=np.int64)
    for row in range(0, 500, 25):
        assert torch.equal(batch[row], coder.active(states[row:row + 1])[0])
        active_tiles(states[row].numpy(), *coder.kernel_arrays(), 8, 8, coder.tiling_size, 0, out)
        assert out.tolist() == batch[row].tolist()
    encoded = coder.encode(states[:3])
    assert encoded.shape == (3, coder.size) and encoded.sum(dim=1).tolist() == [8.0] * 3


def test_hashing_folds_tiles_into_a_fixed_table_and_counts_its_collisions() -> None:
    coder = TileCoder([0.0], [1.0], tilings=2, tiles=3, hash_size=5)
    # one dimension: (3 * 2 + 1 * 1) // 2 + 1 = 4 tiles per tiling, 8 tiles hashed into 5 slots
    slots = [((i % (2**31 - 1)) * 1_103_515_245 + 12_345) % (2**31 - 1) % 5 for i in range(8)]
    assert hashed(torch.arange(8), 5).tolist() == slots
    assert coder.size == 5 and coder.collisions == 8 - len(set(slots))
    assert coder.diagnostics() == {"features/hash_collisions": float(coder.collisions)}
    assert TileCoder([0.0], [1.0], tilings=2, tiles=3).collisions == 0
    assert TileCoder([0.0], [1.0], tilings=2, tiles=3).diagnostics() == {}
    out = np.empty(2, dtype=np.int64)
    state = torch.tensor([[0.7]], dtype=torch.float64)
    active_tiles(state[0].numpy(), *coder.kernel_arrays(), 2, 3, coder.tiling_size, 5, out)
    assert out.tolist() == coder.active(state)[0].tolist()


def test_config_rebuilds_the_same_coder() -> None:
    coder = TileCoder([-1.2, -0.07], [0.5, 0.07], tilings=4, tiles=6, hash_size=1024)
    again = features_from_config(coder.config())
    states = torch.tensor([[-0.5, 0.01], [0.2, -0.05]], dtype=torch.float64)
    assert isinstance(again, TileCoder) and torch.equal(again.active(states), coder.active(states))


@pytest.mark.parametrize("settings", [{"tilings": 0}, {"tiles": 0}, {"hash_size": -1}, {"tilings": 2.5}])
def test_bad_settings_are_one_clear_error(settings: dict) -> None:
    with pytest.raises(RLTorchError):
        TileCoder([0.0], [1.0], **settings)
    with pytest.raises(RLTorchError):
        TileCoder([1.0], [1.0])


def test_a_linear_value_function_logs_the_hash_collisions():
    coder = TileCoder([0.0], [1.0], tilings=2, tiles=3, hash_size=5)
    diagnostics = LinearValueFunction(coder, 0.1, actions=2).diagnostics()
    assert diagnostics["features/hash_collisions"] == coder.collisions > 0

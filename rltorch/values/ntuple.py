"""The n-tuple network: a value function over square boards of small exponents that is a sum of lookup tables.

Each tuple of cells (e.g. a row, or a 2 x 3 rectangle) owns one table with an entry for every pattern of
exponents its cells can hold (16 ** cells). The board's value is the sum, over the tuples and their images
under the board's 8 symmetries, of the entries their patterns select: a linear function of one-hot tuple
features, so `fit` is the table update spread over the features (each selected weight moves by
`alpha / features * error`, and `alpha` is the share of the error one update removes when no weight repeats).

Keys are boards (tuples of exponents, row-major) or `(board, reward)` pairs: the afterstate of a move and
the move's own reward, which belongs to the move. A pair's value is `reward + V(board)`, and fitting it moves
V(board) toward `target - reward` (TD-afterstate, Szubert & Jaśkowski 2014).
"""

from __future__ import annotations

import argparse
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import torch

from rltorch.errors import RLTorchError
from rltorch.values.base import ValueFunction
from rltorch.values.ntuple_kernels import add_to_board, batch_indices, board_value

MAX_TUPLE_CELLS = 8  # a table of 16 ** 8 float32 entries is 16 GiB
MAX_CELLS = 16  # a packed board holds 16 cells of 4 bits


def default_tuples(size: int) -> list[tuple[int, ...]]:
    """A board size's tuples: on 4 x 4 two 2 x 3 rectangles and two 'row and a half' 6-tuples.

    Else an edge row, the next row and a corner 2 x 2 square read in two cell orders (on 3 x 3 both squares are
    images of one corner square under the symmetries, so its weights come twice).
    """
    if size == 4:
        return [(0, 1, 2, 3, 4, 5), (4, 5, 6, 7, 8, 9), (0, 1, 2, 4, 5, 6), (4, 5, 6, 8, 9, 10)]
    return [tuple(range(size)), tuple(range(size, 2 * size)), (0, 1, size, size + 1), (1, 2, size + 1, size + 2)]


def symmetries(size: int) -> list[list[int]]:
    """The 8 symmetries of a square board, each as the image cell of every cell (identity first)."""
    def turn(row: int, col: int) -> tuple[int, int]:
        return col, size - 1 - row

    maps = []
    for mirrored in (False, True):
        for turns in range(4):
            image = []
            for index in range(size * size):
                row, col = divmod(index, size)
                if mirrored:
                    col = size - 1 - col
                for _ in range(turns):
                    row, col = turn(row, col)
                image.append(row * size + col)
            maps.append(image)
    return maps


def check_tuples(size: int, tuples: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """The tuples as tuples of ints, or ValueError when one does not fit a `size` x `size` board."""
    if not isinstance(size, int) or size < 2:
        raise ValueError(f"board size must be an int >= 2, got {size!r}")
    checked = []
    for cells in tuples:
        cells = tuple(int(each) for each in cells)
        if not 1 <= len(cells) <= min(MAX_TUPLE_CELLS, size * size):
            raise ValueError(f"tuple {cells} must have 1 to {min(MAX_TUPLE_CELLS, size * size)} cells")
        if len(set(cells)) != len(cells) or not all(0 <= each < size * size for each in cells):
            raise ValueError(f"tuple {cells} does not fit a {size}x{size} board (its cells: distinct, 0 to "
                             f"{size * size - 1})")
        checked.append(cells)
    if not checked:
        raise ValueError("an n-tuple network needs at least one tuple")
    return checked


def parse_tuples(text: str) -> list[tuple[int, ...]]:
    """'0,1,2;3,4,5' as a list of cell tuples (whether they fit a board is checked with its size)."""
    try:
        tuples = [tuple(int(cell) for cell in part.split(",")) for part in text.split(";") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not tuples of cells such as '0,1,2,3;0,1,4,5'") from None
    if not tuples:
        raise argparse.ArgumentTypeError("give at least one tuple of cells")
    if any(not 0 <= cell < MAX_CELLS for cells in tuples for cell in cells):
        raise argparse.ArgumentTypeError(f"cells are numbered 0 to {MAX_CELLS - 1} (a 4x4 board at most), got {text!r}")
    return tuples


def tuples_option(text: str) -> str:
    """The `--tuples` option: checked as `parse_tuples` checks it, kept as text (a run's settings are plain data)."""
    return ";".join(",".join(map(str, cells)) for cells in parse_tuples(text))


def ntuple_for_env(env: Any, tuples: str | Sequence[Sequence[int]] | None, alpha: float,
                   values: str = "afterstate") -> NTupleNetwork:
    """The n-tuple network for an env with square boards (`size`), or one line (RLTorchError) saying why not."""
    if values != "afterstate":
        raise RLTorchError("--value-fn ntuple values boards: use it with --values afterstate")
    size = getattr(env.unwrapped, "size", None)
    if not isinstance(size, int) or not hasattr(env.unwrapped, "afterstate"):
        raise RLTorchError("--value-fn ntuple needs an env of square boards with afterstates (rltorch/2048-v0)")
    if isinstance(tuples, str):
        tuples = parse_tuples(tuples)
    try:
        return NTupleNetwork(size, tuples, alpha)
    except ValueError as error:
        raise RLTorchError(str(error)) from None


class NTupleNetwork(ValueFunction):
    """A sum of lookup tables over tuples of cells, shared over the board's 8 symmetries (see the module)."""

    def __init__(self, size: int = 4, tuples: Sequence[Sequence[int]] | None = None, alpha: float = 0.1) -> None:
        super().__init__()
        self.tuples = check_tuples(size, default_tuples(size) if tuples is None else tuples)
        if not 0.0 < alpha <= 1.0:
            raise ValueError(f"alpha must be in (0, 1], got {alpha}")
        self.size, self.alpha = size, float(alpha)
        features = [(number, tuple(image[each] for each in cells)) for number, cells in enumerate(self.tuples)
                    for image in symmetries(size)]
        starts = np.cumsum([0] + [16 ** len(cells) for cells in self.tuples])
        self.cells = np.zeros((len(features), max(len(cells) for cells in self.tuples)), dtype=np.int64)
        self.lengths = np.array([len(cells) for _, cells in features], dtype=np.int64)
        self.offsets = np.array([starts[number] for number, _ in features], dtype=np.int64)
        for row, (_, cells) in enumerate(features):
            self.cells[row, :len(cells)] = cells
        self.step = self.alpha / len(features)  # each selected weight's share of the error
        self.register_buffer("weights", torch.zeros(int(starts[-1]), dtype=torch.float32))
        self._updates = 0

    def kernel_arguments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The weights (a numpy view sharing the buffer's memory) and the feature arrays the kernels read."""
        return self.weights.numpy(), self.cells, self.lengths, self.offsets

    def _split(self, key: Hashable) -> tuple[int, float]:
        """The packed board of a key and the reward that comes with it (0 for a bare board)."""
        if len(key) == 2 and isinstance(key[0], tuple):
            board, reward = key
        else:
            board, reward = key, 0
        packed = 0
        for index, tile in enumerate(board):
            packed |= tile << (4 * index)
        return (packed - (1 << 64) if packed >= 1 << 63 else packed), float(reward)

    def forward(self, keys: Sequence[Hashable]) -> torch.Tensor:
        """The values of a batch of keys as a float64 tensor: the features' weights summed, plus any reward."""
        split = [self._split(key) for key in keys]
        boards = np.array([packed for packed, _ in split], dtype=np.int64)
        indices = torch.from_numpy(batch_indices(boards, self.cells, self.lengths, self.offsets))
        rewards = torch.tensor([reward for _, reward in split], dtype=torch.float64)
        return self.weights[indices].double().sum(dim=1) + rewards

    def values(self, keys: Sequence[Hashable]) -> list[float]:
        """The values of `keys` as floats (the per-step path: the compiled loop's sums)."""
        weights, cells, lengths, offsets = self.kernel_arguments()
        out = []
        for key in keys:
            packed, reward = self._split(key)
            out.append(reward + board_value(packed, weights, cells, lengths, offsets))
        return out

    def update(self, key: Hashable, target: float) -> float:
        """Move one key's value toward `target`; return the error `target - old value`."""
        weights, cells, lengths, offsets = self.kernel_arguments()
        packed, reward = self._split(key)
        error = target - (reward + board_value(packed, weights, cells, lengths, offsets))
        add_to_board(packed, self.step * error, weights, cells, lengths, offsets)
        self._updates += 1
        return error

    def fit(self, keys: Sequence[Hashable], targets: Sequence[float] | torch.Tensor) -> torch.Tensor:
        """Update each (key, target) in order; return the errors."""
        if isinstance(targets, torch.Tensor):
            targets = targets.tolist()
        if len(keys) != len(targets):
            raise ValueError(f"{len(keys)} keys but {len(targets)} targets")
        return torch.tensor([self.update(key, float(target)) for key, target in zip(keys, targets, strict=True)],
                            dtype=torch.float64)

    def config(self) -> dict[str, Any]:
        """Constructor settings as data."""
        return {"class": type(self).__name__, "size": self.size, "tuples": [list(cells) for cells in self.tuples],
                "alpha": self.alpha}

    def diagnostics(self) -> dict[str, float]:
        """The share of weights ever moved away from zero, logged as `ntuple/used_weights`."""
        return {"ntuple/used_weights": float((self.weights != 0).float().mean())}

    def extra_repr(self) -> str:
        """Describe the network in `repr`."""
        return f"size={self.size}, tuples={self.tuples}, alpha={self.alpha}, weights={self.weights.numel():,}"

"""State features and the linear value function: numbers worked by hand, configs, checkpoints and bad options."""

from __future__ import annotations

import math

import pytest
import torch

from rltorch.checkpoints import value_fn_from_checkpoint
from rltorch.errors import RLTorchError
from rltorch.features import FourierBasis, PolynomialBasis, StateAggregation, features_from_config
from rltorch.values import LinearValueFunction


def test_aggregation_cuts_the_walk_into_groups_of_100():
    features = StateAggregation(10, 1, 1001)
    states = torch.tensor([[1.0], [100.0], [101.0], [550.0], [1000.0]])
    assert features.active(states).reshape(-1).tolist() == [0, 0, 1, 5, 9]
    assert features.encode(states)[2].tolist() == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]


def test_aggregation_in_two_dimensions_numbers_cells_row_by_row():
    features = StateAggregation(2, [0, 0], [1, 1])  # cell = column + 2 * row
    states = torch.tensor([[0.1, 0.1], [0.9, 0.1], [0.1, 0.9], [0.9, 0.9], [5.0, -3.0]])
    assert features.size == 4 and features.active(states).reshape(-1).tolist() == [0, 1, 2, 3, 1]


def test_polynomial_products_by_hand():
    features = PolynomialBasis(2, [0, 0], [1, 1])  # exponents (c1, c2), c1 fastest: 1, s1, s1², s2, s1 s2, ...
    row = features.encode(torch.tensor([[0.5, 0.25]]))[0].tolist()
    assert row == [1, 0.5, 0.25, 0.25, 0.125, 0.0625, 0.0625, 0.03125, 0.015625]
    assert PolynomialBasis(3, 1, 1000).encode(torch.tensor([[1.0], [1000.0]])).tolist() == [[1, 0, 0, 0], [1] * 4]


def test_fourier_cosines_by_hand():
    features = FourierBasis(3, -1.2, 0.6)  # s = 0 scales to 2/3
    row = features.encode(torch.tensor([[0.0]]))[0].tolist()
    expected = [1.0, math.cos(2 * math.pi / 3), math.cos(4 * math.pi / 3), math.cos(2 * math.pi)]
    assert row == pytest.approx(expected, abs=1e-15)
    assert FourierBasis(2, [0, 0], [1, 1]).size == 9


@pytest.mark.parametrize("features", [StateAggregation(4, [0, 0], [2, 3]), PolynomialBasis(3, -1, 1),
                                      FourierBasis(5, [0, 1], [1, 2])])
def test_configs_rebuild_the_same_features(features):
    rebuilt = features_from_config(features.config())
    states = torch.rand(7, len(features.config()["low"]), dtype=torch.float64)
    assert type(rebuilt) is type(features) and torch.equal(rebuilt.encode(states), features.encode(states))


@pytest.mark.parametrize(("build", "message"), [
    (lambda: PolynomialBasis(-1, 0, 1), "order must be an integer >= 0"),
    (lambda: FourierBasis(2.5, 0, 1), "order must be an integer >= 0"),
    (lambda: StateAggregation(0, 0, 1), "groups must be an integer >= 1"),
    (lambda: StateAggregation(3, 1, 1), "high > low"),
    (lambda: FourierBasis(3, [0, 0], [1]), "same positive length"),
    (lambda: FourierBasis(3, 0, math.inf), "finite"),
    (lambda: PolynomialBasis(99, [0] * 4, [1] * 4), "features, more than"),
    (lambda: features_from_config({"kind": "nope"}), "unknown features 'nope'"),
    (lambda: LinearValueFunction(FourierBasis(2, 0, 1), alpha=0.0), "alpha must be a positive number"),
    (lambda: LinearValueFunction(FourierBasis(2, 0, 1), alpha=0.1, actions=0), "actions must be"),
])
def test_bad_options_are_one_line_errors(build, message):
    with pytest.raises(RLTorchError, match=message) as error:
        build()
    assert "\n" not in str(error.value)


def test_semi_gradient_steps_by_hand():
    # Fourier order 1 on [0, 1]: x(0) = (1, 1), x(1) = (1, -1). alpha 0.25.
    value_fn = LinearValueFunction(FourierBasis(1, 0, 1), alpha=0.25)
    errors = value_fn.fit([0.0, 1.0], [2.0, 1.0])
    # first: error 2, w = 0.5 * (1, 1) = (0.5, 0.5); then v(1) = 0.5 - 0.5 = 0, error 1, w += 0.25 * (1, -1)
    assert errors.tolist() == [2.0, 1.0]
    assert value_fn.weights.tolist() == [[0.75, 0.25]]
    assert value_fn([0.0, 1.0, 0.5]).tolist() == pytest.approx([1.0, 0.5, 0.75])
    assert value_fn.diagnostics() == {"linear/weight_norm": pytest.approx(math.sqrt(0.75**2 + 0.25**2))}


def test_action_values_keep_one_weight_row_per_action():
    q = LinearValueFunction(StateAggregation(3, 0, 3), alpha=0.5, actions=2)
    q.fit([(2.5, 1), (0.2, 0)], [4.0, -2.0])
    assert q.weights.tolist() == [[-1, 0, 0], [0, 0, 2]]
    assert q([(2.9, 1), (0.0, 0), (0.0, 1)]).tolist() == [2, -1, 0]
    indices, values = q.gradient((2.5, 1))
    assert indices.tolist() == [5] and values.tolist() == [1.0]  # flat index: action 1's row, feature 2
    q.add(torch.tensor([5, 5, 0]), torch.tensor([1.0, 2.0, 1.0], dtype=torch.float64), 0.5)  # repeats add up
    assert q.weights.tolist() == [[-0.5, 0, 0], [0, 0, 3.5]]
    with pytest.raises(RLTorchError, match="actions must be in 0..1"):
        q([(0.0, 2)])


def test_a_checkpoint_is_data_and_rebuilds_the_value_function(tmp_path):
    value_fn = LinearValueFunction(PolynomialBasis(2, -1, 1), alpha=0.1)
    value_fn.fit([0.3, -0.7], [1.0, 2.0])
    path = tmp_path / "linear.pt"
    torch.save({"value_fn_config": value_fn.config(), "value_fn_state": value_fn.state_dict()}, path)
    rebuilt = value_fn_from_checkpoint(torch.load(path, weights_only=True), path)
    assert torch.equal(rebuilt.weights, value_fn.weights) and rebuilt.config() == value_fn.config()

import io
import random

import pytest
import torch

from rltorch.policies import (
    ConstantSchedule,
    ExponentialSchedule,
    LinearSchedule,
    epsilon_greedy,
    greedy,
    make_schedule,
)
from rltorch.targets import (
    epsilon_greedy_expectation,
    epsilon_greedy_probabilities,
    expected_sarsa_target,
    monte_carlo_returns,
    n_step_return,
    q_learning_target,
    sarsa_target,
    step_toward,
)
from rltorch.values import QTable, VTable


def test_constant_alpha_update_by_hand():
    table = QTable(alpha=0.1)
    assert table.update(("s", 0), 1.0) == pytest.approx(1.0)  # error from 0
    assert table.value(("s", 0)) == pytest.approx(0.1)
    assert table.update(("s", 0), -1.0) == pytest.approx(-1.1)
    assert table.value(("s", 0)) == pytest.approx(0.1 + 0.1 * (-1.1))  # 0.1 - 0.11 = -0.01


def test_sample_average_is_the_mean_of_the_targets():
    table = VTable(alpha=None)
    for target in (1.0, 0.0, 0.5, -1.0):
        table.update("s", target)
    assert table.value("s") == pytest.approx(0.125)  # (1 + 0 + 0.5 - 1) / 4
    assert table.counts["s"] == 4


def test_unseen_keys_read_the_initial_value_and_len_counts_written_keys():
    table = QTable(initial=0.5)
    assert table.values([("a", 1), ("b", 2)]) == [0.5, 0.5]
    table.update(("a", 1), 1.0)
    assert len(table) == 1 and ("a", 1) in table and ("b", 2) not in table


def test_batch_forward_and_fit_match_the_single_key_path():
    table = VTable(alpha=0.5)
    errors = table.fit(["a", "b", "a"], torch.tensor([1.0, 2.0, 3.0]))
    assert errors.tolist() == pytest.approx([1.0, 2.0, 2.5])  # a: 0 -> 0.5 -> 1.75
    assert table(["a", "b", "c"]).tolist() == pytest.approx([1.75, 1.0, 0.0])
    with pytest.raises(ValueError, match="2 keys but 1 targets"):
        table.fit(["a", "b"], [1.0])


def test_bad_alpha_is_refused():
    with pytest.raises(ValueError, match="alpha"):
        QTable(alpha=0.0)


def test_state_dict_holds_the_entries_and_loads_with_weights_only():
    table = QTable(alpha=None)
    table.update(((0,) * 9, 4), 1.0)
    table.update(((1, -1, 0, 0, 0, 0, 0, 0, 0), 8), -0.5)
    buffer = io.BytesIO()
    torch.save(table.state_dict(), buffer)
    buffer.seek(0)
    restored = QTable()
    restored.load_state_dict(torch.load(buffer, weights_only=True))
    assert restored.table == table.table and restored.counts == table.counts and restored.alpha is None


def test_targets_by_hand():
    assert sarsa_target(0.0, 0.8, 0.9, False) == pytest.approx(0.72)
    assert sarsa_target(-1.0, 0.8, 0.9, True) == -1.0
    assert q_learning_target(0.0, [0.8, -0.4, 0.1], 0.9, False) == pytest.approx(0.72)
    assert q_learning_target(1.0, [0.8], 0.9, True) == 1.0
    assert expected_sarsa_target(0.0, [1.0, 0.0], 0.5, 0.5, False) == pytest.approx(0.375)  # pi = [0.75, 0.25]
    assert expected_sarsa_target(0.5, [1.0], 0.1, 0.5, True) == 0.5
    assert n_step_return([1.0, 2.0], 0.5, 4.0) == 1.0 + 0.5 * (2.0 + 0.5 * 4.0)
    assert n_step_return([1.0, 2.0], 0.5, None) == 2.0
    assert monte_carlo_returns([0.0, 0.0, 1.0], 0.9) == pytest.approx([0.81, 0.9, 1.0])
    assert monte_carlo_returns([1.0, -1.0], 1.0) == [0.0, -1.0]


def test_the_engine_compiles_the_trainers_targets_float_for_float():
    # The batched engine calls these functions compiled by numba (rltorch.engines.core registers them): on random
    # inputs they give the Python floats exactly, the expectation the floats of epsilon_greedy_probabilities summed
    # from 0, and step_toward is QTable.update's arithmetic. Mutant: the expectation summed in another order.
    import numpy as np
    from numba import njit

    import rltorch.engines.core  # noqa: F401 - registers the targets with numba

    q_target = njit(lambda r, values, gamma, ended: q_learning_target(r, values, gamma, ended))
    e_target = njit(lambda r, values, epsilon, gamma, ended: expected_sarsa_target(r, values, epsilon, gamma, ended))
    n_return = njit(lambda rewards, gamma, bootstrap: n_step_return(rewards, gamma, bootstrap))
    toward = njit(lambda value, alpha, target: step_toward(value, alpha, target))
    rng = random.Random(4)
    for _ in range(200):
        values = [rng.choice([0.0, -1.0, rng.uniform(-5, 5)]) for _ in range(rng.randint(1, 5))]
        r, gamma, epsilon, alpha = rng.uniform(-2, 2), rng.random(), rng.random(), rng.random()
        array = np.array(values)
        assert q_target(r, array, gamma, False) == q_learning_target(r, values, gamma, False)
        assert e_target(r, array, epsilon, gamma, False) == expected_sarsa_target(r, values, epsilon, gamma, False)
        terms = [p * v for p, v in zip(epsilon_greedy_probabilities(values, epsilon), values, strict=True)]
        assert epsilon_greedy_expectation(values, epsilon) == sum(terms)
        assert n_return(array, gamma, values[0]) == n_step_return(values, gamma, values[0])
        table = QTable(alpha=alpha)
        table.table["k"] = values[0]
        table.update("k", r)
        assert toward(values[0], alpha, r) == step_toward(values[0], alpha, r) == table.value("k")


def test_greedy_breaks_ties_at_random_and_epsilon_greedy_explores():
    rng = random.Random(0)
    picks = {greedy([1.0, 3.0, 3.0, 0.0], rng) for _ in range(50)}
    assert picks == {1, 2}
    assert greedy([1.0, 3.0, 3.0]) == 1  # no generator: the first maximum
    explored = {epsilon_greedy([0.0, 1.0, 0.0], 1.0, rng) for _ in range(100)}
    assert explored == {0, 1, 2}
    assert {epsilon_greedy([0.0, 1.0, 0.0], 0.0, rng) for _ in range(20)} == {1}


def test_schedules():
    exponential = ExponentialSchedule()
    assert exponential(0) == pytest.approx(1.0)
    assert exponential(10_000) == pytest.approx(0.01 + 0.99 * 0.36787944117144233)
    assert LinearSchedule(1.0, 0.0, 100)(50) == pytest.approx(0.5)
    assert LinearSchedule(1.0, 0.0, 100)(500) == 0.0
    assert ConstantSchedule(0.2)(10**6) == 0.2
    assert make_schedule("linear", 1.0, 0.1, 10)(10) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="unknown epsilon schedule"):
        make_schedule("cosine")
    with pytest.raises(ValueError, match="start must be in"):
        make_schedule("constant", start=1.5)

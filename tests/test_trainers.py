import random

import gymnasium as gym
import pytest

from rltorch import AfterstateKeys, MCTrainer, QLearningTrainer, QTable, SARSATrainer, VTable
from rltorch.envs.tictactoe.env import TicTacToeEnv, afterstate
from rltorch.policies import ConstantSchedule, epsilon_greedy
from tests.helpers import ScriptedOpponent

EMPTY = (0,) * 9
AFTER_4_0 = (-1, 0, 0, 0, 1, 0, 0, 0, 0)  # X took 4, O replied 0


def greedy_trainer(cls, opponent_moves, table, **kwargs):
    """A trainer with epsilon 0 against a scripted opponent."""
    env = TicTacToeEnv(ScriptedOpponent(opponent_moves))
    return cls(env, table, gamma=0.9, schedule=ConstantSchedule(0.0), seed=0, **kwargs)


def test_one_sarsa_update_by_hand():
    # Q(empty, 4) = 0.5 makes 4 the greedy first move; O replies 0; in S' the greedy A' is 8 (0.8).
    table = QTable(alpha=0.1)
    table.table.update({(EMPTY, 4): 0.5, (AFTER_4_0, 8): 0.8})
    trainer = greedy_trainer(SARSATrainer, [0, 1, 2], table)
    trainer.run_episode(0.0)
    # Q(S, A) <- 0.5 + 0.1 * (0 + 0.9 * 0.8 - 0.5) = 0.522
    assert table.value((EMPTY, 4)) == pytest.approx(0.522)


def test_one_q_learning_update_by_hand():
    # In S' the best legal value is 0.8 (cell 8); -0.4 on cell 2 does not matter to the max.
    table = QTable(alpha=0.1)
    table.table.update({(EMPTY, 4): 0.5, (AFTER_4_0, 8): 0.8, (AFTER_4_0, 2): -0.4})
    trainer = greedy_trainer(QLearningTrainer, [0, 1, 2], table)
    trainer.run_episode(0.0)
    assert table.value((EMPTY, 4)) == pytest.approx(0.5 + 0.1 * (0.9 * 0.8 - 0.5))


def test_one_mc_episode_by_hand():
    # X plays 0, 1, 2 (greedy by preset values) while O plays 3, 4: X wins on its third move.
    after_0 = (1, 0, 0, -1, 0, 0, 0, 0, 0)
    after_1 = (1, 1, 0, -1, -1, 0, 0, 0, 0)
    table = QTable(alpha=0.1)
    table.table.update({(EMPTY, 0): 0.01, (after_0, 1): 0.01, (after_1, 2): 0.01})
    trainer = greedy_trainer(MCTrainer, [3, 4], table)
    assert trainer.run_episode(0.0) == 1.0
    # returns 0.81, 0.9, 1.0; each value moves 10% of the way from 0.01.
    assert table.value((EMPTY, 0)) == pytest.approx(0.01 + 0.1 * 0.80)
    assert table.value((after_0, 1)) == pytest.approx(0.01 + 0.1 * 0.89)
    assert table.value((after_1, 2)) == pytest.approx(0.01 + 0.1 * 0.99)


def test_terminal_steps_use_only_the_reward():
    # Win after our move: target R' = 1. Loss after the reply: target R'' = -1.
    table = QTable(alpha=1.0)
    after_0 = (1, 0, 0, -1, 0, 0, 0, 0, 0)
    after_1 = (1, 1, 0, -1, -1, 0, 0, 0, 0)
    table.table.update({(EMPTY, 0): 0.1, (after_0, 1): 0.1, (after_1, 2): 0.1})
    greedy_trainer(SARSATrainer, [3, 4], table).run_episode(0.0)
    assert table.value((after_1, 2)) == 1.0
    # X: 0, 8, then 1 (not the block at 5); O: 3, 4, then 5 completes its row.
    threatened = (1, 0, 0, -1, -1, 0, 0, 0, 1)
    loss = QTable(alpha=1.0)
    loss.table.update({(EMPTY, 0): 0.1, (after_0, 8): 0.1, (threatened, 1): 0.1})
    assert greedy_trainer(SARSATrainer, [3, 4, 5], loss).run_episode(0.0) == -1.0
    assert loss.value((threatened, 1)) == -1.0


def test_afterstate_sarsa_bootstraps_from_the_afterstate_of_the_next_move():
    # Keys are boards after our move. After X:4, O:0 the next move is 8, so the next key is the
    # board with X on 4 and 8 and O on 0, not the board O left behind.
    first = afterstate(EMPTY, 4)
    following = afterstate(AFTER_4_0, 8)
    assert following == (-1, 0, 0, 0, 1, 0, 0, 0, 1)
    table = VTable(alpha=0.1)
    table.table.update({first: 0.5, following: 0.8})
    env = TicTacToeEnv(ScriptedOpponent([0, 1, 2]))
    trainer = SARSATrainer(env, table, keys=AfterstateKeys(afterstate), schedule=ConstantSchedule(0.0), seed=0)
    trainer.run_episode(0.0)
    assert table.value(first) == pytest.approx(0.522)
    assert AFTER_4_0 not in table


def test_choose_draws_like_epsilon_greedy():
    trainer = SARSATrainer(TicTacToeEnv(), QTable(), seed=7)
    trainer.env.reset()
    values = [0.0, 0.3, 0.3, 0.0, 0.1, 0.0, 0.3, 0.0, 0.0]
    trainer.value_fn.table.update({(EMPTY, a): v for a, v in enumerate(values)})
    reference = random.Random(7)
    for epsilon in (0.0, 0.3, 1.0) * 20:
        action, key = trainer.choose(EMPTY, epsilon)
        assert action == epsilon_greedy(values, epsilon, reference) and key == (EMPTY, action)


@pytest.mark.parametrize("cls", [SARSATrainer, QLearningTrainer, MCTrainer])
def test_the_same_seed_gives_identical_tables(cls):
    def run(seed):
        trainer = cls(TicTacToeEnv(), QTable(alpha=0.1), seed=seed)
        trainer.train(2000, progress=False, eval_every=500, eval_games=20)
        return trainer.value_fn.table

    first, second = run(3), run(3)
    assert first == second and len(first) > 1000
    assert run(4) != first


def test_sarsa_learns_to_beat_the_random_opponent():
    trainer = SARSATrainer(TicTacToeEnv(), QTable(alpha=0.1), seed=0)
    before = trainer.test(300)
    trainer.train(20_000, progress=False, eval_every=0)
    after = trainer.test(300)
    assert after.outcomes.wins > before.outcomes.wins and after.outcomes.losses < 0.05 * 300
    assert after.mean_return > before.mean_return


def test_callback_can_stop_training_early():
    trainer = SARSATrainer(TicTacToeEnv(), QTable(), seed=0)
    trainer.train(10_000, log_every=100, eval_every=0, progress=False, callback=lambda t: t.episodes_done < 300)
    assert trainer.episodes_done == 300


def test_trainers_run_on_an_env_without_legal_actions():
    env = gym.make("Blackjack-v1")
    trainer = MCTrainer(env, QTable(alpha=None), gamma=1.0, seed=0)
    trainer.train(500, progress=False, eval_every=0)
    assert len(trainer.value_fn) > 50
    # Gymnasium's Blackjack-v1 does not declare itself a game: returns and lengths, no outcome counts.
    stats = trainer.test(50)
    assert stats.episodes == 50 and stats.outcomes is None and -1 <= stats.mean_return <= 1

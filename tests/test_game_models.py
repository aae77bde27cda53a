"""The blackjack and tic-tac-toe FiniteModels, solved by the generic solvers, against the hand-written oracles."""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

import pytest

from rltorch.envs.blackjack import solver as bj
from rltorch.envs.blackjack.env import HIT, STICK
from rltorch.envs.blackjack.evaluation import StickAtLeast
from rltorch.envs.blackjack.model import blackjack_model, model_policy, natural_state
from rltorch.envs.tictactoe.env import O, X, legal_moves
from rltorch.envs.tictactoe.exact import ExpectimaxAgent, best_outcome_vs_random, exact_outcome_vs_random
from rltorch.envs.tictactoe.model import smart_strategy, tictactoe_model
from rltorch.envs.tictactoe.opponents import SmartRandomOpponent
from rltorch.envs.tictactoe.solver import EMPTY_BOARD, learner_positions
from rltorch.errors import RLTorchError
from rltorch.mdp import (
    deterministic_policy,
    evaluate_policy,
    expected_return,
    outcome_probabilities,
    value_iteration,
)

TOL = 1e-12


# ---------------------------------------------------------------- blackjack


@pytest.fixture(scope="module")
def book():
    return blackjack_model(bj.BOOK_RULES)


def assert_q_star_agrees(model, rules):
    q = value_iteration(model, gamma=1.0).q
    oracle = bj.q_star(rules)
    assert set(oracle) <= set(model.states)
    for state, (stick, hit) in oracle.items():
        assert q[(state, STICK)] == pytest.approx(stick, abs=TOL), state
        assert q[(state, HIT)] == pytest.approx(hit, abs=TOL), state


def test_blackjack_models_validate_with_the_solver_states(book):
    assert book.validate() is book
    assert book.states == bj.states()
    gym = blackjack_model(bj.GYMNASIUM_RULES).validate()
    assert gym.states == bj.states(include_low_sums=True)
    assert (len(book.states), len(gym.states)) == (200, 280)


def test_blackjack_book_q_star_equals_the_oracle(book):
    assert_q_star_agrees(book, bj.BOOK_RULES)


def test_blackjack_gymnasium_q_star_equals_the_oracle():
    assert_q_star_agrees(blackjack_model(bj.GYMNASIUM_RULES), bj.GYMNASIUM_RULES)


def test_blackjack_dealer_hits_soft_17_q_star_equals_the_oracle():
    rules = bj.Rules(dealer_hits_soft_17=True)
    assert_q_star_agrees(blackjack_model(rules), rules)


def test_blackjack_stick_on_20_value_equals_the_oracle(book):
    policy = StickAtLeast(20)
    v = evaluate_policy(book, deterministic_policy({s: policy(s) for s in book.states}), gamma=1.0)
    oracle = bj.policy_value(policy)
    assert len(oracle) == 200
    for state, value in oracle.items():
        assert v[state] == pytest.approx(value, abs=TOL), state


def test_blackjack_optimum_from_the_deal_equals_the_oracle(book):
    # The start distribution is the whole deal (a two-card 21 is a soft 21 under the book's rules): no conditioning.
    assert sum(book.start.values()) == pytest.approx(1.0, abs=1e-12)
    value = expected_return(book, deterministic_policy(value_iteration(book, gamma=1.0).policy), gamma=1.0)
    assert value == pytest.approx(bj.optimal_return(), abs=TOL)
    assert value == pytest.approx(-0.0465560, abs=1e-7)


def test_blackjack_start_is_the_solvers_deal_times_the_up_card(book):
    cards = bj.card_probabilities()
    for (total, usable), p in bj.start_distribution().items():
        for card, p_card in cards.items():
            assert book.start[(total, card, usable)] == pytest.approx(p * p_card, abs=1e-15)
    assert len(book.start) == len(bj.start_distribution()) * 10


@pytest.mark.parametrize("payout", [1.0, 1.5])
def test_blackjack_naturals_are_settled_start_states(payout):
    rules = bj.Rules(natural=True, natural_payout=payout)
    model = blackjack_model(rules)
    naturals = [natural_state(card) for card in range(1, 11)]
    assert model.states[200:] == naturals
    assert sum(model.start[s] for s in naturals) == pytest.approx(8 / 169, abs=1e-15)
    policy = deterministic_policy(model_policy(bj.optimal_policy(rules), model))
    assert expected_return(model, policy, gamma=1.0) == pytest.approx(bj.optimal_return(rules), abs=TOL)
    ace = {t.reward: t.probability for t in model.transitions[(natural_state(1), HIT)]}
    assert ace == pytest.approx({payout: 9 / 13, 0.0: 4 / 13}, abs=1e-15)


def test_blackjack_hitting_hard_20_busts_unless_an_ace(book):
    outcomes = book.transitions[((20, 7, 0), HIT)]
    assert len(outcomes) == 2
    ace, bust = sorted(outcomes, key=lambda t: t.terminal)
    assert (ace.next_state, ace.reward, ace.terminal) == ((21, 7, 0), 0.0, False)
    assert ace.probability == pytest.approx(1 / 13, abs=1e-15)
    assert (bust.reward, bust.terminal) == (-1.0, True)
    assert bust.probability == pytest.approx(12 / 13, abs=1e-15)


def test_blackjack_soft_hand_turns_hard_instead_of_busting(book):
    outcomes = {t.next_state: t.probability for t in book.transitions[((12, 3, 1), HIT)]}
    assert all(not t.terminal for t in book.transitions[((12, 3, 1), HIT)])
    assert outcomes[(12, 3, 0)] == pytest.approx(4 / 13, abs=1e-15)  # a ten: soft 12 becomes hard 12
    assert outcomes[(13, 3, 1)] == pytest.approx(1 / 13, abs=1e-15)


def test_blackjack_refuses_rules_it_does_not_model():
    @dataclass(frozen=True)
    class HouseRules(bj.Rules):
        surrender: bool = False

    assert len(blackjack_model(HouseRules()).states) == 200
    with pytest.raises(RLTorchError, match="surrender"):
        blackjack_model(HouseRules(surrender=True))
    with pytest.raises(RLTorchError, match="Rules"):
        blackjack_model({"natural": True})


# ---------------------------------------------------------------- tic-tac-toe


@pytest.fixture(scope="module")
def ttt():
    return {seat: tictactoe_model(seat) for seat in "XO"}


@pytest.fixture(scope="module")
def ttt_solutions(ttt):
    # The game tree is acyclic (at most 5 learner moves), so plain sweeps are exact after 6: skip the linear polish.
    return {seat: value_iteration(model, gamma=1.0, exact=False) for seat, model in ttt.items()}


class PolicyAgent:
    """A deterministic agent reading a {board: cell} table."""

    def __init__(self, choice):
        self.choice = choice

    def act(self, board, legal_actions):
        return self.choice[tuple(board)]


class FirstCell:
    def act(self, board, legal_actions):
        return legal_actions[0]


class LastCell:
    def act(self, board, legal_actions):
        return legal_actions[-1]


class SeededTable:
    """Greedy over a seeded random table of q values, filled in a fixed order before any play."""

    def __init__(self, seat, seed):
        rng = random.Random(seed)
        self.q = {(b, m): rng.random() for b in sorted(learner_positions(seat)) for m in legal_moves(b)}

    def act(self, board, legal_actions):
        return max(legal_actions, key=lambda move: self.q[(tuple(board), move)])


def test_tictactoe_models_validate_over_the_reachable_decision_boards(ttt):
    for seat, model in ttt.items():
        assert model.validate() is model
        assert set(model.states) == set(learner_positions(seat))
    assert (len(ttt["X"].states), len(ttt["O"].states)) == (2423, 2097)
    assert ttt["X"].start == {EMPTY_BOARD: 1.0}
    assert len(ttt["O"].start) == 9 and all(p == pytest.approx(1 / 9) for p in ttt["O"].start.values())


def test_tictactoe_x_optimum_vs_random_wins_191_of_192(ttt, ttt_solutions):
    policy = deterministic_policy(ttt_solutions["X"].policy)
    outcome = outcome_probabilities(ttt["X"], policy)
    assert outcome["win"] == pytest.approx(191 / 192, abs=TOL)
    assert outcome.get("loss", 0.0) == pytest.approx(0.0, abs=TOL)
    assert expected_return(ttt["X"], policy, gamma=1.0) == pytest.approx(191 / 192, abs=TOL)


def test_tictactoe_o_expected_return_optimum_beats_the_never_losing_policy(ttt, ttt_solutions):
    policy = deterministic_policy(ttt_solutions["O"].policy)
    outcome = outcome_probabilities(ttt["O"], policy)
    score = best_outcome_vs_random("O", "score")  # 883/945 win, 53/945 draw, 1/105 loss: expected 874/945
    safe = best_outcome_vs_random("O", "safe")  # 866/945 win, never a loss
    assert safe["win"] == Fraction(866, 945) and safe["loss"] == 0
    value = expected_return(ttt["O"], policy, gamma=1.0)
    assert value == pytest.approx(float(score["win"] - score["loss"]), abs=TOL)
    assert value >= float(safe["win"] - safe["loss"])
    for key in ("win", "draw", "loss"):
        assert outcome[key] == pytest.approx(float(score[key]), abs=TOL)


@pytest.mark.parametrize("seat", ["X", "O"])
def test_tictactoe_greedy_agents_match_the_exact_evaluator(ttt, ttt_solutions, seat):
    model = ttt[seat]
    agents = [FirstCell(), LastCell(), SeededTable(seat, 7), ExpectimaxAgent("win"),
              PolicyAgent(ttt_solutions[seat].policy)]
    for agent in agents:
        choice = {board: agent.act(board, model.legal_actions(board)) for board in model.states}
        ours = outcome_probabilities(model, deterministic_policy(choice))
        exact = exact_outcome_vs_random(agent, seat)
        for key in ("win", "draw", "loss"):
            assert ours.get(key, 0.0) == pytest.approx(float(exact[key]), abs=TOL), (type(agent).__name__, key)


def test_tictactoe_transitions_by_hand(ttt):
    model = ttt["X"]
    board = (X, X, 0, O, O, 0, 0, 0, 0)
    assert model.transitions[(board, 2)] == [(1.0, (X, X, X, O, O, 0, 0, 0, 0), 1.0, True)]
    after_8 = {t.next_state: (t.probability, t.reward, t.terminal) for t in model.transitions[(board, 8)]}
    assert after_8 == {
        (X, X, O, O, O, 0, 0, 0, X): (0.25, 0.0, False),
        (X, X, 0, O, O, O, 0, 0, X): (0.25, -1.0, True),
        (X, X, 0, O, O, 0, O, 0, X): (0.25, 0.0, False),
        (X, X, 0, O, O, 0, 0, O, X): (0.25, 0.0, False),
    }
    full = (X, O, X, X, O, O, O, X, 0)
    assert model.transitions[(full, 8)] == [(1.0, (X, O, X, X, O, O, O, X, X), 0.0, True)]


def test_tictactoe_o_fills_the_board_as_a_draw_after_the_reply(ttt):
    board = (X, O, X, X, O, O, 0, X, 0)  # O to move; O at 6 leaves X cell 8, which fills the board
    outcomes = ttt["O"].transitions[(board, 6)]
    assert outcomes == [(1.0, (X, O, X, X, O, O, O, X, X), 0.0, True)]


class ScriptedRng:
    """random() and randrange() fixed in advance, to enumerate the smart opponent's every branch."""

    def __init__(self, draw, index):
        self.draw, self.index = draw, index

    def random(self):
        return self.draw

    def randrange(self, n):
        return self.index


@pytest.mark.parametrize("board", [EMPTY_BOARD, (X, X, 0, O, 0, 0, 0, 0, 0), (X, X, 0, O, O, 0, X, 0, 0),
                                   (X, 0, 0, 0, O, 0, 0, 0, X)])
def test_smart_strategy_is_the_smart_opponents_exact_distribution(board):
    p = 0.8
    legal = legal_moves(board)
    expected = {move: Fraction(0) for move in legal}
    for draw, weight in ((0.0, Fraction(p)), (0.999, 1 - Fraction(p))):
        for index in range(len(legal)):
            cell = SmartRandomOpponent(p).act(board, legal, ScriptedRng(draw, index))
            expected[cell] += weight / len(legal)
    assert dict(smart_strategy(p)(board)) == expected


def test_tictactoe_against_perfect_play_is_a_draw_at_best():
    for seat in "XO":
        model = tictactoe_model(seat, "perfect")
        solution = value_iteration(model, gamma=1.0, exact=False)
        assert len(model.states) < len(learner_positions(seat))
        outcome = outcome_probabilities(model, deterministic_policy(solution.policy))
        assert outcome.get("draw", 0.0) == pytest.approx(1.0, abs=TOL)


def test_tictactoe_refuses_other_seats_and_the_self_play_opponent():
    with pytest.raises(RLTorchError, match="seat"):
        tictactoe_model("both")
    with pytest.raises(RLTorchError, match="self-play"):
        tictactoe_model("X", "self")

"""Plain-Python blackjack Monte Carlo: the baselines rltorch's MCTrainer is measured against.

`book_prediction` and `book_es` do what the book's companion code does, the way it does it: a
`play(policy, initial_state, initial_action)` function that deals from an infinite deck with one
NumPy draw per card, a policy called per decision, a recorded trajectory, and NumPy arrays of
sums and counts (counts start at 1, as there); MC ES picks the greedy action with NumPy and
breaks ties at random. The one change: a seeded `RandomState` passed in, not NumPy's global RNG.
Prediction updates every state of the trajectory (the book's first-visit algorithm).

`lean_prediction` and `lean_es` are the same algorithms hand-tuned in pure Python (one
`random.Random`, flat lists): not the book's code, a marker for how far a tight loop goes.
"""

from __future__ import annotations

import random
import sys

import numpy as np

STICK, HIT = 0, 1


def _value(card: int) -> int:
    """An ace counts 11 when first added."""
    return 11 if card == 1 else card


def play(policy, rng: np.random.RandomState, initial_state=None, initial_action=None):
    """One hand as the companion code plays it; return (reward, [((usable, sum, dealer), action), ...])."""
    trajectory = []
    if initial_state is None:
        player_sum, usable = 0, False
        while player_sum < 12:
            card = min(rng.randint(1, 14), 10)
            player_sum += _value(card)
            if player_sum > 21:
                player_sum -= 10
            else:
                usable |= card == 1
        dealer_up, dealer_hidden = min(rng.randint(1, 14), 10), min(rng.randint(1, 14), 10)
    else:
        usable, player_sum, dealer_up = initial_state
        dealer_hidden = min(rng.randint(1, 14), 10)
    dealer_sum = _value(dealer_up) + _value(dealer_hidden)
    dealer_usable = 1 in (dealer_up, dealer_hidden)
    if dealer_sum > 21:
        dealer_sum -= 10
    while True:
        if initial_action is not None:
            action, initial_action = initial_action, None
        else:
            action = policy(usable, player_sum, dealer_up)
        trajectory.append(((usable, player_sum, dealer_up), action))
        if action == STICK:
            break
        card = min(rng.randint(1, 14), 10)
        aces = int(usable) + (card == 1)
        player_sum += _value(card)
        while player_sum > 21 and aces:
            player_sum -= 10
            aces -= 1
        if player_sum > 21:
            return -1, trajectory
        usable = aces == 1
    while dealer_sum < 17:
        card = min(rng.randint(1, 14), 10)
        aces = int(dealer_usable) + (card == 1)
        dealer_sum += _value(card)
        while dealer_sum > 21 and aces:
            dealer_sum -= 10
            aces -= 1
        if dealer_sum > 21:
            return 1, trajectory
        dealer_usable = aces == 1
    if player_sum > dealer_sum:
        return 1, trajectory
    if player_sum == dealer_sum:
        return 0, trajectory
    return -1, trajectory


def stick_on_20(usable: bool, player_sum: int, dealer_card: int) -> int:
    """The evaluated policy: stick on 20 and 21."""
    return STICK if player_sum >= 20 else HIT


def book_prediction(episodes: int, seed: int = 0) -> np.ndarray:
    """First-visit MC prediction of stick-on-20; return V as an array [usable, sum - 12, dealer - 1]."""
    rng = np.random.RandomState(seed)
    sums, counts = np.zeros((2, 10, 10)), np.ones((2, 10, 10))
    for _ in range(episodes):
        reward, trajectory = play(stick_on_20, rng)
        for (usable, player_sum, dealer_card), _ in trajectory:
            sums[int(usable), player_sum - 12, dealer_card - 1] += reward
            counts[int(usable), player_sum - 12, dealer_card - 1] += 1
    return sums / counts


def book_es(episodes: int, seed: int = 0) -> np.ndarray:
    """MC with exploring starts; return Q as an array [usable, sum - 12, dealer - 1, action]."""
    rng = np.random.RandomState(seed)
    sums, counts = np.zeros((2, 10, 10, 2)), np.ones((2, 10, 10, 2))

    def greedy(usable: bool, player_sum: int, dealer_card: int) -> int:
        cell = (int(usable), player_sum - 12, dealer_card - 1)
        means = sums[cell] / counts[cell]
        return rng.choice([a for a, mean in enumerate(means) if mean == np.max(means)])

    for episode in range(episodes):
        start = (bool(rng.choice([0, 1])), rng.choice(range(12, 22)), rng.choice(range(1, 11)))
        reward, trajectory = play(greedy if episode else stick_on_20, rng, start, rng.choice([STICK, HIT]))
        seen = set()
        for (usable, player_sum, dealer_card), action in trajectory:
            index = (int(usable), player_sum - 12, dealer_card - 1, action)
            if index not in seen:
                seen.add(index)
                sums[index] += reward
                counts[index] += 1
    return sums / counts


CARDS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)


def _lean_deal(draw) -> tuple[int, int, int]:
    """(sum, dealer card, usable) after the automatic draws below 12."""
    total, usable = 0, 0
    while total < 12:
        card = CARDS[int(draw() * 13)]
        if card == 1 and total <= 10:
            total, usable = total + 11, 1
        else:
            total += card
    return total, CARDS[int(draw() * 13)], usable


def _lean_reward(draw, player_sum: int, dealer_up: int) -> int:
    """The dealer plays from the up card and a hidden card; the player's reward for sticking on `player_sum`."""
    hidden = CARDS[int(draw() * 13)]
    hard, ace = dealer_up + hidden, dealer_up == 1 or hidden == 1
    total = hard + 10 if ace and hard <= 11 else hard
    while total < 17:
        card = CARDS[int(draw() * 13)]
        hard, ace = hard + card, ace or card == 1
        total = hard + 10 if ace and hard <= 11 else hard
    if total > 21:
        return 1
    return (player_sum > total) - (player_sum < total)


def _lean_hit(draw, player_sum: int, usable: int) -> tuple[int, int]:
    """The hand after a hit from 12 or more (a drawn ace counts 1); a sum over 21 is a bust."""
    player_sum += CARDS[int(draw() * 13)]
    if player_sum > 21 and usable:
        return player_sum - 10, 0
    return player_sum, usable


def lean_prediction(episodes: int, seed: int = 0) -> tuple[list[float], list[int]]:
    """First-visit MC prediction of stick-on-20; return (sums, counts) indexed usable*100 + (sum-12)*10 + dealer-1."""
    draw = random.Random(seed).random
    sums, counts = [0.0] * 200, [0] * 200
    for _ in range(episodes):
        player_sum, dealer_up, usable = _lean_deal(draw)
        visited, reward = [], None
        while reward is None:
            visited.append(usable * 100 + (player_sum - 12) * 10 + dealer_up - 1)
            if player_sum >= 20:
                reward = _lean_reward(draw, player_sum, dealer_up)
                break
            player_sum, usable = _lean_hit(draw, player_sum, usable)
            if player_sum > 21:
                reward = -1
        for index in visited:
            sums[index] += reward
            counts[index] += 1
    return sums, counts


def lean_es(episodes: int, seed: int = 0) -> tuple[list[float], list[int]]:
    """MC ES with sample averages; return (sums, counts) indexed 2 * state index + action."""
    rng = random.Random(seed)
    draw = rng.random
    sums, counts = [0.0] * 400, [0] * 400
    for _ in range(episodes):
        player_sum, dealer_up, usable = 12 + rng.randrange(10), 1 + rng.randrange(10), rng.randrange(2)
        action, visited, reward = rng.randrange(2), [], None
        while reward is None:
            index = 2 * (usable * 100 + (player_sum - 12) * 10 + dealer_up - 1)
            if action is None:
                stick = sums[index] / counts[index] if counts[index] else 0.0
                hit = sums[index + 1] / counts[index + 1] if counts[index + 1] else 0.0
                action = HIT if hit > stick else STICK if stick > hit else rng.randrange(2)
            visited.append(index + action)
            if action == STICK:
                reward = _lean_reward(draw, player_sum, dealer_up)
                break
            player_sum, usable = _lean_hit(draw, player_sum, usable)
            action = None
            if player_sum > 21:
                reward = -1
        for index in visited:
            sums[index] += reward
            counts[index] += 1
    return sums, counts


if __name__ == "__main__":
    print("plain_blackjack.py is a module of blackjack_speed.py"
          "; run python bench/blackjack_speed.py --help", file=sys.stderr)
    sys.exit(2)

"""Monte Carlo ES on blackjack dealt from a shoe, a batch of episodes at a time in torch (the Thorp study's engine).

The game is `BlackjackEnv(decks=k, dealer_peeks=..., expanded_state=True, player_draws_below_12=False)`:
hit or stand, the dealer stands on soft 17 (hits it with `dealer_hits_soft_17`), a two-card 21 is an
ordinary 21. Each episode draws a start uniformly from `starts` (hand ranks, dealer up rank), takes
those cards out of a fresh shoe (`decks=None`: every draw is one of 13 ranks with equal chance),
deals the hidden card, takes a uniformly random first action, then plays greedily on the current
action values. With `dealer_peeks` an ace or ten up with a natural underneath ends the hand before
the player decides: that episode makes no decision, so it updates nothing (`peeked_naturals`).

Learning is first-visit Monte Carlo with sample averages: each (state, action) keeps the integer
sum of its returns and its visit count (a hand never meets a state twice, so first-visit is every
visit). The greedy policy is read off the averages before each batch, so `batch=1` is Sutton &
Barto's MC ES exactly and larger batches improve the policy every `batch` episodes. Every random
number comes from one seeded generator and the sums and counts are integers, so a seed and batch
size give the same numbers on every run on one kind of device (CPU and CUDA streams differ).
`run_batch` is `play_batch` (play, collect the batch's statistics in one tensor) then `add_statistics`;
`trainers.thorp.distributed` runs the two as N ranks that each play a shard and add the sum over all ranks.
`play_batch` is `deal` (the starts and hidden cards: every draw made before the policy is used) then
`play_dealt`, so a rank can deal its next batch while the ranks add up the last one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeVar

import torch

from rltorch.envs.blackjack.env import BLACKJACK, DEALER_STANDS_AT, HIT, MAX_COUNTED_CARDS, STICK
from rltorch.envs.blackjack.shoe import SAME_RANK
from rltorch.envs.blackjack.single_deck import ExpandedState, Start, expanded_state, remaining
from rltorch.run.output import refuse_to_run
from rltorch.values import QTable
from trainers.thorp.engine_state import check_state

TOTALS, DEALER_VALUES, SOFT, CARDS, PAIR = BLACKJACK + 1, 11, 2, MAX_COUNTED_CARDS + 1, 2
STATES = TOTALS * DEALER_VALUES * SOFT * CARDS * PAIR
STATISTICS = 4 * STATES + 2  # what one batch adds: sums and counts (2 * STATES each), peeked naturals, episodes
INFINITE_DECK = (1,) * 9 + (4,)  # relative chances of the values 1..10 on an infinite deck
Index = TypeVar("Index", torch.Tensor, int)


def state_index(total: Index, dealer: Index, soft: Index, cards: Index, pair: Index) -> Index:
    """The dense index of expanded states (total <= 21, dealer value 1..10, soft, cards 2..4, pair), ints or tensors."""
    return (((total * DEALER_VALUES + dealer) * SOFT + soft) * CARDS + cards) * PAIR + pair


def index_state(index: int) -> ExpandedState:
    """The expanded state with dense index `index` (the inverse of `state_index`)."""
    index, pair = divmod(index, PAIR)
    index, cards = divmod(index, CARDS)
    index, soft = divmod(index, SOFT)
    total, dealer = divmod(index, DEALER_VALUES)
    return total, dealer, soft, cards, pair


def add_cards(total: torch.Tensor, soft: torch.Tensor, value: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """`rltorch.envs.blackjack.add_card` on tensors: the (total, soft) of hands after taking `value`."""
    total = total + value
    turns_soft = (value == 1) & ~soft & (total <= BLACKJACK - 10)
    total = torch.where(turns_soft, total + 10, total)
    soft = soft | turns_soft
    turns_hard = soft & (total > BLACKJACK)
    return torch.where(turns_hard, total - 10, total), soft & ~turns_hard


class StartTable:
    """The starts as tensors: the shoe left after each, the player's hand state and the up card's value."""

    def __init__(self, starts: Sequence[Start], decks: int | None, pair_rule: str, device: torch.device) -> None:
        if not starts:
            raise ValueError("starts must not be empty")
        states = [expanded_state(hand, up, pair_rule) for hand, up in starts]
        shoes = [INFINITE_DECK if decks is None else remaining((*hand, up), decks) for hand, up in starts]
        self.starts = list(starts)
        self.shoe = torch.tensor(shoes, dtype=torch.int16, device=device)
        columns = torch.tensor(states, dtype=torch.int16, device=device).T
        self.total, self.dealer, self.cards, self.pair = columns[0], columns[1], columns[3], columns[4]
        self.soft = columns[2].bool()


class Dealt(NamedTuple):
    """A dealt batch: `size` episodes, `peeked` ended on the dealer's natural; the others' starts, shoes and cards."""

    size: int
    peeked: torch.Tensor
    start: torch.Tensor
    shoe: torch.Tensor
    dealer: torch.Tensor
    hole: torch.Tensor


class BatchedES:
    """MC ES with sample averages over expanded blackjack states, run a batch of episodes at a time."""

    def __init__(self, starts: Sequence[Start], *, decks: int | None = 1, dealer_peeks: bool = True,
                 dealer_hits_soft_17: bool = False, pair_rule: str = SAME_RANK, seed: int = 0,
                 device: str | torch.device = "cpu") -> None:
        if decks is not None and (isinstance(decks, bool) or not isinstance(decks, int) or decks < 1):
            raise ValueError(f"decks must be None (infinite) or a whole number >= 1, got {decks!r}")
        self.decks, self.dealer_peeks, self.dealer_hits_soft_17 = decks, dealer_peeks, dealer_hits_soft_17
        self.pair_rule, self.seed, self.device = pair_rule, seed, torch.device(device)
        self.table = StartTable(starts, decks, pair_rule, self.device)
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.sums = torch.zeros(2 * STATES, dtype=torch.int64, device=self.device)
        self.counts = torch.zeros(2 * STATES, dtype=torch.int64, device=self.device)
        self.episodes = self.peeked_naturals = 0
        # Set by a run that ended on a partial batch: its gathered state after the last whole batch, with the
        # batch size ("batch"); an exact resume starts again from it (study.py), not from the partial batch.
        self.whole_batch_state: dict | None = None

    # --- the values -----------------------------------------------------------------------------
    def means(self) -> torch.Tensor:
        """Q as a (STATES, 2) float64 tensor [state, action], 0 where unvisited."""
        return (self.sums.double() / self.counts.clamp(min=1).double()).view(STATES, 2)

    def greedy(self) -> torch.Tensor:
        """The greedy action of every state index (1 = hit where Q(hit) > Q(stand); ties stand)."""
        means = self.means()
        return (means[:, 1] > means[:, 0]).to(torch.int16)

    def action_values(self, state: ExpandedState) -> tuple[float, float]:
        """The (stand, hit) sample averages of an expanded state."""
        stand, hit = self.means()[state_index(*state)].tolist()
        return stand, hit

    def visits(self, state: ExpandedState) -> tuple[int, int]:
        """The (stand, hit) visit counts of an expanded state."""
        stand, hit = self.counts.view(STATES, 2)[state_index(*state)].tolist()
        return stand, hit

    def visited_states(self) -> list[ExpandedState]:
        """Every expanded state with at least one visit, in index order."""
        seen = self.counts.view(STATES, 2).sum(1).nonzero().flatten().tolist()
        return [index_state(index) for index in seen]

    def to_qtable(self) -> QTable:
        """The averages and visit counts as a sample-average QTable keyed by (expanded state, action)."""
        table = QTable(alpha=None)
        means, counts = self.means().tolist(), self.counts.view(STATES, 2).tolist()
        for state in self.visited_states():
            index = state_index(*state)
            for action in (STICK, HIT):
                if counts[index][action]:
                    table.table[(state, action)] = means[index][action]
                    table.counts[(state, action)] = counts[index][action]
        return table

    # --- the episodes ---------------------------------------------------------------------------
    def train(self, episodes: int, batch: int = 1 << 16,
              callback: Callable[[BatchedES, int], None] | None = None) -> BatchedES:
        """Run `episodes` more episodes, `batch` at a time; `callback(self, done)` after each batch."""
        if episodes < 0 or batch < 1:
            raise ValueError("episodes must be >= 0 and batch >= 1")
        done = 0
        while done < episodes:
            size = min(batch, episodes - done)
            self.run_batch(size)
            done += size
            if callback is not None:
                callback(self, size)
        return self

    def run_batch(self, size: int) -> None:
        """Play `size` episodes on the current greedy policy, then add their returns to the averages."""
        self.add_statistics(self.play_batch(size))

    def play_batch(self, size: int, out: torch.Tensor | None = None) -> torch.Tensor:
        """Play `size` episodes on the current greedy policy; add their statistics to `out` (zeros by default).

        `out` is a STATISTICS-long int64 tensor: return sums, then visit counts (2 * STATES each, index
        2 * state + action), then peeked naturals and episodes. The table is not touched: `add_statistics`
        adds them (summed over the ranks of a data-parallel run first, if any).
        """
        return self.play_dealt(self.deal(size), out)

    def deal(self, size: int) -> Dealt:
        """Draw `size` starts and hidden cards (and, if the dealer peeks, end the hands with a natural under)."""
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        table = self.table
        start = torch.randint(len(table.starts), (size,), generator=self.generator, device=self.device)
        shoe = table.shoe[start].clone()
        dealer = table.dealer[start]
        hole = self._draw(shoe)
        peeked = torch.zeros((), dtype=torch.int64, device=self.device)
        if self.dealer_peeks:
            natural = ((dealer == 1) & (hole == 10)) | ((dealer == 10) & (hole == 1))
            peeked = natural.sum()
            deciding = (~natural).nonzero().flatten()
            start, shoe, dealer, hole = start[deciding], shoe[deciding], dealer[deciding], hole[deciding]
        return Dealt(size, peeked, start, shoe, dealer, hole)

    def play_dealt(self, dealt: Dealt, out: torch.Tensor | None = None) -> torch.Tensor:
        """Play a dealt batch on the current greedy policy; add its statistics to `out` (see `play_batch`)."""
        out = torch.zeros(STATISTICS, dtype=torch.int64, device=self.device) if out is None else out
        sums, counts, tail = out[:2 * STATES], out[2 * STATES:4 * STATES], out[4 * STATES:]
        tail[0] += dealt.peeked
        tail[1] += dealt.size
        shoe = dealt.shoe
        rewards, totals, stood, visits = self._play_player(dealt.start, shoe)
        rewards[stood] = self._dealer_outcomes(shoe[stood], dealt.dealer[stood], dealt.hole[stood], totals[stood])
        if visits:  # none when every episode ended on a peeked natural (or size is 0)
            keys, rows = (torch.cat(parts) for parts in zip(*visits, strict=True))
            keys = keys.long()
            sums.index_add_(0, keys, rewards[rows].long())
            counts.index_add_(0, keys, torch.ones_like(keys, dtype=torch.int64))
        return out

    def add_statistics(self, statistics: torch.Tensor) -> None:
        """Add what `play_batch` returned (or the sum of several, e.g. over ranks) to the sums, counts and counters."""
        self.sums += statistics[:2 * STATES]
        self.counts += statistics[2 * STATES:4 * STATES]
        peeked, episodes = statistics[4 * STATES:].tolist()
        self.peeked_naturals += peeked
        self.episodes += episodes

    def _play_player(self, start: torch.Tensor, shoe: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """A random first action, then greedy ones: rewards so far (-1: bust), final totals, who stood, visits."""
        table, greedy = self.table, self.greedy()
        count = start.numel()
        total, soft = table.total[start].clone(), table.soft[start].clone()
        cards, pair, dealer = table.cards[start].clone(), table.pair[start].clone(), table.dealer[start]
        rewards = torch.zeros(count, dtype=torch.int16, device=self.device)
        stood = torch.zeros(count, dtype=torch.bool, device=self.device)
        alive = torch.arange(count, device=self.device)
        actions = torch.randint(2, (count,), generator=self.generator, device=self.device, dtype=torch.int16)
        visits = []
        while alive.numel():
            state = state_index(total[alive], dealer[alive], soft[alive].to(torch.int16), cards[alive], pair[alive])
            action = actions[alive] if not visits else greedy[state.int()]
            visits.append((2 * state + action, alive))
            stood[alive[action == 0]] = True
            hitting = alive[action == 1]
            total[hitting], soft[hitting] = add_cards(total[hitting], soft[hitting], self._draw(shoe, hitting))
            cards[hitting] = (cards[hitting] + 1).clamp(max=MAX_COUNTED_CARDS)
            pair[hitting] = 0
            bust = total[hitting] > BLACKJACK
            rewards[hitting[bust]] = -1
            alive = hitting[~bust]
        return rewards, total, stood, visits

    def _dealer_outcomes(self, shoe: torch.Tensor, up: torch.Tensor, hole: torch.Tensor,
                         player: torch.Tensor) -> torch.Tensor:
        """The player's rewards for standing on `player` totals once the dealer has drawn to a stand."""
        zero = torch.zeros_like(up, dtype=torch.bool)
        total, soft = add_cards(*add_cards(torch.zeros_like(up), zero, up), hole)
        drawing = self._dealer_draws(total, soft).nonzero().flatten()
        while drawing.numel():
            total[drawing], soft[drawing] = add_cards(total[drawing], soft[drawing], self._draw(shoe, drawing))
            drawing = drawing[self._dealer_draws(total[drawing], soft[drawing])]
        won = (total > BLACKJACK) | (player > total)
        return won.to(torch.int16) - ((total <= BLACKJACK) & (player < total)).to(torch.int16)

    def _dealer_draws(self, total: torch.Tensor, soft: torch.Tensor) -> torch.Tensor:
        """Which dealer hands draw: under 17, or a soft 17 when the dealer hits soft 17."""
        draws = total < DEALER_STANDS_AT
        if self.dealer_hits_soft_17:
            draws |= soft & (total == DEALER_STANDS_AT)
        return draws

    def _draw(self, shoe: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
        """One card value 1..10 for each of `rows` (default all) of the shoes, taken out of a finite shoe."""
        counts = shoe if rows is None else shoe[rows]
        left = counts.sum(1)
        pick = (torch.rand(left.shape, generator=self.generator, device=self.device, dtype=torch.float64)
                * left).to(counts.dtype)
        value_index = (counts.cumsum(1, dtype=counts.dtype) <= pick.unsqueeze(1)).sum(1, dtype=counts.dtype)
        if self.decks is not None:
            shoe[torch.arange(len(shoe), device=self.device) if rows is None else rows, value_index.long()] -= 1
        return value_index + 1

    # --- saving -----------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """The sums, counts, episode counters, settings and generator state (for `torch.save`)."""
        return {"sums": self.sums.cpu(), "counts": self.counts.cpu(), "episodes": self.episodes,
                "peeked_naturals": self.peeked_naturals, "generator": self.generator.get_state(),
                "config": self.config()}

    def load_state_dict(self, state: dict) -> None:
        """Restore what `state_dict` returned (the starts must be the same; see `check_state`)."""
        check_state(state, self.generator.get_state().numel(), 2 * STATES)
        if state["config"]["starts"] != len(self.table.starts):
            raise ValueError(f"the saved run has {state['config']['starts']} starts, this one {len(self.table.starts)}")
        self.seed = state["config"]["seed"]
        self.sums.copy_(state["sums"])
        self.counts.copy_(state["counts"])
        self.episodes, self.peeked_naturals = state["episodes"], state["peeked_naturals"]
        self.generator.set_state(state["generator"])

    def config(self) -> dict:
        """The settings that describe the run."""
        return {"algorithm": "batched-mc-es", "decks": self.decks, "dealer_peeks": self.dealer_peeks,
                "dealer_hits_soft_17": self.dealer_hits_soft_17, "pair_rule": self.pair_rule, "seed": self.seed,
                "starts": len(self.table.starts)}


__all__ = ["STATES", "STATISTICS", "BatchedES", "Dealt", "StartTable", "add_cards", "index_state",
           "state_index"]


if __name__ == "__main__":
    refuse_to_run(__file__, "study.py", "trainers/thorp/study.py")

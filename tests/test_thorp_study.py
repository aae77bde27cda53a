import importlib.util
import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
import torch

from rltorch.checkpoints import load
from rltorch.envs.blackjack.env import HIT, STICK
from rltorch.envs.blackjack.single_deck import action_values, expanded_state, expanded_states
from rltorch.envs.blackjack.solver import q_star, states
from rltorch.logger import NullLogger

from thorp_engine import STATES, BatchedES, index_state, state_index
from thorp_figures import infinite_deck_values, soft18_exact, soft18_starts
from thorp_learning import (
    LearnedPolicy,
    acceptance,
    agreement,
    exact_play,
    hand_name,
    make_engine,
    make_trainer,
    two_card_starts,
)
from thorp_report import cell_hands, cell_rows, exception_rows, report_markdown

SCRIPT = Path(__file__).resolve().parents[1] / "trainers" / "thorp" / "thorp_study.py"
_spec = importlib.util.spec_from_file_location("thorp_study_script_under_test", SCRIPT)
script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(script)


pytestmark = pytest.mark.usefixtures("one_thread")


def exact_state_policy() -> LearnedPolicy:
    """Each 2-card state valued by the exact values of its deals, averaged as MC ES weighs them (uniformly)."""
    sums = defaultdict(lambda: [0.0, 0.0, 0])
    for hand, up in two_card_starts():
        play, entry = exact_play(hand, up), sums[expanded_state(hand, up)]
        entry[0] += play.stand
        entry[1] += play.hit
        entry[2] += 1
    return LearnedPolicy({s: (a / n, b / n) for s, (a, b, n) in sums.items()}, {s: (n, n) for s, (_, _, n) in
                                                                               sums.items()})


def test_trainer_starts_from_reset_option_dicts():
    trainer = make_trainer(seed=3)
    for _ in range(200):
        keys, rewards = trainer.generate_episode(0.0)
        state = keys[0][0]
        assert len(state) == 5 and 4 <= state[0] <= 21 and 2 <= state[3] <= 4
        assert rewards[-1] in (-1.0, 0.0, 1.0)
    trainer.train(2000, progress=False, eval_every=0)
    policy = LearnedPolicy.from_table(trainer.value_fn)
    assert sum(sum(v) for v in policy.visits.values()) >= 2000


def test_state_index_round_trips():
    for state in expanded_states():
        assert index_state(state_index(*state)) == state
    assert max(state_index(*s) for s in expanded_states()) < STATES


def test_batched_es_explores_every_state_and_action():
    engine = make_engine(seed=0).train(1_200_000, batch=1 << 16)
    assert set(engine.visited_states()) == expanded_states()
    assert all(min(engine.visits(state)) > 0 for state in expanded_states())
    assert engine.peeked_naturals > 0 and engine.episodes == 1_200_000


def test_batched_es_is_deterministic_per_seed():
    first, again, other = (make_engine(seed=s).train(100_000, batch=30_000) for s in (4, 4, 5))
    assert torch.equal(first.sums, again.sums) and torch.equal(first.counts, again.counts)
    assert not torch.equal(first.sums, other.sums)


@pytest.mark.parametrize("hand, up, peeks", [((10, 6), 10, True), ((1, 7), 1, False), ((9, 3), 4, True)])
def test_batched_stand_values_match_the_exact_oracle(hand, up, peeks):
    engine = BatchedES([(hand, up)], dealer_peeks=peeks, seed=1).train(400_000, batch=1 << 16)
    state = expanded_state(hand, up)
    stand, _ = engine.action_values(state)
    exact_stand, _ = action_values(hand, up, dealer_peeks=peeks)
    assert abs(stand - exact_stand) < 4 / math.sqrt(engine.visits(state)[0])


def test_infinite_deck_values_match_q_star_and_the_peek_flips_soft_18():
    q = q_star()
    for state in states()[::7]:
        assert infinite_deck_values(state[0], bool(state[2]), state[1], False) == pytest.approx(q[state])
    inf_stand, inf_hit = soft18_exact(None, True)
    one_stand, one_hit = soft18_exact(1, True)
    assert inf_hit > inf_stand and one_hit < one_stand  # with a peek, only the single deck stands
    assert len(soft18_starts()) == 2 * sum(hand == (1, 7) for hand, _ in soft18_starts())


def test_agreement_and_acceptance_of_the_exact_state_policy():
    policy = exact_state_policy()
    result = agreement(policy)
    assert result["deals"] == 1183 and result["hands"] == 550
    assert result["clear_disagreements"] == [] and result["clear_deals_agreeing"] == result["clear_deals"]
    assert result["deals_agreeing"] < result["deals"]  # e.g. 10-2 vs 4 hits, but its state stands
    assert all(acceptance(policy).values())
    flipped = LearnedPolicy({**policy.q, (14, 10, 0, 2, 1): (0.0, 1.0)}, policy.visits)
    assert not acceptance(flipped)["7-7 vs 10: stand"]


def test_report_rows_and_names():
    assert cell_hands(12, False) == [(2, 10), (3, 9), (4, 8), (5, 7)] and cell_hands(18, True) == [(1, 7)]
    assert [hand_name(h) for h in ((6, 10), (1, 7), (2, 4, 6, 4), (7, 7), (13, 6))] == [
        "10-6", "A-7", "6-4-4-2", "7-7", "K-6"]
    policy = exact_state_policy()
    cells, exceptions = cell_rows(policy), exception_rows(policy)
    assert len(cells) == 80 and len(exceptions) == 10
    seven = next(row for row in exceptions if row[0].startswith("7-7"))
    assert seven[2:5] == ("S", "S", "S")
    twelve_vs_4 = next(row for row in cells if row[:2] == ("hard 12", "4"))
    assert twelve_vs_4[3] == "S (H: 10-2)" and "10-2" in twelve_vs_4[-1]
    text = report_markdown(policy, {"episodes": 0}, agreement(policy), acceptance(policy), ["a.png"])
    assert "| hard 16 | 10 | H | H | H |" in text and "![a.png](a.png)" in text


def test_script_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        script.main(["--help"])
    assert exit_info.value.code == 0 and "--episodes" in capsys.readouterr().out


def test_script_writes_report_figures_checkpoint_and_json(tmp_path):
    out, metrics_path = tmp_path / "docs", tmp_path / "metrics.json"
    args = ["--episodes", "3e4", "--batch", "10000", "--soft18-episodes", "2000", "--out", str(out),
            "--log-dir", str(tmp_path / "runs"), "--run-name", "t", "--checkpoint", str(tmp_path / "c.pt"),
            "--json", str(metrics_path), "--no-progress", "--log-every", "2e4", "--dpi", "30"]
    assert script.main(args) == 0
    metrics = json.loads(metrics_path.read_text())
    assert metrics["episodes"] == 30_000 and set(metrics["acceptance"]) >= {"7-7 vs 10: stand"}
    assert {p.name for p in out.iterdir()} == {"thorp_report.md", "thorp_policies.png", "thorp_soft18_ace.png"}
    assert any((tmp_path / "runs" / "t").iterdir())
    agent = load(tmp_path / "c.pt")
    assert agent.act((20, 10, 0, 2, 0), [STICK, HIT]) == STICK
    resumed = script.build_parser().parse_args(["--episodes", "4e4", "--batch", "10000", "--resume",
                                                str(tmp_path / "c.pt"), "--no-progress"])
    engine, _ = script.train_batched(resumed, NullLogger())
    straight = make_engine(seed=0).train(40_000, batch=10_000)
    assert engine.episodes == 40_000 and torch.equal(engine.sums, straight.sums)
    trainer_args = ["--episodes", "2e3", "--engine", "trainer", "--soft18-episodes", "0", *args[6:]]
    assert script.main(trainer_args) == 0 and json.loads(metrics_path.read_text())["engine"] == "trainer"

import argparse
import json
import math
import pickle
from collections import defaultdict

import pytest
import torch

from rltorch.checkpoints import load
from rltorch.envs.blackjack.env import HIT, STICK
from rltorch.envs.blackjack.single_deck import action_values, expanded_state, expanded_states
from rltorch.envs.blackjack.solver import q_star, states
from rltorch.logger import NullLogger
from tests.helpers import run_main
from trainers.thorp import study as script
from trainers.thorp.engine import STATES, BatchedES, index_state, state_index
from trainers.thorp.figures import infinite_deck_values, soft18_exact, soft18_starts
from trainers.thorp.learning import (
    LearnedPolicy,
    acceptance,
    agreement,
    exact_play,
    hand_name,
    make_engine,
    make_trainer,
    two_card_starts,
)
from trainers.thorp.report import cell_hands, cell_rows, exception_rows, report_markdown

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
    assert script.main(trainer_args) == 1  # the run folder, the checkpoint and the report exist: refused
    assert script.main([*trainer_args, "--overwrite"]) == 0
    assert json.loads(metrics_path.read_text())["engine"] == "trainer"


QUICK = ["--batch", "1e4", "--soft18-episodes", "0", "--no-progress", "--dpi", "20", "--log-every", "1e9"]


@pytest.fixture(scope="module")
def partial_run(tmp_path_factory):
    """A run of 25,000 episodes in batches of 10,000 (its last batch partial): its folder and checkpoint."""
    folder = tmp_path_factory.mktemp("partial")
    result = run_main(script.main, "--episodes", "2.5e4", *QUICK, "--run-name", "a", cwd=folder)
    assert result.returncode == 0, result.stderr
    return folder, folder / "checkpoints" / "a.pt"


def engine_state(path):
    return torch.load(path, weights_only=True)["engine"]


def test_a_run_ended_on_a_partial_batch_resumes_exactly_as_the_readme_extends_it(partial_run):
    # Mutant: resuming from the saved (partial-batch) state is refused without --inexact-resume, and with it differs.
    folder, checkpoint = partial_run
    saved = torch.load(checkpoint, weights_only=True)
    assert saved["episodes"] == 25_000 and saved["last_whole_batch"]["episodes"] == 20_000
    extended = run_main(script.main, "--resume", checkpoint, "--episodes", "4.5e4", *QUICK, "--run-name", "b",
                        cwd=folder)
    assert extended.returncode == 0, extended.stderr
    straight = make_engine(seed=0).train(45_000, batch=10_000)
    state = engine_state(folder / "checkpoints" / "b.pt")
    assert state["episodes"] == 45_000 and torch.equal(state["sums"], straight.sums)
    assert torch.equal(state["counts"], straight.counts)
    assert torch.equal(state["generator"], straight.generator.get_state())
    other_batch = run_main(script.main, "--resume", checkpoint, "--episodes", "4.5e4", *QUICK, "--batch", "7000",
                           cwd=folder)  # another batch cannot continue the partial one exactly: refused
    assert other_batch.returncode == 1 and "--inexact-resume" in other_batch.stderr
    report_only = run_main(script.main, "--resume", checkpoint, "--episodes", "2.5e4", *QUICK, "--run-name", "c",
                           cwd=folder)  # nothing more to play: the state after the last whole batch is kept
    assert report_only.returncode == 0, report_only.stderr
    kept = torch.load(folder / "checkpoints" / "c.pt", weights_only=True)["last_whole_batch"]
    assert torch.equal(kept["sums"], saved["last_whole_batch"]["sums"])


def hostile_files(folder, checkpoint):
    """Files that --resume must refuse: pickled objects, not a checkpoint, a checkpoint without (or with a broken)
    engine state."""
    saved = torch.load(checkpoint, weights_only=True)
    broken_generator = {**saved["engine"], "generators": [torch.zeros(3, dtype=torch.uint8)]}
    payloads = {
        "pickled.pt": lambda path: path.write_bytes(pickle.dumps(argparse.Namespace(x=1))),
        "text.pt": lambda path: path.write_text("not a checkpoint\n"),
        "trainer.pt": lambda path: torch.save({k: v for k, v in saved.items() if k != "engine"}, path),
        "sums.pt": lambda path: torch.save({**saved, "engine": {**saved["engine"], "sums": "x"}}, path),
        "engine.pt": lambda path: torch.save({**saved, "engine": [1, 2]}, path),
        "generator.pt": lambda path: torch.save({**saved, "engine": broken_generator}, path),
        "whole.pt": lambda path: torch.save({**saved, "last_whole_batch": {"batch": 10_000}}, path),
    }
    for name, write in payloads.items():
        write(folder / name)
        yield name


def test_a_hostile_resume_file_is_refused_in_one_line_before_any_file(partial_run, tmp_path):
    # Mutant: reading --resume after the run folder and its event file are made leaves them behind.
    for name in hostile_files(tmp_path, partial_run[1]):
        before = set(tmp_path.iterdir())
        result = run_main(script.main, "--resume", name, "--episodes", "3e4", *QUICK, cwd=tmp_path)
        assert result.returncode == 1 and result.stderr.count("\n") == 1, (name, result.stderr)
        assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr, (name, result.stderr)
        assert set(tmp_path.iterdir()) == before, name  # nothing made: no run folder, no event file


def test_existing_outputs_are_refused_before_any_work_unless_overwrite(tmp_path):
    (tmp_path / "runs" / "taken").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "thorp_report.md").write_text("tracked\n")
    (tmp_path / "old.pt").write_bytes(b"x")
    for argv, taken in ((["--run-name", "taken"], "runs/taken"), (["--out", "docs"], "docs/thorp_report.md"),
                        (["--checkpoint", "old.pt"], "old.pt")):
        before = {path: path.is_file() and path.stat().st_mtime_ns for path in tmp_path.rglob("*")}
        result = run_main(script.main, "--episodes", "1e4", *QUICK, *argv, cwd=tmp_path)
        assert result.returncode == 1 and result.stderr == f"error: {taken} exists: choose another --run-name, " \
            "--out or --checkpoint, or pass --overwrite\n"
        assert {path: path.is_file() and path.stat().st_mtime_ns for path in tmp_path.rglob("*")} == before
    result = run_main(script.main, "--episodes", "1e4", *QUICK, "--out", "docs", "--overwrite", cwd=tmp_path)
    assert result.returncode == 0 and (tmp_path / "docs" / "thorp_report.md").read_text() != "tracked\n"


def test_huge_numbers_are_refused_when_parsed(capsys):
    for option in ("--episodes", "--threads", "--dpi", "--batch", "--dist-timeout", "--seed", "--log-every"):
        with pytest.raises(SystemExit) as exit_info:
            script.build_parser().parse_args([option, "1e19"])
        assert exit_info.value.code == 2 and "must be at most" in capsys.readouterr().err
    assert script.build_parser().parse_args([]).dpi == 150

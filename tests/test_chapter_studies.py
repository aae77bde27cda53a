"""The book-experiment scripts of chapters 6-8: each runs small in-process and writes its PNG, JSON and Markdown;
the numbers are checked against values worked out independently where that is cheap."""

import json
import math
from pathlib import Path

import pytest

from tests.helpers import load_script
from trainers.chapter7 import nstep_walk_engine

ROOT = Path(__file__).resolve().parents[1]



def run_small(script, stem, tmp_path, *args):
    """Run `script.main` with small settings into tmp_path; return its numbers and the out folder."""
    out = tmp_path / "out"
    code = script.main([*map(str, args), "--out", str(out), "--json", str(tmp_path / "numbers.json"),
                        "--log-dir", str(tmp_path / "runs"), "--run-name", "small", "--no-progress"])
    assert code == 0
    for suffix in ("png", "json", "md"):
        assert (out / f"{stem}.{suffix}").stat().st_size > 0
        assert (tmp_path / "runs" / "small" / f"{stem}.{suffix}").exists()
    assert (out / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list((tmp_path / "runs" / "small").glob("events.out.tfevents.*"))
    numbers = json.loads((tmp_path / "numbers.json").read_text())
    assert numbers == json.loads((out / f"{stem}.json").read_text())
    markdown = (out / f"{stem}.md").read_text()
    assert numbers["command"] in markdown and f"{out.as_posix()}/{stem}.png" in markdown
    return numbers


# --- Example 6.2: random walk ---------------------------------------------------------------------------

random_walk = load_script("trainers/chapter6/random_walk.py")


def test_random_walk_runs_small_and_reports_true_values(tmp_path):
    numbers = run_small(random_walk, "example_6_2_random_walk", tmp_path, "--runs", 2, "--episodes", 5)
    assert [round(v * 6, 9) for v in numbers["true_values"].values()] == [1, 2, 3, 4, 5]
    start = math.sqrt(sum((0.5 - k / 6) ** 2 for k in range(1, 6)) / 5)  # every value starts at 0.5
    assert len(numbers["rms_error"]) == 7
    for stats in numbers["rms_error"].values():
        assert stats["start"] == pytest.approx(start) and 0 <= stats["min"] <= stats["start"]
    assert numbers["td_values_after"]["0"] == [0.5] * 5


def test_an_existing_run_folder_or_output_is_refused_before_any_work_unless_overwrite(tmp_path, capsys):
    # Mutant: a second run with the same --run-name or --out rewrote the first one's files without asking.
    (tmp_path / "runs" / "taken").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "example_6_2_random_walk.md").write_text("tracked\n")
    common = ["--runs", "1", "--episodes", "2", "--log-dir", str(tmp_path / "runs"), "--no-progress", "--dpi", "20"]
    for argv, taken in ((["--run-name", "taken"], tmp_path / "runs" / "taken"),
                        (["--out", str(tmp_path / "docs")], tmp_path / "docs" / "example_6_2_random_walk.md")):
        assert random_walk.main([*common, *argv]) == 1
        assert capsys.readouterr().err == f"error: {taken} exists: choose another --run-name or --out, or pass " \
            "--overwrite\n"
    assert list((tmp_path / "runs").iterdir()) == [tmp_path / "runs" / "taken"]
    assert (tmp_path / "docs" / "example_6_2_random_walk.md").read_text() == "tracked\n"
    assert random_walk.main([*common, "--run-name", "taken", "--out", str(tmp_path / "docs"), "--overwrite"]) == 0
    assert (tmp_path / "docs" / "example_6_2_random_walk.md").read_text() != "tracked\n"
    assert random_walk.build_parser().parse_args([]).dpi == 150


def test_random_walk_td_first_episode_moves_only_the_last_state():
    # From 0.5 everywhere, TD(0) with alpha 0.1 changes nothing until the walk ends: then the last state
    # moves a tenth of the way to 0 (left end) or 1 (right end).
    trainer = random_walk.make_trainer("td", 0.1, seed=3)
    trainer.run_episode(0.0)
    values = trainer.value_fn.values([1, 2, 3, 4, 5])
    changed = [v for v in values if v != 0.5]
    assert changed in ([0.45], [0.55]) and (values[0] == 0.45 or values[4] == 0.55)


def test_random_walk_mc_moves_every_visited_state_toward_the_return():
    trainer = random_walk.make_trainer("mc", 0.5, seed=1)
    trainer.run_episode(0.0)
    values = trainer.value_fn.values([1, 2, 3, 4, 5])
    assert values[2] != 0.5  # the walk starts in C, so C moves toward the return 0 or 1
    assert all(v <= 0.5 for v in values) or all(v >= 0.5 for v in values)


# --- Example 6.5: windy grid world ----------------------------------------------------------------------

windy = load_script("trainers/chapter6/windy_gridworld.py")


def shortest_windy_path(moves):
    """Breadth-first search over the book's grid, written out here from the book's rules."""
    wind, start, goal = (0, 0, 0, 1, 1, 1, 2, 2, 1, 0), (3, 0), (3, 7)
    frontier, seen, steps = [start], {start}, 0
    while goal not in seen:
        steps += 1
        frontier = [(min(max(r + dr - wind[c], 0), 6), min(max(c + dc, 0), 9)) for r, c in frontier for dr, dc in moves]
        frontier = [cell for cell in frontier if cell not in seen]
        seen.update(frontier)
    return steps


def test_windy_gridworld_runs_small_and_knows_the_optimal_lengths(tmp_path):
    numbers = run_small(windy, "example_6_5_windy_gridworld", tmp_path, "--runs", 2, "--steps", 2000)
    four, kings = numbers["variants"]["four moves"], numbers["variants"]["king's moves"]
    assert four["optimal_length"] == pytest.approx(shortest_windy_path([(-1, 0), (0, 1), (1, 0), (0, -1)])) == 15
    king_moves = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
    assert kings["optimal_length"] == pytest.approx(shortest_windy_path(king_moves)) == 7
    assert four["epsilon_greedy_length_on_q_star"] > 15  # exploring costs steps
    assert four["episodes_at_last_step"]["min"] > 0
    for variant in numbers["variants"].values():
        assert 0 <= variant["episodes_at_last_step"]["mean"] <= 2000 / 7
        assert variant["runs_greedy_optimal"] <= variant["runs_greedy_reaches_goal"] <= 2


def test_windy_episode_curve_counts_episodes_ended_by_each_step():
    curve = windy.episodes_by_step(windy.np.array([3, 5, 9]), 10)
    assert curve.tolist() == [0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3]


def test_windy_greedy_length_follows_the_table_and_spots_loops():
    evaluation = windy.ModelEvaluation(windy.model_of(windy.make_env(windy.ENV_ID)), 1.0)

    class Fixed:  # a trainer whose greedy agent always goes right (action 1)
        @staticmethod
        def agent():
            return type("Agent", (), {"act": staticmethod(lambda state, legal, rng=None: 1)})()

    # Right from (3, 0): the wind lifts the agent to row 0 before column 7 and it ends stuck at (0, 9).
    assert windy.greedy_length(evaluation, Fixed()) is None
    assert windy.epsilon_greedy_length(evaluation, 0.0) == pytest.approx(15)


# --- Example 6.6: cliff walking -------------------------------------------------------------------------

cliff = load_script("trainers/chapter6/cliff_walking.py")


def shortest_cliff_path():
    """Breadth-first search on the 4 x 12 grid avoiding the cliff (row 3, columns 1-10), from (3, 0) to (3, 11)."""
    frontier, seen, steps = [(3, 0)], {(3, 0)}, 0
    while (3, 11) not in seen:
        steps += 1
        frontier = [(r + dr, c + dc) for r, c in frontier for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    if 0 <= r + dr < 4 and 0 <= c + dc < 12 and not (r + dr == 3 and 1 <= c + dc <= 10)]
        frontier = [cell for cell in set(frontier) if cell not in seen]
        seen.update(frontier)
    return steps


def test_cliff_walking_runs_small_and_writes_its_outputs(tmp_path):
    numbers = run_small(cliff, "example_6_6_cliff_walking", tmp_path, "--runs", 2, "--episodes", 60)
    assert numbers["optimal_length"] == shortest_cliff_path() == 13
    for method in ("SARSA", "Q-learning"):
        stats = numbers["methods"][method]
        assert -100 * 60 < stats["mean_return_all_episodes"] < -13
        assert sum(stats["greedy_paths"]["lengths"].values()) == 2


def test_cliff_greedy_paths_q_learning_along_the_cliff_sarsa_safer():
    args = cliff.build_parser().parse_args(["--episodes", "300"])
    lengths = {}
    for method in ("SARSA", "Q-learning"):
        _, trainer = cliff.train(method, 7, args)
        path, finished = cliff.greedy_path(cliff.make_env(), trainer.agent(), 100)
        assert finished
        lengths[method] = len(path) - 1
        cells = [divmod(int(state), 12) for state in path]
        # one cell per step: a fall into the cliff would jump back to the start (or stay there)
        assert all(abs(r - r2) + abs(c - c2) == 1 for (r, c), (r2, c2) in zip(cells, cells[1:], strict=False))
    assert lengths["Q-learning"] == 13 < lengths["SARSA"]


def test_cliff_smoothing_is_a_trailing_moving_average():
    assert cliff.smooth(cliff.np.array([1.0, 3.0, 5.0, 7.0]), 2).tolist() == [1.0, 2.0, 4.0, 6.0]


# --- Figure 7.2: n-step TD on the 19-state random walk --------------------------------------------------

nstep = load_script("trainers/chapter7/nstep_random_walk.py")


def test_nstep_random_walk_runs_small_and_agrees_with_the_trainer(tmp_path):
    numbers = run_small(nstep, "figure_7_2_nstep_random_walk", tmp_path, "--runs", 3, "--episodes", 3,
                        "--ns", "1,4,64", "--alphas", "0,0.3,0.6", "--check-runs", 2)
    assert numbers["true_values"] == pytest.approx([k / 10 for k in range(-9, 10)])
    untouched = math.sqrt(sum((k / 10) ** 2 for k in range(-9, 10)) / 19)  # alpha 0 keeps every value at 0
    assert [numbers["rms_error"][n][0] for n in ("1", "4", "64")] == pytest.approx([untouched] * 3)
    check = numbers["check_against_trainer"]
    assert check["runs"] == 2 and len(check["pairs"]) == 3 and check["max_abs_difference"] == 0.0
    assert numbers["best"]["rms_error"] == min(min(errors) for errors in numbers["rms_error"].values())


def test_nstep_replay_matches_nstep_td_prediction_float_for_float():
    engine = nstep_walk_engine
    seeds, n, alpha = [11, 12], 3, 0.3
    walks = engine.stack([engine.record_run(seed, 4) for seed in seeds], 4)
    values, errors = engine.replay(walks, n, nstep.np.array([alpha, 1.0]), nstep.true_values())
    assert errors.shape == (4, 2, 2)
    for run, seed in enumerate(seeds):
        assert engine.check_against_trainer(seed, 4, n, alpha, values[0, run]) == 0.0
        assert engine.check_against_trainer(seed, 4, n, alpha + 0.1, values[0, run]) > 0  # the check can fail


@pytest.mark.parametrize("text", ["0,2", "a", ""])
def test_nstep_rejects_bad_lists_of_n(text):
    with pytest.raises(SystemExit):
        nstep.build_parser().parse_args(["--ns", text])


# --- Figure 6.5: maximization bias ----------------------------------------------------------------------

max_bias = load_script("trainers/chapter6/maximization_bias.py")


def test_maximization_bias_q_learning_is_biased_double_q_is_not(tmp_path):
    numbers = run_small(max_bias, "figure_6_5_maximization_bias", tmp_path, "--runs", 150)
    single, double = numbers["methods"]["Q-learning"], numbers["methods"]["Double Q-learning"]
    assert numbers["optimal_share"] == 0.05 and numbers["final_episodes"] == [251, 300]
    assert single["peak"] > 0.3 and single["peak_episode"] <= 50
    assert double["final_mean"] < single["final_mean"]
    assert double["final_mean"] < 0.12  # 150 runs: the full 10,000 land under 0.08
    assert 0.35 < single["first_episode"] < 0.65  # equal values in episode 1: a coin flip


def test_maximization_bias_left_choices_read_the_episode_length():
    args = max_bias.build_parser().parse_args(["--episodes", "40", "--epsilon", "1"])
    went_left = max_bias.left_choices("Q-learning", 5, args)
    assert went_left.dtype == bool and 5 < went_left.sum() < 35  # epsilon 1: left half the time


def test_maximization_bias_below_from_finds_where_a_curve_stays_below():
    lower, upper = max_bias.np.array([0.5, 0.6, 0.2, 0.1]), max_bias.np.array([0.5, 0.5, 0.3, 0.3])
    assert max_bias.below_from(lower, upper) == 3
    assert max_bias.below_from(upper, lower) is None
    assert max_bias.below_from(lower - 1, upper) == 1


# --- Figure 8.2: Dyna maze ------------------------------------------------------------------------------

dyna = load_script("trainers/chapter8/dyna_maze.py")


def shortest_maze_path():
    """Breadth-first search over the Dyna maze, written out from the book's picture."""
    walls = {(1, 2), (2, 2), (3, 2), (4, 5), (0, 7), (1, 7), (2, 7)}
    frontier, seen, steps = [(2, 0)], {(2, 0)}, 0
    while (0, 8) not in seen:
        steps += 1
        frontier = {(r + dr, c + dc) for r, c in frontier for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    if 0 <= r + dr < 6 and 0 <= c + dc < 9 and (r + dr, c + dc) not in walls} - seen
        seen |= frontier
    return steps


def test_dyna_maze_runs_small_and_planning_helps(tmp_path):
    numbers = run_small(dyna, "figure_8_2_dyna_maze", tmp_path, "--runs", 3, "--episodes", 8, "--planning", "0,50")
    assert numbers["shortest_path"] == shortest_maze_path() == 14
    assert 14 < numbers["epsilon_greedy_floor"] < 20
    no_planning, planning = numbers["agents"]["0"], numbers["agents"]["50"]
    assert sum(planning["steps_per_episode"][1:]) < sum(no_planning["steps_per_episode"][1:])
    assert min(planning["steps_per_episode"]) >= 14


def test_dyna_settled_from_and_planning_list():
    assert dyna.settled_from(dyna.np.array([50.0, 30.0, 19.0, 21.0, 18.0]), 20.0) == 5
    assert dyna.settled_from(dyna.np.array([50.0, 19.0]), 20.0) == 2
    assert dyna.settled_from(dyna.np.array([19.0, 30.0]), 20.0) is None
    assert dyna.planning_list("0,5,50") == (0, 5, 50)
    with pytest.raises(SystemExit):
        dyna.build_parser().parse_args(["--planning", "-1"])

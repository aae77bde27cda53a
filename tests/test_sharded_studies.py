"""The book studies of chapters 6-8 sharded over 2 loopback gloo ranks: the same numbers as one process, bit for bit,
and only rank 0 writes (its one run folder) and shows a progress bar."""

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import free_port, launch, load_script, stop_all

ROOT = Path(__file__).resolve().parents[1]
# script: its arguments at a tiny size (3, 5 and 7 runs: the two ranks' shares differ by one)
STUDIES = {
    "chapter8/dyna_maze.py": ["--runs", 3, "--episodes", 8, "--planning", "0,5"],
    "chapter6/maximization_bias.py": ["--runs", 7, "--episodes", 60],
    "chapter6/cliff_walking.py": ["--runs", 3, "--episodes", 40],
    "chapter6/random_walk.py": ["--runs", 3, "--episodes", 10],
    "chapter6/windy_gridworld.py": ["--runs", 3, "--steps", 1500],
    "chapter7/nstep_random_walk.py": ["--runs", 5, "--episodes", 3, "--ns", "1,4,64", "--alphas", "0,0.3,0.6",
                                      "--check-runs", 2],
}
VARYING = ("seconds", "cpu_seconds", "machine", "command", "ranks")  # what may differ between the two ways to run
# Each rank runs every study's main in turn, as `python trainers/<script>` would, each on a process group of its own
# (its own MASTER_PORT): one interpreter per rank instead of one per study keeps the test short.
WORKER = """
import importlib, json, os, sys
plan, statuses = json.loads(sys.argv[1]), []
for script, port, argv in plan:
    module = importlib.import_module("trainers." + script.removesuffix(".py").replace("/", "."))
    os.environ["MASTER_PORT"] = str(port)
    statuses.append(module.main(argv))
print("statuses", statuses, file=sys.stderr)
sys.exit(max(statuses))
"""


def name_of(script: str) -> str:
    """The study's short name: its file's stem."""
    return Path(script).stem


def distinct_ports(count: int) -> list[int]:
    """`count` different TCP ports that are free now."""
    ports: set[int] = set()
    while len(ports) < count:
        ports.add(free_port())
    return sorted(ports)


@pytest.fixture(scope="module")
def both_ways(tmp_path_factory):
    """Every study run with 2 ranks (in the background) and in this process; the folder with each study's outputs."""
    folder = tmp_path_factory.mktemp("sharded")
    # No --run-name and no --no-progress with 2 ranks: a rank that wrote would leave a second (uniquely named) run
    # folder, and a rank that showed the bar would leave it in its stderr.
    plan = [[script, port, [*map(str, args), "--json", f"{name_of(script)}/two.json", "--log-dir",
                            f"{name_of(script)}/runs2", "--dist-timeout", "30"]]
            for (script, args), port in zip(STUDIES.items(), distinct_ports(len(STUDIES)), strict=True)]
    ranks = launch([sys.executable, "-c", WORKER, json.dumps(plan)], 2, folder, "rank")
    try:
        for script, args in STUDIES.items():
            work = folder / name_of(script)
            module = load_script(f"trainers/{script}", name_of(script) + "_one_process")
            argv = [*map(str, args), "--json", str(work / "one.json"), "--log-dir", str(work / "runs1"),
                    "--run-name", "one", "--no-progress", "--dist-timeout", "30"]
            assert module.main(argv) == 0
        statuses = [rank.wait(timeout=120) for rank in ranks]
    finally:
        stop_all(ranks)
    errors = [(folder / f"rank.{rank}.err").read_text() for rank in range(2)]
    assert statuses == [0, 0], [error[-3000:] for error in errors]
    return folder


def numbers(path: Path) -> str:
    """The JSON's numbers as text, without the timing, the machine, the command and the number of ranks."""
    data = json.loads(path.read_text())
    return json.dumps({key: value for key, value in data.items() if key not in VARYING}, indent=1)


@pytest.mark.parametrize("script", list(STUDIES))
def test_two_ranks_give_the_numbers_of_one_process(both_ways, script):
    work = both_ways / name_of(script)
    assert json.loads((work / "two.json").read_text())["ranks"] == 2
    assert "ranks" not in json.loads((work / "one.json").read_text())  # one process: the JSON of before
    assert numbers(work / "two.json") == numbers(work / "one.json")


@pytest.mark.parametrize("script", list(STUDIES))
def test_only_rank_0_writes(both_ways, script):
    work = both_ways / name_of(script)
    folders = list((work / "runs2").iterdir())
    assert len(folders) == 1, folders  # rank 0's run folder alone
    files = sorted(path.name for path in folders[0].iterdir())
    assert len([name for name in files if name.startswith("events.out.tfevents.")]) == 1
    assert {name.rsplit(".", 1)[-1] for name in files if not name.startswith("events.")} == {"png", "json", "md"}


def test_only_rank_0_shows_progress(both_ways):
    first, second = ((both_ways / f"rank.{rank}.err").read_text() for rank in range(2))
    assert "runs: 100%|" in first and "%|" not in second

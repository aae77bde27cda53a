"""Studies as a package: both ways to run a study, no path set-up anywhere, and the run layer's shared plumbing."""

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from rltorch.run import many_runs, studies
from rltorch.run.options import make_parser

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("how", ["module", "file"])
def test_a_study_runs_with_dash_m_from_the_root_and_as_a_file_from_anywhere(how, tmp_path):
    # Mutant: a study importing a sibling by bare name (`from grid_paths import ...`) fails the -m form.
    command, cwd = (["-m", "trainers.chapter6.cliff_walking"], ROOT) if how == "module" else \
        ([str(ROOT / "trainers" / "chapter6" / "cliff_walking.py")], tmp_path)
    result = subprocess.run([sys.executable, *command, "--help"], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.startswith("usage: cliff_walking.py"), result.stderr
    assert not list(tmp_path.iterdir())


def test_no_script_test_or_bench_edits_sys_path_and_isort_needs_no_module_list():
    inserts = "sys.path." + "insert"  # spelled so that this file does not hold it
    edits = [path for folder in ("trainers", "bench", "tests") for path in (ROOT / folder).rglob("*.py")
             if inserts in path.read_text()]
    assert not edits
    assert "known-local-folder" not in (ROOT / "pyproject.toml").read_text()


def test_the_command_of_a_study_is_its_path_from_the_folder_above_its_top_package(tmp_path):
    script = ROOT / "trainers" / "chapter6" / "cliff_walking.py"
    assert studies.command_line(str(script), ["--runs", "2"]) == "python trainers/chapter6/cliff_walking.py --runs 2"
    loose = tmp_path / "mine.py"
    assert studies.command_line(str(loose), ["--x", "a b"]) == "python mine.py --x 'a b'"


def test_study_outputs_can_leave_out_the_ranks_and_take_more_options():
    parser = make_parser("d")
    output = studies.add_study_outputs(parser, "out", "name", ranks=False)
    output.add_argument("--checkpoint")
    args = parser.parse_args(["--checkpoint", "c.pt"])
    assert args.dpi == 150 and args.log_dir == Path("runs") and args.checkpoint == "c.pt"
    assert not hasattr(args, "dist_timeout")


@dataclass
class Total:
    """Sums over runs for the test: how many runs, and the sum of their indices squared."""

    runs: int
    squares: int

    def merge(self, other: "Total") -> "Total":
        return Total(self.runs + other.runs, self.squares + other.squares)


def test_chunks_cover_the_runs_in_order_and_sharded_sums_fold_them_all():
    runs = range(10, 1010)
    chunks = many_runs.run_chunks(runs, chunks=7)
    assert len(chunks) <= 7 and [run for chunk in chunks for run in chunk] == list(runs)
    assert len({len(chunk) for chunk in chunks[:-1]}) == 1
    assert many_runs.chunk_rounds(chunks, runs_per_batch=143, world=1) == len(chunks)
    assert many_runs.chunk_rounds(chunks, runs_per_batch=10_000, world=2) == 1
    counted = []
    total = many_runs.sharded_sums(lambda mine: [Total(len(c), sum(r * r for r in c)) for c in mine], runs,
                                   Total(0, 0), runs_per_batch=300, progress=counted.append)
    assert total == Total(1000, sum(r * r for r in runs)) and sum(counted) == 1000

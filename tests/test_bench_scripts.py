"""Every benchmark script starts and answers --help from a clean path (a moved module must not break a bench)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(str(path) for path in (ROOT / "bench").glob("*.py") if "def main(argv" in path.read_text())
# One interpreter runs each script as __main__ with --help; between scripts it puts sys.path back and forgets
# the modules of bench/ and trainers/, so each script finds its imports through its own path set-up alone.
CHILD = """
import runpy, sys
studies, failed = (sys.argv[1] + "/bench/", sys.argv[1] + "/trainers/"), []
for script in sys.argv[2:]:
    path, modules = list(sys.path), set(sys.modules)
    sys.argv = [script, "--help"]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        if stop.code not in (0, None):
            failed.append(f"{script}: exit status {stop.code}")
    except Exception as error:
        failed.append(f"{script}: {type(error).__name__}: {error}")
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        if (getattr(sys.modules[name], "__file__", None) or "").startswith(studies):
            del sys.modules[name]
print("\\n".join(failed), file=sys.stderr)
sys.exit(1 if failed else 0)
"""


def test_every_bench_script_answers_help_from_a_clean_path(tmp_path):
    # Mutant: blackjack_speed.py without trainers/chapter5 on its path (ModuleNotFoundError) fails.
    assert len(SCRIPTS) >= 8 and any(script.endswith("distributed_thorp.py") for script in SCRIPTS)
    result = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), *SCRIPTS], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("usage:") == len(SCRIPTS)

"""Every .py under bench/ and trainers/ answers --help from a clean path: a script with its usage, a module by
refusing in one line (exit status 2) and naming the script to run instead (a moved module must not break a bench)."""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rltorch.run import options

ROOT = Path(__file__).resolve().parents[1]
# Every file but a package's __init__ (neither a script nor a helper module).
FILES = sorted(path for path in [*ROOT.glob("bench/*.py"), *ROOT.glob("trainers/*.py"), *ROOT.glob("trainers/*/*.py")]
               if path.name != "__init__.py")
SCRIPTS = [path for path in FILES if "def main(argv" in path.read_text()]
# One interpreter runs each file as `python FILE --help` would (its folder first on sys.path, as __main__); between
# files it puts sys.path back and forgets the modules of bench/ and trainers/, so each file finds its imports
# through its own folder and the installed `trainers` package alone (no path set-up of its own). It prints
# {file: [exit status, stdout, stderr]} as JSON.
CHILD = """
import contextlib, io, json, os, runpy, sys
studies, results = (sys.argv[1] + "/bench/", sys.argv[1] + "/trainers/"), {}
for script in sys.argv[2:]:
    path, modules, out, err = list(sys.path), set(sys.modules), io.StringIO(), io.StringIO()
    sys.argv, sys.path[0] = [script, "--help"], os.path.dirname(script)
    status = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
        except Exception as error:
            status, err = -1, io.StringIO(f"{type(error).__name__}: {error}")
    results[script] = [status, out.getvalue(), err.getvalue()]
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        if (getattr(sys.modules[name], "__file__", None) or "").startswith(studies):
            del sys.modules[name]
print(json.dumps(results))
"""


def test_every_file_under_bench_and_trainers_shows_its_usage_or_names_its_script(tmp_path):
    # Mutants: blackjack_speed.py importing chapter5's methods by a bare name (ModuleNotFoundError) fails; so does a
    # helper module that prints nothing and exits 0 when run (thorp's engine.py before it named study.py).
    assert len(SCRIPTS) >= 20 and len(FILES) - len(SCRIPTS) >= 16
    result = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), *map(str, FILES)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.splitlines()[-1])
    for path in FILES:
        status, out, err = answers[str(path)]
        if path in SCRIPTS:
            assert status == 0 and out.startswith("usage:"), f"{path}: {status} {err}"
            continue
        named = re.fullmatch(rf"{path.name} is a module of .*; run python (\S+) --help\n", err)
        assert status == 2 and not out and named, f"{path}: {status} {out!r} {err!r}"
        assert (ROOT / named[1]).resolve() in SCRIPTS, f"{path} names {named[1]}, not a script"
    assert not list(tmp_path.iterdir())  # --help writes nothing


# Every study and bench script but the trainers whose parsers rltorch builds (rltorch train's presets).
BUILT_BY_RLTORCH = {"sarsa_trainer.py", "qlearning_trainer.py", "mc_trainer.py", "network_blackjack.py"}
OWN_PARSERS = [path.relative_to(ROOT).as_posix() for path in SCRIPTS if path.name not in BUILT_BY_RLTORCH]
NEEDED = {"blackjack_figures.py": ["--figure", "5.1"]}  # what a script's parser needs in any case
NOT_NUMBERS = {None, str, Path, options.writable_file, options.writable_folder, options.existing_file,
               options.key_value}
UNBOUNDED = {int, float, options.integer, options.positive_int, options.non_negative_int, options.finite_float,
             options.positive_float}


def load_module(relative: str, monkeypatch: pytest.MonkeyPatch):
    """Import a script as a module registered under a name of its own (its dataclasses look their module up), with
    its folder first on the path as `python FILE` has it (a bench script imports its plain baseline from there)."""
    monkeypatch.syspath_prepend(str((ROOT / relative).parent))
    name = "bounded_" + Path(relative).stem
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("script", OWN_PARSERS)
def test_every_numeric_option_has_an_upper_bound_checked_when_parsed(script, capsys, monkeypatch):
    # Mutants: --runs 1e19, --dpi 1e6 or Thorp's --threads 1e19 passed the parser and failed later.
    parser = load_module(script, monkeypatch).build_parser()
    numeric = [action for action in parser._actions if action.option_strings and action.type not in NOT_NUMBERS]
    for action in numeric:
        option = action.option_strings[-1]
        assert action.type not in UNBOUNDED, f"{script} {option} has no upper bound"
        for huge in ("1e19", "1" + "0" * 30):
            with pytest.raises(SystemExit) as exit_info:
                parser.parse_args([*NEEDED.get(Path(script).name, []), option, huge])
            err = capsys.readouterr().err
            assert exit_info.value.code == 2 and err.count("\n") == 1 and f"argument {option}" in err, err
    assert numeric or script.startswith("bench/plain")

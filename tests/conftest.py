import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The tests' helpers, and each study folder under trainers/ (its script imports its sibling modules by name).
for folder in (ROOT / "tests", *sorted(p for p in (ROOT / "trainers").iterdir() if p.is_dir())):
    sys.path.insert(0, str(folder))

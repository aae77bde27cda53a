import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
# The tests' helpers, and each study folder under trainers/ (its script imports its sibling modules by name).
for folder in (ROOT / "tests", *sorted(p for p in (ROOT / "trainers").iterdir() if p.is_dir())):
    sys.path.insert(0, str(folder))


@pytest.fixture(scope="module")
def one_thread():
    """Torch on one thread: small networks and the batched engines run fastest so, and the suite stays fast."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)

"""Every dotted rltorch name the README and docs quote in backticks exists (a module, or a name in one)."""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
QUOTED = re.compile(r"`(rltorch(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def quoted_names() -> list:
    """(document, dotted name) for every backticked name that starts with `rltorch.`."""
    return sorted({(path.name, name) for path in DOCUMENTS for name in QUOTED.findall(path.read_text())})


def resolve(dotted: str) -> object:
    """Import the longest module prefix of `dotted`, then follow the rest as attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part)
        return found
    raise ModuleNotFoundError(dotted)


def test_the_documents_quote_rltorch_names():
    assert len(quoted_names()) > 10


@pytest.mark.parametrize("document, name", quoted_names())
def test_every_quoted_rltorch_name_exists(document, name):
    resolve(name)

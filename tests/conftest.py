import pytest
import torch


@pytest.fixture(scope="module")
def one_thread():
    """Torch on one thread: small networks and the batched engines run fastest so, and the suite stays fast."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def readme_module(tmp_path, monkeypatch):
    """Write a README code block (`# NAME.py` first) as NAME.py in the current folder, not on the path.

    Returns a function NAME -> the marker file the module touches when imported; forgets the modules after.
    """
    import sys

    from tests.helpers import module_in_current_folder, readme_block

    names = []
    monkeypatch.chdir(tmp_path)

    def write(name):
        names.append(name)
        return module_in_current_folder(tmp_path, name, readme_block(f"# {name}.py"))

    yield write
    for name in names:
        sys.modules.pop(name, None)

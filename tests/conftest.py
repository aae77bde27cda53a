import pytest
import torch


@pytest.fixture(scope="module")
def one_thread():
    """Torch on one thread: small networks and the batched engines run fastest so, and the suite stays fast."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)

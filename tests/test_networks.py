import copy
import io
import re
from pathlib import Path

import pytest
import torch

import rltorch
from rltorch import AfterstateKeys, MCTrainer, QLearningTrainer, QTable, SARSATrainer, StateActionKeys, VTable
from rltorch.envs.blackjack.encoder import BlackjackEncoder
from rltorch.envs.tictactoe.encoder import BoardEncoder
from rltorch.envs.tictactoe.env import TicTacToeEnv, afterstate
from rltorch.trainers.dqn import DQNTrainer, batch_q_targets
from rltorch.trainers.replay import ReplayBuffer
from rltorch.values.encoders import PairEncoder
from rltorch.values.networks import QNetwork, VNetwork

ROOT = Path(__file__).resolve().parents[1]
BOARDS = [(0,) * 9, (1, 0, 0, 0, 0, 0, 0, 0, 0), (1, -1, 0, 0, 1, 0, 0, 0, 0)]


def test_encoders():
    assert BoardEncoder()([(1, -1, 0, 0, 0, 0, 0, 0, 0)]).tolist()[0][:11] == [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0]
    row = BlackjackEncoder()([(13, 2, 1)])[0]
    assert row.sum() == 3 and row[13 - 4] == 1 and row[18 + 1] == 1 and row[-1] == 1
    pair = PairEncoder(BoardEncoder(), 9)
    assert pair.size == 36 and pair([((0,) * 9, 4)])[0, 27 + 4] == 1


def test_fit_is_one_semi_gradient_step_toward_the_targets():
    torch.manual_seed(0)
    network = VNetwork(BoardEncoder(), hidden=(16,), lr=0.01)
    targets = torch.tensor([1.0, -1.0, 0.5])
    before = network(BOARDS).detach()
    errors = network.fit(BOARDS, targets)
    assert torch.allclose(errors.float(), targets - before)
    after = network(BOARDS).detach()
    assert ((targets - after) ** 2).mean() < ((targets - before) ** 2).mean()
    diagnostics = network.diagnostics()
    assert diagnostics["loss/value"] == pytest.approx(0.5 * float(((targets - before) ** 2).mean()), rel=1e-5)
    assert diagnostics["loss/grad_norm"] > 0 and network.diagnostics() == {}


def test_q_network_picks_the_action_output():
    torch.manual_seed(0)
    network = QNetwork(BoardEncoder(), 9, hidden=(8,))
    rows = network.net(BoardEncoder()([BOARDS[1]]))[0]
    assert network([(BOARDS[1], 3), (BOARDS[1], 7)]).tolist() == pytest.approx([rows[3].item(), rows[7].item()])


def test_network_state_dict_loads_with_weights_only_and_the_module_through_rltorch_load(tmp_path):
    torch.manual_seed(0)
    trainer = SARSATrainer(TicTacToeEnv(), VNetwork(BoardEncoder(), (16,)), keys=AfterstateKeys(afterstate), seed=0)
    trainer.train(50, eval_every=0, progress=False)
    buffer = io.BytesIO()
    torch.save(trainer.value_fn.state_dict(), buffer)
    buffer.seek(0)
    fresh = VNetwork(BoardEncoder(), (16,))
    fresh.load_state_dict(torch.load(buffer, weights_only=True))
    assert torch.equal(fresh(BOARDS), trainer.value_fn(BOARDS))
    agent = rltorch.load(trainer.save(tmp_path / "net.pt"))
    for board in BOARDS:
        legal = [c for c in range(9) if board[c] == 0]
        assert agent.act(board, legal) == trainer.agent().act(board, legal)


def table_or_network(kind: str, keys: str):
    """The one line that differs between a table run and a network run."""
    if kind == "table":
        return VTable() if keys == "afterstate" else QTable()
    return VNetwork(BoardEncoder(), (16,)) if keys == "afterstate" else QNetwork(BoardEncoder(), 9, (16,))


@pytest.mark.parametrize("cls", [SARSATrainer, QLearningTrainer, MCTrainer])
@pytest.mark.parametrize("kind", ["table", "mlp"])
@pytest.mark.parametrize("keys", ["q", "afterstate"])
def test_every_trainer_runs_a_table_or_a_network_through_the_same_code(cls, kind, keys):
    # Catches the mutant without `optimizer.step()` in Network.fit: the values of the keys the trainer
    # learned on must have moved from where they started (a table's from 0, a network's from its init).
    torch.manual_seed(0)
    key_maker = AfterstateKeys(afterstate) if keys == "afterstate" else StateActionKeys()
    trainer = cls(TicTacToeEnv(), table_or_network(kind, keys), keys=key_maker, seed=0)
    initial, learned, learn = copy.deepcopy(trainer.value_fn), [], trainer.learn
    trainer.learn = lambda key, target: (learned.append(key), learn(key, target))
    trainer.train(60, log_every=20, eval_every=60, eval_games=10, progress=False)
    assert trainer.episodes_done == 60 and trainer.test(10).episodes == 10
    assert len(learned) > 60
    moved = [abs(a - b) > 1e-6 for a, b in zip(trainer.value_fn.values(learned), initial.values(learned), strict=True)]
    assert sum(moved) > len(learned) / 10, f"{sum(moved)} of {len(learned)} learned values moved"


def test_trainers_do_not_branch_on_the_value_function_type():
    pattern = re.compile(r"(isinstance|hasattr|getattr|type)\(self\.value_fn|\b(Q|V)?(Table|Network)\b")
    for path in (ROOT / "rltorch" / "trainers").glob("*.py"):
        offending = [line for line in path.read_text().splitlines() if pattern.search(line)]
        assert not offending, f"{path.name}: {offending}"


def test_replay_targets_read_every_next_value_in_one_call():
    table = QTable()
    table.table.update({("s1", 0): 0.5, ("s1", 1): 0.9, ("s2", 0): -0.3})
    batch = [("k", 0.0, False, [("s1", 0), ("s1", 1)]), ("k", 1.0, True, []), ("k", 0.5, False, [("s2", 0)])]
    assert batch_q_targets(batch, table, 0.9) == pytest.approx([0.81, 1.0, 0.5 - 0.27])
    buffer = ReplayBuffer(2)
    for item in batch:
        buffer.add(item)
    assert len(buffer) == 2 and list(buffer.transitions) == batch[1:]


@pytest.mark.parametrize("kind", ["table", "mlp"])
def test_dqn_options_refresh_the_target_copy(kind):
    # Catches the mutant that never refreshes the target copy (the deepcopy in DQNTrainer.learn_transition
    # removed): the target must equal the online values right after every 25th fit and stay frozen in between.
    torch.manual_seed(0)
    trainer = DQNTrainer(TicTacToeEnv(), table_or_network(kind, "q"), seed=0, replay_size=200, batch_size=8,
                         target_update_every=25)
    assert trainer.target_fn is not trainer.value_fn
    learn_transition, refreshed, lagging = trainer.learn_transition, [], []

    def learn_and_check(transition):
        frozen = trainer.target_fn
        learn_transition(transition)
        if trainer.fits % 25 in (0, 24):  # just refreshed, or about to be
            keys = [key for key, *_ in trainer.replay.transitions]
            target, online = trainer.target_fn.values(keys), trainer.value_fn.values(keys)
        if trainer.fits % 25 == 0:
            assert trainer.target_fn is not trainer.value_fn  # a copy, not the online values themselves
            assert target == online, f"the target copy was not refreshed at fit {trainer.fits}"
            refreshed.append(trainer.fits)
        else:
            assert trainer.target_fn is frozen
            if trainer.fits % 25 == 24:
                lagging.append(target != online)

    trainer.learn_transition = learn_and_check
    trainer.train(40, log_every=20, eval_every=0, progress=False)
    assert trainer.fits > 100 and len(trainer.replay) == min(200, trainer.fits)
    assert refreshed == list(range(25, trainer.fits + 1, 25))
    assert any(lagging)  # the online values moved on between refreshes, so a stale copy is visible
    plain = DQNTrainer(TicTacToeEnv(), QTable(), seed=0, replay_size=0, target_update_every=0)
    assert plain.target_fn is plain.value_fn and plain.replay is None


def test_checkpoint_holds_the_network_config_and_state_dict(tmp_path):
    torch.manual_seed(0)
    trainer = SARSATrainer(TicTacToeEnv(), VNetwork(BoardEncoder(), (16,), lr=2e-3), keys=AfterstateKeys(afterstate))
    payload = rltorch.load_checkpoint(trainer.save(tmp_path / "net.pt"))
    assert payload["value_fn_config"] == {"class": "VNetwork", "hidden": (16,), "lr": 2e-3, "device": "cpu",
                                          "encoder": {"class": "rltorch.envs.tictactoe.encoder:BoardEncoder",
                                                      "args": {}}}
    torch.save(payload["value_fn_state"], tmp_path / "state.pt")
    rebuilt = VNetwork(BoardEncoder(), payload["value_fn_config"]["hidden"])
    rebuilt.load_state_dict(torch.load(tmp_path / "state.pt", weights_only=True))
    assert torch.equal(rebuilt(BOARDS), trainer.value_fn(BOARDS))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message given when no GPU is present")
def test_asking_for_cuda_without_a_gpu_is_a_clear_error():
    with pytest.raises(ValueError, match="no GPU is available"):
        VNetwork(BoardEncoder(), device="cuda")


def test_the_same_seed_gives_identical_networks_from_the_command_line_options():
    from rltorch.run.cli import train_parser
    from rltorch.run.commands import run_config
    from rltorch.run.training import build_trainer

    def run(seed):
        parser = train_parser("rltorch/TicTacToe-v0", "qlearning")
        args = parser.parse_args(["--value-fn", "mlp", "--hidden", "8", "--seed", str(seed)])
        trainer = build_trainer(run_config(args, {}, "rltorch/TicTacToe-v0", "qlearning"))
        trainer.train(40, eval_every=0, progress=False)
        return trainer.value_fn.state_dict()

    first, second, other = run(5), run(5), run(6)
    assert all(torch.equal(first[name], second[name]) for name in first)
    assert not any(torch.equal(first[name], other[name]) for name in first)  # another seed: other weights everywhere

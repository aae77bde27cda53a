"""Plot runs' TensorBoard scalars side by side, read back from their event files."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from PIL import Image  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from rltorch.errors import RLTorchError  # noqa: E402


def read_scalars(run_dir: str | Path, tag: str) -> tuple[list[int], list[float]]:
    """The (steps, values) of one scalar tag in a run folder."""
    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    tags = events.Tags()["scalars"]
    if tag not in tags:
        raise RLTorchError(f"run {run_dir} has no scalar {tag!r}; it has: {', '.join(sorted(tags)) or 'none'}")
    scalars = events.Scalars(tag)
    return [event.step for event in scalars], [event.value for event in scalars]


# a run with at most this many points also gets a marker on each (one point alone is no line at all)
FEW_POINTS = 20


def line_style(points: int) -> dict[str, object]:
    """Matplotlib keywords for a curve of `points` points: markers too when there are few."""
    return {"marker": "o", "markersize": 4} if points <= FEW_POINTS else {}


def plot_runs(
    run_dirs: Sequence[str | Path], tags: Sequence[str], out: str | Path, labels: Sequence[str] | None = None
) -> Path:
    """One panel per tag, one line per run; saved as a PNG at `out`."""
    out = Path(out)
    if out.suffix.lower() != ".png":
        raise RLTorchError(f"--out {out} must name a .png file")
    for run_dir in run_dirs:
        if not Path(run_dir).is_dir():
            raise RLTorchError(f"run folder {run_dir} does not exist")
    labels = list(labels) if labels else [Path(run_dir).name for run_dir in run_dirs]
    if len(labels) != len(run_dirs):
        raise RLTorchError(f"{len(labels)} labels for {len(run_dirs)} runs: give one label per run")
    figure, axes = plt.subplots(1, len(tags), figsize=(5 * len(tags), 3.6), squeeze=False)
    for axis, tag in zip(axes[0], tags, strict=True):
        for run_dir, label in zip(run_dirs, labels, strict=True):
            steps, values = read_scalars(run_dir, tag)
            axis.plot(steps, values, label=label, **line_style(len(steps)))
        axis.set_title(tag)
        axis.set_xlabel("episodes")
        axis.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=100)
    plt.close(figure)
    return out


def save_png(figure: Figure, path: str | Path, dpi: int = 80) -> Path:
    """Save `figure` as a small PNG: rendered at `dpi`, reduced to a 256-colour palette."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    buffer.seek(0)
    with Image.open(buffer) as image:
        image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)
    return Path(path)

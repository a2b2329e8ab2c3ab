"""Roofline plot of a GPU suite run (bench/gpu_suite.py's JSON): arithmetic
intensity (FLOP/byte) against achieved FLOP/s on log-log axes, under the
roofs measured in the same run.

    python3 bench/roofline.py DIR/gpu_suite.json [OUT.png]

(default OUT.png: roofline.png beside the JSON). The bandwidth roof is the
run's 1 GiB device-to-device copy (``copy_GBps``); the compute roof is the
best ``torch.matmul`` rate of the run's matmuls (fp16/bf16 on tensor
cores). Each kernel has one point per implementation measured (Kiln,
PyTorch, torch.compile, Triton), at the intensity of its ``flops`` over
its ``bytes`` (each array moved once), so a kernel's points share a
vertical line. Failed and skipped measurements have no time in the JSON
and no point. The plot needs matplotlib (Agg, no display); without it
`write_roofline` raises `RooflineError` and the JSON can be plotted later
on any machine that has it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path

#: The suite's time fields, and the implementation each one measures.
IMPLEMENTATIONS = {"kiln_s": "Kiln", "torch_s": "PyTorch",
                   "compiled_s": "torch.compile", "triton_s": "Triton"}


class RooflineError(Exception):
    """The plot cannot be drawn (matplotlib missing, nothing to plot)."""


@dataclasses.dataclass(frozen=True)
class Point:
    kernel: str
    implementation: str
    intensity: float
    """FLOP per byte moved."""
    flops_per_s: float


@dataclasses.dataclass(frozen=True)
class Roofline:
    bandwidth: float
    """Bytes per second: the measured copy bandwidth."""
    compute: float | None
    """FLOP per second: the best measured torch.matmul rate (None when no
    matmul was measured)."""
    points: list[Point]

    @property
    def ridge(self) -> float | None:
        """The intensity where the roofs meet."""
        return self.compute / self.bandwidth if self.compute else None

    def roof(self, intensity: float) -> float:
        """The attainable FLOP/s at `intensity`."""
        memory = intensity * self.bandwidth
        return min(memory, self.compute) if self.compute else memory


def _usable(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and \
        value > 0


def kernel_label(row: dict) -> str:
    """A row's name in the plot: the kernel, or a matmul's type, size and
    block size."""
    if "kernel" in row:
        return row["kernel"]
    blocks = f" ({row['blocks'].split(',')[0]})" if "blocks" in row else ""
    return f"matmul {row['dtype']} {row['size']}{blocks}"


def roofline_from_results(results: dict) -> Roofline:
    """The roofs and points of a suite run's JSON (as loaded).

    >>> run = {"copy_GBps": 2000.0,
    ...        "kernels": [{"kernel": "vector_add", "bytes": 12,
    ...                     "flops": 1, "kiln_s": 1e-5,
    ...                     "compiled_error": "no compiler"}],
    ...        "matmul": [{"size": 8, "dtype": "f16", "flops": 1024,
    ...                    "bytes": 512, "torch_s": 1e-6}]}
    >>> roofline = roofline_from_results(run)
    >>> roofline.bandwidth, roofline.compute
    (2000000000000.0, 1024000000.0)
    >>> [(p.kernel, p.implementation) for p in roofline.points]
    [('vector_add', 'Kiln'), ('matmul f16 8', 'PyTorch')]
    """
    bandwidth = results.get("copy_GBps")
    if not _usable(bandwidth):
        raise RooflineError("the run has no measured copy bandwidth "
                            "(copy_GBps)")
    rows = results.get("kernels", []) + results.get("matmul", [])
    rates = [row["flops"] / row["torch_s"] for row in results.get("matmul", [])
             if _usable(row.get("flops")) and _usable(row.get("torch_s"))]
    points = []
    for row in rows:
        flops, nbytes = row.get("flops"), row.get("bytes")
        if not (_usable(flops) and _usable(nbytes)):
            continue
        for field, implementation in IMPLEMENTATIONS.items():
            seconds = row.get(field)
            if _usable(seconds):
                points.append(Point(kernel_label(row), implementation,
                                    flops / nbytes, flops / seconds))
    return Roofline(bandwidth * 1e9, max(rates) if rates else None, points)


#: A marker per kernel (cycled), a color per implementation.
MARKERS = "osD^vP*Xhp<>d8H"
COLORS = {name: f"C{i}" for i, name in enumerate(IMPLEMENTATIONS.values())}


def _draw_roofs(axes, roofline: Roofline) -> None:
    """The roofs, over the points' intensities and the ridge with margins."""
    intensities = [p.intensity for p in roofline.points]
    low = min(intensities + [roofline.ridge or math.inf]) / 4
    high = max(intensities + [roofline.ridge or 0]) * 4
    xs = [low * (high / low) ** (i / 200) for i in range(201)]
    axes.plot(xs, [roofline.roof(x) for x in xs], color="black", lw=1.5)
    axes.annotate(f"copy {roofline.bandwidth / 1e9:.0f} GB/s",
                  (low, roofline.roof(low)), xytext=(8, -4),
                  textcoords="offset points", fontsize=8, va="top")
    if roofline.compute:
        axes.annotate(f"torch.matmul {roofline.compute / 1e12:.0f} TFLOP/s",
                      (high, roofline.compute), xytext=(-4, 6),
                      textcoords="offset points", fontsize=8, ha="right")


def _draw_points(axes, roofline: Roofline) -> None:
    """The points, with a legend of implementations (colors) inside the
    axes and one of kernels (markers) to their right."""
    from matplotlib.lines import Line2D

    kernels = list(dict.fromkeys(p.kernel for p in roofline.points))
    marker = {name: MARKERS[i % len(MARKERS)]
              for i, name in enumerate(kernels)}
    for point in roofline.points:
        axes.scatter(point.intensity, point.flops_per_s, s=40, zorder=3,
                     color=COLORS[point.implementation],
                     marker=marker[point.kernel])

    def handle(shape: str, color: str, label: str):
        return Line2D([], [], marker=shape, color=color, linestyle="",
                         label=label)

    implementations = [name for name in IMPLEMENTATIONS.values()
                       if any(p.implementation == name
                              for p in roofline.points)]
    axes.add_artist(axes.legend(
        handles=[handle("o", COLORS[name], name) for name in implementations],
        title="implementation", loc="upper left", fontsize=8))
    axes.legend(handles=[handle(marker[name], "grey", name)
                         for name in kernels],
                title="kernel", fontsize=8, loc="upper left",
                bbox_to_anchor=(1.01, 1))


def write_roofline(results: dict, path: Path) -> Roofline:
    """Draws the run's roofline plot as a PNG at `path`; raises
    RooflineError when matplotlib is missing or there is nothing to plot."""
    roofline = roofline_from_results(results)
    if not roofline.points:
        raise RooflineError("no kernel of the run has a time, FLOPs and "
                            "bytes to plot")
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D  # noqa: F401 (_draw_points)
    except ImportError:
        raise RooflineError("matplotlib is not installed (pip install "
                            "matplotlib), so no roofline plot; "
                            "bench/roofline.py draws it from the JSON "
                            "later") from None
    figure = Figure(figsize=(10, 6.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.set_xscale("log")
    axes.set_yscale("log")
    _draw_roofs(axes, roofline)
    _draw_points(axes, roofline)
    axes.set_xlabel("arithmetic intensity (FLOP/byte)")
    axes.set_ylabel("achieved FLOP/s")
    axes.set_title(f"Roofline: {results.get('device', 'GPU')}, "
                   f"{results.get('date', '')}")
    axes.grid(True, which="both", alpha=0.3)
    # "tight" makes room for the kernel legend, outside the axes.
    figure.savefig(path, dpi=120, bbox_inches="tight")
    return roofline


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", type=Path, help="gpu_suite.json of a run")
    parser.add_argument("png", type=Path, nargs="?",
                        help="the plot (default: roofline.png beside the "
                             "JSON)")
    options = parser.parse_args()
    png = options.png or options.json.with_name("roofline.png")
    try:
        roofline = write_roofline(json.loads(options.json.read_text()), png)
    except RooflineError as error:
        print(f"roofline: {error}", file=sys.stderr)
        return 1
    print(f"{png}: {len(roofline.points)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())

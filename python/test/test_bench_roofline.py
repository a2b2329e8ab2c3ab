"""bench/roofline.py: the roofs and points it takes from a GPU suite run's
JSON, and the PNG it draws, on a small synthetic run in the suite's
schema."""

from __future__ import annotations

import doctest
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import gpu_suite  # noqa: E402
import roofline  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: A run as bench/gpu_suite.py writes it: a kernel whose Kiln launch
#: failed and whose torch.compile was skipped, one measured everywhere, a
#: matmul without Triton and one whose Kiln launch failed.
RUN = {
    "date": "2026-12-03 12:00 UTC",
    "device": "Test GPU",
    "torch": "2.9.0",
    "copy_GBps": 4000.0,
    "kernels": [
        {"kernel": "vector_add", "bytes": 12_000, "flops": 1_000,
         "kiln_s": 4e-9, "torch_s": 5e-9, "compiled_s": 4.5e-9},
        {"kernel": "softmax", "bytes": 8_000, "flops": 5_000,
         "kiln_error": "kiln-run: launch failed", "torch_s": 4e-9,
         "compiled_error": "torch.compile: no compiler"},
    ],
    "matmul": [
        {"size": 1024, "dtype": "f16", "flops": 2 * 1024 ** 3,
         "bytes": 8 * 1024 ** 2, "torch_s": 4e-6, "kiln_s": 8e-6},
        {"size": 4096, "dtype": "bf16", "flops": 2 * 4096 ** 3,
         "bytes": 8 * 4096 ** 2, "torch_s": 2e-4,
         "kiln_error": "kiln-run: out of registers", "triton_s": 3e-4},
    ],
    "launch_overhead_us": {"torch x.add_(1)": {"1-element add": 4.0}},
    "launch_overhead_skipped": {},
}


def test_docstring_examples():
    result = doctest.testmod(roofline)
    assert result.attempted and not result.failed


def test_roofs_come_from_the_runs_ceilings():
    line = roofline.roofline_from_results(RUN)
    assert line.bandwidth == pytest.approx(4000e9)
    # The best torch.matmul rate of the run: 4096³ in 0.2 ms.
    best = 2 * 4096 ** 3 / 2e-4
    assert best > 2 * 1024 ** 3 / 4e-6
    assert line.compute == pytest.approx(best)
    assert line.ridge == pytest.approx(best / 4000e9)
    assert line.roof(1.0) == pytest.approx(4000e9)
    assert line.roof(1e6) == pytest.approx(best)


def test_points_are_flops_over_bytes_and_over_time():
    points = {(p.kernel, p.implementation): p
              for p in roofline.roofline_from_results(RUN).points}
    add = points[("vector_add", "Kiln")]
    assert add.intensity == pytest.approx(1_000 / 12_000)
    assert add.flops_per_s == pytest.approx(1_000 / 4e-9)
    matmul = points[("matmul bf16 4096", "Triton")]
    assert matmul.intensity == pytest.approx(2 * 4096 / 8)
    assert matmul.flops_per_s == pytest.approx(2 * 4096 ** 3 / 3e-4)


def test_failed_and_skipped_measurements_have_no_point():
    points = {(p.kernel, p.implementation)
              for p in roofline.roofline_from_results(RUN).points}
    assert points == {
        ("vector_add", "Kiln"), ("vector_add", "PyTorch"),
        ("vector_add", "torch.compile"),
        ("softmax", "PyTorch"),
        ("matmul f16 1024", "Kiln"), ("matmul f16 1024", "PyTorch"),
        ("matmul bf16 4096", "PyTorch"), ("matmul bf16 4096", "Triton"),
    }


def test_without_matmuls_there_is_only_the_bandwidth_roof():
    run = {**RUN, "matmul": []}
    line = roofline.roofline_from_results(run)
    assert line.compute is None and line.ridge is None
    assert line.roof(1e6) == pytest.approx(1e6 * 4000e9)


def test_a_run_without_bandwidth_is_refused():
    run = {key: value for key, value in RUN.items() if key != "copy_GBps"}
    with pytest.raises(roofline.RooflineError, match="copy_GBps"):
        roofline.roofline_from_results(run)
    with pytest.raises(roofline.RooflineError, match="nothing|no kernel"):
        roofline.write_roofline({**RUN, "kernels": [], "matmul": []},
                                Path(os.devnull))


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    return struct.unpack(">II", data[16:24])


def test_the_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "roofline.png"
    line = roofline.write_roofline(RUN, path)
    assert len(line.points) == 8
    assert path.stat().st_size > 20_000
    width, height = png_size(path)
    assert 1000 < width < 1600 and 600 < height < 900


def test_the_command_line_plots_a_json_beside_it(tmp_path):
    pytest.importorskip("matplotlib")
    (tmp_path / "gpu_suite.json").write_text(json.dumps(RUN))
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "roofline.py"),
         str(tmp_path / "gpu_suite.json")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{tmp_path / 'roofline.png'}: 8 points\n"
    png_size(tmp_path / "roofline.png")


def test_the_suite_draws_it_at_the_end_of_a_run(tmp_path):
    pytest.importorskip("matplotlib")
    results = json.loads(json.dumps(RUN))
    line = gpu_suite.roofline_plot(results, tmp_path / "roofline.png")
    assert line == "Roofline plot: roofline.png."
    assert results["roofline_png"] == "roofline.png"
    png_size(tmp_path / "roofline.png")


def test_without_matplotlib_the_suite_says_so_and_goes_on(tmp_path):
    # matplotlib made unimportable in a fresh interpreter.
    code = f"""
import json, sys
for name in ("matplotlib", "matplotlib.backends.backend_agg",
             "matplotlib.figure", "matplotlib.lines"):
    sys.modules[name] = None
sys.path.insert(0, {str(ROOT / "bench")!r})
import gpu_suite
results = json.loads({json.dumps(json.dumps(RUN))})
print(gpu_suite.roofline_plot(results, __import__("pathlib").Path(
    {str(tmp_path / "roofline.png")!r})))
print(results["roofline_error"])
"""
    result = subprocess.run([sys.executable, "-c", code],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("No roofline plot: matplotlib is not "
                               "installed (pip install matplotlib)")
    assert lines[1].startswith("matplotlib is not installed")
    assert not (tmp_path / "roofline.png").exists()

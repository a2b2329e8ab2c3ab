"""Every script of bench/ answers --help with its usage, and runs
nothing: no benchmark, no output folder (compile_time.py once ran its
benchmark into a folder named --help)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = ["compile_time.py", "host_bounds_checks.py", "gpu_suite.py",
           "roofline.py", "corpus/compare.py", "launch_overhead.py"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_prints_the_usage_and_runs_nothing(script, tmp_path):
    env = dict(os.environ,
               PYTHONPATH=str(BENCH.parent / "python") + os.pathsep +
               os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, str(BENCH / script), "--help"],
                            cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: {Path(script).name}")
    assert list(tmp_path.iterdir()) == []


def test_compile_time_refuses_an_unknown_option(tmp_path):
    result = subprocess.run(
        [sys.executable, str(BENCH / "compile_time.py"), "--fast"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONPATH=str(BENCH.parent / "python")))
    assert result.returncode == 2
    assert "unrecognized arguments: --fast" in result.stderr
    assert list(tmp_path.iterdir()) == []

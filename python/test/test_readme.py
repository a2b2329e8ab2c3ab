"""The README's Quick start runs as written: its host half everywhere, the
whole of it where PyTorch sees a GPU."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def quick_start() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the Quick start is one Python block"
    return blocks[0]


def run(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    script = tmp_path / "quick_start.py"  # @kiln.jit reads its source
    script.write_text(code)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    env.pop("KILN_INTERPRET", None)
    return subprocess.run([sys.executable, str(script)], env=env,
                          capture_output=True, text=True, timeout=600)


def test_quick_start_on_the_host(tmp_path):
    host, device = quick_start().split("import torch\n")
    assert "assert np.allclose(out, x + y)" in host
    assert "device=\"cuda\"" in device
    result = run(host, tmp_path)
    assert result.returncode == 0, result.stderr


def test_quick_start_on_the_gpu(tmp_path):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    code = quick_start() + "assert torch.allclose(outs, xs + ys)\n"
    result = run(code, tmp_path)
    assert result.returncode == 0, result.stderr

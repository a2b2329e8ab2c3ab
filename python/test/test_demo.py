"""The README's first command, scripts/demo.sh, runs to the end: every
example kernel checked against numpy (on the host target here)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["vector_add", "cos_cos", "gelu", "gelu_tanh", "relu_axpb",
            "softmax", "layer_norm", "matmul"]


def test_the_demo_runs_every_example_and_checks_it():
    env = dict(os.environ)
    env.setdefault("KILN_BUILD_DIR", str(ROOT / "build"))
    done = subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh")],
                          capture_output=True, text=True, env=env,
                          timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # A kernel, the examples (their IR stages kept in build/demo, not
    # printed), a PTX excerpt, the fused array programs...
    assert "func.func @vector_add(" in done.stdout
    assert ".entry softmax" in done.stdout
    assert "after fusion:" in done.stdout
    demo = Path(env["KILN_BUILD_DIR"]) / "demo"
    for example in (ROOT / "docs" / "examples").glob("*.mlir"):
        assert example.name in done.stdout
        assert (demo / example.name).is_file()
        assert "IR Dump After" in (demo / f"{example.stem}.stages.mlir"
                                   ).read_text()
    assert "gpu.func @softmax" in (demo / "softmax.gpu.mlir").read_text()
    # ...in a page or two, not thousands of lines of IR.
    assert len(done.stdout.splitlines()) < 200
    # ...and the table: one row per example, each checked.
    rows = {m[1]: m[2] for m in re.finditer(
        r"^(\w+)\s+\S+(?: \S+)?\s+\d+ ms\s+[\d.]+ ms\s+\S+\s+(\w+)$",
        done.stdout, re.M)}
    assert rows == {name: "ok" for name in EXAMPLES}, done.stdout[-3000:]

"""The README's first command, scripts/demo.sh, runs to the end: every
example kernel checked against numpy (on the host target here); on a GPU
it times PyTorch's eager equivalent of each beside it, and each of those
computes what its example does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

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


def _numpy_torch():
    """A stand-in for the PyTorch calls the demo's peers make, on numpy:
    each peer must compute what its example computes."""
    import math
    from types import SimpleNamespace

    erf = np.vectorize(math.erf)

    def gelu(x, approximate="none"):
        if approximate == "tanh":
            return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                          (x + 0.044715 * x ** 3)))
        return 0.5 * x * (1 + erf(x / math.sqrt(2)))

    def softmax(x, dim):
        e = np.exp(x - x.max(axis=dim, keepdims=True))
        return e / e.sum(axis=dim, keepdims=True)

    def layer_norm(x, shape, weight, bias, eps):
        mean = x.mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) \
            * weight + bias

    def add(a, b, out):
        np.add(a, b, out=out)
        return out

    return SimpleNamespace(
        add=add, cos=np.cos, relu=lambda x: np.maximum(x, 0),
        softmax=softmax, matmul=lambda a, b: a.astype(np.float32) @ b,
        nn=SimpleNamespace(functional=SimpleNamespace(
            gelu=gelu, layer_norm=layer_norm)))


def test_each_pytorch_peer_computes_what_its_example_does():
    sys.path.insert(0, str(ROOT / "scripts" / "lib"))
    try:
        import run_examples
    finally:
        sys.path.pop(0)
    torch = _numpy_torch()
    cases = run_examples.cases(np.random.default_rng(0), gpu=False)
    assert [case.kernel for case in cases] == EXAMPLES
    for case in cases:
        arrays = [arg.copy() if isinstance(arg, np.ndarray) else arg
                  for arg in case.args]
        got = np.asarray(case.peer(torch, arrays)(), np.float64)
        np.testing.assert_allclose(got.reshape(case.output.shape),
                                   case.expected(), rtol=1e-3, atol=1e-3,
                                   err_msg=case.kernel)
    # The rate column: TFLOP/s for the matmul, else every array once.
    add, matmul = cases[0], cases[-1]
    assert run_examples.rate(add, 1e-3) == \
        f"{3 * 100_000 * 4 / 1e-3 / 1e9:.0f} GB/s"
    assert run_examples.rate(matmul, 1e-3) == \
        f"{2 * 200 * 150 * 300 / 1e-3 / 1e12:.1f} TFLOP/s"

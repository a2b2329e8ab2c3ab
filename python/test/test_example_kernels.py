"""The example kernels of docs/examples run by kiln-run on every target
there is, on random data with sizes that are not multiples of the block,
checked against float64 references computed with numpy.

The host target runs everywhere; the GPU runs where a CUDA driver and
device are found and is skipped, with the reason, elsewhere.
"""

from __future__ import annotations

import functools
import math
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build"))
KILN_RUN = BUILD / "bin" / "kiln-run"
EXAMPLES = ROOT / "docs" / "examples"


@dataclass
class Case:
    """A launch of one example: argument specs (arrays as numpy arrays),
    the grid, and the expected contents of the output argument."""

    kernel: str
    args: list
    grid: tuple[int, ...]
    output: int
    expected: np.ndarray
    tolerance: float
    warps: int = 4


def elementwise(kernel, f, n=100_003, tolerance=1e-6, scalars=()):
    x = (np.random.default_rng(1).standard_normal(n) * 2).astype(np.float32)
    expected = f(x.astype(np.float64))
    args = [x, np.zeros(n, np.float32), *scalars, ("i32", n)]
    return Case(kernel, args, ((n + 1023) // 1024,), 1, expected, tolerance)


def softmax_case():
    rows, cols = 37, 1000
    s = (np.random.default_rng(2).standard_normal((rows, cols)) * 3)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return Case("softmax", [s.astype(np.float32), np.zeros((rows, cols),
                np.float32), ("i32", cols), ("i32", cols)], (rows,), 1,
                e / e.sum(axis=1, keepdims=True), 1e-5)


def layer_norm_case():
    rows, cols = 29, 777
    rng = np.random.default_rng(3)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    w, b = rng.standard_normal((2, cols)).astype(np.float32)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    y = (x64 - mean) / np.sqrt(x64.var(axis=1, keepdims=True) + 1e-5)
    return Case("layer_norm", [x, np.zeros_like(x), w, b, ("i32", cols),
                ("i32", cols), ("f32", 1e-5)], (rows,), 1, y * w + b, 1e-4)


def vector_add_case():
    n = 65_537
    x, y = np.random.default_rng(4).standard_normal((2, n)).astype(np.float32)
    return Case("vector_add", [x, y, np.zeros(n, np.float32), ("i32", n)],
                ((n + 1023) // 1024,), 2,
                x.astype(np.float64) + y.astype(np.float64), 1e-7)


def matmul_case(kernel="matmul", block=64, warps=4, sizes=(200, 150, 300)):
    m, n, k = sizes
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    return Case(kernel, [a, b, np.zeros((m, n), np.float32), ("i32", m),
                ("i32", n), ("i32", k)],
                ((m + block - 1) // block, (n + block - 1) // block), 2,
                a.astype(np.float64) @ b.astype(np.float64), 1e-4, warps)


erf = np.vectorize(math.erf)
CASES = [
    vector_add_case(),
    elementwise("cos_cos", lambda x: np.cos(np.cos(x))),
    elementwise("gelu", lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2))),
                tolerance=1e-5),
    elementwise("gelu_tanh", lambda x: 0.5 * x * (1 + np.tanh(
        math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))), tolerance=1e-5),
    elementwise("relu_axpb", lambda x: np.maximum(1.5 * x - 0.25, 0),
                scalars=(("f32", 1.5), ("f32", -0.25))),
    softmax_case(),
    layer_norm_case(),
    matmul_case(),
    # 128x128x64 blocks: on sm_90a wgmma from dynamic shared memory.
    matmul_case("matmul_large", block=128, warps=8),
    # Block pointers: ragged everywhere (no TMA: the row strides are not
    # multiples of 16 bytes), then sizes that are, with ragged edges in N
    # and K (on sm_90a TMA copies A and B, zero-filling past the edges).
    matmul_case("matmul_tma", block=128, warps=8),
    matmul_case("matmul_tma", block=128, warps=8, sizes=(256, 208, 352)),
]


@functools.cache
def gpu_skip_reason() -> str | None:
    """Why kiln-run cannot use a GPU here (it exits with 77 and says why),
    or None. kiln-run alone is asked, so that these tests need nothing else
    on a GPU machine (scripts/gpu-check.sh)."""
    result = subprocess.run(
        [str(KILN_RUN), str(EXAMPLES / "vector_add.mlir"),
         "--kernel=vector_add", "--target=gpu", "--grid=1",
         "--arg=f32[16]=rand", "--arg=f32[16]=rand", "--arg=f32[16]=zeros",
         "--arg=i32=16"], capture_output=True, text=True)
    if result.returncode == 77:
        return result.stderr.strip()
    return None


@pytest.mark.parametrize("target", ["host", "gpu"])
@pytest.mark.parametrize("case", CASES, ids=[c.kernel for c in CASES])
def test_example_kernel(case: Case, target: str, tmp_path: Path):
    if target == "gpu" and (reason := gpu_skip_reason()):
        pytest.skip(reason)
    command = [str(KILN_RUN), str(EXAMPLES / f"{case.kernel}.mlir"),
               f"--kernel={case.kernel}",
               "--grid=" + ",".join(map(str, case.grid)),
               f"--target={target}", f"--tolerance={case.tolerance}",
               f"--num-warps={case.warps}"]
    for i, arg in enumerate(case.args):
        if isinstance(arg, np.ndarray):
            path = tmp_path / f"arg{i}.npy"
            np.save(path, arg)
            command.append(f"--arg=@{path}")
        else:
            command.append(f"--arg={arg[0]}={arg[1]}")
    np.save(tmp_path / "expected.npy", case.expected)
    command.append(f"--expect={case.output}={tmp_path / 'expected.npy'}")
    if target == "gpu":
        command.append("--repeat=20")
    result = subprocess.run(command, capture_output=True, text=True)
    print(result.stdout, result.stderr)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " ok" in result.stdout


@pytest.mark.parametrize("program,function,tolerance,dims", [
    ("test/tools/kiln-run/array-gpu.mlir", "softmax", 1e-5, ""),
    ("test/tools/kiln-run/array.mlir", "coscos", 1e-5, ""),
    # Tensor cores sum in another order, and the result is f16.
    ("docs/examples/matmul_bias_gelu_array.mlir", "mlp", 4e-3, ""),
    # Dynamic sizes, ragged against the 1024-element blocks.
    ("test/tools/kiln-run/array-dynamic.mlir", "scale_rows", 1e-5,
     "3001,3001"),
])
def test_array_program_on_the_gpu(program: str, function: str,
                                  tolerance: float, dims: str):
    """An array function fused and tiled, its plan run on the GPU and
    checked against the same plan on the host."""
    if reason := gpu_skip_reason():
        pytest.skip(reason)
    result = subprocess.run(
        [str(KILN_RUN), str(ROOT / program), f"--kernel={function}",
         "--init=rand", "--target=gpu", "--repeat=10",
         f"--tolerance={tolerance}"] + ([f"--dims={dims}"] if dims else []),
        capture_output=True, text=True)
    print(result.stdout, result.stderr)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "against the host" in result.stdout and "WRONG" not in \
        result.stdout

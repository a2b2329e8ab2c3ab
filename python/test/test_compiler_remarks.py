"""Why the GPU compiler took a slower path reaches Python: each remark of
a compile (a loop not pipelined, a dot on mma.sync rather than wgmma) is a
kiln.CompilerRemark warning at the kernel's line, which the warnings
filters silence. No GPU needed: warmup compiles for sm_90a."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import kiln
import kiln.language as kl


@kiln.jit
def matmul(a_ptr, b_ptr, c_ptr, K):
    rows = kl.arange(0, 64)
    ks = kl.arange(0, 32)
    acc = kl.zeros((64, 64), kl.float32)
    for k in range(0, K, 32):  # the loop's line
        a = kl.load(a_ptr + rows[:, None] * K + k + ks[None, :])
        b = kl.load(b_ptr + (k + ks[:, None]) * 64 + rows[None, :])
        acc += kl.dot(a, b)  # the dot's line
    kl.store(c_ptr + rows[:, None] * 64 + rows[None, :], acc)


def _line(marker: str) -> int:
    source, first = inspect.getsourcelines(matmul.fn)
    return first + next(i for i, text in enumerate(source) if marker in text)


def _arrays(k: int):
    return (np.zeros(64 * k, np.float16), np.zeros(k * 64, np.float16),
            np.zeros(64 * 64, np.float32))


def test_a_loop_that_cannot_be_pipelined_says_why_at_its_line():
    # K = 33: A's rows start at odd elements, not in 4-byte pieces.
    with pytest.warns(kiln.CompilerRemark) as caught:
        matmul.warmup(*_arrays(33), 33, chip="sm_90a")
    remarks = {(w.filename, w.lineno): str(w.message) for w in caught}
    assert remarks[(__file__, _line("the loop's line"))] == (
        "not pipelined: a load's rows (or, for B, columns) are not "
        "contiguous and aligned in 4-, 8- or 16-byte pieces")
    assert remarks[(__file__, _line("the dot's line"))] == (
        "on mma.sync, not wgmma: wgmma reads B from a slot of a pipelined "
        "loop, and it was not pipelined")


def test_a_kernel_on_the_fast_path_has_no_remark_and_filters_silence_them():
    with warnings.catch_warnings():
        warnings.simplefilter("error", kiln.CompilerRemark)
        compiled = matmul.warmup(*_arrays(64), 64, chip="sm_90a")
    assert "wgmma.mma_async" in compiled.asm["ptx"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=kiln.CompilerRemark)
        matmul.warmup(*_arrays(33), 33, chip="sm_90a")
    assert not [w for w in caught if w.category is kiln.CompilerRemark]


def test_a_binary_from_artifacts_has_no_remarks():
    with kiln.Context() as context:
        module = kiln.Module.parse(context, "func.func @k() { return }")
        with kiln.gpu.GPUBinary(module, "sm_90a") as binary:
            assert binary.remarks == []
            rebuilt = kiln.gpu.GPUBinary.from_artifacts(
                module, "sm_90a", binary.ptx, binary.cubin,
                binary.threads_per_block)
            assert rebuilt.remarks == []
            rebuilt.close()

"""Why the compiler took a slower path reaches Python: each remark of a
compile (a loop not pipelined, a dot on mma.sync rather than wgmma, an
operation of a kiln.fuse function that is a kernel of its own) is a
kiln.CompilerRemark warning at the user's line, which the warnings filters
silence. No GPU needed: warmup compiles for sm_90a."""

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


@kiln.jit
def volatile_matmul(a_ptr, b_ptr, c_ptr, K):
    rows = kl.arange(0, 64)
    ks = kl.arange(0, 32)
    acc = kl.zeros((64, 64), kl.float32)
    for k in range(0, K, 32):  # the volatile loop's line
        a = kl.load(a_ptr + rows[:, None] * K + k + ks[None, :], volatile=True)
        b = kl.load(b_ptr + (k + ks[:, None]) * 64 + rows[None, :])
        acc += kl.dot(a, b)
    kl.store(c_ptr + rows[:, None] * 64 + rows[None, :], acc)


def test_a_volatile_dot_operand_is_read_where_it_stands():
    with pytest.warns(kiln.CompilerRemark) as caught:
        compiled = volatile_matmul.warmup(*_arrays(64), 64, chip="sm_90a")
    source, first = inspect.getsourcelines(volatile_matmul.fn)
    line = first + next(i for i, text in enumerate(source)
                        if "the volatile loop's line" in text)
    remarks = {(w.filename, w.lineno): str(w.message) for w in caught}
    assert remarks[(__file__, line)] == (
        "not pipelined: a load of a dot operand is volatile")
    assert "ld.volatile.global" in compiled.asm["ptx"]


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


def transposed_twice(x):
    t = np.tanh(np.log(np.exp(x)))  # materialised once
    return np.sin(t.T), np.cos(t.T)  # two kernels reading it transposed


def test_a_fusion_that_stops_says_why_at_the_users_line():
    fused = kiln.fuse(transposed_twice)
    x = np.random.default_rng(0).random((16, 16), dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sines, cosines = fused(x)
    source, first = inspect.getsourcelines(transposed_twice)
    where = [(w.filename, w.lineno) for w in caught
             if issubclass(w.category, kiln.CompilerRemark)]
    assert sorted(where) == ([(__file__, first + 1)] +
                             [(__file__, first + 2)] * 2)
    assert all("not fused with its neighbours" in str(w.message)
               for w in caught)
    np.testing.assert_allclose(sines, np.sin(np.tanh(x).T), rtol=1e-4)
    np.testing.assert_allclose(cosines, np.cos(np.tanh(x).T), rtol=1e-4)
    # A second call runs the compiled plan: nothing new to say.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fused(x)


def test_a_fusion_into_one_kernel_has_no_remark():
    fused = kiln.fuse(lambda x: np.tanh(np.exp(x) * 2.0))
    x = np.random.default_rng(1).random((8, 32), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(fused(x), np.tanh(np.exp(x) * 2.0),
                                   rtol=1e-5)


def line_marked(kernel, marker: str) -> int:
    """The line of ``kernel``'s source that holds ``marker``."""
    source, first = inspect.getsourcelines(kernel.fn)
    return first + next(i for i, text in enumerate(source) if marker in text)


def remarks_of(launch) -> list[tuple[int, str]]:
    """The CompilerRemarks ``launch()`` warns, by line, all at this file's
    lines."""
    caller = inspect.stack()[1].filename
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        launch()
    remarks = [w for w in caught
               if issubclass(w.category, kiln.CompilerRemark)]
    assert all(w.filename == caller for w in remarks)
    return [(w.lineno, str(w.message)) for w in remarks]


@kiln.jit
def hinted_loops(out_ptr, n, FLATTEN: kl.constexpr):
    total = 0
    for i in kl.range(0, n, flatten=FLATTEN, loop_unroll_factor=2):  # hints
        total += i
    for i in kl.range(0, n, num_stages=2, disallow_acc_multi_buffer=True):
        total += i
    kl.store(out_ptr, total)


@pytest.mark.parametrize("flatten", [True, False])
def test_loop_hints_kiln_does_not_act_on_say_so_at_the_loop(flatten):
    line = line_marked(hinted_loops, "# hints")
    out = np.zeros(1, np.int32)
    remarks = remarks_of(
        lambda: hinted_loops[(1,)](out, 10, FLATTEN=flatten))
    assert out[0] == 90
    expected = [(line, "kl.range(loop_unroll_factor=2) is taken and not "
                       "acted on: Kiln does not unroll loops by hint")]
    if flatten:
        expected.append((line, "not flattened: its body has no loop"))
    assert remarks == expected


@kiln.jit
def hinted_while(out_ptr, n):
    k = 0
    while kl.condition(k < n, disable_licm=True):  # the hint
        k += 1
    kl.store(out_ptr, k)


def test_a_while_hint_kiln_does_not_act_on_says_so():
    line = line_marked(hinted_while, "# the hint")
    out = np.zeros(1, np.int32)
    remarks = remarks_of(lambda: hinted_while[(1,)](out, 7))
    assert out[0] == 7
    assert remarks == [
        (line, "kl.condition(disable_licm=True) is taken and not acted on: "
               "Kiln's loop-invariant code motion runs regardless")]

"""``kl.range(..., flatten=True)``: a persistent kernel's loop over tiles
and its K loop become one loop (tile-flatten-loops), on the host target
as on the GPU, so the host runs the loop the GPU pipelines; its results
against numpy, including tiles whose K loop takes no steps (the loops as
written run then), and the remark of a loop it cannot flatten."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import kiln
import kiln.language as kl
from test_compiler_remarks import line_marked, remarks_of

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "bench" / "corpus"), str(ROOT / "bench")]

import compare  # noqa: E402
import isa  # noqa: E402
from isa_cases import CASES  # noqa: E402


@kiln.jit
def row_block_sums(x_ptr, out_ptr, rows, cols, stride, programs,
                   BLOCK_R: kl.constexpr, BLOCK_C: kl.constexpr):
    """out[r] = 10 * (tile index of r) + the sum of row r, each program
    walking its blocks of rows and, in them, the blocks of columns."""
    tiles = kl.cdiv(rows, BLOCK_R)
    steps = kl.cdiv(cols, BLOCK_C)
    for tile in kl.range(kl.program_id(0), tiles, programs, flatten=True):
        r = tile * BLOCK_R + kl.arange(0, BLOCK_R)
        label = (tile * 10) // 1
        acc = kl.zeros((BLOCK_R,), kl.float32)
        for k in range(steps):
            c = k * BLOCK_C + kl.arange(0, BLOCK_C)
            x = kl.load(x_ptr + r[:, None] * stride + c[None, :],
                        mask=(r[:, None] < rows) & (c[None, :] < cols),
                        other=0.0)
            acc += kl.sum(x, axis=1)
        kl.store(out_ptr + r, acc + label, mask=r < rows)


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
@pytest.mark.parametrize("rows, cols, programs", [
    (37, 50, 3),   # ragged tiles and steps, tiles not a multiple
    (16, 8, 1),    # one step per tile
    (40, 0, 2),    # no steps: every tile's epilogue still runs
    (0, 20, 2),    # no tiles
])
def test_flattened_loops_compute_the_nest(interpret, rows, cols, programs):
    x = np.random.default_rng(3).random((rows, max(cols, 1)),
                                        dtype=np.float32)
    out = np.full(rows, -1.0, np.float32)
    kernel = kiln.jit(row_block_sums.fn, interpret=interpret)
    kernel[(programs,)](x, out, rows, cols, x.shape[1], programs,
                        BLOCK_R=8, BLOCK_C=16)
    want = x[:, :cols].sum(axis=1) + 10 * (np.arange(rows) // 8)
    np.testing.assert_allclose(out, want, rtol=1e-5)


@kiln.jit
def carried_outer(out_ptr, n, steps):
    """What the loop over tiles carries, changed after its inner loop (as
    Triton's persistent matmul counts its epilogue's tiles) and read in
    it."""
    total = 0
    count = 0
    for i in kl.range(0, n, flatten=True):
        for j in range(steps):
            total += i * j + count
        count += 2
    kl.store(out_ptr, total * 1000 + count)


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
@pytest.mark.parametrize("n, steps", [(5, 3), (4, 1), (3, 0), (0, 2)])
def test_what_the_loop_over_tiles_carries_flows_through_the_flat_loop(
        interpret, n, steps):
    out = np.zeros(1, np.int64)
    kernel = kiln.jit(carried_outer.fn, interpret=interpret)
    remarks = remarks_of(lambda: kernel[(1,)](out, n, steps))
    total = sum(i * j + 2 * i for i in range(n) for j in range(steps))
    assert out[0] == total * 1000 + 2 * n
    assert remarks == []


@kiln.jit
def stores_before_its_loop(out_ptr, n):
    total = 0
    for i in kl.range(0, n, flatten=True):  # the loop
        kl.store(out_ptr + 1, i)
        for j in range(3):
            total += i * j
    kl.store(out_ptr, total)


def test_a_loop_it_cannot_flatten_says_why_and_runs():
    line = line_marked(stores_before_its_loop, "# the loop")
    out = np.zeros(2, np.int32)
    remarks = remarks_of(lambda: stores_before_its_loop[(1,)](out, 5))
    assert list(out) == [3 * sum(range(5)), 4]
    assert remarks == [(line, "not flattened: 'tile.store' before the loop "
                              "in its body may not run at every step")]


def test_persistent_matmul_pipelines_across_tiles_on_sm90a():
    """Triton's persistent matmul (the corpus's): its wgmma and the K
    steps' cp.async copies are in one loop that no other loop holds (the
    tiles' and K's loops are one), as in Triton's code."""
    if compare.find_ptxas() is None:
        pytest.skip("no ptxas")
    ptx = compare.kiln_ptx(CASES["matmul_persistent"])
    spans = isa.loop_spans(ptx)
    wgmma = [m.start() for m in re.finditer(r"wgmma\.mma_async", ptx)]
    assert wgmma
    for at in wgmma:
        holding = [(a, b) for a, b in spans if a <= at <= b]
        assert len(holding) == 1
        start, end = holding[0]
        assert "cp.async.cg.shared.global" in ptx[start:end]


@pytest.mark.parametrize("case", ["matmul_persistent", "matmul_tma_persistent",
                                  "matmul_tma_persistent_ws"])
def test_persistent_matmul_keeps_its_wgmma_running_across_steps(case):
    """The flat loop's wgmma runs on while the next step's copies start, as
    in a K loop: the loop waits only for the previous step's (`wait_group
    1`); a tile's first step starts from zero by wgmma's scale-d (a
    predicate from a register, not a select on the accumulator), and
    ptxas, which serializes wgmma where other instructions touch its
    accumulator meanwhile (its C7514 advisory), keeps them overlapped."""
    ptxas = compare.find_ptxas()
    if ptxas is None:
        pytest.skip("no ptxas")
    ptx = compare.kiln_ptx(CASES[case])
    first = re.search(r"wgmma\.mma_async", ptx).start()
    loop = [(a, b) for a, b in isa.loop_spans(ptx) if a <= first <= b]
    assert len(loop) == 1
    body = ptx[loop[0][0]:loop[0][1]]
    assert "wgmma.wait_group.sync.aligned 1;" in body
    assert re.search(r"setp\.ne\.b32 p, %r\d+, 0;\s*wgmma\.mma_async", body)
    log = isa.ptxas_log(ptx, ptxas, compare.CHIP)
    assert "serialized" not in log and "C7514" not in log

"""KILN_DUMP_DIR: every stage of every compilation of a kernel written
there, named by kernel and specialization: the tile IR, and for a GPU
compile (no GPU needed: warmup) the IR after each lowering pass, LLVM IR,
PTX, cubin (where ptxas is found), ptxas's report and the remarks."""

from __future__ import annotations

import json

import numpy as np
import pytest

import kiln
import kiln.language as kl


def _double(x_ptr, y_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(y_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) * 2,
             mask=mask)


def test_every_stage_of_a_gpu_compile_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_DUMP_DIR", str(tmp_path))
    kernel = kiln.jit(_double)  # a new kernel: nothing compiled yet
    x, y = np.ones(100, np.float32), np.zeros(100, np.float32)
    kernel.warmup(x, y, 100, BLOCK=128, chip="sm_90a", num_warps=2)
    [specialization] = tmp_path.iterdir()
    assert specialization.name.startswith("_double-")
    assert "func.func @_double(" in (specialization / "tile.mlir").read_text()
    stages = specialization / "sm_90a-w2-s3"
    assert ".entry _double(" in (stages / "kernel.ptx").read_text()
    assert "define" in (stages / "llvm.ll").read_text()
    for name in ("kernel.cubin", "ptxas.log", "tensor-maps.txt"):
        assert (stages / name).is_file()
    assert [json.loads(line) for line in
            (stages / "remarks.jsonl").read_text().splitlines()] == []
    passes = (stages / "passes.mlir").read_text()
    assert "IR Dump After TileAssignLayoutsPass (tile-assign-layouts)" in \
        passes
    assert "IR Dump After ConvertTileToGPUPass" in passes


def test_a_host_compile_writes_its_tile_ir(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_DUMP_DIR", str(tmp_path))
    kernel = kiln.jit(_double)
    x, y = np.ones(100, np.float32), np.zeros(100, np.float32)
    kernel[(1,)](x, y, 100, BLOCK=128)
    np.testing.assert_array_equal(y, 2 * x)
    [specialization] = tmp_path.iterdir()
    assert [p.name for p in specialization.iterdir()] == ["tile.mlir"]


def test_a_remark_is_written_beside_the_ptx(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_DUMP_DIR", str(tmp_path))

    @kiln.jit
    def matmul(a_ptr, b_ptr, c_ptr, K):
        r = kl.arange(0, 64)
        k = kl.arange(0, 32)
        acc = kl.zeros((64, 64), kl.float32)
        for k0 in range(0, K, 32):
            a = kl.load(a_ptr + r[:, None] * K + k0 + k[None, :])
            b = kl.load(b_ptr + (k0 + k[:, None]) * 64 + r[None, :])
            acc += kl.dot(a, b)
        kl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)

    a, b = np.zeros(64 * 33, np.float16), np.zeros(33 * 64, np.float16)
    with pytest.warns(kiln.CompilerRemark):
        matmul.warmup(a, b, np.zeros(64 * 64, np.float32), 33,
                      chip="sm_90a")
    [specialization] = tmp_path.iterdir()
    remarks = [json.loads(line) for line in (
        specialization / "sm_90a-w4-s3" / "remarks.jsonl").read_text()
        .splitlines()]
    loop = next(r for r in remarks
                if r["message"].startswith("not pipelined:"))
    assert (loop["severity"], loop["file"]) == ("remark", __file__)
    assert loop["line"] > 0 and loop["column"] > 0

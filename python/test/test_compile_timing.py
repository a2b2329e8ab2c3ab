"""KILN_TIMING: each compilation reports, on standard error, its front end
(the tile IR written and parsed), each step of a GPU compile (the MLIR
lowering passes, LLVM IR, LLVM to PTX, ptxas) and the host target's
compile, one line per stage, with their times."""

from __future__ import annotations

import re

import numpy as np

import kiln
import kiln.language as kl
from kiln import gpu


def _scale(x_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) * 3,
             mask=mask)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines()
            if line.startswith("kiln timing: _scale: ")]


def test_a_gpu_compile_reports_each_step(capfd, monkeypatch):
    monkeypatch.setenv("KILN_TIMING", "1")
    kernel = kiln.jit(_scale)
    kernel.warmup(np.zeros(64, np.float32), 64, BLOCK=64, chip="sm_90a")
    front, steps = _lines(capfd.readouterr().err)
    assert re.fullmatch(r"kiln timing: _scale: front end [0-9.]+ ms \(tile "
                        r"IR written and parsed\)", front)
    ptxas = ", ptxas [0-9.]+ ms" if gpu.find_ptxas() else ""
    assert re.fullmatch(r"kiln timing: _scale: sm_90a \(4 warps, 3 stages\): "
                        r"MLIR passes [0-9.]+ ms, LLVM IR [0-9.]+ ms, LLVM to "
                        rf"PTX [0-9.]+ ms{ptxas}", steps), steps


def test_a_host_compile_reports_its_steps(capfd, monkeypatch, tmp_path):
    monkeypatch.setenv("KILN_TIMING", "1")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    kernel = kiln.jit(_scale)
    x = np.ones(64, np.float32)
    kernel[(1,)](x, 64, BLOCK=64)
    np.testing.assert_array_equal(x, np.full(64, 3, np.float32))
    front, host = _lines(capfd.readouterr().err)
    assert front.startswith("kiln timing: _scale: front end ")
    assert re.fullmatch(r"kiln timing: _scale: host target: lowered and "
                        r"compiled by LLVM in [0-9.]+ ms", host)
    # A second launch compiles nothing, and reports nothing.
    kernel[(1,)](x, 64, BLOCK=64)
    assert _lines(capfd.readouterr().err) == []
    # A new jit function of the same source (as in a new process) links
    # the object the disk cache keeps: no front end, no compile.
    kiln.jit(_scale)[(1,)](x, 64, BLOCK=64)
    np.testing.assert_array_equal(x, np.full(64, 27, np.float32))
    (linked,) = _lines(capfd.readouterr().err)
    assert re.fullmatch(r"kiln timing: _scale: host target: from the disk "
                        r"cache, linked in [0-9.]+ ms", linked)


def test_nothing_is_reported_without_kiln_timing(capfd, monkeypatch):
    monkeypatch.delenv("KILN_TIMING", raising=False)
    kiln.jit(_scale).warmup(np.zeros(64, np.float32), 64, BLOCK=64)
    assert "kiln timing" not in capfd.readouterr().err

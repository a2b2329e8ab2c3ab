"""kl.inline_asm_elementwise as Triton's: the PTX it is given runs on each
element (packed as Triton packs narrow elements) on the GPU target, where
Kiln's PTX holds the same assembly as Triton's own sm_90a compile of the
same kernel and ptxas assembles it; the host target and the interpreter
refuse it at the user's line, as Triton's interpreter does."""

from __future__ import annotations

import numpy as np
import pytest

import triton_idiom_inline_asm as idiom
import triton_interpreter

import kiln
import kiln.language as kl

BLOCK = 128


def _uint32(n: int = BLOCK) -> np.ndarray:
    return np.random.default_rng(7).integers(0, 2**32, n, dtype=np.uint32)


#: Each kernel, its arguments and constexprs, and the assembly its PTX
#: must hold (each instruction as the kernel writes it).
KERNELS = {
    "funnel shift": (idiom.shift_kernel, lambda: {
        "x_ptr": _uint32(), "y_ptr": _uint32(),
        "out_ptr": np.zeros(BLOCK, np.int32), "n": BLOCK},
        ["shf.l.wrap.b32"]),
    "packed uint8": (idiom.packed_kernel, lambda: {
        "x_ptr": np.arange(BLOCK, dtype=np.uint8),
        "out_ptr": np.zeros(BLOCK, np.int8)},
        ["and.b32", "0x1F1F1F1F", "shl.b32"]),
    "two results": (idiom.two_results_kernel, lambda: {
        "a_ptr": _uint32(), "b_ptr": _uint32(),
        "c_ptr": np.zeros(BLOCK, np.uint32),
        "d_ptr": np.zeros(BLOCK, np.uint32)},
        ["sub.u32"]),
}


@pytest.mark.parametrize("name", KERNELS)
def test_kilns_ptx_runs_the_assembly_and_ptxas_takes_it(name):
    kernel, args, instructions = KERNELS[name]
    compiled = kernel.warmup(**args(), BLOCK=BLOCK, chip="sm_90a")
    ptx = compiled.asm["ptx"]
    for instruction in instructions:
        assert instruction in ptx, ptx
    if compiled.asm["cubin"]:  # ptxas assembled it
        assert compiled.metadata.spill_stores == 0


@pytest.mark.parametrize("name", KERNELS)
def test_tritons_ptx_holds_the_same_assembly(name):
    kernel, args, instructions = KERNELS[name]
    ptx = triton_interpreter.tritons_asm(kernel, args(), {"BLOCK": BLOCK})
    for instruction in instructions:
        assert instruction in ptx, instruction


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
def test_the_host_and_the_interpreter_refuse_it_at_the_line(interpret):
    kernel, args, _ = KERNELS["funnel shift"]
    kernel = kiln.jit(kernel.fn, interpret=interpret)
    message = "interpreter cannot run it" if interpret else \
        "runs on the GPU target only"
    with pytest.raises(kiln.KilnError, match=message) as raised:
        kernel[(1,)](**args(), BLOCK=BLOCK)
    if not interpret:
        assert raised.value.line == idiom.shift_kernel.fn.__code__ \
            .co_firstlineno + 8
        assert raised.value.filename == idiom.__file__


@kiln.jit
def bad_asm(x_ptr, ASM: kl.constexpr, CONSTRAINTS: kl.constexpr,
            PURE: kl.constexpr, PACK: kl.constexpr, TYPE: kl.constexpr):
    i = kl.arange(0, 128)
    x = kl.load(x_ptr + i)
    y = kl.inline_asm_elementwise(ASM, CONSTRAINTS, [x], TYPE, PURE, PACK)
    kl.store(x_ptr + i, y)


MOVE = "mov.b32 $0, $1;"


@pytest.mark.parametrize("asm, constraints, pure, pack, type_, message", [
    (3, "=r,r", True, 1, kl.int32, "asm must be a constant str"),
    (MOVE, "=r,r", 1, 1, kl.int32, "is_pure must be a constant bool"),
    (MOVE, "=r,r", True, 0, kl.int32,
     "pack must be a constant int of at least 1"),
    (MOVE, "=r,r", True, 1, (), "returns at least one value"),
    (MOVE, "=r,r", True, 1, "i32", "expected a kl dtype"),
    # The compiler checks the constraints against the operands: LLVM would
    # take a mismatch silently.
    (MOVE, "=r,r,r", True, 1, kl.int32, "constraint"),
])
def test_bad_arguments_are_errors_at_the_line(asm, constraints, pure, pack,
                                              type_, message):
    x = np.zeros(128, np.int32)
    with pytest.raises(kiln.KilnError, match=message) as raised:
        bad_asm.warmup(x, ASM=asm, CONSTRAINTS=constraints, PURE=pure,
                       PACK=pack, TYPE=type_, chip="sm_90a")
    assert raised.value.line == bad_asm.fn.__code__.co_firstlineno + 5

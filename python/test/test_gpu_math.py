"""Float32 division, exp and sqrt as Triton computes them: on the GPU the
instruction Triton's own compile gives each (`/` and `fdiv`: div.full.f32,
`fdiv(approx=True)`: div.approx.f32, `div_rn` and `fdiv(ieee_rounding=
True)`: div.rn.f32, `exp`: ex2.approx.f32 of x * log2(e), `sqrt`:
sqrt.approx, `sqrt_rn`: sqrt.rn; `exp2` and `log` libdevice's forms that
flush subnormals, as Triton links libdevice; `%` x - trunc(x / y) * y, as
LLVM lowers Triton's frem); on the host target and in the interpreter,
correctly rounded results, as Triton's interpreter gives."""

from __future__ import annotations

import numpy as np
import pytest

import triton_idiom_math
import triton_interpreter

import kiln
import kiln.language as kl

KERNEL = triton_idiom_math.float32_math_kernel
BLOCK = 128

#: Each operation of the kernel (its OP), the instruction Triton makes of
#: it for sm_90a, and the ones that must not appear.
OPERATIONS = {
    "x / y": (0, "div.full.f32", ("div.rn.f32", "div.approx.f32")),
    "fdiv(x, y)": (1, "div.full.f32", ("div.rn.f32",)),
    "fdiv(x, y, ieee_rounding=True)": (2, "div.rn.f32", ("div.full.f32",)),
    "fdiv(x, y, approx=True)": (3, "div.approx.f32", ("div.full.f32",)),
    "div_rn(x, y)": (4, "div.rn.f32", ("div.full.f32",)),
    "exp(x)": (5, "ex2.approx.f32", ("fma.rn.f32",)),  # not __nv_expf
    "sqrt(x)": (6, "sqrt.approx", ("sqrt.rn.f32",)),
    "sqrt_rn(x)": (7, "sqrt.rn.f32", ("sqrt.approx",)),
    "sigmoid(x)": (8, "div.full.f32", ("rcp.rn.f32", "div.rn.f32")),
    # libdevice flushes subnormals, as Triton links it.
    "exp2(x)": (9, "ex2.approx.ftz.f32", ("ex2.approx.f32",)),
    "log(x)": (10, "fma.rn.ftz.f32", ("fma.rn.f32",)),
    # LLVM's frem: x - trunc(x / y) * y, not libdevice's exact fmodf.
    "x % y": (11, "cvt.rzi.f32.f32", ("fma.rz", "rcp.approx")),
}


def arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(30)
    x = rng.uniform(0.5, 40.0, BLOCK).astype(np.float32)
    x[:4] = [1.0, 2.0, 1e-30, 87.0]
    y = rng.uniform(0.5, 3.0, BLOCK).astype(np.float32)
    y[:4] = [3.0, 7.0, 3.0, 0.1]
    return {"x_ptr": x, "y_ptr": y,
            "out_ptr": np.zeros(BLOCK, np.float32)}


@pytest.mark.parametrize("operation", OPERATIONS)
def test_kilns_ptx_has_tritons_instruction(operation):
    op, instruction, absent = OPERATIONS[operation]
    compiled = KERNEL.warmup(**arrays(), OP=op, BLOCK=BLOCK, chip="sm_90a")
    ptx = compiled.asm["ptx"]
    assert instruction in ptx, ptx
    for other in absent:
        assert other not in ptx, other
    if compiled.asm["cubin"]:  # ptxas assembled it
        assert compiled.metadata.spill_stores == 0


@pytest.mark.parametrize("operation", OPERATIONS)
def test_tritons_ptx_has_the_same_instruction(operation):
    op, instruction, absent = OPERATIONS[operation]
    theirs = triton_interpreter.tritons_asm(
        triton_idiom_math.float32_math_kernel, arrays(),
        {"OP": op, "BLOCK": BLOCK})
    assert instruction in theirs
    for other in absent:
        assert other not in theirs, other


def _reference(op: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if op <= 4:
        return x / y
    if op == 5:
        return np.exp(x)
    if op in (6, 7):
        return np.sqrt(x)
    if op == 9:
        return np.exp2(x)
    if op == 10:
        return np.log(x)
    if op == 11:
        return np.fmod(x, y)
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)


@pytest.mark.parametrize("target", triton_interpreter.TARGETS)
@pytest.mark.parametrize("operation", OPERATIONS)
def test_the_host_and_the_interpreters_round_correctly(operation, target):
    # Kiln's host target and interpreter, and Triton's interpreter.
    op = OPERATIONS[operation][0]
    args = arrays()
    triton_interpreter.launch(target, KERNEL, (1,), **args, OP=op,
                              BLOCK=BLOCK)
    want = _reference(op, args["x_ptr"], args["y_ptr"])
    if op in (0, 1, 2, 3, 4, 6, 7, 11):  # division, sqrt, %: exactly
        np.testing.assert_array_equal(args["out_ptr"], want)
    else:  # libm's expf, exp2f and logf, within an ulp of the exact value
        np.testing.assert_allclose(args["out_ptr"], want, rtol=2.4e-7)


@kiln.jit
def divide(x_ptr, out_ptr, IEEE: kl.constexpr, APPROX: kl.constexpr):
    i = kl.arange(0, 16)
    x = kl.load(x_ptr + i)
    kl.store(out_ptr + i, kl.fdiv(x, x + 1, ieee_rounding=IEEE,
                                  approx=APPROX))


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
@pytest.mark.parametrize("dtype, ieee, approx, message", [
    (np.float32, True, True, "approx and ieee_rounding cannot both be True"),
    (np.float64, False, True, "approx=True.* divides float32, not f64"),
])
def test_fdiv_refuses_what_triton_refuses(dtype, ieee, approx, message,
                                          interpret):
    kernel = kiln.jit(divide.fn, interpret=interpret)
    x = np.ones(16, dtype)
    with pytest.raises(kiln.KilnError, match=message):
        kernel[(1,)](x, np.zeros_like(x), IEEE=ieee, APPROX=approx)


def test_float64_remainder_is_tritons_too():
    """Triton's float64 % is LLVM's frem too (div.rn, cvt.rzi, fma), not
    libdevice's exact fmod, which Kiln called: 1e17 % 3.0 is 4 there."""
    x = np.zeros(BLOCK)
    args = {"x_ptr": x, "y_ptr": x, "out_ptr": x}
    theirs = triton_interpreter.tritons_asm(
        triton_idiom_math.float64_remainder_kernel, args, {"BLOCK": BLOCK})
    ours = kiln.jit(triton_idiom_math.float64_remainder_kernel.fn).warmup(
        **args, BLOCK=BLOCK, chip="sm_90a").asm["ptx"]
    for ptx in (theirs, ours):
        for instruction in ("div.rn.f64", "cvt.rzi.f64.f64", "fma.rn.f64"):
            assert instruction in ptx, instruction

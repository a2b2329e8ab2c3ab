"""Triton's ``tl.extra.cuda.libdevice`` over Kiln: CUDA's libdevice math
functions with Triton's names, argument types and result types.

Each function is an operation of the tile IR (a ``math`` or ``arith`` op,
or a short composition of them), not a call into libdevice itself, so it
compiles for the host target too; on the GPU the ``math`` ops become the
same ``__nv_*`` calls Triton makes. As in Triton, the argument types must
be one of a function's overloads exactly (``tanh`` takes float32 or
float64, not float16); Python numbers are int32 or float32. ``FUNCTIONS``
lists the overloads; ``MISSING`` lists Triton's functions Kiln lacks, with
the reason, which a call reports.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from kiln import dispatch, semantics
from kiln.errors import KilnError, lookup_error


@dataclass(frozen=True)
class Function:
    """How a libdevice function computes: ``kind`` (see ``ElementwiseOps``'s
    ``libdevice`` and the interpreter's ``LIBDEVICE``) and its ``overloads``,
    argument element types to result element type."""

    kind: str
    overloads: dict[tuple[str, ...], str]


@dataclass(frozen=True)
class Extern:
    """One overload of a function called as the math libraries' (see
    ``EXTERNS``): its result type, libdevice's function for it, and the C
    math library's (None: the GPU target only)."""

    result: str
    gpu_symbol: str
    host_symbol: str | None


_F = {("f32",): "f32", ("f64",): "f64"}
_F2 = {("f32", "f32"): "f32", ("f64", "f64"): "f64"}
_F3 = {("f32",) * 3: "f32", ("f64",) * 3: "f64"}
_F32 = {("f32",): "f32"}

#: Rounded conversions to integers: (source, result, rounding, unsigned)
#: by Triton's name; each saturates and takes NaN to 0, as PTX's cvt.
_TO_INT = {
    f"{source_name}2{target_name}_{rounding}": (source, target, rounding,
                                                 unsigned)
    for source_name, source in (("float", "f32"), ("double", "f64"))
    for target_name, target, unsigned in (
        ("int", "i32", False), ("uint", "i32", True), ("ll", "i64", False),
        ("ull", "i64", True))
    for rounding in ("rn", "rz", "rd", "ru")}

FUNCTIONS: dict[str, Function] = {
    **{name: Function(f"math.{op}", _F) for name, op in (
        ("floor", "floor"), ("ceil", "ceil"), ("trunc", "trunc"),
        ("rint", "roundeven"), ("nearbyint", "roundeven"),
        ("round", "round"), ("sqrt_rn", "sqrt"),
        ("rsqrt", "rsqrt"), ("cbrt", "cbrt"), ("exp", "exp"),
        ("exp2", "exp2"), ("expm1", "expm1"), ("log", "log"),
        ("log2", "log2"), ("log10", "log10"), ("log1p", "log1p"),
        ("sin", "sin"), ("cos", "cos"), ("tan", "tan"), ("sinh", "sinh"),
        ("cosh", "cosh"), ("tanh", "tanh"), ("asin", "asin"),
        ("acos", "acos"), ("atan", "atan"), ("asinh", "asinh"),
        ("acosh", "acosh"), ("atanh", "atanh"), ("erf", "erf"),
        ("erfc", "erfc"))},
    # __nv_sqrtf approximates (sqrt.approx.f32); math.sqrt without `afn`
    # rounds correctly on the GPU (kiln-approximate-math-to-nvvm).
    "sqrt": Function("math.sqrt afn", _F),
    # The fast variants: the same op, allowed to approximate (`afn`), which
    # the GPU lowers to libdevice's __nv_fast_* functions, but exp to
    # ex2.approx.f32 of x * log2(e) as Triton's tl.exp (__nv_fast_expf
    # computes the same, flushing subnormal results to zero).
    **{f"fast_{op}f": Function(f"math.{op} afn", _F32) for op in (
        "sin", "cos", "tan", "exp", "log", "log2", "log10")},
    "fast_powf": Function("math.powf afn", {("f32", "f32"): "f32"}),
    "fast_dividef": Function("arith.divf afn", {("f32", "f32"): "f32"}),
    "fast_exp10f": Function("exp10 afn", _F32),
    "exp10": Function("exp10", _F),
    "abs": Function("abs", {("i32",): "i32", ("i64",): "i64", **_F}),
    "pow": Function("pow", {("f32", "i32"): "f32", ("f64", "i32"): "f64",
                            **_F2}),
    "atan2": Function("math.atan2", _F2),
    "copysign": Function("math.copysign", _F2),
    "fmod": Function("arith.remf", _F2),
    "div_rn": Function("arith.divf", _F2),
    "rcp_rn": Function("reciprocal", _F),
    "fma": Function("math.fma", _F3),
    "fma_rn": Function("math.fma", _F3),
    "saturatef": Function("saturate", _F32),
    "isnan": Function("predicate isnan", {("f32",): "i32", ("f64",): "i32"}),
    "isinf": Function("predicate isinf", {("f32",): "i32", ("f64",): "i32"}),
    "finitef": Function("predicate isfinite", {("f32",): "i32"}),
    "isfinited": Function("predicate isfinite", {("f64",): "i32"}),
    "signbit": Function("signbit", {("f32",): "i32", ("f64",): "i32"}),
    "clz": Function("count math.ctlz", {("i32",): "i32", ("i64",): "i32"}),
    "popc": Function("count math.ctpop", {("i32",): "i32", ("i64",): "i32"}),
    "mulhi": Function("mulhi", {("i32", "i32"): "i32",
                                ("ui32", "ui32"): "ui32",
                                ("i64", "i64"): "i64",
                                ("ui64", "ui64"): "ui64"}),
    **{name: Function(f"to_int {rounding}{' unsigned' * unsigned}",
                      {(source,): target})
       for name, (source, target, rounding, unsigned) in _TO_INT.items()},
    "llrint": Function("to_int rn", {("f32",): "i64", ("f64",): "i64"}),
    "llround": Function("to_int away", {("f32",): "i64", ("f64",): "i64"}),
    **{f"{source}2{target}_rn": Function("int_to_float",
                                         {(elem,): result})
       for source, elem in (("int", "i32"), ("uint", "ui32"), ("ll", "i64"),
                            ("ull", "ui64"))
       for target, result in (("float", "f32"), ("double", "f64"))},
    "double2float_rn": Function("truncf", {("f64",): "f32"}),
    "int_as_float": Function("bitcast", {("i32",): "f32"}),
    "uint_as_float": Function("bitcast", {("ui32",): "f32"}),
    "float_as_int": Function("bitcast", {("f32",): "i32"}),
    "float_as_uint": Function("bitcast", {("f32",): "i32"}),
    "longlong_as_double": Function("bitcast", {("i64",): "f64"}),
    "double_as_longlong": Function("bitcast", {("f64",): "i64"}),
}


def _extern(c_name: str, *overloads: tuple[tuple[str, ...], str],
            host: bool = True) -> dict[tuple[str, ...], Extern]:
    """The overloads of a function called as libdevice's ``__nv_<c_name>``
    (``f`` appended for float32, as libdevice and the C library name
    them) on the GPU, and, with ``host``, as the C math library's
    function of the same name on the host target."""
    calls = {}
    for types, result in overloads:
        suffix = "f" if "f32" in types else ""
        calls[types] = Extern(result, f"__nv_{c_name}{suffix}",
                              f"{c_name}{suffix}" if host else None)
    return calls


_UNARY = ((("f32",), "f32"), (("f64",), "f64"))
_BINARY = ((("f32", "f32"), "f32"), (("f64", "f64"), "f64"))
_TERNARY = ((("f32",) * 3, "f32"), (("f64",) * 3, "f64"))

#: The functions MLIR's math dialect has no op for: each a call of the
#: function that computes it (``tile.extern_elementwise``), libdevice's on
#: the GPU (as Triton's), the C math library's on the host target and in
#: the interpreter; where the C library has none, the GPU target only.
EXTERNS: dict[str, dict[tuple[str, ...], Extern]] = {
    **{name: _extern(name, *_UNARY) for name in (
        "lgamma", "tgamma", "j0", "j1", "y0", "y1", "logb")},
    **{name: _extern(name, *_BINARY) for name in (
        "hypot", "remainder", "fdim", "nextafter")},
    **{name: _extern(name, (("i32", "f32"), "f32"), (("i32", "f64"), "f64"))
       for name in ("jn", "yn")},
    **{name: _extern(name, (("f32", "i32"), "f32"), (("f64", "i32"), "f64"))
       for name in ("ldexp", "scalbn")},
    "ilogb": _extern("ilogb", (("f32",), "i32"), (("f64",), "i32")),
    **{name: _extern(name, *_UNARY, host=False) for name in (
        "erfinv", "erfcinv", "erfcx", "normcdf", "normcdfinv",
        "cyl_bessel_i0", "cyl_bessel_i1", "sinpi", "cospi", "rcbrt")},
    "rhypot": _extern("rhypot", *_BINARY, host=False),
    **{name: _extern(name, *_TERNARY, host=False)
       for name in ("norm3d", "rnorm3d")},
    "rsqrt_rn": {("f32",): Extern("f32", "__nv_frsqrt_rn", None)},
}
FUNCTIONS.update({name: Function("extern", {
    types: call.result for types, call in calls.items()})
    for name, calls in EXTERNS.items()})

_DIRECTED = ("it rounds toward zero, down or up, and the tile IR's "
             "arithmetic rounds to nearest only")
_NO_OP = ("MLIR's math dialect has no op for it to lower to on the host "
          "and the GPU alike")

#: Triton's libdevice functions Kiln lacks, with the reason.
MISSING: dict[str, str] = {
    **{f"{op}_{rounding}": _DIRECTED
       for op in ("add", "sub", "mul", "div", "rcp", "sqrt", "fma")
       for rounding in ("rz", "rd", "ru")},
    **{f"{source}2{target}_{rounding}": _DIRECTED
       for source, target in (("int", "float"), ("ll", "float"),
                              ("ll", "double"), ("double", "float"),
                              ("uint", "float"), ("ull", "float"),
                              ("ull", "double"))
       for rounding in ("rz", "rd", "ru")},
    **{name: ("Kiln's GPU lowering may contract a multiply and an add "
              "into an fma, so a separately rounded one cannot be promised")
       for name in ("add_rn", "sub_rn", "mul_rn")},
    **{name: _NO_OP for name in (
        "byte_perm", "mul24", "brev", "sad", "rcp64h", "hiloint2double",
        "double2loint", "double2hiint", "hadd", "rhadd", "ffs", "norm4d",
        "rnorm4d")},
}


def overload_names(types: tuple[str, ...]) -> str:
    """``(fp32, int32)``: argument types as Triton's errors spell them."""
    names = {"f32": "fp32", "f64": "fp64", "f16": "fp16", "bf16": "bf16"}
    names.update({t: semantics.name(t) for t in types
                   if t.startswith(("i", "ui"))})
    return "(" + ", ".join(names.get(t, t) for t in types) + ")"


def result_type(name: str, types: tuple[str, ...]) -> str:
    """The result element type of ``name`` on arguments of ``types``;
    raises KilnError where no overload takes them."""
    function = FUNCTIONS[name]
    if types not in function.overloads:
        raise KilnError(
            f"libdevice.{name} takes " + " or ".join(
                overload_names(t) for t in function.overloads) +
            f", not {overload_names(types)}")
    return function.overloads[types]


def _make(name: str, function: Function):
    arity = len(next(iter(function.overloads)))
    signature = inspect.Signature([
        inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for i in range(arity)])

    def call(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise KilnError(f"libdevice.{name}: {exc}") from None
        interpreter = dispatch.interpreting()
        if interpreter is not None:
            return interpreter.call_libdevice(name, bound.args)
        raise KilnError(f"libdevice.{name} can only be called inside a "
                        "@kiln.jit function")

    call.__name__ = call.__qualname__ = name
    call.__signature__ = signature
    call.__doc__ = (f"libdevice's {name}: " + ", ".join(
        f"{overload_names(k)} -> {overload_names((v,))[1:-1]}"
        for k, v in function.overloads.items()))
    call.__kiln_libdevice__ = name
    return call


globals().update({name: _make(name, function)
                  for name, function in FUNCTIONS.items()})
__all__ = sorted(FUNCTIONS)


def __getattr__(name: str) -> Any:
    raise lookup_error(__name__, "tl.extra.cuda.libdevice", name, MISSING,
                       MISSING)

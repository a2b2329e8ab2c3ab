"""``triton.language`` over Kiln, for Triton kernel files whose imports
read ``import kiln.triton.language as tl``.

Every name here is the same object as ``kiln.language``'s (``tl.load is
kl.load``), so kernels compile and interpret exactly as Kiln's own. A name
Triton's ``triton.language`` has and Kiln does not is an error that names
it, on access (``tl.histogram``) and inside a kernel, at the line that
uses it::

    kiln.triton.language has no 'histogram' (Triton's tl.histogram is not
    supported by Kiln yet)
"""

from __future__ import annotations

from kiln import language as _kiln_language
from kiln.errors import lookup_error
from kiln.triton.language import math

#: The public names of Triton 3's ``triton.language``, which an error
#: tells apart from names Triton lacks too.
TRITON_NAMES = frozenset({
    "PropagateNan", "TRITON_MAX_TENSOR_NUMEL", "abs", "add", "advance",
    "aggregate_replace", "arange", "argmax", "argmin", "associative_scan",
    "assume", "atomic_add", "atomic_and", "atomic_cas", "atomic_load",
    "atomic_max", "atomic_min", "atomic_or", "atomic_poll", "atomic_store",
    "atomic_xchg", "atomic_xor", "bfloat16", "bitonic_merge", "block_type",
    "broadcast", "broadcast_to", "cast", "cat", "cdiv", "ceil", "clamp",
    "condition", "const", "constexpr", "constexpr_type", "core", "cos",
    "cumprod", "cumsum", "debug_barrier", "device_assert", "device_print",
    "div_rn", "dot", "dot_scaled", "dtype", "erf", "exp", "exp2",
    "expand_dims", "expect_zero", "extra", "fdiv", "flip", "float16",
    "float32", "float64", "float8e4b15", "float8e4b8", "float8e4nv",
    "float8e5", "float8e5b16", "floor", "fma", "full", "gather", "histogram",
    "inline_asm_elementwise", "int1", "int16", "int32", "int64", "int8",
    "interleave", "join", "load", "load_tensor_descriptor", "log", "log2",
    "make_block_ptr", "make_tensor_descriptor", "map_elementwise", "math",
    "max", "max_constancy", "max_contiguous", "maximum", "min", "minimum",
    "mul", "multiple_of", "num_programs", "pair_uniform_to_normal",
    "permute", "philox", "philox_impl", "pi32_t", "pointer_type",
    "program_id", "rand", "rand4x", "randint", "randint4x", "randn",
    "randn4x", "random", "range", "ravel", "reduce", "reduce_or", "reshape",
    "rsqrt", "sigmoid", "sin", "slice", "softmax", "sort", "split", "sqrt",
    "sqrt_rn", "squeeze", "standard", "static_assert", "static_print",
    "static_range", "store", "store_tensor_descriptor", "str_to_ty", "sub",
    "sum", "swizzle2d", "target_info", "tensor", "tensor_descriptor",
    "tensor_descriptor_type", "to_tensor", "topk", "trans", "tuple",
    "tuple_type", "uint16", "uint32", "uint64", "uint8",
    "uint_to_uniform_float", "umulhi", "unsqueeze", "view", "void", "where",
    "xor_sum", "zeros", "zeros_like"})

#: Why Kiln lacks each of Triton's names it lacks (the error says it, and
#: docs/python-api.md lists them: scripts/triton_coverage.py).
NOT_SUPPORTED = {
    "float8e4b15": "MLIR has no type for it (e4m3 with bias 15; Triton's "
                   "own support is for pre-Hopper GPUs)",
    "tensor_descriptor_type": "a type object of Triton's IR builder "
                              "(tl.tensor_descriptor is the class of "
                              "descriptors)",
    "tuple_type": "a type object of Triton's IR builder",
    "str_to_ty": "Triton's signature strings; Kiln specializes on values",
    "core": "a module of Triton's implementation",
    "standard": "a module of Triton's implementation",
    "random": "a module of Triton's implementation (its functions are here)",
    "target_info": "a module of Triton's implementation",
    "aggregate_replace": "Triton's aggregate types are not supported",
}

# Every name of Triton's that Kiln's language has, as the same object.
globals().update({name: getattr(_kiln_language, name)
                  for name in TRITON_NAMES if hasattr(_kiln_language, name)})
__all__ = sorted(name for name in TRITON_NAMES if name in globals())
_kiln_language.extra.register_as(__name__)


def __getattr__(name: str):
    raise lookup_error(__name__, "tl", name, TRITON_NAMES, NOT_SUPPORTED)

"""The kernel language: what a ``@kiln.jit`` function may call.

Use it as a Triton user uses ``triton.language``::

    import kiln
    import kiln.language as kl

    @kiln.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
        offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
        mask = offsets < n
        x = kl.load(x_ptr + offsets, mask=mask)
        y = kl.load(y_ptr + offsets, mask=mask)
        kl.store(out_ptr + offsets, x + y, mask=mask)

These functions only describe tile operations: the JIT (``kiln.jit``)
translates calls to them into tile IR, and calling one outside a kernel
raises ``KilnError``.
"""

from __future__ import annotations

import builtins
import inspect
import operator
import re
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from kiln import dispatch, extra, semantics
from kiln.semantics import PropagateNan
from kiln.errors import KilnError

extra.register_as(__name__)  # tl.extra.cuda.libdevice


@dataclass(frozen=True)
class dtype:
    """A scalar type of the language; ``ir`` is its MLIR spelling (an
    unsigned type's is MLIR's ``ui8`` ... ``ui64``; the IR computes on
    the signless type of its width, see kiln/semantics.py)."""

    name: str
    ir: str
    numpy: Any  # the numpy dtype, or None where numpy has none

    @property
    def is_float(self) -> bool:
        return self.ir.startswith(("f", "bf"))

    @property
    def bits(self) -> int:
        if self.ir.startswith("f8"):
            return 8
        return {"i1": 1, "bf16": 16}.get(self.ir) or \
            int(self.ir.lstrip("uif"))

    # Triton's queries of a dtype (int1 counts as unsigned, as there).
    primitive_bitwidth = bits

    @property
    def int_bitwidth(self) -> int:
        return self.bits if not self.is_float else 0

    @property
    def fp_mantissa_width(self) -> int:
        return {"f16": 10, "bf16": 7, "f32": 23, "f64": 52}.get(
            self.ir, int(self.ir[self.ir.index("M") + 1])
            if self.ir.startswith("f8") else 0)

    @property
    def itemsize(self) -> int:
        return builtins.max(self.bits // 8, 1)

    @property
    def scalar(self) -> dtype:
        return self

    def is_floating(self) -> bool:
        return self.is_float

    def is_int(self) -> bool:
        return self.ir.startswith(("i", "ui"))

    def is_void(self) -> bool:
        return self.ir == "none"

    def is_block(self) -> bool:
        return False

    def is_int_signed(self) -> bool:
        return self.is_int() and not semantics.is_unsigned(self.ir)

    def is_int_unsigned(self) -> bool:
        return semantics.is_unsigned(self.ir)

    def is_bool(self) -> bool:
        return self.ir == "i1"

    def is_ptr(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"kl.{self.name}"


# is_fp16(), is_int32(), is_uint8(), is_fp8e4nv(), ... as Triton spells
# them (Kiln has no fp8e4b15).
for _name, _ir in (("fp16", "f16"), ("bf16", "bf16"), ("fp32", "f32"),
                   ("fp64", "f64"), ("int1", "i1"), ("int8", "i8"),
                   ("int16", "i16"), ("int32", "i32"), ("int64", "i64"),
                   ("uint8", "ui8"), ("uint16", "ui16"), ("uint32", "ui32"),
                   ("uint64", "ui64"), ("fp8e4nv", "f8E4M3FN"),
                   ("fp8e5", "f8E5M2"), ("fp8e4b8", "f8E4M3FNUZ"),
                   ("fp8e5b16", "f8E5M2FNUZ"), ("fp8e4b15", None)):
    setattr(dtype, f"is_{_name}", lambda self, ir=_ir: self.ir == ir)
dtype.is_fp8 = lambda self: semantics.is_float8(self.ir)


#: Tile methods, each the kl function of that name on the tile
#: (``x.sum(axis)`` is ``kl.sum(x, axis)``, ``p.store(v)`` is
#: ``kl.store(p, v)``): the member functions of Triton's ``tl.tensor``
#: that Kiln has.
TILE_METHODS = (
    "abs", "advance", "argmax", "argmin", "associative_scan", "atomic_add",
    "atomic_and", "atomic_cas", "atomic_load", "atomic_max", "atomic_min",
    "atomic_or", "atomic_poll", "atomic_store", "atomic_xchg",
    "atomic_xor", "broadcast_to", "cast", "cdiv", "ceil", "cos", "cumsum",
    "erf", "exp", "exp2", "expand_dims", "floor", "log", "log2", "max",
    "min", "reduce", "reshape", "rsqrt", "sigmoid", "sin", "permute",
    "sqrt", "store", "sum", "trans", "cumprod", "xor_sum", "reduce_or",
    "ravel", "view", "split", "sqrt_rn", "flip", "softmax", "sort",
    "gather", "histogram", "logical_and", "logical_or", "item")


@dataclass(frozen=True)
class pointer_type:
    """The type of a pointer argument (``x_ptr.dtype``); its
    ``element_ty`` is what it points to."""

    element_ty: dtype

    @property
    def scalar(self) -> pointer_type:
        return self

    def is_ptr(self) -> bool:
        return True

    def is_floating(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def is_block(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"kl.pointer_type({self.element_ty!r})"


@dataclass(frozen=True)
class block_type:
    """The type of a tile (``x.type``, Triton's ``tl.block_type``): its
    ``element_ty`` (a ``dtype``, or a ``pointer_type`` for a tile of
    pointers) and ``shape``. A scalar's ``x.type`` is its element type."""

    element_ty: Any
    shape: tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", tuple(
            s.value if isinstance(s, constexpr) else s for s in self.shape))

    @property
    def scalar(self) -> Any:
        return self.element_ty

    @property
    def numel(self) -> int:
        count = 1
        for size in self.shape:
            count *= size
        return count

    def is_block(self) -> bool:
        return True

    def is_ptr(self) -> bool:
        return False

    def get_block_shapes(self) -> tuple:
        return self.shape

    def with_element_ty(self, element_ty: Any) -> block_type:
        return block_type(element_ty, self.shape)

    def __repr__(self) -> str:
        return f"kl.block_type({self.element_ty!r}, {list(self.shape)})"


def type_of(element_ty: Any, shape: tuple) -> Any:
    """``x.type`` of a value of ``element_ty`` and ``shape``, as Triton
    has it: a block_type for a tile, the element type for a scalar."""
    return block_type(element_ty, shape) if shape else element_ty


int1 = dtype("int1", "i1", np.dtype(np.bool_))
int8 = dtype("int8", "i8", np.dtype(np.int8))
int16 = dtype("int16", "i16", np.dtype(np.int16))
int32 = dtype("int32", "i32", np.dtype(np.int32))
int64 = dtype("int64", "i64", np.dtype(np.int64))
uint8 = dtype("uint8", "ui8", np.dtype(np.uint8))
uint16 = dtype("uint16", "ui16", np.dtype(np.uint16))
uint32 = dtype("uint32", "ui32", np.dtype(np.uint32))
uint64 = dtype("uint64", "ui64", np.dtype(np.uint64))
float8e4nv = dtype("float8e4nv", "f8E4M3FN", np.dtype(ml_dtypes.float8_e4m3fn))
float8e5 = dtype("float8e5", "f8E5M2", np.dtype(ml_dtypes.float8_e5m2))
float8e4b8 = dtype("float8e4b8", "f8E4M3FNUZ",
                   np.dtype(ml_dtypes.float8_e4m3fnuz))
float8e5b16 = dtype("float8e5b16", "f8E5M2FNUZ",
                    np.dtype(ml_dtypes.float8_e5m2fnuz))
float16 = dtype("float16", "f16", np.dtype(np.float16))
#: Triton's type of nothing (no element type); ``is_void()`` holds.
void = dtype("void", "none", None)
bfloat16 = dtype("bfloat16", "bf16", np.dtype(ml_dtypes.bfloat16))
float32 = dtype("float32", "f32", np.dtype(np.float32))
float64 = dtype("float64", "f64", np.dtype(np.float64))

#: Triton's name for a pointer to int32.
pi32_t = pointer_type(int32)

DTYPES = (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
          float8e4nv, float8e5, float8e4b8, float8e5b16, float16, bfloat16,
          float32, float64)
BY_IR = {d.ir: d for d in DTYPES}


def from_numpy(np_dtype: np.dtype) -> dtype:
    """The language type of numpy elements of ``np_dtype``."""
    for d in DTYPES:
        if d.numpy is not None and d.numpy == np_dtype:
            return d
    supported = ", ".join(str(d.numpy) for d in DTYPES if d.numpy is not None)
    raise KilnError(f"numpy dtype {np_dtype} has no kiln type (kernels take "
                    f"{supported})")


#: Triton's caching hints of ``load`` and ``store``, by op.
CACHE_MODIFIERS = {"load": ("", ".ca", ".cg", ".cs", ".cv"),
                   "store": ("", ".wb", ".cg", ".cs", ".wt")}
EVICTION_POLICIES = ("", "evict_first", "evict_last")
#: Memory orderings and scopes of atomics; the first of each is the
#: default.
MEMORY_SEMANTICS = ("acq_rel", "acquire", "release", "relaxed")
MEMORY_SCOPES = ("gpu", "cta", "sys")


def memory_hint_problem(op: str, cache_modifier: str, eviction_policy: str,
                        volatile: bool = False,
                        block_pointer: bool = False) -> str | None:
    """Why a load or store's hints are refused, or None. The caching hints
    change no result, so they are checked and dropped; ``volatile`` is a
    compile-time bool, and True only through a tile of pointers."""
    if cache_modifier not in CACHE_MODIFIERS[op]:
        return (f"kl.{op}: cache_modifier is one of "
                f"{CACHE_MODIFIERS[op]}, not {cache_modifier!r}")
    if eviction_policy not in EVICTION_POLICIES:
        return (f"kl.{op}: eviction_policy is one of {EVICTION_POLICIES}, "
                f"not {eviction_policy!r}")
    if not isinstance(volatile, int):  # a bool, or Python's truth of 0, 1
        return f"kl.{op}: volatile is True or False, not {volatile!r}"
    if volatile and block_pointer:
        return (f"kl.{op}(volatile=True) of a block pointer is not "
                "supported by Kiln yet; load through a tile of pointers")
    return None


def hint_problem(hint: str, rank: int, values: Any) -> str | None:
    """Why ``kl.<hint>`` (multiple_of, max_contiguous, max_constancy)
    refuses ``values`` for a value of ``rank`` dimensions (a scalar has
    one), as Triton refuses them, or None: a positive integer each."""
    if isinstance(values, constexpr):
        values = values.value
    if not isinstance(values, (list, tuple)):
        values = [values]
    values = [v.value if isinstance(v, constexpr) else v for v in values]
    rank = builtins.max(1, rank)
    if len(values) != rank or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0
            for v in values):
        return (f"kl.{hint} takes {rank} positive integer(s) for a value of "
                f"rank {rank}, not {values}")
    return None


def block_access_problem(op: str, rank: int, boundary_check: Any,
                         padding_option: str = "", mask: Any = None,
                         other: Any = None) -> str | None:
    """Why a load or store through a block pointer of a ``rank``-D block
    is refused, as Triton refuses it, or None: ``boundary_check`` is a
    tuple (or list) of distinct dimensions of the block, ``padding_option``
    '', 'zero' or 'nan', and a mask or ``other`` is not taken."""
    if isinstance(boundary_check, constexpr):
        boundary_check = boundary_check.value
    if mask is not None or other is not None:
        return (f"kl.{op} of a block pointer takes boundary_check"
                f"{' and padding_option' if op == 'load' else ''}, not "
                f"mask{' and other' if op == 'load' else ''}")
    if padding_option not in ("", "zero", "nan"):
        return f"padding_option is 'zero' or 'nan', not {padding_option!r}"
    if not isinstance(boundary_check, (tuple, list)):
        return (f"kl.{op}: boundary_check is a tuple of the block's "
                f"dimensions, as in Triton, not {boundary_check!r}")
    dims = [d.value if isinstance(d, constexpr) else d
            for d in boundary_check]
    if len(set(dims)) != len(dims) or not all(
            isinstance(d, int) and not isinstance(d, bool) and 0 <= d < rank
            for d in dims):
        return (f"boundary_check names distinct dimensions of the {rank}-D "
                f"block, not {tuple(dims)}")
    return None


#: The orders the one-way atomics take, as Triton's: a load acquires, a
#: store releases (the first is the default).
ONE_WAY_SEMANTICS = {"atomic_load": ("acquire", "relaxed"),
                     "atomic_store": ("release", "relaxed")}


def one_way_order_problem(name: str, sem: str | None) -> str | None:
    """Why ``sem`` is refused for ``kl.<name>`` (ONE_WAY_SEMANTICS), or
    None."""
    allowed = ONE_WAY_SEMANTICS[name]
    if sem is not None and sem not in allowed:
        return f"kl.{name}: sem is one of {allowed}, not {sem!r}"
    return None


def atomic_order_problem(sem: str | None, scope: str | None) -> str | None:
    """Why an atomic's ``sem`` or ``scope`` is refused, or None."""
    if sem is not None and sem not in MEMORY_SEMANTICS:
        return f"atomic sem is one of {MEMORY_SEMANTICS}, not {sem!r}"
    if scope is not None and scope not in MEMORY_SCOPES:
        return f"atomic scope is one of {MEMORY_SCOPES}, not {scope!r}"
    return None


class constexpr:
    """Marks a kernel parameter as a compile-time constant
    (``BLOCK: kl.constexpr``): each value gets its own compiled kernel."""

    def __init__(self, value: Any = None) -> None:
        self.value = value

    @property
    def type(self) -> constexpr_type:
        return constexpr_type(self.value)

    def __repr__(self) -> str:
        return f"constexpr({self.value!r})"

    # A module-level `MODE = kl.constexpr(1)` computes as its value where a
    # kernel runs as Python (the interpreter): `if MODE == 1`, `BLOCK * 2`,
    # `range(BLOCK)`.
    def __bool__(self) -> bool:
        return bool(self.value)

    def __index__(self) -> int:
        return operator.index(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)

    def __hash__(self) -> int:
        return hash(self.value)


def _constexpr_operator(function, reflected: bool = False):
    def apply(self, other=None):
        other = other.value if isinstance(other, constexpr) else other
        return function(other, self.value) if reflected else \
            function(self.value, other)
    return apply


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
              "and", "or", "xor", "lshift", "rshift"):
    _function = getattr(operator, f"{_name}_" if _name in ("and", "or")
                        else _name)
    setattr(constexpr, f"__{_name}__", _constexpr_operator(_function))
    setattr(constexpr, f"__r{_name}__",
            _constexpr_operator(_function, reflected=True))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(constexpr, f"__{_name}__",
            _constexpr_operator(getattr(operator, _name)))
for _name in ("neg", "pos", "invert", "abs"):
    setattr(constexpr, f"__{_name}__", lambda self, _f=getattr(
        operator, _name): _f(self.value))
del _name, _function


@dataclass(frozen=True)
class constexpr_type:
    """The type of a compile-time value (``kl.constexpr(3).type``, Triton's
    ``tl.constexpr_type``)."""

    value: Any


class condition:
    """A while loop's test with Triton's hint (``while kl.condition(c,
    disable_licm=True):``). ``disable_licm`` asks that nothing be hoisted
    out of the loop; it changes no result, and Kiln's loop-invariant code
    motion runs regardless (a CompilerRemark at the loop says so)."""

    def __init__(self, arg1: Any, disable_licm: bool = False) -> None:
        self.condition = arg1
        self.disable_licm = disable_licm

    def __bool__(self) -> bool:  # the interpreter's while
        return bool(self.condition)


#: The atomics a tensor descriptor has, as Triton's: ``desc.atomic_<kind>``.
DESCRIPTOR_ATOMICS = ("add", "min", "max", "and", "or", "xor")


class tensor_descriptor:
    """Triton's ``tl.tensor_descriptor``: the class of a kernel's tensor
    descriptors, made by ``make_tensor_descriptor`` or passed from the
    host (``kiln.TensorDescriptor``); ``desc.load(offsets)`` and
    ``desc.store(offsets, value)`` access a block, ``desc.atomic_add``
    (``_min``, ``_max``, ``_and``, ``_or``, ``_xor``) update one, and
    ``desc.gather`` / ``desc.scatter`` access rows of a 2-D tensor."""


#: Triton's ``tl.slice``: Python's (a kernel's tuples are Python's, so
#: ``t[1:]`` and ``t[kl.slice(1, None, None)]`` slice them).
slice = builtins.slice


def is_constexpr_annotation(annotation: Any, scope: dict[str, Any]) -> bool:
    """Whether a parameter annotation marks a constexpr: ``constexpr``
    itself, or a string naming it (``"tl.constexpr"``,
    ``"triton.language.constexpr"``, as under ``from __future__ import
    annotations``), looked up in the kernel's globals; a string that names
    nothing there counts when its last name is ``constexpr``."""
    if annotation is constexpr:
        return True
    if not isinstance(annotation, str):
        return False
    try:
        value = eval(annotation, dict(scope))
    except Exception:  # a name the kernel's module does not define
        return re.fullmatch(r"""\s*(['"]?)\s*(\w+\s*\.\s*)*constexpr"""
                            r"""\s*\1\s*""", annotation) is not None
    # A quoted annotation under `from __future__ import annotations` is a
    # string of a string.
    return is_constexpr_annotation(value, scope) if isinstance(value, str) \
        else value is constexpr


#: Triton's short names of scalar types, as annotations spell them.
_SHORT_TYPE_NAMES = {"u1": "i1", "i8": "i8", "i16": "i16", "i32": "i32",
                     "i64": "i64", "u8": "ui8", "u16": "ui16", "u32": "ui32",
                     "u64": "ui64", "fp16": "f16", "bf16": "bf16",
                     "fp32": "f32", "fp64": "f64"}


def annotation_dtype(annotation: Any, scope: dict[str, Any]) -> Any:
    """The scalar type a parameter annotation gives its argument, as
    Triton's (``n: tl.int64``, ``"tl.float64"``, Triton's short ``"i64"``),
    looked up in the kernel's globals; None for any other annotation."""
    if isinstance(annotation, str):
        if annotation.strip() in _SHORT_TYPE_NAMES:
            return BY_IR[_SHORT_TYPE_NAMES[annotation.strip()]]
        try:
            annotation = eval(annotation, dict(scope))
        except Exception:  # a name the kernel's module does not define
            return None
        if isinstance(annotation, str):
            return annotation_dtype(annotation, scope)
    return annotation if isinstance(annotation, dtype) and \
        annotation.ir in BY_IR else None


def builtin(fn):
    """Marks a language function: the JIT translates calls to it, the
    interpreter mode carries it out with numpy, and a call anywhere else is
    an error."""

    signature = inspect.signature(fn)

    def outside_kernel(*args, **kwargs):
        interpreter = dispatch.interpreting()
        if interpreter is not None:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise KilnError(f"kl.{fn.__name__}: {exc}") from None
            bound.apply_defaults()
            return interpreter.call_builtin(fn.__name__, bound.args,
                                            bound.kwargs)
        raise KilnError(f"kl.{fn.__name__} can only be called inside a "
                        "@kiln.jit function")

    outside_kernel.__name__ = fn.__name__
    outside_kernel.__doc__ = fn.__doc__
    outside_kernel.__signature__ = signature
    outside_kernel.__kiln_builtin__ = fn.__name__
    return outside_kernel


@builtin
def program_id(axis):
    """Index of this program instance along grid ``axis`` (0, 1 or 2)."""


@builtin
def num_programs(axis):
    """Number of program instances along grid ``axis``."""


@builtin
def arange(start, end):
    """The int32 tile ``[start, ..., end - 1]``; constant bounds."""


@builtin
def zeros(shape, dtype):
    """A tile of zeros."""


@builtin
def full(shape, value, dtype):
    """A tile whose every element is ``value``."""


@builtin
def load(pointer, mask=None, other=None, boundary_check=(),
         padding_option="", *, cache_modifier="", eviction_policy="",
         volatile=False):
    """Loads through pointers; where ``mask`` is false the result is
    ``other`` (zero when not given). ``cache_modifier`` and
    ``eviction_policy`` are Triton's caching hints, checked and not used;
    ``volatile=True`` is not supported yet. Through a block pointer
    (``make_block_ptr``), loads its block: elements outside the tensor
    along the dimensions in ``boundary_check`` read as zero, or NaN with
    ``padding_option="nan"`` (on sm_90 a pipelined loop's block loads are
    copied by TMA where the launch can build a tensor map)."""


@builtin
def store(pointer, value, mask=None, boundary_check=(), *,
          cache_modifier="", eviction_policy=""):
    """Stores ``value`` through pointers where ``mask`` holds (the caching
    hints as ``load``'s); through a
    block pointer, into its block, skipping elements outside the tensor
    along the dimensions in ``boundary_check``."""


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """A block pointer: the ``block_shape`` block at ``offsets`` of the
    tensor at ``base`` with sizes ``shape`` and ``strides`` (in elements);
    ``order`` lists the dimensions from fastest- to slowest-varying in
    memory. ``load`` and ``store`` take it; ``advance`` moves it."""


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape,
                           padding_option="zero"):
    """A descriptor of the tensor at ``base`` (sizes ``shape`` and
    ``strides`` in elements, the last stride 1) for blocks of
    ``block_shape``, as Triton's TMA descriptors: ``desc.load(offsets)``
    reads the block at ``offsets``, zero outside the tensor (NaN with
    ``padding_option="nan"``); ``desc.store(offsets, value)`` writes the
    part inside. Each access is a block pointer's, so it takes the TMA
    path where block pointers do."""


@builtin
def load_tensor_descriptor(desc, offsets):
    """``desc.load(offsets)``."""


@builtin
def store_tensor_descriptor(desc, offsets, value):
    """``desc.store(offsets, value)``."""


@builtin
def descriptor_atomic(desc, kind, offsets, value):
    """``desc.atomic_<kind>(offsets, value)`` (add, min, max, and, or,
    xor): the atomic on each element of the block at ``offsets`` that is
    inside the tensor, ``value`` of the block's shape; returns nothing, as
    Triton's."""


@builtin
def descriptor_gather(desc, x_offsets, y_offset):
    """``desc.gather(x_offsets, y_offset)`` of a 2-D descriptor whose
    block is one row: rows ``x_offsets`` (a 1-D integer tile), the block's
    columns from ``y_offset``; what is outside the tensor is the
    descriptor's padding."""


@builtin
def descriptor_scatter(desc, value, x_offsets, y_offset):
    """``desc.scatter(value, x_offsets, y_offset)``: ``value`` written to
    those rows and columns, the part inside the tensor."""


@builtin
def advance(block_ptr, offsets):
    """The block pointer moved by ``offsets`` elements per dimension."""


@builtin
def where(condition, x, y):
    """Elementwise ``x if condition else y``."""


@builtin
def minimum(x, y, propagate_nan=PropagateNan.NONE):
    """Elementwise minimum; a NaN gives way to the other operand unless
    ``propagate_nan`` is ``PropagateNan.ALL``."""


@builtin
def maximum(x, y, propagate_nan=PropagateNan.NONE):
    """Elementwise maximum; a NaN gives way to the other operand unless
    ``propagate_nan`` is ``PropagateNan.ALL``."""


@builtin
def exp(x):
    """Elementwise e**x; of float32 on the GPU, as Triton's, PTX's
    ex2.approx.f32 of ``x * log2(e)`` (the host target and the interpreter
    round correctly)."""


@builtin
def exp2(x):
    """Elementwise 2**x."""


@builtin
def log(x):
    """Elementwise natural logarithm."""


@builtin
def log2(x):
    """Elementwise base-2 logarithm."""


@builtin
def sqrt(x):
    """Elementwise square root; of float32 on the GPU, as Triton's, PTX's
    sqrt.approx.f32 (``sqrt_rn`` rounds correctly; so do the host target
    and the interpreter)."""


@builtin
def rsqrt(x):
    """Elementwise 1 / sqrt(x)."""


@builtin
def sin(x):
    """Elementwise sine."""


@builtin
def cos(x):
    """Elementwise cosine."""


@builtin
def tanh(x):
    """Elementwise hyperbolic tangent."""


@builtin
def erf(x):
    """Elementwise error function."""


@builtin
def sigmoid(x):
    """Elementwise 1 / (1 + e**-x)."""


@builtin
def abs(x):
    """Elementwise absolute value."""


@builtin
def fma(x, y, z):
    """Elementwise x * y + z, rounded once."""


@builtin
def cdiv(x, div):
    """Ceiling division ``(x + y - 1) // y``."""


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None):
    """Sum along ``axis`` (all elements when None; negative counts from
    the end); ``keep_dims`` keeps the axis with size 1. The sum's type is
    ``dtype`` (``input`` converted to it first), else int32 for booleans and
    narrow integers, else ``input``'s; float16 and bfloat16 are summed in
    float32 and rounded once."""


@builtin
def max(input, axis=None, return_indices=False,
        return_indices_tie_break_left=True, keep_dims=False):
    """Maximum along ``axis`` (all elements when None; negative counts from
    the end), ignoring NaNs as ``maximum`` does; float16 and bfloat16 are
    reduced in float32 and narrow integers in int32, which is the result's
    type, as in Triton. ``keep_dims`` keeps the axis with size 1. With
    ``return_indices`` it is the pair (the element of ``argmax``, in
    ``input``'s type; ``argmax``); Triton's
    ``return_indices_tie_break_left=False`` is not supported."""


@builtin
def min(input, axis=None, return_indices=False,
        return_indices_tie_break_left=True, keep_dims=False):
    """Minimum along ``axis``, as ``max`` computes the maximum. With
    ``return_indices`` it is the pair (the element of ``argmin``,
    ``argmin``)."""


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    """Index of the first maximum along ``axis`` (into the flattened tile
    for None), a NaN counting as both extremes as in numpy; Triton's
    ``tie_break_left=False`` is not supported."""


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    """Index of the first minimum along ``axis`` (into the flattened tile
    for None), a NaN counting as both extremes as in numpy."""


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None):
    """Inclusive prefix sum along ``axis`` (from the last element back
    where ``reverse``), in ``sum``'s type."""


@builtin
def cumprod(input, axis=0, reverse=False, dtype=None):
    """Inclusive prefix product along ``axis``, as ``cumsum``."""


@builtin
def gather(src, index, axis):
    """The elements of ``src`` picked along ``axis`` by the integer tile
    ``index`` (Triton's ``tl.gather``): the result has ``index``'s shape,
    and ``result[i][j] = src[index[i][j]][j]`` for axis 0. ``index`` and
    ``src`` have the same rank and, along the other axes, the same sizes.
    An index outside ``src``'s axis reads its nearest end compiled (Triton
    leaves it undefined) and is an error in the interpreter."""


@builtin
def histogram(input, num_bins, mask=None):
    """int32 counts of the values of the 1-D integer tile ``input`` in the
    bins [0, 1), [1, 2), ..., [num_bins - 1, num_bins); values outside
    them, and elements whose ``mask`` is false, are not counted (Triton's
    ``tl.histogram``). Compiled as a comparison of every value with every
    bin: a tile of ``len(input) * num_bins`` elements."""


@builtin
def xor_sum(input, axis=None, keep_dims=False):
    """Exclusive or of integers along ``axis``, as ``sum``."""


@builtin
def reduce_or(input, axis, keep_dims=False):
    """Bitwise or of integers along ``axis``, as ``sum``."""


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=None):
    """Matrix product ``a @ b + acc`` (acc defaults to zeros of
    ``out_dtype``, else f32 for float inputs, f64 for f64, i32 for int8);
    ``input_precision`` is "ieee", "tf32" or "tf32x3" for f32 inputs
    (``allow_tf32``, Triton's older spelling, is "tf32" or "ieee").
    ``max_num_imprecise_acc`` applies to fp8 inputs only, which Kiln does
    not have; it is taken and changes nothing, as in Triton for others."""


@builtin
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format,
               acc=None, fast_math=False, lhs_k_pack=True, rhs_k_pack=True,
               out_dtype=float32):
    """The float32 product of two microscaled (OCP MX) operands, as
    Triton computes it on GPUs without microscaling tensor cores: each
    operand (``lhs`` M x K, ``rhs`` K x N) in its format (``"e2m1"``: two
    4-bit floats a uint8, the first in the low bits, packed along K, or
    along M / N without ``lhs_k_pack`` / ``rhs_k_pack``; ``"e4m3"``,
    ``"e5m2"``, ``"bf16"``, ``"fp16"``: those types or their bits) times
    2^(s - 127) for each e8m0 byte ``s`` of its scale (uint8, ``[M, K //
    group]`` for lhs and ``[N, K // group]`` for rhs, or None), rounded to
    bfloat16 (float16 where an operand is fp16), then ``dot`` with
    ``acc``. ``fast_math`` changes nothing."""


@builtin
def floor(x):
    """Elementwise largest integer not above ``x``."""


@builtin
def ceil(x):
    """Elementwise smallest integer not below ``x``."""


@builtin
def clamp(x, min, max, propagate_nan=PropagateNan.NONE):
    """Elementwise ``x`` limited to [``min``, ``max``] (a NaN as in
    ``maximum``)."""


@builtin
def zeros_like(input):
    """A tile of zeros of ``input``'s shape and type."""


@builtin
def full_like(x, value):
    """A tile of ``value`` of ``x``'s shape and type."""


@builtin
def broadcast_to(input, *shape):
    """``input`` broadcast to ``shape`` (a tuple, or the sizes as arguments:
    ``broadcast_to(x, 4, 8)``)."""


@builtin
def expand_dims(input, axis):
    """``input`` with a new axis of size 1 at ``axis``."""


@builtin
def multiple_of(input, values):
    """``input`` (integers or pointers), declared a multiple of ``values``
    (one per dimension) where each contiguous run starts, as Triton's hint:
    the GPU compiler takes it over what its own analysis derives, to pick
    vector widths and pipelined copies."""


@builtin
def max_contiguous(input, values):
    """``input``, declared to increase by one over runs of ``values`` elements
    (one per dimension): a hint, as ``multiple_of``."""


@builtin
def max_constancy(input, values):
    """``input``, declared equal over runs of ``values`` elements (one per
    dimension): a hint, as ``multiple_of``."""


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    """``input`` (a tile, or a tuple of tiles of one shape) reduced along
    ``axis`` (the flattened tiles for None) by ``combine_fn``, a
    ``@kiln.jit`` function of the running values and the next ones that
    returns the combined values; it must be associative and commutative
    (the order is unspecified)."""


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    """The inclusive scan of ``input`` (a tile, or a tuple of tiles) along
    ``axis`` by the associative ``combine_fn`` (from the last element
    back where ``reverse``)."""


@builtin
def philox(seed, c0, c1, c2, c3, n_rounds=10):
    """The four uint32 words Philox 4x32 makes of the counter ``(c0, c1,
    c2, c3)`` (int32 or uint32 tiles or scalars, broadcast) under the key
    of ``seed`` (its low and high 32 bits), as Triton's ``tl.philox``."""


@builtin
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=10):
    """``n_rounds`` rounds of Philox on the state ``(c0, c1, c2, c3)``
    under the key ``(k0, k1)``, all uint32 (Philox 4x32) or all uint64
    (4x64), as Triton's ``tl.philox_impl``; returns the four words."""


@builtin
def randint4x(seed, offset, n_rounds=10):
    """Four random uint32 tiles for each ``offset`` (the counter's first
    word): ``philox(seed, offset, 0, 0, 0)``."""


@builtin
def randint(seed, offset, n_rounds=10):
    """A random uint32 for each ``offset``: the first of ``randint4x``."""


@builtin
def rand(seed, offset, n_rounds=10):
    """A float32 uniform in [0, 1) for each ``offset``, the same as
    Triton's ``tl.rand``."""


@builtin
def randn(seed, offset, n_rounds=10):
    """A float32 standard normal for each ``offset`` (Box-Muller of two
    uniforms, as Triton's ``tl.randn``)."""


@builtin
def trans(input, *dims):
    """``input`` with its dimensions permuted: dimension ``i`` of the result
    is ``dims[i]`` of ``input`` (a tuple, or as arguments); a 2-D tile's
    transpose without ``dims``."""


@builtin
def permute(input, *dims):
    """``input`` with its dimensions permuted, as ``trans`` with ``dims``."""


@builtin
def reshape(input, *shape, can_reorder=False):
    """The tile with another shape of the same size, row-major order (the
    shape a tuple, or the sizes as arguments). ``can_reorder`` lets
    Triton reorder elements; Kiln keeps their order, which it allows."""


@builtin
def atomic_add(pointer, val, mask=None, sem=None, scope=None):
    """Atomically adds ``val``; returns the old values. ``sem`` is the
    memory ordering ("acq_rel", the default, "acquire", "release" or
    "relaxed") and ``scope`` who it is atomic for ("gpu", the default,
    "cta" or "sys"), as in Triton; every atomic takes them."""


@builtin
def atomic_max(pointer, val, mask=None, sem=None, scope=None):
    """Atomic maximum; returns the old values."""


@builtin
def atomic_min(pointer, val, mask=None, sem=None, scope=None):
    """Atomic minimum; returns the old values."""


@builtin
def atomic_xchg(pointer, val, mask=None, sem=None, scope=None):
    """Atomically stores ``val``; returns the old values."""


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    """Atomically stores ``val`` where the element equals ``cmp`` (bit for
    bit); returns the old values. Elements of 16, 32 or 64 bits."""


@builtin
def atomic_load(pointer, mask=None, sem=None, scope=None):
    """Atomically reads the elements behind ``pointer`` (``sem``: "acquire",
    the default, or "relaxed"); elements of 32 or 64 bits. Compiled as an
    atomic ``or`` of 0, which reads the same value with the same ordering
    (Triton's GPU code issues ``ld.acquire``)."""


@builtin
def atomic_store(pointer, val, mask=None, sem=None, scope=None):
    """Atomically writes ``val`` (``sem``: "release", the default, or
    "relaxed"); compiled as an atomic exchange whose old value is
    dropped."""


@builtin
def atomic_poll(pointer, expected_value, sem=None, scope=None,
                timeout_ns=None):
    """Waits until every element behind ``pointer`` (32- or 64-bit
    integers) equals ``expected_value``, reading them with
    ``atomic_load``; returns a tile of True. ``timeout_ns`` is not
    supported yet (a KilnError)."""


@builtin
def atomic_and(pointer, val, mask=None, sem=None, scope=None):
    """Atomic bitwise and of integers; returns the old values."""


@builtin
def atomic_or(pointer, val, mask=None, sem=None, scope=None):
    """Atomic bitwise or of integers; returns the old values."""


@builtin
def atomic_xor(pointer, val, mask=None, sem=None, scope=None):
    """Atomic bitwise exclusive or of integers; returns the old values."""


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    """``x.to(dtype, fp_downcast_rounding, bitcast)``, also of scalars."""


@builtin
def static_assert(cond, msg=""):
    """Fails compilation when the constant ``cond`` is false."""


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False):
    """Prints compile-time values (shapes, types, constants) while the
    kernel compiles, as Python's ``print``; in the interpreter, when it
    runs."""


@builtin
def debug_barrier():
    """Waits for every thread of the program instance: what each wrote
    before is seen by the others after (``bar.sync`` on the GPU; nothing
    on the host target and in the interpreter, where a program instance
    is one thread)."""


@builtin
def assume(cond):
    """States that ``cond`` holds, as Triton's ``tl.assume`` (an
    optimization hint); Kiln accepts it and draws nothing from it."""


@builtin
def add(x, y, sanitize_overflow=True):
    """``x + y`` (Triton's functional spelling; ``sanitize_overflow``
    checks only in Triton's debug mode and is accepted here)."""


@builtin
def sub(x, y, sanitize_overflow=True):
    """``x - y``, as ``add``."""


@builtin
def mul(x, y, sanitize_overflow=True):
    """``x * y``, as ``add``."""


@builtin
def fdiv(x, y, ieee_rounding=False, approx=False):
    """``x / y`` of floats, in the type ``/`` computes in (f32 for f16 and
    bf16), rounded on the GPU as Triton rounds float32 division: as ``/``
    (PTX div.full.f32, within 2 ulp) by default, correctly with
    ``ieee_rounding=True``, as div.approx.f32 with ``approx=True`` (float32
    only; not with ``ieee_rounding``). The host target and the interpreter
    round every one correctly."""


@builtin
def map_elementwise(scalar_fn, *args, pack=1):
    """``scalar_fn`` (a ``@kiln.jit`` function of scalars, which may
    branch on them) applied to each element of ``args`` (tiles broadcast
    to one shape), as Triton's: one call takes ``pack`` elements of each
    argument (argument i's j-th element is its parameter i * pack + j) and
    returns ``pack`` elements of each result, result-major; the result is
    a tile, or a tuple where ``scalar_fn`` returns one. Only the branch an
    element takes runs for it, unlike ``where``."""


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    """Runs the PTX ``asm`` on each element of ``args`` (tiles broadcast
    to one shape), as Triton's: ``constraints`` are LLVM's ("=r,r":
    results first, then arguments, ``$0``, ``$1``... in that order),
    ``dtype`` the type of the result or a tuple of them (then it returns a
    tuple), ``is_pure`` False keeps it however its result is used, and
    ``pack`` elements go to one run of ``asm`` (elements under 32 bits
    packed into 32-bit registers). GPU target only: the host target and
    the interpreter refuse it, as Triton's interpreter does."""


@builtin
def div_rn(x, y):
    """``x / y`` of float32, rounded to nearest even (``/`` on float32 is
    within 2 ulp on the GPU, as Triton's)."""


@builtin
def sqrt_rn(x):
    """Square root of float32, rounded to nearest even."""


@builtin
def umulhi(x, y):
    """The high 32 bits of the 64-bit product of int32 ``x`` and ``y``
    taken as unsigned (the high half of a 128-bit product for int64)."""


@builtin
def ravel(x, can_reorder=False):
    """``x`` as a 1-D tile, row-major order."""


@builtin
def view(input, *shape):
    """``input`` reshaped to ``shape`` (Triton's older ``reshape`` that may
    reorder; Kiln keeps the row-major order)."""


@builtin
def squeeze(x, dim):
    """``x`` without its dimension ``dim``, of size 1."""


@builtin
def unsqueeze(x, dim):
    """``x`` with a new dimension of size 1 at ``dim`` (``expand_dims``)."""


@builtin
def join(a, b):
    """``a`` and ``b`` (broadcast to one shape) joined along a new last
    dimension of size 2."""


@builtin
def split(a):
    """The two halves of ``a`` along its last dimension, of size 2: the
    inverse of ``join``."""


@builtin
def interleave(a, b):
    """The elements of ``a`` and ``b`` alternating along the last
    dimension, which doubles."""


@builtin
def cat(input, other, can_reorder=False, dim=0):
    """``input`` then ``other`` (of one shape) along ``dim``; Kiln keeps
    the order whether or not ``can_reorder`` allows reordering."""


@builtin
def flip(x, dim=None):
    """``x`` reversed along ``dim`` (the last by default), of a size that
    is a power of two."""


@builtin
def sort(x, dim=None, descending=False):
    """``x`` sorted along its last dimension (``dim``, if given, must name
    it), by Triton's bitonic network: the sizes are powers of two; where
    NaNs are among the values their places are the network's, as in
    Triton."""


@builtin
def topk(x, k, dim=None, descending=True):
    """The ``k`` largest (``descending``) or smallest elements along the
    last dimension, in order (``k`` a power of two), by Triton's bitonic
    top-k; narrow floats come back in float32 as Triton's (its steps
    reduce with ``max`` / ``min``)."""


@builtin
def bitonic_merge(x, dim=None, descending=False):
    """Merges the bitonic sequences along the last dimension into sorted
    order (Triton's building block of ``sort``)."""


@builtin
def broadcast(input, other):
    """``input`` and ``other`` broadcast to their common shape."""


@builtin
def to_tensor(x):
    """The Python number ``x`` as a scalar value of its type."""


@builtin
def softmax(x, dim=None, *, keep_dims=None, ieee_rounding=False):
    """``exp(x - max) / sum(exp(x - max))`` along ``dim`` (0 by default,
    as in Triton, not the last); the result has ``x``'s shape."""


@builtin
def swizzle2d(i, j, size_i, size_j, size_g):
    """Triton's program-order helper: the (row, column) that (``i``,
    ``j``) of a row-major ``size_i`` x ``size_j`` grid takes when each
    group of ``size_g`` rows is walked column-major."""


@builtin
def uint_to_uniform_float(x):
    """A float32 uniform in [0, 1) of each random int32 word of ``x``."""


@builtin
def pair_uniform_to_normal(u1, u2):
    """Two float32 standard normals from two uniforms (Box-Muller)."""


@builtin
def rand4x(seed, offsets, n_rounds=10):
    """Four float32 uniforms in [0, 1) for each offset."""


@builtin
def randn4x(seed, offset, n_rounds=10):
    """Four float32 standard normals for each offset."""


#: The most elements Triton lets a tile have.
TRITON_MAX_TENSOR_NUMEL = 1048576


@builtin
def device_print(prefix, *args, hex=False):
    """Prints, from every program instance, one line per element of the
    ``args`` (integer or float tiles or scalars, broadcast to one shape):
    ``pid (x, y, z) idx (i) prefix: value``."""


@builtin
def device_assert(cond, msg="", mask=None):
    """In debug mode (``@kiln.jit(debug=True)`` or ``KILN_DEBUG=1``), fails
    the launch where an element of the boolean ``cond`` is false (and
    ``mask``, where given, true), naming the line, ``msg`` (default: the
    condition's source), the program and the element; outside debug mode
    it is not compiled."""


@builtin
def logical_and(input, other):
    """Elementwise ``input and other`` of booleans (Triton's tensor method
    ``x.logical_and(y)``); other types are an error, as in Triton."""


@builtin
def logical_or(input, other):
    """Elementwise ``input or other`` of booleans, as ``logical_and``."""


@builtin
def item(input):
    """The element of a single-element tile, as a scalar (Triton's tensor
    method ``x.item()``)."""


@builtin
def expect_zero(x, mask):
    """``x`` itself, marking values expected to have underflowed to zero
    where ``mask`` is true (Triton's ``tl.expect_zero``): in debug mode,
    a launch where one is not zero fails, as a ``device_assert``."""


#: Triton's ``tl.tuple``: a kernel's tuples are Python's (indexing,
#: ``len``, unpacking, ``+``), so ``tl.tuple((a, b))`` is one.
tuple = builtins.tuple


class tensor:
    """Triton's ``tl.tensor``, the class of a kernel's values: tiles,
    scalars and pointers are instances (``isinstance(x, kl.tensor)``, in a
    compiled kernel and in the interpreter), and an annotation
    (``def f(x: tl.tensor)``) means nothing more."""


def shape_argument(args: tuple) -> tuple:
    """A shape or a permutation given as Triton takes them: one tuple or
    list (or a single size), or the sizes as separate arguments."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(a.value if isinstance(a, constexpr) else a for a in args)


def loop_bounds(arg1, arg2, step) -> tuple:
    """``(start, end, step)`` of ``range(arg1, arg2=None, step=None)`` as
    Triton's loops take them: one bound is the end, the step defaults
    to 1."""
    start, end = (0, arg1) if arg2 is None else (arg1, arg2)
    return start, end, 1 if step is None else step


class const:
    """Triton's annotation of a pointer to read-only data (``x_ptr:
    tl.const``), taken as an annotation: Kiln does not check it."""


#: The most iterations a kl.static_range unrolls.
MAX_STATIC_RANGE = 4096


class static_range:
    """``for i in kl.static_range(n)`` (or ``(start, end, step)``) unrolls
    the loop at compile time; the bounds are constants, the iterations at
    most MAX_STATIC_RANGE."""

    def __init__(self, arg1, arg2=None, step=None) -> None:
        self.range = builtins.range(*loop_bounds(arg1, arg2, step))
        if len(self.range) > MAX_STATIC_RANGE:
            raise KilnError(f"kl.static_range unrolls at most "
                            f"{MAX_STATIC_RANGE} iterations, not "
                            f"{len(self.range)}; use range()")

    def __iter__(self):
        return iter(self.range)


class range:
    """``for i in kl.range(start, end, step, num_stages=n)``: a loop, as
    the builtin ``range`` in a kernel, under Triton's name (``tl.range``).
    ``num_stages`` sets how deep the GPU pipelines this loop's loads;
    ``flatten=True`` makes a loop over tiles and its K loop one loop,
    pipelined across tiles; ``warp_specialize=True`` has a producer
    warpgroup issue the loop's TMA copies on sm_90a (on a loop over tiles
    with ``flatten``, the flat loop's). Triton's other loop hints
    (``loop_unroll_factor``, ``disallow_acc_multi_buffer``,
    ``disable_licm``) are taken and not acted on: none changes what the
    loop computes, and the compiler says so in a CompilerRemark at the
    loop (but for ``disallow_acc_multi_buffer``, which forbids what Kiln
    never does), as it says why where ``flatten`` or ``warp_specialize``
    cannot be done."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None,
                 loop_unroll_factor=None, disallow_acc_multi_buffer=False,
                 flatten=False, warp_specialize=False,
                 disable_licm=False) -> None:
        self.bounds = loop_bounds(arg1, arg2, step)
        self.num_stages = num_stages

    def __iter__(self):
        interpreter = dispatch.interpreting()
        if interpreter is None:
            raise KilnError("kl.range can only be iterated inside a "
                            "@kiln.jit function")
        return interpreter.kernel_range(*self.bounds,
                                        num_stages=self.num_stages)

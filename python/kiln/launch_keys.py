"""What ``@kiln.jit``'s cache-hit launch reads of each argument: its share
of the specialization key and the value the kernel receives.

The reading itself is done in C (``kiln._launch``, from
lib/Bindings/Python/Launch.cpp), so a launch that finds its key among the
launches compiled before runs no Python code: no binding through
``inspect``, no ``__cuda_array_interface__`` (which PyTorch builds as a new
dictionary on every access). An argument's share is the kernel argument
type ``JITFunction.specialize`` gives it, as a token (a constexpr's,
``constant_key`` of its value), so one key is one specialization; and a
launch registers its key only when the full path, which checks everything,
specialized and passed exactly what the key says (see
``JITFunction._register``).

The extension reads Python ints (i32 or i64, divisible by 16, equal to 1),
floats (f32), bools (i1) and PyTorch CUDA tensors itself; this module gives
it the tokens of those types and the readers of the rest: other
``__cuda_array_interface__`` arrays (CuPy, Numba, ...), each PyTorch dtype's
element type (once), and uncommon constexprs. Arguments of other kinds
(numpy arrays and scalars, DLPack-only arrays, CPU tensors, anything
unexpected) have no key and take the full path.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

import numpy as np

from kiln import _ffi
from kiln import language as kl
from kiln.arguments import check_grid, grid_sizes
from kiln.errors import KilnError
from kiln.frontend.ir import Type, pointer_type
from kiln.gpu import device_array_element, device_array_ordinal

#: A small integer for each kernel argument type seen: keys hold these,
#: which hash in C, rather than the types, whose hash is Python code.
_tokens: dict[Type, int] = {}
_tokens_lock = threading.Lock()


def token(type_: Type) -> int:
    """``type_``'s share of a launch key: equal tokens, equal types."""
    with _tokens_lock:  # two new types never get one number
        return _tokens.setdefault(type_, len(_tokens))


def on_device(type_token: int, ordinal: int) -> Any:
    """An array argument's share of the key: its type's token, with the GPU
    it is on where that is not GPU 0 (a launch runs on its arrays' GPU)."""
    return type_token if ordinal == 0 else (type_token, ordinal)


@functools.cache
def _pointer_token(element: str, aligned: bool) -> int:
    return token(Type((), pointer_type(element), 16 if aligned else 1))


#: Which reader an argument of a type the extension does not read itself
#: takes (``classify``'s answers).
FULL_PATH, TORCH_TENSOR, ARRAY_INTERFACE = 0, 1, 2


def classify(value: Any) -> int:
    """How arguments of ``value``'s type are read: as PyTorch tensors (their
    address and dtype are attributes), through
    ``__cuda_array_interface__``, or not at all. Asked once per type."""
    if all(hasattr(value, name) for name in (
            "is_cuda", "get_device", "requires_grad", "numel", "data_ptr",
            "dtype")):
        return TORCH_TENSOR
    if hasattr(value, "__cuda_array_interface__"):
        return ARRAY_INTERFACE
    return FULL_PATH


def read_array(value: Any, specialize: bool) -> tuple[Any, int] | None:
    """The share and address of any ``__cuda_array_interface__`` array
    (unaligned where its parameter is not specialized), or None."""
    try:
        interface = getattr(value, "__cuda_array_interface__", None)
        if interface is None:
            return None  # the full path says why
        address = int(interface["data"][0])
        share = _pointer_token(device_array_element(value, interface),
                               specialize and address % 16 == 0)
        return on_device(share, device_array_ordinal(value) or 0), address
    except (AttributeError, RuntimeError, KeyError, TypeError, ValueError,
            KilnError):
        return None  # the full path says what is wrong with it


def pointer_tokens(tensor: Any) -> tuple[int, int] | None:
    """The unaligned and aligned tokens of a pointer to the element type of
    a PyTorch tensor's dtype, read once through its
    ``__cuda_array_interface__``; None for a dtype kernels do not take (the
    full path says so, naming the argument)."""
    try:
        element = device_array_element(tensor)
    except (AttributeError, RuntimeError, KeyError, TypeError, ValueError,
            KilnError):
        return None
    return _pointer_token(element, False), _pointer_token(element, True)


def constant_key(value: Any) -> Any:
    """A constexpr value's share of a specialization key: the value itself
    where it is hashable (so that a function passed as a constexpr stays
    alive, never to be confused with a later one at its address), floats
    by their repr (0.0 and -0.0 compile apart; NaN is equal to itself),
    tuples element by element, arrays by their bytes, anything else by its
    repr; a ``kl.constexpr`` is keyed by its value."""
    if isinstance(value, kl.constexpr):
        value = value.value
    if isinstance(value, (float, np.floating)):
        return type(value), repr(value)
    if isinstance(value, tuple):
        return tuple, tuple(constant_key(item) for item in value)
    if isinstance(value, np.ndarray):
        return np.ndarray, value.dtype.str, value.shape, value.tobytes()
    try:
        hash(value)
    except TypeError:
        return type(value), repr(value)
    return type(value), value


def checked_grid(grid: Any) -> tuple[int, ...]:
    """A grid the extension does not read as 1 to 3 ints (numpy integers,
    a sequence of another type, or something wrong), as a tuple of ints;
    raises ``KilnError`` as the full path does where it is wrong."""
    grid = grid_sizes(grid)
    check_grid(grid)
    return tuple(int(size) for size in grid)


def _integer_token(elem: str, one: bool, multiple_of_16: bool) -> int:
    """What specialize makes of an integer (1 as a constant, multiples of
    16 as such), as a token."""
    if one:
        return token(Type((), elem, 1, 1))
    return token(Type((), elem, 16 if multiple_of_16 else 1))


def extension() -> Any:
    """``kiln._launch``, told the tokens and readers above; None where it
    was not built."""
    module = _ffi.launch_extension()
    with _configure_lock:
        if module is not None and not _configured:
            _configure(module)
    return module


_configured = False
_configure_lock = threading.Lock()


def _configure(module: Any) -> None:
    global _configured
    integers = tuple(_integer_token(elem, one, sixteen)
                     for elem in ("i32", "i64")
                     for one, sixteen in ((False, False), (False, True),
                                          (True, False)))
    module.configure(integers, token(Type((), "f32")), token(Type((), "i1")),
                     classify, read_array, pointer_tokens, constant_key,
                     checked_grid)
    _configured = True


"""What ``@kiln.jit``'s cache-hit launch reads of each argument: its share
of the specialization key and the value the kernel receives, in a few
Python operations.

A launch that finds its key among the launches it has compiled makes one
call into the runtime (gpu.KernelLauncher) without binding the arguments
through ``inspect`` or reading ``__cuda_array_interface__``, which PyTorch
builds as a new dictionary on every access. An argument's share is the
kernel argument type ``JITFunction.specialize`` gives it (as a token; a
constexpr's, ``constant_key`` of its value), so one key is one
specialization; and a
launch registers its key only when the full path, which checks
everything, specialized and passed exactly what the key says (see
``JITFunction.run``). Arguments of other kinds (numpy arrays and scalars,
DLPack-only arrays, CPU tensors, tensors that need grad, anything
unexpected) have no key here and take the full path.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable

import numpy as np

from kiln.codegen import Type, pointer_type
from kiln.gpu import device_array_element, device_array_ordinal

#: An argument's share of the key (its kernel argument type's token) and
#: the value the kernel receives, or None (the full path).
Reading = tuple[int, Any] | None

#: A small integer for each kernel argument type seen: keys hold these,
#: which hash in C, rather than the types, whose hash is Python code.
_tokens: dict[Type, int] = {}
_tokens_lock = threading.Lock()


def token(type_: Type) -> int:
    """``type_``'s share of a launch key: equal tokens, equal types."""
    with _tokens_lock:  # two new types never get one number
        return _tokens.setdefault(type_, len(_tokens))


_INT32 = range(-2**31, 2**31)
_INT64 = range(-2**63, 2**63)
_F32, _I1 = token(Type((), "f32")), token(Type((), "i1"))


@functools.cache
def _integer_type(elem: str, one: bool, multiple_of_16: bool) -> int:
    """What specialize makes of an integer (1 as a constant, multiples of
    16 as such), as a token."""
    if one:
        return token(Type((), elem, 1, 1))
    return token(Type((), elem, 16 if multiple_of_16 else 1))


@functools.cache
def _pointer_type(element: str, aligned: bool, ordinal: int) -> Any:
    return on_device(token(Type((), pointer_type(element),
                                16 if aligned else 1)), ordinal)


def on_device(type_token: int, ordinal: int) -> Any:
    """An array argument's share of the key: its type's token, with the GPU
    it is on where that is not GPU 0 (a launch runs on its arrays' GPU)."""
    return type_token if ordinal == 0 else (type_token, ordinal)


def _integer(value: int) -> Reading:
    if value not in _INT64:
        return None  # the full path says it does not fit
    return _integer_type("i32" if value in _INT32 else "i64", value == 1,
                         value % 16 == 0), value


def _float(value: float) -> Reading:
    return _F32, value


def _bool(value: bool) -> Reading:
    return _I1, value


def _cuda_array(value: Any) -> Reading:
    """Any ``__cuda_array_interface__`` array (CuPy, Numba, ...)."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:
        return None  # the full path says why
    address = int(interface["data"][0])
    return _pointer_type(device_array_element(value, interface),
                         address % 16 == 0,
                         device_array_ordinal(value) or 0), address


#: The element type of each PyTorch dtype seen, read once through
#: ``__cuda_array_interface__``.
_torch_elements: dict[Any, str] = {}


def _torch_tensor(value: Any) -> Reading:
    """A PyTorch tensor: its address and dtype are attributes. The full
    path takes the rest: a CPU tensor (on the host, through DLPack), one on
    another kind of device, one that needs grad (whose interface PyTorch
    refuses), and an empty one (whose interface says address 0)."""
    if not value.is_cuda or value.requires_grad or value.numel() == 0:
        return None
    element = _torch_elements.get(value.dtype)
    if element is None:
        element = _torch_elements[value.dtype] = device_array_element(value)
    address = value.data_ptr()
    return _pointer_type(element, address % 16 == 0,
                         value.get_device()), address


#: How an argument of each Python type is read; None for the full path.
_READERS: dict[type, Callable[[Any], Reading] | None] = {
    int: _integer, float: _float, bool: _bool}


def _reader_for(value: Any) -> Callable[[Any], Reading] | None:
    if all(hasattr(value, name) for name in (
            "is_cuda", "get_device", "requires_grad", "numel", "data_ptr",
            "dtype")):
        return _torch_tensor
    if hasattr(value, "__cuda_array_interface__"):
        return _cuda_array
    return None


def read(value: Any) -> Reading:
    """``value``'s kernel argument type (its token) and the value the
    kernel receives, or None where only the full path can tell."""
    kind = type(value)
    try:
        reader = _READERS[kind]
    except KeyError:
        reader = _READERS[kind] = _reader_for(value)
    if reader is None:
        return None
    try:
        return reader(value)
    except (AttributeError, RuntimeError):
        # A type whose objects differ, or a tensor that has no address
        # (sparse): the full path says what it takes.
        return None


def constant_key(value: Any) -> Any:
    """A constexpr value's share of a specialization key: the value itself
    where it is hashable (so that a function passed as a constexpr stays
    alive, never to be confused with a later one at its address), floats
    by their repr (0.0 and -0.0 compile apart; NaN is equal to itself),
    tuples element by element, arrays by their bytes, anything else by its
    repr."""
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

"""What a kernel's compilation depends on in Python, without running the
front end: its source and where it is (lines end up in the binary's
messages), and every global it names (or variable it captures, as a kernel
a factory function makes does), resolved now: the jit functions it
calls (their own fingerprints, recursively), the plain values compiled into
it (numbers, strings, constexprs, dtypes), the code of the plain Python
functions it names (which it may call on compile-time values) and, by
qualified name, the other modules and functions it uses. Two fingerprints are equal only where the
front end would write the same tile IR for every specialization, so the
disk cache keys binaries by it (with the specialization) and a hit loads a
binary without generating or parsing IR. As Triton's cache key does, it
takes the source of each callee, so editing a helper compiles the kernel
again.
"""

from __future__ import annotations

import ast
import hashlib
import marshal
import types
import weakref
from typing import Any, Callable

from kiln import function_source

#: What a name is known by: the modules, functions and classes a kernel
#: names, whose code is Python's or Kiln's, not the kernel's.
_NAMED = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
          type)


class Unkeyable(ValueError):
    """The kernel reads a global object of another kind (an instance,
    whose attributes may change): a fingerprint could not tell two of its
    states apart, so there is none."""


#: Globals whose values the fingerprint took, as the front end records
#: what it read: (id of the globals dict, name) -> (dict, name, value).
GlobalsRead = dict[tuple[int, str], tuple[dict, str, Any]]


def fingerprint(fn: Callable, is_jit: Callable[[Any], bool],
                plain: Callable[[Any], bool],
                constant_key: Callable[[Any], Any]) -> tuple[str, GlobalsRead]:
    """The SHA-256 of what `fn` (a kernel's Python function) compiles from,
    and the plain-valued globals taken into it. `is_jit` tells a jit
    function (whose `.fn` is followed), `plain` a value compiled into the
    kernel, and `constant_key` gives such a value's key. Raises OSError or
    TypeError where the source cannot be read, as the front end would, and
    Unkeyable where the kernel reads a global of no kind it can key."""
    read: GlobalsRead = {}
    parts: list = []
    _describe(fn, is_jit, plain, constant_key, read, parts, set())
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()
    return digest, read


def _describe(fn: Callable, is_jit, plain, constant_key, read: GlobalsRead,
              parts: list, visiting: set) -> None:
    if fn in visiting:  # recursion, which the front end refuses anyway
        parts.append(("recursive", fn.__qualname__))
        return
    visiting.add(fn)
    place, chains = _read(fn)
    parts.append(place)
    globals_ = fn.__globals__
    captured = function_source.captured(fn)
    for chain in chains:
        if chain[0] in captured:  # read before the globals, as Python does
            value = captured[chain[0]]
        elif chain[0] in globals_:
            value = globals_[chain[0]]
            if plain(value):
                read[(id(globals_), chain[0])] = (globals_, chain[0], value)
        else:
            parts.append((chain[0], "builtin or undefined"))
            continue
        # Follow the attributes the code reads (`helpers.scale`, `kl.load`,
        # `Config.BLOCK`), as the front end does; past a plain value they
        # are the kernel's (`SCALE.bit_length`? not a global's).
        for name in chain[1:]:
            if plain(value) or not hasattr(value, name):
                break
            value = getattr(value, name)
        if is_jit(value):
            _describe(value.fn, is_jit, plain, constant_key, read, parts,
                      visiting)
        elif plain(value):
            parts.append((".".join(chain), "value", constant_key(value)))
        elif isinstance(value, types.FunctionType):
            # A plain Python function the kernel may call on compile-time
            # values as it compiles: its code is the kernel's too.
            parts.append((".".join(chain), "function", value.__module__,
                          value.__qualname__, hashlib.sha256(marshal.dumps(
                              value.__code__)).hexdigest(),
                          repr(value.__defaults__)))
        elif isinstance(value, _NAMED):
            parts.append((".".join(chain), "object",
                          getattr(value, "__module__", None),
                          getattr(value, "__qualname__", value.__name__)))
        else:
            raise Unkeyable(f"'{'.'.join(chain)}' is a "
                            f"{type(value).__qualname__}, whose state the "
                            "fingerprint cannot take")
    visiting.discard(fn)


#: What `_read` found of each function (its source is read and parsed once
#: a process); its globals are resolved on every fingerprint.
_READ: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _read(fn: Callable) -> tuple[tuple, list[tuple[str, ...]]]:
    """(file, first line, SHA-256 of the source) of `fn`, and the dotted
    names its source reads: the source the code generator compiles
    (function_source)."""
    found = _READ.get(fn)
    if found is None:
        source = function_source.read(fn)
        found = ((source.filename, source.first_line,
                  hashlib.sha256(source.text.encode()).hexdigest()),
                 _global_chains(source.tree))
        _READ[fn] = found
    return found


def _global_chains(tree: ast.AST) -> list[tuple[str, ...]]:
    """The dotted names the code reads (`x`, `kl.load`, `a.b.c`), each
    once, in order; a name the code binds is still listed (a global of the
    same name may be read before it)."""
    chains: dict[tuple[str, ...], None] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and \
                isinstance(node.ctx, ast.Load):
            chain = _chain(node)
            if chain:
                chains[chain] = None
    return list(chains)


def _chain(node: ast.expr) -> tuple[str, ...] | None:
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return (node.id, *reversed(names))

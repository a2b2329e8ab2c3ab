"""``@`` as ``linalg.matmul`` or ``linalg.batch_matmul``, and
``np.einsum`` as a matmul or a broadcast product and a sum."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kiln.fuse.ir_types import _compute_type, _ir_shape, _tensor_type
from kiln.fuse.location import _error, _loc, _where
from kiln.fuse.shapes import _broadcast_to, _reshape, _reshape_op, _transpose
from kiln.fuse.trace import (TracedValue, _no_extra, _no_out, _operand,
                             _the_trace, _view)
from kiln.fuse.ufuncs import _astype, _broadcast, _resolve


def _matmul(a: Any, b: Any) -> TracedValue:
    """``a @ b`` of an array of two or more axes by a 2-d array, or of two
    stacks of matrices whose batch axes broadcast
    (``[..., M, K] @ [..., K, N]``):
    ``linalg.matmul`` (``linalg.batch_matmul``) into a fill of zeros, in
    float32 for float16 and float32 operands (float64 for float64),
    rounded to numpy's result type. The axes of ``a`` before its last are
    the rows of a matmul (the batch axes are one batch of a batched one):
    ``tensor.collapse_shape`` makes them one before it and
    ``tensor.expand_shape`` splits them after (free reshapes of row-major
    buffers, which kiln-fuse moves out to the function's inputs and
    results)."""
    a, b = _operand(a, "matmul"), _operand(b, "matmul")
    if not isinstance(a, TracedValue) or not isinstance(b, TracedValue):
        raise _error("matmul of a scalar (numpy refuses it too)")
    if b.ndim > 2 and math.prod(b.shape[:-2]) > 1:
        return _batch_matmul(a, b)
    # A batch of one matrix: a 2-d b, whose axes of size 1 numpy's result
    # keeps.
    batch_of_one = b.shape[:-2]
    b = _view(b, b.shape[-2:])
    rows = _ir_shape(a.shape[:-1])
    if a.ndim < 2 or a.shape[-1] == 1 or rows == (1,):
        raise _error(f"matmul of an array of shape {list(a.shape)}: "
                     "kiln.fuse multiplies arrays of two or more axes "
                     "with more than one row and more than one column")
    if b.ndim != 2 or 1 in b.shape:
        raise _error(f"matmul by an array of shape {list(b.shape)}: "
                     "kiln.fuse multiplies by 2-d arrays whose axes are "
                     "larger than 1, or by stacks of matrices")
    if a.shape[-1] != b.shape[0]:
        raise _error(f"matmul: shapes {list(a.shape)} and {list(b.shape)} "
                     "do not match (the inner sizes differ)")
    a, b, accumulator, result = _matmul_types(a, b)
    loc = _loc(_where())
    trace = _the_trace([a, b])
    k, n = b.shape
    m = int(np.prod(rows))
    operand, operand_type = a._value, a._tensor_type
    groups = [list(range(len(rows))), [len(rows)]]
    if len(rows) > 1:
        operand = _reshape_op(trace, "collapse_shape", operand,
                              rows + (k,), (m, k), groups, a.dtype, loc)
        operand_type = _tensor_type((m, k), a.dtype)
    init = trace.fill(0, (m, n), accumulator, loc)
    name = trace.fresh()
    out_type = _tensor_type((m, n), accumulator)
    trace.emit(f"{name} = linalg.matmul ins({operand}, {b._value} : "
               f"{operand_type}, {b._tensor_type}) outs({init} : "
               f"{out_type}) -> {out_type} {loc}")
    if len(rows) > 1:
        name = _reshape_op(trace, "expand_shape", name, (m, n), rows + (n,),
                           groups, accumulator, loc)
    product = trace.array(name, a.shape[:-1] + (n,), accumulator)
    product = _astype(product, result)
    if batch_of_one:
        product = _view(product, np.broadcast_shapes(
            a.shape[:-2], batch_of_one) + product.shape[-2:])
    return product


def _matmul_types(a: TracedValue, b: TracedValue):
    """The operands converted to numpy's loop type (floats only), the
    accumulator's type and the result's."""
    loop, result = _resolve(np.matmul, [a, b], "matmul")
    if loop.kind != "f":
        raise _error(f"matmul of {loop} arrays is not supported by kiln.fuse "
                     "(floats only)")
    return _astype(a, loop), _astype(b, loop), _compute_type(loop), result


def _batch_matmul(a: TracedValue, b: TracedValue) -> TracedValue:
    """``a @ b`` of two stacks of matrices: ``linalg.batch_matmul`` over
    the batch axes made one, an operand whose batch axes broadcast first
    broadcast (a prologue the matmul kernel reads in place)."""
    if a.ndim < 2:
        raise _error(f"matmul of an array of shape {list(a.shape)} by a "
                     "stack of matrices: kiln.fuse multiplies matrices")
    batch = _broadcast([a.shape[:-2], b.shape[:-2]], "matmul")
    a = _broadcast_to(a, batch + a.shape[-2:])
    b = _broadcast_to(b, batch + b.shape[-2:])
    (m, k), n = a.shape[-2:], b.shape[-1]
    if b.shape[-2] != k:
        raise _error(f"matmul: shapes {list(a.shape)} and {list(b.shape)} "
                     "do not match (the inner sizes differ)")
    if 1 in (m, k, n):
        raise _error(f"matmul of shapes {list(a.shape)} and "
                     f"{list(b.shape)}: kiln.fuse multiplies matrices whose "
                     "axes are larger than 1")
    a, b, accumulator, result = _matmul_types(a, b)
    loc = _loc(_where())
    trace = _the_trace([a, b])
    axes = tuple(d for d in batch if d != 1)
    count = math.prod(axes)
    groups = [list(range(len(axes))), [len(axes)], [len(axes) + 1]]

    def stacked(x: TracedValue, rows: int, columns: int) -> str:
        if len(axes) == 1:
            return x._value
        return _reshape_op(trace, "collapse_shape", x._value,
                           axes + (rows, columns), (count, rows, columns),
                           groups, x.dtype, loc)

    init = trace.fill(0, (count, m, n), accumulator, loc)
    name = trace.fresh()
    out_type = _tensor_type((count, m, n), accumulator)
    trace.emit(f"{name} = linalg.batch_matmul ins({stacked(a, m, k)}, "
               f"{stacked(b, k, n)} : "
               f"{_tensor_type((count, m, k), a.dtype)}, "
               f"{_tensor_type((count, k, n), b.dtype)}) outs({init} : "
               f"{out_type}) -> {out_type} {loc}")
    if len(axes) > 1:
        name = _reshape_op(trace, "expand_shape", name, (count, m, n),
                           axes + (m, n), groups, accumulator, loc)
    product = trace.array(name, batch + (m, n), accumulator)
    return _astype(product, result)


def _einsum(subscripts, *operands, out=None, dtype=None, optimize=False,
            **kwargs):
    """``np.einsum`` of one or two arrays, each subscript once per array
    (no diagonal; an ellipsis stands for the leading axes, which
    broadcast): a product of two arrays with subscripts
    summed over on both sides is a matmul (batched over the subscripts
    both keep: ``'bhqd,bhkd->bhqk'``) between transposes and free
    reshapes; anything else a broadcast product summed over the
    subscripts the result drops. The result has numpy's type (no
    accumulator wider than the operands')."""
    _no_out(out, "np.einsum")
    _no_extra(kwargs, "np.einsum")
    if dtype is not None:
        raise _error("np.einsum with dtype= is not supported by kiln.fuse")
    if not isinstance(subscripts, str):
        raise _error("np.einsum takes its subscripts as a string here")
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands) or len(operands) not in (1, 2):
        raise _error(f"np.einsum of {len(operands)} arrays with "
                     f"subscripts {subscripts!r}: kiln.fuse takes one or two "
                     "arrays, one subscript term each")
    arrays = [_operand(o, "np.einsum") for o in operands]
    if not all(isinstance(a, TracedValue) for a in arrays):
        raise _error("np.einsum of a scalar is not supported by kiln.fuse")
    # An ellipsis: letters of its own for the axes it stands for, aligned
    # on the right as broadcasting aligns them.
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
             if c not in spec]
    covered = [a.ndim - len(t.replace("...", "")) if "..." in t else 0
               for t, a in zip(terms, arrays)]
    ellipsis = "".join(spare[:max(max(covered), 0)])
    terms = [t.replace("...", ellipsis[len(ellipsis) - n:] if n >= 0
                       else "?")
             for t, n in zip(terms, covered)]
    if arrow:
        output = output.replace("...", ellipsis)
    elif ellipsis:  # numpy's implicit output puts the ellipsis first
        letters = "".join(t for t in terms)
        output = ellipsis + "".join(sorted(
            c for c in set(letters) - set(ellipsis)
            if letters.count(c) == 1))
        arrow = "->"
    sizes: dict[str, int] = {}
    for term, written, a in zip(terms, inputs.split(","), arrays):
        if not term.isalpha() or len(term) != a.ndim:
            raise _error(f"np.einsum: subscripts {written!r} for an array "
                         f"of shape {list(a.shape)}")
        if len(set(term)) != len(term):
            raise _error(f"np.einsum: {term!r} repeats a subscript (a "
                         "diagonal), which kiln.fuse does not take")
        for letter, n in zip(term, a.shape):
            if sizes.get(letter, n) != n and 1 not in (n, sizes[letter]):
                raise _error(f"np.einsum: subscript {letter!r} has sizes "
                             f"{sizes[letter]} and {n}")
            sizes[letter] = max(sizes.get(letter, 1), n)
    letters = "".join(terms)
    if not arrow:  # numpy's implicit output: the letters used once, sorted
        output = "".join(sorted(c for c in set(letters)
                                if letters.count(c) == 1))
    if not output.isalpha() and output or len(set(output)) != len(output) or \
            any(c not in sizes for c in output):
        raise _error(f"np.einsum: output subscripts {output!r} for inputs "
                     f"{inputs!r}")
    result = np.result_type(*[a.dtype for a in arrays])
    arrays = [_astype(a, result) for a in arrays]
    if len(arrays) == 2 and result.kind == "f":
        product = _einsum_as_matmul(terms, arrays, output, sizes)
        if product is not None:
            return product
    # The broadcast product over [output letters, summed letters].
    order = output + "".join(sorted(set(letters) - set(output)))
    expanded = []
    for term, a in zip(terms, arrays):
        moved = _transpose(a, [term.index(c) for c in order if c in term])
        expanded.append(_reshape(moved, tuple(
            a.shape[term.index(c)] if c in term else 1 for c in order)))
    total = expanded[0] if len(expanded) == 1 else expanded[0] * expanded[1]
    if len(order) > len(output):
        total = total.sum(axis=tuple(range(len(output), len(order))),
                          dtype=result)
    return _astype(total, result)


def _einsum_as_matmul(terms: list[str], arrays: list[TracedValue],
                      output: str, sizes: dict[str, int]
                      ) -> TracedValue | None:
    """The two-array einsum as a (batched) matmul, or None where it is
    none (no subscript summed over on both sides, or a side with nothing
    of its own, or one only one side sums)."""
    (ta, tb), (a, b) = terms, arrays
    batch = [c for c in output if c in ta and c in tb]
    contract = [c for c in ta if c in tb and c not in output]
    free_a = [c for c in output if c in ta and c not in tb]
    free_b = [c for c in output if c in tb and c not in ta]
    if set(ta) != set(batch + contract + free_a) or \
            set(tb) != set(batch + contract + free_b):
        return None
    m = math.prod(sizes[c] for c in free_a)
    k = math.prod(sizes[c] for c in contract)
    n = math.prod(sizes[c] for c in free_b)
    # An axis broadcast (of size 1 where the other array's is not) is the
    # broadcast product's.
    whole = all(a.shape[i] == sizes[c] for i, c in enumerate(ta)) and \
        all(b.shape[i] == sizes[c] for i, c in enumerate(tb))
    if 1 in (m, k, n) or not whole or \
            any(sizes[c] == 1 for c in ta + tb):
        return None
    batch_shape = tuple(sizes[c] for c in batch)
    lhs = _reshape(_transpose(a, [ta.index(c) for c in batch + free_a +
                                  contract]), batch_shape + (m, k))
    rhs = _reshape(_transpose(b, [tb.index(c) for c in batch + contract +
                                  free_b]), batch_shape + (k, n))
    product = _reshape(lhs @ rhs, batch_shape + tuple(
        sizes[c] for c in free_a + free_b))
    have = batch + free_a + free_b
    return _transpose(product, [have.index(c) for c in output])

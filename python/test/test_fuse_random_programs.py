"""Random numpy programs through ``@kiln.fuse``, against numpy in float64.

Each program is a seeded sequence of steps over a pool of arrays:
elementwise math, broadcasting binary operations, reductions over a
random axis (keepdims or not), transposes, basic indexing (slices of any
step, integers), gathers (``np.take`` along a random axis by an index
argument, wrapped or clipped) and products of two arrays over their last
axes (matmuls, batched over batch axes that broadcast). The steps are chosen on concrete arrays, so every
program is valid numpy; kiln-fuse then groups them as it will (row
kernels, slices read in place, recomputed producers, siblings joined), and
the results must agree with numpy whatever the grouping."""

from __future__ import annotations

import numpy as np
import pytest

import kiln

_SIZES = (1, 2, 3, 5, 8, 17, 33, 130)


def _unary(rng):
    return rng.choice([
        ("tanh", np.tanh), ("sin", np.sin), ("abs", np.abs),
        ("negative", np.negative), ("square", lambda x: x * x),
        ("sqrt1", lambda x: np.sqrt(np.abs(x) + 1)),
        ("exp", lambda x: np.exp(np.clip(x, -4, 4))),
    ])


def _binary(rng):
    return rng.choice([
        ("add", np.add), ("subtract", np.subtract),
        ("multiply", np.multiply), ("maximum", np.maximum),
    ])


def _reduction(rng):
    return rng.choice([
        ("sum", lambda x, axis, keep: x.sum(axis=axis, keepdims=keep)),
        ("max", lambda x, axis, keep: x.max(axis=axis, keepdims=keep)),
        ("mean", lambda x, axis, keep: x.mean(axis=axis, keepdims=keep)),
        ("var", lambda x, axis, keep: x.var(axis=axis, keepdims=keep)),
    ])


def _slice_key(shape, rng) -> tuple:
    """A basic index that keeps at least one element along each axis:
    mostly slices, now and then an integer (which drops its axis)."""
    key = []
    for n in shape:
        if n > 1 and rng.random() < 0.15:
            key.append(int(rng.integers(-n, n)))
            continue
        while True:
            step = int(rng.choice([1, 1, 2, -1, 3]))
            start = None if rng.random() < 0.4 else int(rng.integers(-n, n))
            stop = None if rng.random() < 0.4 else int(rng.integers(-n, n + 1))
            item = slice(start, stop, step)
            if len(range(*item.indices(n))):
                key.append(item)
                break
    return tuple(key)


class _Pool(list):
    """The arrays a program has computed so far, and its index argument."""

    def __init__(self, arrays, ids):
        super().__init__(arrays)
        self.ids = ids


def _program(seed: int):
    """The inputs and the steps of one random program: each step is a
    function of the pool of arrays computed so far, appending one array."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(rng.choice(_SIZES)) for _ in range(rank))
    inputs = [rng.standard_normal(shape).astype(np.float32)]
    # A second input broadcast over some leading axes.
    drop = int(rng.integers(0, rank + 1))
    inputs.append(rng.standard_normal(shape[drop:] or (1,))
                  .astype(np.float32))
    ids = rng.integers(-40, 40, size=int(rng.choice([1, 3, 8, 17])))
    pool = _Pool([x.astype(np.float64) for x in inputs], ids)
    steps = []
    for _ in range(int(rng.integers(3, 8))):
        kind = rng.choice(["unary", "binary", "reduce", "slice",
                           "transpose", "matmul", "take"],
                          p=[0.2, 0.25, 0.17, 0.17, 0.05, 0.08, 0.08])
        a = int(rng.integers(len(pool)))
        if kind == "unary":
            name, fn = _unary(rng)
            step = (lambda fn, a: lambda p: fn(p[a]))(fn, a)
        elif kind == "binary":
            b = int(rng.integers(len(pool)))
            try:
                np.broadcast_shapes(pool[a].shape, pool[b].shape)
            except ValueError:
                continue
            name, fn = _binary(rng)
            step = (lambda fn, a, b: lambda p: fn(p[a], p[b]))(fn, a, b)
        elif kind == "reduce":
            if pool[a].ndim == 0:
                continue
            axis = int(rng.integers(pool[a].ndim))
            keep = bool(rng.random() < 0.5)
            name, fn = _reduction(rng)
            step = (lambda fn, a, axis, keep:
                    lambda p: fn(p[a], axis, keep))(fn, a, axis, keep)
        elif kind == "slice":
            if pool[a].ndim == 0:
                continue
            key = _slice_key(pool[a].shape, rng)
            step = (lambda a, key: lambda p: p[a][key])(a, key)
        elif kind == "take":
            if pool[a].ndim == 0:
                continue
            axis = int(rng.integers(pool[a].ndim))
            mode = str(rng.choice(["wrap", "clip"]))
            step = (lambda a, axis, mode: lambda p: np.take(
                p[a], p.ids, axis=axis, mode=mode))(a, axis, mode)
        elif kind == "transpose":
            if pool[a].ndim < 2:
                continue
            step = (lambda a: lambda p: p[a].T)(a)
        else:
            # p[a] @ p[b]^T over their last axes: a matmul, batched where
            # both are stacks of one batch shape.
            b = int(rng.integers(len(pool)))
            x, y = pool[a], pool[b]
            if x.ndim < 2 or y.ndim < 2 or x.shape[-1] != y.shape[-1] or \
                    1 in (x.shape[-1], x.shape[-2], y.shape[-2]):
                continue
            try:  # batch axes broadcast, as numpy's
                np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
            except ValueError:
                continue
            order = tuple(range(y.ndim - 2)) + (y.ndim - 1, y.ndim - 2)
            step = (lambda a, b, order:
                    lambda p: p[a] @ p[b].transpose(order))(a, b, order)
        result = step(pool)
        if np.ndim(result) == 0:
            continue
        pool.append(result)
        steps.append(step)
    # The results: the last value, and one earlier value now and then.
    outputs = [len(pool) - 1]
    if len(pool) > 3 and rng.random() < 0.5:
        outputs.append(int(rng.integers(2, len(pool) - 1)))
    return inputs + [ids], steps, outputs


def _run(steps, outputs, x, y, ids):
    pool = _Pool([x, y], ids)
    for step in steps:
        pool.append(step(pool))
    return tuple(pool[i] for i in outputs)


@pytest.mark.parametrize("seed", range(40))
def test_random_program_against_numpy(seed):
    inputs, steps, outputs = _program(seed)
    fused = kiln.fuse(lambda x, y, ids: _run(steps, outputs, x, y, ids))
    got = fused(*inputs)
    x, y, ids = inputs
    want = _run(steps, outputs, x.astype(np.float64), y.astype(np.float64),
                ids)
    for g, w in zip(got, want):
        assert g.shape == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4,
                                   err_msg=f"seed {seed}")

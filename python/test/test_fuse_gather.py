"""``@kiln.fuse`` indexing by integer arrays (gathers): ``w[ids]``,
``x[:, ids]``, ``x[i, j]`` and every other mix of numpy's advanced
indexing with slices, integers, None and an ellipsis; ``np.take`` with its
three modes and ``np.take_along_axis``. Each traces to a generic whose
body extracts elements of the array it indexes (a gather), which kiln-tile
makes one masked load per lane. Index arrays among the arguments are
checked before each call, as numpy checks them. Everything runs against
numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import kiln

from fuse_helpers import kernel_count, raises_at

HERE = str(Path(__file__).resolve())
RNG = np.random.default_rng(11)


def _normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@kiln.fuse
def embed(w, ids):
    return w[ids]


@pytest.mark.parametrize("table", [np.float16, np.float32, np.float64,
                                   np.int8, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("index", [np.int8, np.int16, np.int32, np.int64])
def test_embedding_lookup_is_exact(table, index):
    """Rows of a table of each type picked by ids of each integer type,
    negative ones counted from the end, repeats allowed."""
    w = (RNG.standard_normal((50, 24)) * 100).astype(table)
    ids = RNG.integers(-50, 50, size=37).astype(index)
    got = embed(w, ids)
    assert got.dtype == w.dtype
    np.testing.assert_array_equal(got, w[ids])


def test_ids_of_any_shape():
    w = _normal(100, 16)
    ids = RNG.integers(0, 100, size=(4, 7, 3))
    got = embed(w, ids)
    assert got.shape == (4, 7, 3, 16)
    np.testing.assert_array_equal(got, w[ids])


def test_gather_fuses_with_elementwise_math():
    """Scale, add a position embedding and a bias: one kernel, which reads
    the ids and gathers the rows of w."""
    @kiln.fuse
    def embed_scaled(w, ids, positions, bias):
        return w[ids] * 8.0 + positions + bias

    w, positions, bias = _normal(1000, 64), _normal(12, 64), _normal(64)
    ids = RNG.integers(0, 1000, size=12)
    np.testing.assert_allclose(embed_scaled(w, ids, positions, bias),
                               w[ids] * 8.0 + positions + bias, rtol=1e-6)
    assert kernel_count(embed_scaled, w, ids, positions, bias) == 1


def test_layer_norm_of_an_embedding():
    """One row kernel: each program gathers its rows of w (the ids a
    value per row) and normalizes them; the [5, 9, 96] embedding never
    reaches memory."""
    @kiln.fuse
    def embed_norm(w, ids):
        e = w[ids]
        mean = e.mean(-1, keepdims=True)
        return (e - mean) / np.sqrt(e.var(-1, keepdims=True) + 1e-5)

    w, ids = _normal(300, 96), RNG.integers(-300, 300, size=(5, 9))
    e = w[ids].astype(np.float64)
    want = (e - e.mean(-1, keepdims=True)) / np.sqrt(
        e.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(embed_norm(w, ids), want, rtol=1e-4,
                               atol=1e-5)
    assert kernel_count(embed_norm, w, ids) == 1


def test_embedding_bag_and_projection():
    """Gathered rows summed (one row kernel), and multiplied by a matrix
    (the gather is not a matmul's prologue: a kernel before it)."""
    @kiln.fuse
    def bag(w, ids, proj):
        return w[ids].sum(axis=1), w[ids[:, 0]] @ proj

    w, proj = _normal(40, 32), _normal(32, 8)
    ids = RNG.integers(0, 40, size=(6, 5))
    summed, projected = bag(w, ids, proj)
    np.testing.assert_allclose(summed, w[ids].astype(np.float64).sum(1),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(projected, w[ids[:, 0]] @ proj, rtol=1e-5,
                               atol=1e-5)
    assert kernel_count(bag, w, ids, proj) == 3


def test_fused_cross_entropy_is_one_kernel():
    """logsumexp of each row minus its label's logit: the label's element
    is gathered by the row kernel that reduces the row (long rows, walked
    in chunks), and the [rows, vocabulary] log-probabilities are never
    written."""
    @kiln.fuse
    def loss(x, labels, rows):
        m = x.max(-1)
        return m + np.log(np.exp(x - m[:, None]).sum(-1)) - x[rows, labels]

    x = _normal(16, 30000)
    labels, rows = RNG.integers(0, 30000, size=16), np.arange(16)
    wide = x.astype(np.float64)
    m = wide.max(-1)
    want = m + np.log(np.exp(wide - m[:, None]).sum(-1)) - wide[rows, labels]
    np.testing.assert_allclose(loss(x, labels, rows), want, rtol=1e-5)
    assert kernel_count(loss, x, labels, rows) == 1


def test_cross_entropy():
    """-log softmax(x)[label] per row, and its mean, with the labels
    picked by np.take_along_axis and by x[np.arange(n), labels]'s
    equivalent of an argument range."""
    @kiln.fuse
    def loss(x, labels, rows):
        shifted = x - x.max(-1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
        picked = np.take_along_axis(logp, labels[:, None], axis=1)
        return -picked.mean(), -logp[rows, labels]

    x, labels = _normal(64, 1000), RNG.integers(0, 1000, size=64)
    rows = np.arange(64)
    shifted = x.astype(np.float64) - x.max(-1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    mean, each = loss(x, labels, rows)
    np.testing.assert_allclose(each, -logp[rows, labels], rtol=1e-5)
    np.testing.assert_allclose(mean, -logp[rows, labels].mean(), rtol=1e-5)


def test_argmax_indices_need_no_check():
    """An argmax indexes an axis at least as long as the one it reduced
    without a check: computed in the function, yet allowed."""
    @kiln.fuse
    def best(x, y):
        return np.take_along_axis(y, np.argmax(x, axis=1)[:, None], axis=1)

    x, y = _normal(20, 30), _normal(20, 30)
    np.testing.assert_array_equal(
        best(x, y), np.take_along_axis(y, np.argmax(x, 1)[:, None], 1))


def test_gather_of_a_computed_table():
    """The table is computed by another kernel and gathered from its
    result; the gather and the table's producer read x alike, but are two
    kernels."""
    @kiln.fuse
    def lookup(x, ids):
        t = np.exp(x)
        return t[ids] + t[:5]

    x, ids = _normal(5, 7), np.array([4, 0, -1, 2, 2])
    np.testing.assert_allclose(lookup(x, ids), np.exp(x)[ids] + np.exp(x),
                               rtol=1e-6)
    assert kernel_count(lookup, x, ids) == 2


def test_gather_of_a_gather():
    @kiln.fuse
    def twice(w, ids, again):
        return w[ids][again]

    w, ids, again = _normal(9, 3), np.array([8, 1, 4, 4]), np.array([3, 0])
    np.testing.assert_array_equal(twice(w, ids, again), w[ids][again])


# numpy's advanced indexing: where the axes of the index arrays go.
KEYS = {
    "rows": lambda i, j: (i,),
    "columns": lambda i, j: (slice(None), i),
    "last": lambda i, j: (Ellipsis, j),
    "pair": lambda i, j: (i, j),
    "pair_then_slice": lambda i, j: (i, j, slice(None, None, -1)),
    "apart": lambda i, j: (i, slice(1, None), j),  # block axes first
    "integer_and_array": lambda i, j: (2, slice(None), j),  # apart too
    "adjacent_integer": lambda i, j: (slice(None), 1, j),
    "new_axis": lambda i, j: (None, i, None),
    "new_axis_between": lambda i, j: (i, None, j),  # apart: None splits
    "sliced": lambda i, j: (slice(None, None, 2), i[:3, None]),
    "broadcast": lambda i, j: (i[:, None], slice(None), j[None, :]),
    "outer": lambda i, j: (slice(None), i[:, None], j[None, :3]),
    # An ellipsis between index arrays separates them, even one that
    # stands for no axis: their axes go first.
    "ellipsis_between": lambda i, j: (slice(None), i, Ellipsis, j),
    "ellipsis_of_one_axis": lambda i, j: (i, Ellipsis, j),
    "zero_d_integer": lambda i, j: (np.array(2), slice(None), j),
}


@pytest.mark.parametrize("name", sorted(KEYS))
def test_advanced_indexing_as_numpy(name):
    x = _normal(6, 7, 5)
    i = np.array([5, 0, -2, 3, 1, 0])
    j = np.array([4, -5, 0, 2, 3, 1])

    @kiln.fuse
    def pick(x, i, j):
        return x[KEYS[name](i, j)]

    want = x[KEYS[name](i, j)]
    got = pick(x, i, j)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def _random_advanced_key(shape, rng):
    """A key template for an array of ``shape``: per axis a slice, an
    integer or an index array (``("array", shape of it)``), with Nones
    now and then; index array shapes broadcast together."""
    block = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(1, 3)))
    key, arrays = [], 0
    for n in shape:
        kind = rng.integers(4)
        if kind == 0 or (arrays == 0 and n == shape[-1]):
            # Trailing axes of the block, some of size 1 (broadcast).
            own = tuple(d if rng.integers(3) else 1
                        for d in block[len(block) - rng.integers(
                            1, len(block) + 1):])
            key.append(("array", own, n))
            arrays += 1
        elif kind == 1:
            key.append(int(rng.integers(-n, n)))
        elif kind == 2:
            key.append(slice(None))
        else:
            step = int(rng.choice([-2, -1, 1, 2]))
            key.append(slice(None, None, step))
        if rng.integers(6) == 0:
            key.append(None)
    return key


@pytest.mark.parametrize("seed", range(20))
def test_random_advanced_keys(seed):
    """Random mixes of index arrays, integers, slices and Nones of a 3-d
    array, against numpy's result shape and values."""
    rng = np.random.default_rng(100 + seed)
    shape = tuple(int(n) for n in rng.integers(1, 7, size=3))
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    template = _random_advanced_key(shape, rng)
    arrays = [rng.integers(-n, n, size=own) for own, n in
              [(item[1], item[2]) for item in template
               if isinstance(item, tuple)]]

    def key_of(index_arrays):
        it = iter(index_arrays)
        return tuple(next(it) if isinstance(item, tuple) else item
                     for item in template)

    @kiln.fuse
    def pick(x, *index_arrays):
        return x[key_of(index_arrays)] * 2

    want = x[key_of(arrays)] * 2
    got = pick(x, *arrays)
    assert got.shape == want.shape, template
    np.testing.assert_array_equal(got, want, err_msg=str(template))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take(mode, axis):
    """np.take and ndarray.take; under wrap and clip the indices may be
    computed in the function and lie anywhere."""
    x = _normal(5, 6)
    ids = RNG.integers(-5, 5, size=(3, 2))

    @kiln.fuse
    def take(x, ids):
        if mode == "raise":
            return np.take(x, ids, axis=axis), x.take(ids, axis)
        return (np.take(x, ids * 7 - 3, axis=axis, mode=mode),
                x.take(ids * 7 - 3, axis, mode=mode))

    scaled = ids if mode == "raise" else ids * 7 - 3
    for got in take(x, ids):
        np.testing.assert_array_equal(got, np.take(x, scaled, axis=axis,
                                                   mode=mode))


def test_take_of_a_scalar_index():
    @kiln.fuse
    def take(x):
        return np.take(x, -1, axis=1), np.take(x, 9, axis=0, mode="wrap"), \
            np.take(x, 9, mode="clip")

    x = _normal(4, 5)
    want = (np.take(x, -1, axis=1), np.take(x, 9, axis=0, mode="wrap"),
            np.take(x, 9, mode="clip"))
    for got, w in zip(take(x), want):
        np.testing.assert_array_equal(got, w)


def test_take_along_axis_broadcasts():
    @kiln.fuse
    def along(x, ids, last, flat):
        return (np.take_along_axis(x, ids, axis=1),
                np.take_along_axis(x, last[:1], axis=-1),
                np.take_along_axis(x, flat, axis=None))

    x = _normal(4, 6, 3)
    ids = RNG.integers(-6, 6, size=(4, 2, 1))
    last = RNG.integers(-3, 3, size=(2, 6, 5))
    flat = RNG.integers(0, 72, size=10)
    want = (np.take_along_axis(x, ids, axis=1),
            np.take_along_axis(x, last[:1], axis=-1),
            np.take_along_axis(x, flat, axis=None))
    for got, w in zip(along(x, ids, last, flat), want):
        np.testing.assert_array_equal(got, w)


# Indices checked as numpy checks them, before each call.

def test_an_index_out_of_bounds_raises_index_error():
    w = _normal(10, 4)
    embed(w, np.array([0, 9, -10]))  # in bounds, and traced
    with pytest.raises(IndexError) as info:
        embed(w, np.array([0, 10, 3]))
    assert isinstance(info.value, kiln.KilnIndexError)
    assert "argument 'ids' holds index 10, out of bounds for axis 0 with " \
        "size 10" in str(info.value)
    with pytest.raises(kiln.KilnIndexError, match="holds index -11"):
        embed(w, np.array([-11]))


def test_an_index_check_names_its_line():
    @kiln.fuse
    def pick(x, j):
        return x[:, j]  # marker: column check

    with pytest.raises(kiln.KilnIndexError) as info:
        pick(_normal(3, 4), np.array([1, 4]))
    line = [n + 1 for n, text in enumerate(Path(HERE).read_text()
                                           .splitlines())
            if text.endswith("# marker: column check")][0]
    assert f"{HERE}:{line}:" in str(info.value)
    assert "for axis 1 with size 4" in str(info.value)


def test_a_size_one_axis_takes_index_zero_and_minus_one():
    x = _normal(1, 5)
    np.testing.assert_array_equal(embed(x, np.array([0, -1, 0])),
                                  x[[0, -1, 0]])
    with pytest.raises(kiln.KilnIndexError, match="holds index 1"):
        embed(x, np.array([0, 1]))


def _raises(fn, *args, match: str, line: str):
    raises_at(HERE, fn, *args, match=match, line=line)


def test_boolean_masks_are_refused():
    @kiln.fuse
    def masked(x, keep):
        return x[keep]  # marker: mask

    _raises(masked, _normal(4), np.array([True, False, True, True]),
            match="by a boolean array: it selects elements by value",
            line="# marker: mask")

    @kiln.fuse
    def masked_by_value(x):
        return x[x > 0]  # marker: mask by value

    _raises(masked_by_value, _normal(4), match="by a boolean array",
            line="# marker: mask by value")


def test_float_indices_are_refused():
    @kiln.fuse
    def by_float(x, f):
        return x[f]  # marker: float

    _raises(by_float, _normal(4), _normal(2),
            match="an index array holds integers, not float32",
            line="# marker: float")


def test_computed_indices_need_a_mode():
    @kiln.fuse
    def computed(x, ids):
        return x[ids + 1]  # marker: computed

    _raises(computed, _normal(4), np.array([0, 1]),
            match="this index array is computed in the function.*"
                  "mode='wrap' or 'clip'", line="# marker: computed")


def test_constant_index_arrays_are_refused():
    @kiln.fuse
    def constant(x):
        return x[np.array([0, 2])]  # marker: constant

    _raises(constant, _normal(4), match="numpy array constant of shape "
                                        r"\[2\].*pass it as one",
            line="# marker: constant")

    @kiln.fuse
    def listed(x):
        return x[[0, 2]]  # marker: list

    _raises(listed, _normal(4), match="numpy array constant",
            line="# marker: list")


def test_take_refuses_a_bad_mode_and_rank():
    @kiln.fuse
    def bad_mode(x, ids):
        return np.take(x, ids, mode="nearest")  # marker: mode

    _raises(bad_mode, _normal(4), np.array([0]),
            match="mode must be one of raise, wrap, clip",
            line="# marker: mode")

    @kiln.fuse
    def bad_rank(x, ids):
        return np.take_along_axis(x, ids, axis=0)  # marker: rank

    _raises(bad_rank, _normal(4, 3), np.array([0]),
            match="indices of 1 axes for an array of 2",
            line="# marker: rank")


def test_a_view_of_an_argument_is_checked_as_that_view():
    """ids[:, 0] and ids.T index as numpy's views do: only the values the
    view holds are checked."""
    @kiln.fuse
    def first_column(w, ids):
        return w[ids[:, 0]], w[ids.T.reshape(-1)]

    w = _normal(10, 3)
    ids = np.array([[1, 10], [9, 11]])  # column 1 is out of bounds
    with pytest.raises(kiln.KilnIndexError, match="holds index 11"):
        first_column(w, ids)  # the second view holds it

    @kiln.fuse
    def column_only(w, ids):
        return w[ids[:, 0]]

    np.testing.assert_array_equal(column_only(w, ids), w[ids[:, 0]])
    with pytest.raises(kiln.KilnIndexError, match="holds index -12"):
        column_only(w, np.array([[-12, 0]]))


# Joining arrays: np.concatenate and np.stack are gathers too, from each
# array at its index clamped into it, the element chosen by the span.

@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concatenate_as_numpy(axis):
    a, b = _normal(4, 6), _normal(4, 6)

    @kiln.fuse
    def join(a, b):
        return np.concatenate([a, b, a * 2], axis=axis)

    want = np.concatenate([a, b, a * 2], axis=axis)
    got = join(a, b)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_concatenate_pieces_of_other_lengths_and_types():
    """Pieces of lengths 1, 3 and 6 along the axis, of int32, float16 and
    float32: numpy's result type, and dtype= to choose another."""
    a = RNG.integers(-9, 9, size=(2, 1, 5)).astype(np.int32)
    b = _normal(2, 3, 5, dtype=np.float16)
    c = _normal(2, 6, 5)

    @kiln.fuse
    def join(a, b, c):
        return (np.concatenate((a, b, c), axis=1),
                np.concatenate((a, b), axis=1, dtype=np.float64))

    for got, want in zip(join(a, b, c),
                         (np.concatenate((a, b, c), axis=1),
                          np.concatenate((a, b), axis=1, dtype=np.float64))):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_rotate_half_reads_slices_in_place():
    """Rotary embedding's rotate_half: the slices of x are read in place
    by the concatenation; the negated half is computed by a kernel before
    it (two kernels). A roll of the columns is one kernel."""
    @kiln.fuse
    def rotate_half(x):
        h = x.shape[-1] // 2
        return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)

    @kiln.fuse
    def roll(x):
        return np.concatenate([x[:, 3:], x[:, :3]], axis=1)

    x = _normal(2, 7, 16)
    h = 8
    np.testing.assert_array_equal(
        rotate_half(x), np.concatenate([-x[..., h:], x[..., :h]], axis=-1))
    assert kernel_count(rotate_half, x) == 2
    y = _normal(5, 9)
    np.testing.assert_array_equal(roll(y), np.roll(y, -3, axis=1))
    assert kernel_count(roll, y) == 1


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack_as_numpy(axis):
    a = _normal(3, 4)

    @kiln.fuse
    def stacked(a):
        return np.stack([a, -a, np.exp(a)], axis=axis)

    np.testing.assert_allclose(stacked(a),
                               np.stack([a, -a, np.exp(a)], axis=axis),
                               rtol=1e-6)


def test_concatenate_then_reduce_and_multiply():
    @kiln.fuse
    def mixed(a, b, w):
        joined = np.concatenate([a, b], axis=-1)
        return joined.sum(-1), joined @ w

    a, b, w = _normal(6, 5), _normal(6, 3), _normal(8, 4)
    joined = np.concatenate([a, b], axis=-1).astype(np.float64)
    total, product = mixed(a, b, w)
    np.testing.assert_allclose(total, joined.sum(-1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(product, joined @ w, rtol=1e-5, atol=1e-5)


def test_concatenate_refusals():
    @kiln.fuse
    def mismatched(a, b):
        return np.concatenate([a, b], axis=0)  # marker: concat shapes

    _raises(mismatched, _normal(2, 3), _normal(2, 4),
            match=r"shapes must agree except along axis 0: \[2, 3\], "
                  r"\[2, 4\]", line="# marker: concat shapes")

    @kiln.fuse
    def ranks(a, b):
        return np.concatenate([a, b])  # marker: concat ranks

    _raises(ranks, _normal(2, 3), _normal(3),
            match="the same number of axes", line="# marker: concat ranks")

    @kiln.fuse
    def uneven(a, b):
        return np.stack([a, b])  # marker: stack shapes

    _raises(uneven, _normal(2, 3), _normal(3, 2),
            match=r"stack: the arrays must have one shape",
            line="# marker: stack shapes")


def test_review_findings_on_keys():
    """A boolean beside index arrays is refused (numpy makes it an axis),
    an integer out of bounds is an IndexError, and take_along_axis's
    axis defaults to the last, as numpy 2.3's."""
    x, i = _normal(5, 6), np.array([0, 4])

    @kiln.fuse
    def with_true(x, i):
        return x[i, True]  # marker: true beside

    _raises(with_true, x, i, match="a boolean beside index arrays",
            line="# marker: true beside")

    @kiln.fuse
    def too_far(x, i):
        return x[i, 9]

    with pytest.raises(IndexError, match="index 9 is out of bounds for "
                                         "axis 1 with size 6"):
        too_far(x, i)

    @kiln.fuse
    def along_last(x, ids):
        return np.take_along_axis(x, ids)

    ids = RNG.integers(0, 6, size=(5, 2))
    np.testing.assert_array_equal(along_last(x, ids),
                                  np.take_along_axis(x, ids, axis=-1))


def test_an_index_into_an_axis_of_one():
    """An axis of one element is indexed at 0 whatever the index holds
    (its values are still checked, as numpy checks them): the index array
    is no input of the gather, which a reduction of it then reads (a
    random program made kiln-fuse keep writing the gather beside the
    reduction, which kiln-tile refused)."""
    @kiln.fuse
    def clipped(t, ids):
        return np.take(t, ids, mode="clip").max(), t[ids].sum()

    t, ids = _normal(1), np.array([0, -1, 0])
    top, total = clipped(t, ids)
    assert top == t[0] and total == np.float32(3) * t[0]
    with pytest.raises(kiln.KilnIndexError, match="holds index 1"):
        clipped(t, np.array([1]))


def test_gathers_from_slices_of_slices():
    """Slices of slices of an argument composed in the gather's loads (a
    random program found a second slice refused)."""
    @kiln.fuse
    def picked(x, ids, rows):
        return x[1:, ::3][0, ::-1][ids], x[:, 1:][::-1][rows, 2]

    x, ids, rows = _normal(3, 33), np.array([0, 10, -1, 4]), np.array([2, 0])
    first, second = picked(x, ids, rows)
    np.testing.assert_array_equal(first, x[1:, ::3][0, ::-1][ids])
    np.testing.assert_array_equal(second, x[:, 1:][::-1][rows, 2])

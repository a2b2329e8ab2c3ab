"""Reductions over rows of dynamic length, which kiln-tile walks in chunks:
reductions that read only what is known before the row is walked share
one loop over its chunks, a sum of exp(a - k) is carried as an online
softmax and a sum of (a - k)^2 as a running mean and sum of squared
deviations, so that neither waits for k. Run on the host against numpy in
float64, with the values that break naive rescaling (infinities, rows
whose max comes late, empty rows, a large offset)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kiln
from kiln.host import ARRAY_PIPELINE, HostExecutable, array_pipeline

PROGRAMS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#r = affine_map<(d0) -> (d0)>

// The row's max and the sum of exp(x - max), both returned.
func.func @max_and_sum(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%minit : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.maximumf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%sinit : tensor<?xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %a = arith.addf %e, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %max, %sum : tensor<?xf32>, tensor<?xf32>
}

// sum(exp2(x - k)) for a k given per row, from an initial value of 1.
func.func @shifted_by_input(%x: tensor<?x?xf32>, %k: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%one : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %k : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %kv: f32, %acc: f32):
    %d = arith.subf %in, %kv : f32
    %e = math.exp2 %d : f32
    %a = arith.addf %e, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %sum : tensor<?xf32>
}

// The row's mean, and sum((mean - 2x)^2) / n: the shift is on the left.
func.func @variance(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %count = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %ones = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%count : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %one = arith.constant 1.0 : f32
    %a = arith.addf %one, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %mean = linalg.generic {indexing_maps = [#r, #r, #r], iterator_types = ["parallel"]}
      ins(%sum, %ones : tensor<?xf32>, tensor<?xf32>) outs(%rows : tensor<?xf32>) {
  ^bb0(%s: f32, %c: f32, %out: f32):
    %q = arith.divf %s, %c : f32
    linalg.yield %q : f32
  } -> tensor<?xf32>
  %full = tensor.empty(%n, %m) : tensor<?x?xf32>
  %dev = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%in: f32, %mu: f32, %out: f32):
    %twice = arith.mulf %in, %two : f32
    %d = arith.subf %mu, %twice : f32
    linalg.yield %d : f32
  } -> tensor<?x?xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%dev : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.mulf %in, %in : f32
    %a = arith.addf %s, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %var = linalg.generic {indexing_maps = [#r, #r, #r], iterator_types = ["parallel"]}
      ins(%sq, %ones : tensor<?xf32>, tensor<?xf32>) outs(%rows : tensor<?xf32>) {
  ^bb0(%s: f32, %c: f32, %out: f32):
    %q = arith.divf %s, %c : f32
    linalg.yield %q : f32
  } -> tensor<?xf32>
  return %mean, %var : tensor<?xf32>, tensor<?xf32>
}

// z = sum(x / y) with y = sum(x) + t, t = sum(x - max(x)): y's loop is
// the max's, but y is known only once t's loop has run, so z, which
// needs y, cannot join t's loop.
func.func @chained(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%minit : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.maximumf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %t = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %a = arith.addf %d, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%t : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %zinit = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %z = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<?x?xf32>, tensor<?xf32>) outs(%zinit : tensor<?xf32>) {
  ^bb0(%in: f32, %yv: f32, %acc: f32):
    %q = arith.divf %in, %yv : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %z : tensor<?xf32>
}

// The first max of each row and its column, as np.argmax (a NaN is the
// max): two results, kept together.
func.func @argmax(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i64
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %irows = tensor.empty(%n) : tensor<?xi64>
  %vinit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %iinit = linalg.fill ins(%zero : i64) outs(%irows : tensor<?xi64>) -> tensor<?xi64>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%vinit, %iinit : tensor<?xf32>, tensor<?xi64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %v : f32
    %nan = arith.cmpf uno, %in, %in : f32
    %vnan = arith.cmpf uno, %v, %v : f32
    %true = arith.constant true
    %vok = arith.xori %vnan, %true : i1
    %either = arith.ori %gt, %nan : i1
    %take = arith.andi %either, %vok : i1
    %nv = arith.select %take, %in, %v : f32
    %ni = arith.select %take, %ji, %i : i64
    linalg.yield %nv, %ni : f32, i64
  } -> (tensor<?xf32>, tensor<?xi64>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi64>
}

// sum(|x - sum(x) / 4|): no shift to carry, so a second loop after the
// sum's.
func.func @absolute_deviation(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %dev = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %s: f32, %acc: f32):
    %mean = arith.divf %s, %four : f32
    %d = arith.subf %in, %mean : f32
    %ad = math.absf %d : f32
    %a = arith.addf %ad, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %dev : tensor<?xf32>
}

// The variance of each row, dividing by the dynamic length.
func.func @var(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %mi = arith.index_cast %m : index to i64
  %mf = arith.uitofp %mi : i64 to f32
  %rows = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %s: f32, %acc: f32):
    %mean = arith.divf %s, %mf : f32
    %d = arith.subf %in, %mean : f32
    %q = arith.mulf %d, %d : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %v = linalg.generic {indexing_maps = [#r, #r], iterator_types = ["parallel"]}
      ins(%sq : tensor<?xf32>) outs(%rows : tensor<?xf32>) {
  ^bb0(%s: f32, %out: f32):
    %r = arith.divf %s, %mf : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %v : tensor<?xf32>
}
"""


@pytest.fixture(scope="module")
def module_text():
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, PROGRAMS, "rows.mlir")
        module.run_pipeline(ARRAY_PIPELINE)
        return str(module)


@pytest.fixture(scope="module",
                params=[(1, ARRAY_PIPELINE), (3, ARRAY_PIPELINE),
                        (1, array_pipeline(row_block=4))],
                ids=["1-thread", "3-threads", "blocks-of-4-rows"])
def exe(request):
    """The programs on the host; the last tiles them with four rows per
    program (a tile over the rows where one program has a scalar, the
    last block of rows masked), which must not change a result."""
    threads, pipeline = request.param
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, PROGRAMS, "rows.mlir")
        module.run_pipeline(pipeline)
        with HostExecutable(module, threads=threads) as executable:
            yield executable


def _kernel(text: str, name: str) -> str:
    """The tile kernel `name` of the printed module."""
    start = text.index(f"func.func @{name}(")
    return text[start:text.index("\n  }\n", start)]


def _special_rows(columns: int) -> np.ndarray:
    """Rows that break a naive online rescaling: finite normals, a max in
    the last chunk, -inf in the first chunk only, -inf scattered, +inf,
    NaN, all -inf, maxima far below exp's range (-1e4, the lowest float,
    -1000 after a chunk of -inf)."""
    rng = np.random.default_rng(columns)
    x = (rng.standard_normal((11, columns)) * 4).astype(np.float32)
    x[1] = np.linspace(-50, 50, columns)
    x[2, :min(columns, 1024)] = -np.inf
    x[3, ::3] = -np.inf
    x[4, columns // 2] = np.inf
    x[5, columns - 1] = np.nan
    x[6] = -np.inf
    x[7] *= 10
    x[8] = -1e4
    x[9] = np.finfo(np.float32).min
    x[10, :min(columns, 1024)] = -np.inf
    x[10, min(columns, 1024):] = -1000
    return x


def _max_and_sum(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        m = x.max(axis=-1, initial=-np.inf)
        return m, np.exp(x - m[:, None]).sum(axis=-1)


@pytest.mark.parametrize("columns", [1, 1023, 1025, 3000])
def test_online_softmax_sum(exe, columns):
    """The max and sum of exp(x - max) in one loop: each chunk rescales
    the running sum when it raises the max. Infinities and NaN give what
    the direct formula gives (NaN for a row of -inf or with +inf)."""
    x = _special_rows(columns)
    m, s = exe.run("max_and_sum", x)
    want_m, want_s = _max_and_sum(x)
    np.testing.assert_array_equal(m, want_m.astype(np.float32))
    np.testing.assert_allclose(s, want_s, rtol=2e-6)
    if columns > 1:
        assert np.isnan(s[4]) and np.isnan(s[5]) and np.isnan(s[6])


def test_online_softmax_sum_of_empty_rows(exe):
    m, s = exe.run("max_and_sum", np.zeros((3, 0), np.float32))
    np.testing.assert_array_equal(m, np.full(3, -np.inf, np.float32))
    np.testing.assert_array_equal(s, np.zeros(3, np.float32))


@pytest.mark.parametrize("shape", [(4, 1), (5, 2049), (3, 0)])
def test_exp2_shifted_by_an_input(exe, shape):
    """sum(exp2(x - k)) + 1 for any k per row (here not the max; one is
    -inf, one +inf): exp2(m - k) times the running sum."""
    rng = np.random.default_rng(shape[1])
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    k = rng.standard_normal(shape[0]).astype(np.float32) * 3
    if shape[0] >= 4:
        k[1], k[2] = -np.inf, np.inf
        # A row of -inf shifted by a k below exp2's range sums to 0.
        x[3], k[3] = -np.inf, -200
    (s,) = exe.run("shifted_by_input", x, k)
    x64, k64 = x.astype(np.float64), k.astype(np.float64)
    want = 1 + np.exp2(x64 - k64[:, None]).sum(axis=-1)
    np.testing.assert_allclose(s, want, rtol=2e-6)


@pytest.mark.parametrize("columns", [1, 1024, 1025, 4099])
@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_variance_with_the_shift_on_the_left(exe, columns, offset):
    """sum((mean - 2x)^2) / n merged chunk by chunk (Chan et al.): exact
    to float32 rounding even with a large offset, where the sum of
    squares minus the square of the sum loses every digit."""
    rng = np.random.default_rng(columns)
    x = (rng.standard_normal((6, columns)) + offset).astype(np.float32)
    mean, var = exe.run("variance", x)
    x64 = x.astype(np.float64)
    want_mean = x64.mean(axis=-1)
    want_var = ((want_mean[:, None] - 2 * x64) ** 2).mean(axis=-1)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-5)
    # The shift is the float32 mean, so the result is as close as the
    # direct formula's.
    np.testing.assert_allclose(var, want_var, rtol=1e-4)


def test_variance_of_empty_rows(exe):
    mean, var = exe.run("variance", np.zeros((2, 0), np.float32))
    assert np.isnan(mean).all()
    np.testing.assert_array_equal(var, np.full(2, np.nan, np.float32))


@pytest.mark.parametrize("columns", [7, 2500])
def test_a_reduction_that_needs_another_waits_for_it(exe, columns):
    """sum(|x - sum(x) / 4|) reads the row after the sum is known."""
    x = (np.random.default_rng(columns).standard_normal((5, columns)) * 2
         ).astype(np.float32)
    (d,) = exe.run("absolute_deviation", x)
    x64 = x.astype(np.float64)
    want = np.abs(x64 - x64.sum(axis=-1, keepdims=True) / 4).sum(axis=-1)
    np.testing.assert_allclose(d, want, rtol=1e-4)


@pytest.mark.parametrize("columns", [5, 3000])
def test_a_reduction_waits_for_one_finished_after_another_loop(exe, columns):
    """y shares the max's loop but is finished from t, whose loop needs the
    max; z, which needs y, has a loop of its own after t's."""
    x = np.random.default_rng(columns).uniform(1, 2, (4, columns)).astype(
        np.float32)
    (z,) = exe.run("chained", x)
    x64 = x.astype(np.float64)
    t = (x64 - x64.max(axis=-1, keepdims=True)).sum(axis=-1)
    y = x64.sum(axis=-1) + t
    np.testing.assert_allclose(z, (x64 / y[:, None]).sum(axis=-1), rtol=1e-4)


@pytest.mark.parametrize("columns", [1, 7, 1024, 1025, 3000])
def test_argmax_keeps_the_first_max_and_its_column(exe, columns):
    """Ties keep the earliest column, within a chunk and across chunks; a
    NaN is the max (np.argmax's first NaN); a row of -inf keeps column 0."""
    rng = np.random.default_rng(columns)
    x = rng.integers(-3, 4, (9, columns)).astype(np.float32)
    x[1] = np.linspace(-5, 5, columns)        # the max at the end
    x[2] = np.linspace(5, -5, columns)        # the max at the start
    x[3] = -np.inf
    x[4, columns // 2] = np.nan
    x[5, -1] = np.nan
    x[5, 0] = np.nan                          # the first NaN wins
    x[6] = 2.0                                # all tied
    x[7, columns - 1] = 100.0                 # in the last, partial chunk
    values, columns_kept = exe.run("argmax", x)
    want = np.argmax(x, axis=-1)
    np.testing.assert_array_equal(columns_kept, want)
    np.testing.assert_array_equal(values, x[np.arange(9), want])


def test_argmax_of_empty_rows_is_the_initial_value(exe):
    values, columns_kept = exe.run("argmax", np.zeros((2, 0), np.float32))
    np.testing.assert_array_equal(values, np.full(2, -np.inf, np.float32))
    np.testing.assert_array_equal(columns_kept, np.zeros(2, np.int64))


def test_each_kernel_reads_its_row_as_often_as_its_reductions_need(
        module_text):
    """The max and the online sum: one loop, one read; the mean, the count
    and the squared deviations: one loop; |x - sum / 4|: two."""
    for name, loops in [("max_and_sum_kernel0_tile", 1),
                        ("shifted_by_input_kernel0_tile", 1),
                        ("variance_kernel0_tile", 1),
                        ("absolute_deviation_kernel0_tile", 2),
                        ("chained_kernel0_tile", 3)]:
        kernel = _kernel(module_text, name)
        assert kernel.count("scf.for") == loops, name
        tile_loads = re.findall(r"tile\.load .* -> tensor<", kernel)
        assert len(tile_loads) == loops, name


EMPTY_PROGRAMS = """
#tr = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @column_sums(%x: tensor<0x40xf32>) -> tensor<40xf32> {
  %one = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<40xf32>
  %init = linalg.fill ins(%one : f32) outs(%e : tensor<40xf32>) -> tensor<40xf32>
  %s = linalg.generic {indexing_maps = [#tr, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<0x40xf32>) outs(%init : tensor<40xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<40xf32>
  return %s : tensor<40xf32>
}
func.func @row_maxima(%x: tensor<40x0xf32>) -> tensor<40xf32> {
  %one = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<40xf32>
  %init = linalg.fill ins(%one : f32) outs(%e : tensor<40xf32>) -> tensor<40xf32>
  %s = linalg.generic {indexing_maps = [#id, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<40x0xf32>) outs(%init : tensor<40xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.maximumf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<40xf32>
  return %s : tensor<40xf32>
}
"""


@pytest.mark.parametrize("name, shape", [("column_sums", (0, 40)),
                                         ("row_maxima", (40, 0))])
def test_reductions_over_no_columns_give_their_initial_values(name, shape):
    """Rows of no columns (static): a tile of one column, wholly masked,
    so each row is its initial value (here 1.5)."""
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, EMPTY_PROGRAMS, "empty.mlir")
        module.run_pipeline(ARRAY_PIPELINE)
        with HostExecutable(module) as executable:
            (s,) = executable.run(name, np.zeros(shape, np.float32))
    np.testing.assert_array_equal(s, np.full(40, 1.5, np.float32))


SCAN_ARGMAX = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @argmax(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i64
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %irows = tensor.empty(%n) : tensor<?xi64>
  %vinit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %iinit = linalg.fill ins(%zero : i64) outs(%irows : tensor<?xi64>) -> tensor<?xi64>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%vinit, %iinit : tensor<?xf32>, tensor<?xi64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %v : f32
    %nv = arith.select %gt, %in, %v : f32
    %ni = arith.select %gt, %ji, %i : i64
    linalg.yield %nv, %ni : f32, i64
  } -> (tensor<?xf32>, tensor<?xi64>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi64>
}
"""


def _scan_argmax(row: np.ndarray) -> tuple[float, int]:
    """The body's own order: v, i = x, j where x > v, from (-inf, 0)."""
    value, index = -np.inf, 0
    for j, x in enumerate(row):
        if x > value:
            value, index = x, j
    return value, index


@pytest.mark.parametrize("options", ["", "{row-chunk=2}", "{row-chunk=4}",
                                     "{row-chunk=8 row-block=2}"])
def test_an_argmax_without_a_nan_rule_keeps_what_a_scan_keeps(options):
    """A test that is no strict order once NaN comes in (`ogt`: a NaN is
    never taken over a value, nor a value over a NaN): each lane, and each
    column of a tile held whole, is scanned from the initial value, so a
    NaN is never kept and the result is the row's scan's, however the
    columns are split."""
    x = np.array([[1, np.nan, 2, 0], [5, 1, np.nan, 7],
                  [np.nan, np.nan, np.nan, np.nan], [np.nan, 3, 3, 1],
                  [-np.inf, np.nan, -np.inf, -5]], np.float32)
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, SCAN_ARGMAX, "scan.mlir")
        module.run_pipeline(ARRAY_PIPELINE.replace("kiln-tile",
                                                   "kiln-tile" + options))
        with HostExecutable(module) as executable:
            values, indices = executable.run("argmax", x)
    want = [_scan_argmax(row) for row in x]
    np.testing.assert_array_equal(values, [v for v, _ in want])
    np.testing.assert_array_equal(indices, [i for _, i in want])



@pytest.mark.parametrize("offset", [1024.0, 4096.0])
@pytest.mark.parametrize("columns", [300, 768, 3000])
def test_variance_is_as_close_as_float32_allows(exe, offset, columns):
    """Integers near an offset, whose sums are exact in float32: each
    lane's deviations are from a value of the row, moved to the row's
    first value when lanes merge, so the variance loses nothing to the
    offset (merging lanes' means near the offset lost four digits)."""
    rng = np.random.default_rng(columns)
    x = (rng.integers(-8, 9, (16, columns)) + offset).astype(np.float32)
    (var,) = exe.run("var", x)
    np.testing.assert_allclose(var, x.astype(np.float64).var(axis=-1),
                               rtol=1e-6)

"""Array programs over dynamic dimensions (`?`): kiln-tile makes kernels
that take the sizes and mask by them, and a launch plan whose sizes and
result shapes come from the inputs' shapes, run on the host against numpy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.host import ARRAY_PIPELINE, HostExecutable, array_pipeline
from test_array_programs import _softmax

PROGRAMS = """
func.func @coscos(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = math.cos %x : tensor<?xf32>
  %b = math.cos %a : tensor<?xf32>
  return %b : tensor<?xf32>
}

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
#row = affine_map<(d0, d1) -> (d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

func.func @bias_exp(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %bb = linalg.broadcast ins(%b : tensor<?xf32>) outs(%e : tensor<?x?xf32>) dimensions = [0]
  %s = linalg.add ins(%x, %bb : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.exp ins(%s : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @outer(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#col, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %z: f32, %out: f32):
    %p = arith.mulf %x, %z : f32
    linalg.yield %p : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @transposes(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = math.exp %x : tensor<?x?xf32>
  %l = math.log %e : tensor<?x?xf32>
  %t = math.tanh %l : tensor<?x?xf32>
  %empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%in: f32, %v: f32, %out: f32):
    %s = math.sin %in : f32
    %p = arith.mulf %s, %v : f32
    linalg.yield %p : f32
  } -> tensor<?x?xf32>
  %z = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x?xf32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = math.cos %in : f32
    linalg.yield %c : f32
  } -> tensor<?x?xf32>
  return %y, %z : tensor<?x?xf32>, tensor<?x?xf32>
}

func.func @softmax(%x: tensor<?x100xf32>) -> tensor<?x100xf32> {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x100xf32>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x100xf32>) outs(%minit : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %e2 = tensor.empty(%n) : tensor<?x100xf32>
  %exp = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x100xf32>, tensor<?xf32>) outs(%e2 : tensor<?x100xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x100xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<?x100xf32>) outs(%sinit : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x100xf32>, tensor<?xf32>) outs(%e2 : tensor<?x100xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<?x100xf32>
  return %y : tensor<?x100xf32>
}

func.func @scaled_rows(%x: tensor<?x?xf32>, %w: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %e2 = tensor.empty(%n, %m) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %wi: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %p = arith.mulf %q, %wi : f32
    %a = arith.addf %p, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%e2 : tensor<?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %wi: f32, %out: f32):
    %t = arith.addf %s, %one : f32
    %r = math.rsqrt %t : f32
    %v = arith.mulf %in, %r : f32
    %u = arith.mulf %v, %wi : f32
    linalg.yield %u : f32
  } -> tensor<?x?xf32>
  return %y, %ss : tensor<?x?xf32>, tensor<?xf32>
}

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#pos3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#rows3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @centered(%x: tensor<?x?x8xf32>, %p: tensor<?x8xf32>) -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %eight = arith.constant 8.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x8xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x8xf32>
  %er = tensor.empty(%b, %s) : tensor<?x?xf32>
  %e = tensor.empty(%b, %s) : tensor<?x?x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #pos3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %p : tensor<?x?x8xf32>, tensor<?x8xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %q: f32, %acc: f32):
    %v = arith.addf %in, %q : f32
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id3, #pos3, #rows3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %p, %sum : tensor<?x?x8xf32>, tensor<?x8xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?x8xf32>) {
  ^bb0(%in: f32, %q: f32, %t: f32, %out: f32):
    %v = arith.addf %in, %q : f32
    %m = arith.divf %t, %eight : f32
    %c = arith.subf %v, %m : f32
    linalg.yield %c : f32
  } -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

func.func @mm_bias_relu(%a: tensor<?x?xf32>, %w: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %et = tensor.empty(%k, %n) : tensor<?x?xf32>
  %wt = linalg.transpose ins(%w : tensor<?x?xf32>) outs(%et : tensor<?x?xf32>) permutation = [1, 0]
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %wt : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %s = arith.addf %v, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// Sizes in arithmetic: an elementwise kernel divides by the number of
// elements, a matmul's epilogue by K (docs/examples/
// layer_norm_rows_array.mlir divides a row by its length).
func.func @per_element(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %nm = arith.muli %n, %m : index
  %ni = arith.index_cast %nm : index to i32
  %nf = arith.sitofp %ni : i32 to f32
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %in, %nf : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @mm_mean(%a: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %ki = arith.index_cast %k : index to i32
  %kf = arith.sitofp %ki : i32 to f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %out: f32):
    %q = arith.divf %v, %kf : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @fixed(%x: tensor<?xf32>, %y: tensor<8xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.add ins(%x, %y : tensor<?xf32>, tensor<8xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %s : tensor<?xf32>
}
"""


@pytest.fixture(scope="module", params=[1, 3], ids=["1-thread", "3-threads"])
def exe(request):
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, PROGRAMS, "dynamic.mlir")
        module.run_pipeline(ARRAY_PIPELINE)
        with HostExecutable(module, threads=request.param) as executable:
            yield executable


@pytest.mark.parametrize("n", [0, 1, 1023, 1024, 1025, 5000])
def test_one_plan_runs_every_size(exe, n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    (y,) = exe.run("coscos", x)
    assert y.shape == (n,)
    np.testing.assert_allclose(y, np.cos(np.cos(x)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (37, 129), (100, 1)])
def test_named_ops_with_a_broadcast(exe, shape):
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape[1]).astype(np.float32)
    (y,) = exe.run("bias_exp", x, b)
    np.testing.assert_allclose(y, np.exp(x + b), rtol=1e-5)


@pytest.mark.parametrize("n,m", [(1, 1), (7, 300), (300, 7), (0, 4)])
def test_two_independent_sizes(exe, n, m):
    rng = np.random.default_rng(n * 1000 + m)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(m).astype(np.float32)
    (y,) = exe.run("outer", a, b)
    assert y.shape == (n, m)
    np.testing.assert_allclose(y, np.outer(a, b), rtol=1e-6)


@pytest.mark.parametrize("shape", [(40, 24), (3, 1000)])
def test_dynamic_temporary_between_transposing_kernels(exe, shape):
    rng = np.random.default_rng(shape[0])
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(shape[::-1]).astype(np.float32)
    y, z = exe.run("transposes", x, w)
    t = np.tanh(np.log(np.exp(x.astype(np.float64))))
    np.testing.assert_allclose(y, np.sin(t).T * w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(z, np.cos(t).T, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("rows", [0, 1, 7, 300])
def test_softmax_over_a_dynamic_number_of_rows(exe, rows):
    x = (np.random.default_rng(rows).standard_normal((rows, 100)) * 4
         ).astype(np.float32)
    (y,) = exe.run("softmax", x)
    np.testing.assert_allclose(y, _softmax(x.astype(np.float64)),
                               rtol=1e-5, atol=1e-7)


def test_dynamic_softmax_is_one_row_kernel():
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, PROGRAMS, "dynamic.mlir")
        module.run_pipeline(ARRAY_PIPELINE)
        text = str(module)
        # Rows of 100 are short: a program takes 8 (a tile of 8 x 128),
        # and the kernel takes the number of rows to mask the last block.
        assert module.kernel_argument_types("softmax_kernel0_tile") == [
            "!tile.ptr<f32>", "!tile.ptr<f32>", "i32"]
    plan = text[text.index("func.func @softmax("):]
    plan = plan[:plan.index("\n  }\n")]
    assert plan.count("plan.launch @softmax_kernel") == 1
    kernel = text[text.index("func.func @softmax_kernel0_tile("):]
    kernel = kernel[:kernel.index("\n  }\n")]
    assert re.findall(r"tile\.load .* -> (tensor<\w+>)", kernel) == [
        "tensor<8x128xf32>"]


EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _example(ctx, name: str):
    """docs/examples/`name`, fused and tiled."""
    module = kiln.Module.parse(ctx, (EXAMPLES / name).read_text(), name)
    module.run_pipeline(ARRAY_PIPELINE)
    return module


@pytest.fixture(scope="module", params=[1, 3], ids=["1-thread", "3-threads"])
def rows_exe(request):
    """docs/examples/softmax_rows_array.mlir: a softmax over rows of
    dynamic length."""
    with kiln.Context() as ctx:
        with HostExecutable(_example(ctx, "softmax_rows_array.mlir"),
                            threads=request.param) as executable:
            yield executable


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (4, 1023), (4, 1024),
                                   (4, 1025), (2, 5000), (300, 7), (0, 9)])
def test_softmax_over_rows_of_dynamic_length(rows_exe, shape):
    """One program per row walks it in chunks of 512: the max and the sum
    of exponentials together, then the row written; the last chunk
    masked."""
    x = (np.random.default_rng(shape[1]).standard_normal(shape) * 4
         ).astype(np.float32)
    (y,) = rows_exe.run("softmax", x)
    assert y.shape == shape
    np.testing.assert_allclose(y, _softmax(x.astype(np.float64)),
                               rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("shape", [(5, 3), (3, 2500), (3, 0)])
def test_a_per_column_weight_over_rows_of_dynamic_length(exe, shape):
    """A weight along the columns is read chunk by chunk with the row, in
    the reduction and in the row's result; both results are stored. Rows
    of no elements sum to the initial value."""
    rng = np.random.default_rng(shape[1])
    x = rng.standard_normal(shape).astype(np.float32)
    w = (np.abs(rng.standard_normal(shape[1])) + 0.1).astype(np.float32)
    y, ss = exe.run("scaled_rows", x, w)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    want_ss = (x64 * x64 * w64).sum(axis=-1)
    np.testing.assert_allclose(ss, want_ss, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(
        y, x64 / np.sqrt(want_ss + 1)[:, None] * w64, rtol=1e-4, atol=1e-5)


def test_rows_of_dynamic_length_take_it_as_an_argument():
    with kiln.Context() as ctx:
        module = _example(ctx, "softmax_rows_array.mlir")
        text = str(module)
        assert module.kernel_argument_types("softmax_kernel0_tile") == [
            "!tile.ptr<f32>", "!tile.ptr<f32>", "i32"]
    plan = text[text.index("func.func @softmax("):]
    plan = plan[:plan.index("\n  }\n")]
    assert plan.count("plan.launch @softmax_kernel") == 1


@pytest.mark.parametrize("shape", [(1, 1, 8), (2, 3, 8), (5, 7, 8),
                                   (0, 4, 8), (3, 0, 8)])
def test_rows_over_several_dynamic_dimensions(exe, shape):
    """[batch, sequence, 8]: rows numbered row-major over (batch,
    position), short, so 128 to a program; the positional table, broadcast
    over the batch, is read at each row's position, which the kernel finds
    from the sequence's length."""
    rng = np.random.default_rng(shape[0] * 10 + shape[1])
    x = rng.standard_normal(shape).astype(np.float32)
    p = rng.standard_normal(shape[1:]).astype(np.float32)
    (y,) = exe.run("centered", x, p)
    v = x.astype(np.float64) + p
    np.testing.assert_allclose(y, v - v.sum(axis=-1, keepdims=True) / 8,
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("row_block, sizes", [(0, 2), (1, 1)])
def test_rows_over_several_dimensions_take_only_the_sizes_they_need(
        row_block, sizes):
    """One row a program needs only the sequence's length (to find a row's
    position); blocks of rows need the batch too, to mask the last."""
    pipeline = array_pipeline(row_block=row_block)
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, PROGRAMS, "dynamic.mlir")
        module.run_pipeline(pipeline)
        assert module.kernel_argument_types("centered_kernel0_tile") == [
            "!tile.ptr<f32>"] * 3 + ["i32"] * sizes


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (30, 45, 20), (65, 129, 33),
                                   (0, 5, 7), (3, 4, 0)])
def test_matmul_of_dynamic_sizes(exe, m, n, k):
    """relu(a @ w.T + bias): the transpose is read in place, M, N and K are
    masked, and K bounds the loop."""
    rng = np.random.default_rng(m * 10000 + n * 100 + k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    (y,) = exe.run("mm_bias_relu", a, w, bias)
    assert y.shape == (m, n)
    want = np.maximum(a.astype(np.float64) @ w.T.astype(np.float64) + bias, 0)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


def test_a_size_another_input_fixes(exe):
    x = np.arange(8, dtype=np.float32)
    (y,) = exe.run("fixed", x, np.ones(8, np.float32))
    np.testing.assert_array_equal(y, x + 1)
    with pytest.raises(kiln.KilnError, match=r"input 0 of 'fixed', "
                                             r"dimension 0: the function "
                                             r"needs 8, not 9"):
        exe.run("fixed", np.zeros(9, np.float32), np.ones(8, np.float32))


def test_sizes_that_must_agree_are_checked(exe):
    # w must be x's shape transposed; b must have x's columns.
    with pytest.raises(kiln.KilnError, match=r"input 1 of 'transposes', "
                                             r"dimension 0: the function "
                                             r"needs it equal to input 0's "
                                             r"dimension 1, 24, not 40"):
        exe.run("transposes", np.zeros((40, 24), np.float32),
                np.zeros((40, 24), np.float32))
    with pytest.raises(kiln.KilnError, match=r"input 1 of 'bias_exp', "
                                             r"dimension 0: .* equal to "
                                             r"input 0's dimension 1, 5, "
                                             r"not 4"):
        exe.run("bias_exp", np.zeros((3, 5), np.float32),
                np.zeros(4, np.float32))
    with pytest.raises(kiln.KilnError, match=r"input 0 of 'outer' must be a "
                                             r"float32 array of shape \[\?\], "
                                             r"not float32\[2, 2\]"):
        exe.run("outer", np.zeros((2, 2), np.float32),
                np.zeros(2, np.float32))


def test_kernel_and_plan_take_the_sizes():
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, PROGRAMS, "dynamic.mlir")
        module.run_pipeline(ARRAY_PIPELINE)
        assert module.function_attribute("outer", "plan.sizes") == \
            "array<i64: 0, 1, 0, 1>"
        assert module.function_attribute("fixed", "plan.inputs") == \
            "[tensor<8xf32>, tensor<8xf32>]"
        assert module.function_attribute("fixed", "plan.sizes") is None
        assert module.kernel_argument_types("outer_kernel0_tile") == [
            "!tile.ptr<f32>", "!tile.ptr<f32>", "!tile.ptr<f32>", "i32",
            "i32"]


def test_the_worked_example_of_docs_array_programs():
    """docs/examples/bias_softmax_array.mlir, as docs/array-programs.md
    runs it from Python: one plan for any number of rows."""
    rng = np.random.default_rng(7)
    with kiln.Context() as ctx:
        with HostExecutable(_example(ctx, "bias_softmax_array.mlir")) as exe:
            for rows in (1, 37, 4096):
                x = rng.standard_normal((rows, 1000)).astype(np.float32)
                b = rng.standard_normal(1000).astype(np.float32)
                (y,) = exe.run("bias_softmax", x, b)
                np.testing.assert_allclose(
                    y, _softmax(x.astype(np.float64) + b), rtol=1e-5,
                    atol=1e-7)


@pytest.fixture(scope="module", params=[1, 3], ids=["1-thread", "3-threads"])
def norm_exe(request):
    """docs/examples/layer_norm_rows_array.mlir: a layer norm over rows of
    dynamic length, which divides by it."""
    with kiln.Context() as ctx:
        with HostExecutable(_example(ctx, "layer_norm_rows_array.mlir"),
                            threads=request.param) as executable:
            yield executable


@pytest.mark.parametrize("shape", [(3, 1), (5, 300), (4, 3000), (2, 0)])
def test_sizes_in_a_layer_norms_arithmetic(norm_exe, shape):
    """The row's dynamic length divides its sum and its sum of squared
    deviations: kiln-fuse recreates the length as a float in the kernel,
    kiln-tile computes it from the kernel's length argument. Rows over
    1024 walk their chunks once for the mean and the variance."""
    rng = np.random.default_rng(shape[1])
    x = (rng.standard_normal(shape) * 3 + 50).astype(np.float32)
    w = rng.standard_normal(shape[1]).astype(np.float32)
    b = rng.standard_normal(shape[1]).astype(np.float32)
    (y,) = norm_exe.run("layer_norm", x, w, b)
    assert y.shape == shape
    if not x.size:
        return
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=-1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=-1, keepdims=True)
    want = (x64 - mean) / np.sqrt(var + 1e-5) * w + b
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(1, 1), (3000, 37), (33, 64), (1, 70),
                                   (0, 5), (100, 0)])
def test_column_means_and_variances(shape):
    """docs/examples/column_stats_array.mlir: reductions over x's leading
    axis of dynamic length, dividing by it, one kernel whose programs take
    32 columns each (the last block masked) and walk down x in chunks,
    a running mean and M2 per lane; against numpy."""
    rng = np.random.default_rng(shape[0])
    x = (rng.standard_normal(shape) * 3 + 50).astype(np.float32)
    with kiln.Context() as ctx:
        with HostExecutable(_example(ctx, "column_stats_array.mlir")) as exe:
            mean, var = exe.run("column_stats", x)
    assert mean.shape == var.shape == (shape[1],)
    if not x.size:
        return
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(mean, x64.mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(var, x64.var(axis=0), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 1), (7, 300), (40, 1)])
def test_sizes_in_elementwise_and_matmul_arithmetic(exe, shape):
    rng = np.random.default_rng(shape[0])
    x = rng.standard_normal(shape).astype(np.float32)
    (y,) = exe.run("per_element", x)
    np.testing.assert_allclose(y, x / x.size, rtol=1e-6)
    w = rng.standard_normal((shape[1], 5)).astype(np.float32)
    (z,) = exe.run("mm_mean", x, w)
    want = x.astype(np.float64) @ w.astype(np.float64) / shape[1]
    np.testing.assert_allclose(z, want, rtol=1e-4, atol=1e-5)


def test_a_dynamic_layer_norm_reads_its_row_twice():
    """One kernel: the mean and the variance in one loop over the chunks
    (the variance's sums carried per lane from a value of the row, so it
    does not wait for the mean), then the loop that writes the row. The
    running values per lane (the sum, the pivot and two sums: 16 bytes a
    lane) narrow the chunks to 512."""
    with kiln.Context() as ctx:
        text = str(_example(ctx, "layer_norm_rows_array.mlir"))
    plan = text[text.index("func.func @layer_norm("):]
    assert plan[:plan.index("\n  }\n")].count("plan.launch @layer_norm_kernel") == 1
    kernel = text[text.index("func.func @layer_norm_kernel0_tile("):]
    kernel = kernel[:kernel.index("\n  }\n")]
    assert kernel.count("scf.for") == 2
    # x in the first loop; x, w and b in the second.
    assert len(re.findall(r"tile\.load .* -> tensor<512xf32>", kernel)) == 4

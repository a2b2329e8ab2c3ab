"""Whole-tensor programs: kiln-fuse groups them into kernels, kiln-tile makes
tile kernels and a launch plan, and the host target runs the plan, against
numpy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.host import ARRAY_PIPELINE, HostExecutable, array_pipeline

PROGRAMS = """
func.func @coscos(%x: tensor<3000xf32>) -> tensor<3000xf32> {
  %a = math.cos %x : tensor<3000xf32>
  %b = math.cos %a : tensor<3000xf32>
  return %b : tensor<3000xf32>
}

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

func.func @affine_relu(%x: tensor<33x70xf32>, %b: tensor<70xf32>) -> tensor<33x70xf32> {
  %two = arith.constant dense<2.0> : tensor<33x70xf32>
  %zero = arith.constant dense<0.0> : tensor<33x70xf32>
  %e = tensor.empty() : tensor<33x70xf32>
  %bb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<70xf32>) outs(%e : tensor<33x70xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<33x70xf32>
  %ax = arith.mulf %x, %two : tensor<33x70xf32>
  %s = arith.addf %ax, %bb : tensor<33x70xf32>
  %r = arith.maximumf %s, %zero : tensor<33x70xf32>
  return %r : tensor<33x70xf32>
}

func.func @two_users(%x: tensor<777xf32>) -> (tensor<777xf32>, tensor<777xf32>) {
  %e = math.exp %x : tensor<777xf32>
  %s = math.sin %e : tensor<777xf32>
  %c = math.cos %e : tensor<777xf32>
  return %s, %c : tensor<777xf32>, tensor<777xf32>
}

func.func @transposes(%x: tensor<40x24xf32>) -> (tensor<24x40xf32>, tensor<24x40xf32>) {
  %e = math.exp %x : tensor<40x24xf32>
  %l = math.log %e : tensor<40x24xf32>
  %t = math.tanh %l : tensor<40x24xf32>
  %empty = tensor.empty() : tensor<24x40xf32>
  %y = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<40x24xf32>) outs(%empty : tensor<24x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sin %in : f32
    linalg.yield %s : f32
  } -> tensor<24x40xf32>
  %z = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<40x24xf32>) outs(%empty : tensor<24x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = math.cos %in : f32
    linalg.yield %c : f32
  } -> tensor<24x40xf32>
  return %y, %z : tensor<24x40xf32>, tensor<24x40xf32>
}

#row = affine_map<(d0, d1) -> (d0)>
#rows = affine_map<(d0) -> (d0)>

func.func @softmax(%x: tensor<37x1000xf32>) -> tensor<37x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<37xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<37xf32>) -> tensor<37xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<37x1000xf32>) outs(%minit : tensor<37xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<37xf32>
  %e2 = tensor.empty() : tensor<37x1000xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<37x1000xf32>, tensor<37xf32>) outs(%e2 : tensor<37x1000xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<37x1000xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<37xf32>) -> tensor<37xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<37x1000xf32>) outs(%sinit : tensor<37xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<37xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<37x1000xf32>, tensor<37xf32>) outs(%e2 : tensor<37x1000xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<37x1000xf32>
  return %y : tensor<37x1000xf32>
}

// Layer norm with a weight and bias per column: the mean and the variance
// are reductions, their scaling generics over the rows alone, the weights
// shared by every row; kiln-fuse makes it one kernel.
func.func @layer_norm(%x: tensor<29x777xf32>, %w: tensor<777xf32>, %b: tensor<777xf32>) -> tensor<29x777xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 777.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<29xf32>
  %et = tensor.empty() : tensor<29x777xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<29xf32>) -> tensor<29xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<29x777xf32>) outs(%init : tensor<29xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<29xf32>
  %mean = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]}
      ins(%sum : tensor<29xf32>) outs(%er : tensor<29xf32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<29xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%er : tensor<29xf32>) -> tensor<29xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<29x777xf32>, tensor<29xf32>) outs(%init2 : tensor<29xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %a = arith.addf %d2, %acc : f32
    linalg.yield %a : f32
  } -> tensor<29xf32>
  %rstd = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]}
      ins(%sq : tensor<29xf32>) outs(%er : tensor<29xf32>) {
  ^bb0(%s: f32, %out: f32):
    %v = arith.divf %s, %n : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<29xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %w, %b : tensor<29x777xf32>, tensor<29xf32>, tensor<29xf32>, tensor<777xf32>, tensor<777xf32>) outs(%et : tensor<29x777xf32>) {
  ^bb0(%in: f32, %m: f32, %r: f32, %wi: f32, %bi: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %nrm = arith.mulf %d, %r : f32
    %sc = arith.mulf %nrm, %wi : f32
    %o = arith.addf %sc, %bi : f32
    linalg.yield %o : f32
  } -> tensor<29x777xf32>
  return %y : tensor<29x777xf32>
}

func.func @row_max_i32(%x: tensor<5x300xi32>) -> tensor<5xi32> {
  %low = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<5xi32>
  %init = linalg.fill ins(%low : i32) outs(%e : tensor<5xi32>) -> tensor<5xi32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x300xi32>) outs(%init : tensor<5xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %a = arith.maxsi %in, %acc : i32
    linalg.yield %a : i32
  } -> tensor<5xi32>
  return %m : tensor<5xi32>
}
"""


@pytest.fixture(scope="module", params=[1, 3], ids=["1-thread", "3-threads"])
def exe(request):
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, PROGRAMS, "programs.mlir")
        module.run_pipeline(ARRAY_PIPELINE)
        with HostExecutable(module, threads=request.param) as executable:
            yield executable


def test_elementwise_chain(exe):
    x = np.random.default_rng(0).standard_normal(3000).astype(np.float32)
    (y,) = exe.run("coscos", x)
    np.testing.assert_allclose(y, np.cos(np.cos(x)), rtol=1e-6, atol=1e-6)


def test_broadcast_bias(exe):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((33, 70)).astype(np.float32)
    b = rng.standard_normal(70).astype(np.float32)
    (y,) = exe.run("affine_relu", x, b)
    np.testing.assert_allclose(y, np.maximum(2 * x + b, 0), rtol=1e-6)


def test_recomputed_producer(exe):
    x = np.random.default_rng(2).standard_normal(777).astype(np.float32)
    s, c = exe.run("two_users", x)
    np.testing.assert_allclose(s, np.sin(np.exp(x)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, np.cos(np.exp(x)), rtol=1e-5, atol=1e-6)


def test_materialised_temporary_and_transposes(exe):
    x = np.random.default_rng(3).standard_normal((40, 24)).astype(np.float32)
    y, z = exe.run("transposes", x)
    t = np.tanh(np.log(np.exp(x)))
    np.testing.assert_allclose(y, np.sin(t).T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(z, np.cos(t).T, rtol=1e-5, atol=1e-6)


def test_bad_inputs_are_refused(exe):
    with pytest.raises(kiln.KilnError, match=r"input 0 of 'coscos', "
                                             r"dimension 0: the function "
                                             r"needs 3000, not 10"):
        exe.run("coscos", np.zeros(10, np.float32))
    with pytest.raises(kiln.KilnError, match=r"input 0 of 'coscos' must be a "
                                             r"float32 array of shape \[3000\]"
                                             r", not float64\[3000\]"):
        exe.run("coscos", np.zeros(3000))
    with pytest.raises(kiln.KilnError, match=r"shape \[3000\], not "
                                             r"float32\[30, 100\]"):
        exe.run("coscos", np.zeros((30, 100), np.float32))
    with pytest.raises(kiln.KilnError, match="takes 1 tensors, but 2"):
        exe.run("coscos", np.zeros(3000, np.float32),
                np.zeros(3000, np.float32))
    with pytest.raises(kiln.KilnError, match="not a launch plan"):
        exe.run("coscos_kernel0_tile")


def test_softmax_is_one_kernel_that_reads_its_input_once(exe):
    x = (np.random.default_rng(3).standard_normal((37, 1000)) * 4).astype(
        np.float32)
    (y,) = exe.run("softmax", x)
    np.testing.assert_allclose(y, _softmax(x.astype(np.float64)),
                               rtol=1e-5, atol=1e-7)


def test_softmax_tile_kernel():
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, PROGRAMS, "programs.mlir")
        module.run_pipeline(ARRAY_PIPELINE)
        text = str(module)
    kernel = text[text.index("func.func @softmax_kernel0_tile"):]
    kernel = kernel[:kernel.index("\n  }\n")]
    # One program per row: x read once, two reductions, one store.
    assert kernel.count("tile.load") == 1
    assert kernel.count("tile.reduce") == 2
    assert kernel.count("tile.store") == 1


def test_layer_norm_is_one_kernel():
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, PROGRAMS, "programs.mlir")
        module.run_pipeline(ARRAY_PIPELINE)
        text = str(module)
    assert "layer_norm_kernel0_tile" in text
    assert "layer_norm_kernel1" not in text


def test_layer_norm_in_one_kernel(exe):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((29, 777)).astype(np.float32)
    w, b = rng.standard_normal((2, 777)).astype(np.float32)
    (y,) = exe.run("layer_norm", x, w, b)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    expected = (x64 - mean) / np.sqrt(x64.var(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, expected * w + b, rtol=1e-4, atol=1e-4)


def test_integer_row_max(exe):
    x = np.random.default_rng(5).integers(-10**9, 10**9, (5, 300),
                                          dtype=np.int32)
    (m,) = exe.run("row_max_i32", x)
    np.testing.assert_array_equal(m, x.max(axis=1))


MATMUL_EXAMPLE = (Path(__file__).resolve().parents[2] / "docs" / "examples" /
                  "matmul_bias_gelu_array.mlir")


def gelu_tanh(v: np.ndarray) -> np.ndarray:
    return 0.5 * v * (1 + np.tanh(0.797884583 * (v + 0.044715 * v ** 3)))


@pytest.mark.parametrize("threads", [1, 3])
def test_matmul_bias_gelu_is_one_kernel_on_blocks(threads):
    """docs/examples/matmul_bias_gelu_array.mlir: the cast, the matmul, the
    bias, the GELU and the cast fuse into one kernel, tiled into 64x64
    blocks (ragged at the edges) with a K loop of tile.dot."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((100, 200)).astype(np.float32)
    w = (rng.standard_normal((200, 150)) / 8).astype(np.float16)
    b = rng.standard_normal(150).astype(np.float32)
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, MATMUL_EXAMPLE.read_text())
        module.run_pipeline(ARRAY_PIPELINE)
        text = str(module)
        assert text.count("tile.dot") == 1 and "linalg.matmul" not in text
        with HostExecutable(module, threads=threads) as exe:
            (y,) = exe.run("mlp", x, w, b)
    product = x.astype(np.float16).astype(np.float64) @ w.astype(np.float64)
    expected = gelu_tanh(product + b).astype(np.float16)
    assert y.dtype == np.float16 and y.shape == (100, 150)
    np.testing.assert_allclose(y.astype(np.float32),
                               expected.astype(np.float32), rtol=2e-3,
                               atol=2e-3)


def test_matmul_blocks_are_options():
    """Blocks smaller than the matrix, and K not a multiple of the step."""
    source = """
    func.func @mm(%a: tensor<40x70xf32>, %b: tensor<70x50xf32>) -> tensor<40x50xf32> {
      %zero = arith.constant 1.5 : f32
      %e = tensor.empty() : tensor<40x50xf32>
      %init = linalg.fill ins(%zero : f32) outs(%e : tensor<40x50xf32>) -> tensor<40x50xf32>
      %c = linalg.matmul ins(%a, %b : tensor<40x70xf32>, tensor<70x50xf32>) outs(%init : tensor<40x50xf32>) -> tensor<40x50xf32>
      return %c : tensor<40x50xf32>
    }"""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((40, 70)).astype(np.float32)
    b = rng.standard_normal((70, 50)).astype(np.float32)
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, source)
        module.run_pipeline(array_pipeline(block_m=16, block_n=32,
                                           block_k=16))
        assert "tensor<16x32xf32>" in str(module)
        with HostExecutable(module) as exe:
            (c,) = exe.run("mm", a, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b + 1.5, rtol=1e-5,
                               atol=1e-5)


def test_untiled_kernels_are_named():
    source = """
    func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
      %d = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
      return %d : tensor<4x5xf32>
    }"""
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, source)
        before = str(module)
        with pytest.raises(kiln.CompilationError) as info:
            module.run_pipeline(ARRAY_PIPELINE)
        assert "a matmul must accumulate into a constant fill" in \
            str(info.value)
        # A failed pipeline leaves the module as it was.
        assert str(module) == before


def _erf(v: np.ndarray) -> np.ndarray:
    from math import erf
    return np.vectorize(erf)(v)


def _softmax(v: np.ndarray) -> np.ndarray:
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _layer_norm(v, w, b):
    mean = v.mean(axis=1, keepdims=True)
    var = ((v - mean) ** 2).mean(axis=1, keepdims=True)
    return (v - mean) / np.sqrt(var + 1e-5) * w + b


def _mm_epilogue(a32, b, bias):
    s = a32.astype(np.float16).astype(np.float64) @ b.astype(np.float64) + \
        bias
    return (0.5 * s * (1 + np.tanh(0.797884583 * s))).astype(np.float16)


# Every program of the fusion tests (test/Array/fuse.mlir and
# fuse-slices.mlir): its numpy meaning, per result.
FUSION_REFERENCES = {
    "coscos": lambda x: [np.cos(np.cos(x))],
    "affine_relu": lambda x, b: [np.maximum(2 * x + b, 0)],
    "softmax": lambda x: [_softmax(x)],
    "mm_epilogue": lambda a, b, bias: [_mm_epilogue(a, b, bias)],
    "two_users": lambda x: [np.sin(np.exp(x)), np.cos(np.exp(x))],
    "expensive": lambda x: [np.sin(np.tanh(x)), np.cos(np.tanh(x))],
    "gelu": lambda x: [0.5 * x * (1 + _erf(x * 0.707106781))],
    "diamond": lambda x: [np.sin(x) + np.cos(x)],
    "named_transpose": lambda x: [np.sin(np.exp(x).T)],
    "unfusable_between": lambda x: [
        np.sin(np.exp(x).T / np.exp(x).sum(axis=1))],
    "layer_norm": lambda x, w, b: [_layer_norm(x, w, b)],
    "broadcast_element": lambda x: [np.exp(x) / np.exp(x[2, 1])],
    "named": lambda x, b: [np.exp(x + b)],
    "dynamic": lambda x: [-np.exp(x)],
    "softmax_dynamic": lambda x: [_softmax(x)],
    "scale_by_sums": lambda x, y: [x.sum(axis=1, keepdims=True) * y],
    "sums_times_product": lambda a, b: [a.sum(axis=1, keepdims=True) * (a @ b)],
    "centered": lambda x, p: [(x + p) - (x + p).sum(axis=-1, keepdims=True) / 8],
    "linear": lambda x, w, b: [np.maximum(x @ w + b, 0)],
    "shared_zero": lambda x: [x.sum(axis=-1), (x * x).sum(axis=-1)],
    "column_moments": lambda x: [x.mean(axis=0), (x * x).mean(axis=0)],
    "shared_weight": lambda x, y, w: [(x * w).sum(axis=1),
                                      (y.T * w).sum(axis=1)],
    "rows_and_columns": lambda x: [x.sum(axis=1), x.sum(axis=0)],
    "returned_zero": lambda x: [np.zeros(x.shape[0]), x.sum(axis=1)],
    "siblings": lambda x, y: [np.exp(x), np.sin(x) * y, np.cos(x.T),
                              x[3] + 1],
    "matmul_with_maps": lambda a, b: [a @ b.transpose(0, 2, 1)],
    "returned_before_a_prologue": lambda x, y, w: [np.tanh(x * y) @ w,
                                                   x * y],
    "broadcast_element_out_of_bounds": None,
    "negative_use_between": None,
    # fuse-slices.mlir
    "difference": lambda x: [x[1:] - x[:-1]],
    "reversed_column_sums": lambda x: [x[7::-2, 2, 15::-2].sum(axis=0)],
    "copied": lambda x, w: [x[:, 2:6], x[:, 2:6] @ w,
                            x[:, 2:6].reshape(-1)],
    "bubbled": lambda x, b: [-np.exp(x + b)[1:, ::2]],
    "row_of_product": lambda x, w: [-(x * w)[3]],
    "sliced_sums": lambda x: [-x.sum(axis=1)[::2]],
    "dynamic_rows": lambda x: [-x[:, 1::2]],
    "negative_dynamic_offset": None,
    "negative_part_of_a_dynamic_dimension": None,
}

# Programs the pipeline refuses by name (never a wrong result), and how:
# an element of a tensor read between two launches, which a launch plan
# does not do (the out-of-bounds read is undefined in the program
# itself); slices no kernel can read in place.
_BETWEEN_LAUNCHES = "a launch plan holds only calls of kernels, not " \
    "tensor.extract"
_NO_VIEW = "kiln-fuse: dimension 0 of this slice needs a constant offset " \
    "and stride"
REFUSED = {"negative_use_between": _BETWEEN_LAUNCHES,
           "broadcast_element_out_of_bounds": _BETWEEN_LAUNCHES,
           "negative_dynamic_offset": _NO_VIEW,
           "negative_part_of_a_dynamic_dimension": _NO_VIEW}


def _fusion_programs() -> list[tuple[str, str]]:
    programs = []
    for file in ("fuse.mlir", "fuse-slices.mlir"):
        text = (Path(__file__).resolve().parents[2] / "test" / "Array" /
                file).read_text()
        for chunk in text.split("// -----"):
            source = "\n".join(line for line in chunk.splitlines()
                               if not line.strip().startswith("//"))
            for name in re.findall(r"^func\.func @(\w+)", source, re.M):
                programs.append((name, source))
    return programs


@pytest.mark.parametrize("name,source", _fusion_programs(),
                         ids=[n for n, _ in _fusion_programs()])
def test_every_fusion_program_on_the_host(name, source):
    """The programs whose fusion test/Array/fuse.mlir pins, fused,
    tiled and run on random data, against numpy."""
    rng = np.random.default_rng(len(name))
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, source)
        if name in REFUSED:
            with pytest.raises(kiln.CompilationError, match=REFUSED[name]):
                module.run_pipeline(ARRAY_PIPELINE)
            return
        module.run_pipeline(ARRAY_PIPELINE)
        inputs = []
        for t in re.search(rf"func\.func @{name}\((.*?)\) ->", source)[1] \
                .split("%")[1:]:
            shape, element = re.search(r"tensor<([\d?x]+)x(\w+)>",
                                       t).groups()
            # A dynamic dimension gets a size of its own.
            dims = [5 if d == "?" else int(d) for d in shape.split("x")]
            inputs.append((rng.standard_normal(dims) / 2).astype(
                np.float16 if element == "f16" else np.float32))
        with HostExecutable(module) as exe:
            results = exe.run(name, *inputs)
    expected = FUSION_REFERENCES[name](*[i.astype(np.float64)
                                         if i.dtype == np.float32 else i
                                         for i in inputs])
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        tolerance = 2e-3 if got.dtype == np.float16 else 2e-5
        np.testing.assert_allclose(got.astype(np.float64),
                                   np.asarray(want, np.float64),
                                   rtol=tolerance, atol=tolerance)


# Element reads and reductions that once compiled to wrong results (found in
# review): each either computes what numpy does or is refused by name.
ELEMENT_READS = {
    "pivot_of_a_result": ("""
func.func @pivot_of_a_result(%x: tensor<5x7xf32>, %w: tensor<5x7xf32>) -> (tensor<5x7xf32>, tensor<5x7xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = arith.addf %x, %w : tensor<5x7xf32>
  %pivot = tensor.extract %a[%c2, %c1] : tensor<5x7xf32>
  %s = tensor.splat %pivot : tensor<5x7xf32>
  %y = arith.divf %a, %s : tensor<5x7xf32>
  return %y, %a : tensor<5x7xf32>, tensor<5x7xf32>
}""", lambda x, w: [(x + w) / (x + w)[2, 1], x + w]),
    "first_row_sum": ("""
func.func @first_row_sum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %p = tensor.extract %s[%c0] : tensor<4xf32>
  %sp = tensor.splat %p : tensor<4x8xf32>
  %y = arith.divf %x, %sp : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}""", lambda x: [x / x[0].sum()]),
    "element_of_a_constant": ("""
func.func @element_of_a_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.extract %c[%c1] : tensor<4xf32>
  %s = tensor.splat %e : tensor<4xf32>
  %y = arith.divf %x, %s : tensor<4xf32>
  return %y : tensor<4xf32>
}""", lambda x: [x / 2]),
}


@pytest.mark.parametrize("name", ELEMENT_READS)
def test_element_reads_compute_what_numpy_does(name):
    source, reference = ELEMENT_READS[name]
    rng = np.random.default_rng(7)
    shapes = [tuple(int(d) for d in m.split("x")) for m in re.findall(
        r"%\w+: tensor<([\dx]+)xf32>", source.split("->")[0])]
    inputs = [rng.random(shape, np.float32) + 0.5 for shape in shapes]
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, source)
        module.run_pipeline(ARRAY_PIPELINE)
        with HostExecutable(module) as exe:
            results = exe.run(name, *inputs)
    for got, want in zip(results, reference(*[i.astype(np.float64)
                                              for i in inputs])):
        np.testing.assert_allclose(got, want, rtol=2e-6)


@pytest.mark.parametrize("source,message", [
    ("""
func.func @constant_result(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = arith.constant dense<7.0> : tensor<8xf32>
  %a = math.cos %x : tensor<8xf32>
  return %a, %c : tensor<8xf32>, tensor<8xf32>
}""", "a launch plan does not return a arith.constant"),
    ("""
func.func private @whole_kernel0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %eo = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<4x8xf32>, tensor<f32>) outs(%eo : tensor<4x8xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %d = arith.divf %in, %t : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @whole(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = call @whole_kernel0(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}""", "a row kernel reduces the columns of each row into that row's value"),
], ids=["returned_constant", "whole_reduction_in_a_row_kernel"])
def test_plans_refuse_what_they_would_compute_wrongly(source, message):
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, source)
        with pytest.raises(kiln.CompilationError, match=message):
            module.run_pipeline(ARRAY_PIPELINE)

"""``kiln.triton``: Triton's host-side names and ``kiln.triton.language``,
so that Triton kernel files run with only their imports changed. This file
is itself written as such a file under ``from __future__ import
annotations``, so every ``tl.constexpr`` below is a string annotation."""

from __future__ import annotations

import re

import numpy as np
import pytest

import triton_interpreter

import kiln
import kiln.language as kl
import kiln.triton as triton
import kiln.triton.language as tl
import kiln.triton.testing
from kiln.triton import language as tl_from

RNG = np.random.default_rng(7)
BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])


def launch(kernel, interpret, grid, *args, **kwargs):
    """Launches ``kernel`` on the host target or in the interpreter."""
    kiln.JITFunction(kernel.fn, interpret=interpret)[grid](*args, **kwargs)


# -- The names -----------------------------------------------------------

def test_language_is_kiln_language_under_tritons_names():
    """The same objects, so the compiler recognizes them; imported either
    way."""
    assert tl_from is tl
    for name in ("load", "store", "program_id", "arange", "dot", "where",
                 "exp2", "rand", "static_range", "range", "constexpr",
                 "float16", "bfloat16", "int32", "atomic_add", "cast"):
        assert getattr(tl, name) is getattr(kl, name), name
    assert tl.math.exp2 is kl.exp2 and tl.math.rsqrt is kl.rsqrt
    assert triton.testing is kiln.triton.testing


@pytest.mark.parametrize("module, prefix, name", [
    (tl, "tl", "aggregate_replace"),
    (tl, "tl", "float8e4b15"),
    (triton, "triton", "runtime"),
    (triton.testing, "triton.testing", "perf_report")])
def test_a_name_triton_has_and_kiln_lacks_is_an_error_naming_it(
        module, prefix, name):
    with pytest.raises(AttributeError, match=rf"has no '{name}' \(Triton's "
                       rf"{prefix}\.{name} is not supported by Kiln "
                       rf"yet(: [^)]+)?\)"):
        getattr(module, name)
    with pytest.raises(kiln.KilnError):
        getattr(module, name)
    assert not hasattr(module, name)


def test_a_name_neither_has_says_so():
    with pytest.raises(AttributeError, match="nor has Triton's tl"):
        tl.no_such_function


@triton.jit
def uses_fp8(out_ptr):
    tl.store(out_ptr + tl.arange(0, 4), tl.arange(0, 4).to(tl.float8e4b15))


@BOTH
def test_an_unsupported_name_in_a_kernel_is_an_error_at_its_line(interpret):
    out = np.zeros(4, np.int32)
    with pytest.raises(kiln.KilnError, match="float8e4b15") as caught:
        launch(uses_fp8, interpret, (1,), out)
    line = uses_fp8.fn.__code__.co_firstlineno + 2
    assert f"{__file__}:{line}" in str(caught.value)
    assert "not supported by Kiln yet" in str(caught.value)


# -- Host helpers --------------------------------------------------------

def test_next_power_of_2_is_tritons():
    assert triton.next_power_of_2(0) == 0
    for n in range(1, 3000):
        power = triton.next_power_of_2(n)
        assert power >= n and power & (power - 1) == 0 and power < 2 * n
    assert triton.next_power_of_2(2**40 + 1) == 2**41
    # As Triton's bit trick: numpy integers are integers, below 1 is 0.
    assert triton.next_power_of_2(np.int64(100)) == 128
    assert triton.next_power_of_2(-3) == 0
    with pytest.raises(kiln.KilnError):
        triton.next_power_of_2(2**64 + 1)


@pytest.mark.parametrize("x, y", [(1000, 256), (1024, 256), (0, 7), (1, 1),
                                  (-5, 2), (5, -2), (7, 3)])
def test_cdiv_is_tritons_formula(x, y):
    assert triton.cdiv(x, y) == (x + y - 1) // y


def test_do_bench_times_a_callable_in_ms():
    calls = []

    def work():
        calls.append(1)
        sum(range(20000))

    ms = triton.testing.do_bench(work, warmup=2, rep=10)
    assert isinstance(ms, float) and ms > 0
    assert len(calls) >= 8  # the first run, five to estimate, one timed
    low, mid, high = triton.testing.do_bench(work, warmup=1, rep=5,
                                             quantiles=[0.1, 0.5, 0.9])
    assert 0 < low <= mid <= high
    times = triton.testing.do_bench(work, warmup=1, rep=5, return_mode="all")
    assert isinstance(times, list) and all(t > 0 for t in times)
    with pytest.raises(kiln.KilnError, match="return_mode"):
        triton.testing.do_bench(work, return_mode="p50")


def test_assert_close_uses_tritons_tolerances():
    x = np.array([1.0, 2.0, np.nan], np.float32)
    triton.testing.assert_close(x, x + np.float32(0.009))  # atol 1e-2
    with pytest.raises(AssertionError):
        triton.testing.assert_close(x, x + np.float32(0.02))
    triton.testing.assert_close(x, x * 1.1, atol=0, rtol=0.11)
    with pytest.raises(AssertionError):
        triton.testing.assert_close(x, x * 1.1, atol=0,
                                    rtol=lambda dtype: 0.05)
    with pytest.raises(AssertionError, match="scalars"):
        triton.testing.assert_close(1.0, 1.5, err_msg="scalars")
    triton.testing.assert_close([1, 2], (1, 2))


def test_assert_close_takes_torch_tensors():
    torch = pytest.importorskip("torch")
    triton.testing.assert_close(torch.ones(3, dtype=torch.bfloat16),
                                np.ones(3))
    with pytest.raises(AssertionError):
        triton.testing.assert_close(torch.ones(3), np.zeros(3))
    # A tolerance function receives the tensor's torch dtype, as Triton's.
    half = torch.ones(3, dtype=torch.float16)
    triton.testing.assert_close(
        half, half + 0.05,
        atol=lambda dtype: 0.1 if dtype == torch.float16 else 1e-4)


@triton.jit
def scaled_by_weight_kernel(x_ptr, w_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.load(x_ptr + i) * tl.load(w_ptr + i))


@BOTH
def test_a_tensor_that_needs_grad_is_passed_as_its_data(interpret):
    """A layer norm's weight (an nn.Parameter) inside an autograd Function,
    as Triton's tutorial passes it; Kiln raised PyTorch's BufferError."""
    torch = pytest.importorskip("torch")
    weight = torch.nn.Parameter(torch.arange(16, dtype=torch.float32))
    x, out = torch.ones(16), torch.zeros(16)
    launch(scaled_by_weight_kernel, interpret, (1,), x, weight, out, N=16)
    np.testing.assert_array_equal(out.numpy(), np.arange(16))


# -- jit, launch options and annotations ---------------------------------

@triton.jit
def options_kernel(out_ptr, x, num_stages: tl.constexpr,
                   num_warps: "triton.language.constexpr"):
    tl.store(out_ptr, x * 100 + num_stages * 10 + num_warps)


@BOTH
def test_a_parameter_named_as_a_launch_option_receives_it(interpret):
    """As in Triton: the value goes to the kernel and to the launch."""
    assert options_kernel.constexprs == {"num_stages", "num_warps"}
    out = np.zeros(1, np.int32)
    launch(options_kernel, interpret, (1,), out, 3, num_stages=2,
           num_warps=8)
    assert out[0] == 328
    launch(options_kernel, interpret, (1,), out, 4, 1, 2)
    assert out[0] == 412


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, a * x + y, mask=mask)


@BOTH
@pytest.mark.parametrize("options", [
    {"num_ctas": 1, "maxnreg": 64},
    {"enable_fp_fusion": False, "launch_pdl": True},
    {"launch_cooperative_grid": False, "debug": False, "num_warps": None}])
def test_tritons_launch_options_are_taken(interpret, options):
    """Triton's launch options at a launch and through run(); on the host
    they change no result."""
    x, y = RNG.standard_normal((2, 100)).astype(np.float32)
    expected = np.float32(1.5) * x + y
    out = np.zeros(100, np.float32)
    launch(axpy_kernel, interpret, (4,), x, y, out, 1.5, 100, BLOCK=32,
           **options)
    np.testing.assert_array_equal(out, expected)
    out[:] = 0
    kernel = kiln.JITFunction(axpy_kernel.fn, interpret=interpret)
    assert kernel.run(x, y, out, 1.5, 100, grid=(4,), warmup=False,
                      BLOCK=32, **options) is None
    np.testing.assert_array_equal(out, expected)


@BOTH
@pytest.mark.parametrize("options, message", [
    ({"num_ctas": 2}, "num_ctas=2 is not supported by Kiln"),
    ({"launch_cooperative_grid": True}, "launch_cooperative_grid=True is "
     "not supported"),
    ({"debug": True}, r"debug=True at a launch, but the kernel is compiled "
     r"with debug=False: Kiln sets it per kernel \(@jit\(debug=...\)"),
    ({"maxnreg": 0}, "maxnreg must be 1 or more, not 0"),
    ({"maxnreg": 1.5}, "maxnreg must be an integer, not 1.5"),
    ({"enable_fp_fusion": "no"}, "enable_fp_fusion must be True or False"),
    ({"sanitize_overflow": True}, "sanitize_overflow")])
def test_launch_options_kiln_cannot_honour_are_refused(interpret, options,
                                                       message):
    out = np.zeros(4, np.float32)
    with pytest.raises((kiln.KilnError, TypeError), match=message):
        launch(axpy_kernel, interpret, (1,), out, out, out, 1.0, 4,
               BLOCK=4, **options)


def test_maxnreg_and_fp_fusion_compile_as_tritons():
    """``maxnreg`` is the kernel's .maxnreg and ``enable_fp_fusion=False``
    keeps every multiply and add apart, in Kiln's PTX as in Triton's for
    the same source; warmup= of run() compiles without launching."""
    x = np.zeros(64, np.float32)
    args = (x, x, x, 1.5, 64)
    named = dict(zip(("x_ptr", "y_ptr", "out_ptr", "a", "n"), args))
    for options in ({}, {"maxnreg": 32, "enable_fp_fusion": False}):
        try:
            ours = axpy_kernel.run(*args, grid=(1,), warmup=True, BLOCK=64,
                                   **options).asm["ptx"]
        except kiln.KilnError as exc:
            pytest.skip(f"no GPU compilation here: {exc}")
        theirs = triton_interpreter.tritons_asm(
            axpy_kernel, named, {"BLOCK": 64},
            **({"enable_fp_fusion": True} | options))
        for ptx in (ours, theirs):
            fused = not options
            assert ("fma.rn.f32" in ptx) == fused, ptx
            assert ("mul.rn.f32" in ptx) == (not fused), ptx
            assert (".maxnreg 32" in ptx) == (not fused), ptx


def make_scaled_kernel(activation, scale):
    """A kernel factory, as libraries write them: the kernel captures a
    @jit function and a constexpr of the enclosing call."""
    SCALE = tl.constexpr(scale)

    @triton.jit
    def scaled(x_ptr, out_ptr, N: tl.constexpr):
        i = tl.arange(0, N)
        tl.store(out_ptr + i, activation(tl.load(x_ptr + i)) * SCALE)

    return scaled


@triton.jit
def _relu(x):
    return tl.maximum(x, 0.0)


@triton.jit
def _negated(x):
    return -x


@BOTH
def test_a_kernel_made_by_a_factory_reads_what_it_captures(
        interpret, tmp_path, monkeypatch):
    """Captured variables are read before the globals, as Python reads
    them; two kernels of one source that capture different values compile
    apart, in the disk cache too (Kiln refused the names)."""
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    x = np.array([-2, -1, 0, 3], np.float32)
    for activation, scale, expected in ((_relu, 2.0, [0, 0, 0, 6]),
                                        (_negated, 3.0, [6, 3, 0, -9]),
                                        (_relu, 5.0, [0, 0, 0, 15])):
        out = np.zeros(4, np.float32)
        launch(make_scaled_kernel(activation, scale), interpret, (1,), x,
               out, N=4)
        np.testing.assert_array_equal(out, expected)


def test_string_annotations_are_recognized():
    def kernel(a, b: "tl.constexpr", c: "triton.language.constexpr",
               d: "kl.constexpr", e: "undefined_module.constexpr",
               f: "int"):
        pass

    assert triton.jit(kernel).constexprs == {"b", "c", "d", "e"}


@triton.jit
def grid_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, offsets, mask=offsets < n)


@BOTH
def test_grid_function_receives_the_meta_dict(interpret):
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    out = np.full(100, -1, np.int32)
    launch(grid_kernel, interpret, grid, out, 100, BLOCK=32)
    np.testing.assert_array_equal(out, np.arange(100))
    assert seen[0]["n"] == 100 and seen[0]["BLOCK"] == 32


def test_jit_keyword_forms():
    kernel = triton.jit(do_not_specialize=["n"], debug=False)(
        grid_kernel.fn)
    assert isinstance(kernel, triton.JITFunction) and not kernel.debug
    out = np.zeros(64, np.int32)
    assert "tile.divisibility" in grid_kernel.ir(out, 32, BLOCK=32)
    ir = kernel.ir(out, 32, BLOCK=32)
    # The array keeps its alignment fact; n, 32, does not.
    assert ir.count("tile.divisibility") == 1
    assert triton.jit(do_not_specialize=[1])(grid_kernel.fn
                                             ).do_not_specialize == {"n"}
    with pytest.raises(kiln.KilnError, match="launch_metadata"):
        triton.jit(launch_metadata=lambda *a: {})(grid_kernel.fn)


@triton.jit
def specialized_kernel(out_ptr, x_ptr, s):
    tl.store(out_ptr, (tl.load(x_ptr) + s).to(tl.int32))
    tl.store(out_ptr + 1, (s - 2) // 2)


@BOTH
def test_do_not_specialize_on_alignment_keeps_1_the_constexpr(interpret):
    """As Triton's: the parameter is not marked divisible by 16, and 1 is
    still the constexpr 1 (int8 + 1 stays int8; Python's //). Kiln took
    it as do_not_specialize."""
    kernel = triton.jit(do_not_specialize_on_alignment=["s"])(
        specialized_kernel.fn)
    out = np.zeros(2, np.int32)
    launch(kernel, interpret, (1,), out, np.array([127], np.int8), 1)
    np.testing.assert_array_equal(out, [-128, -1])
    assert "tile.divisibility" not in kernel.ir(out, np.zeros(1, np.int8),
                                                32).splitlines()[0].split(
        "%arg2")[1]


@triton.jit
def annotated_kernel(out_ptr, wide_ptr, n: tl.int64, x: tl.float64,
                     m: "tl.int64"):
    tl.store(out_ptr, n * n)
    tl.store(out_ptr + 1, m * m)
    tl.store(wide_ptr, x)


@BOTH
def test_annotated_scalars_take_the_annotations_type(interpret):
    """As Triton's compiled kernels: `n: tl.int64` is an int64 (Kiln
    multiplied an int32 and overflowed), `x: tl.float64` a float64."""
    out, wide = np.zeros(2, np.int64), np.zeros(1)
    launch(annotated_kernel, interpret, (1,), out, wide, 100000, 0.1,
           100000)
    np.testing.assert_array_equal(out, [10**10, 10**10])
    assert wide[0] == 0.1
    header = annotated_kernel.ir(out, wide, 32, 0.1, 1).splitlines()[0]
    assert re.search(r"%arg2: i64 {tile.divisibility = 16", header)
    assert "%arg3: f64" in header and "%arg4: i64 loc" in header
    # Triton's short names, and no type for other annotations.
    assert kiln.language.annotation_dtype("i64", {}) is tl.int64
    assert kiln.language.annotation_dtype("u1", {}) is tl.int1
    assert kiln.language.annotation_dtype("int", {}) is None


def test_warmup_takes_a_grid_and_reports_registers():
    out = np.zeros(64, np.int32)
    try:
        compiled = grid_kernel.warmup(out, 64, BLOCK=64, grid=(1,),
                                      num_warps=2)
    except kiln.KilnError as exc:
        pytest.skip(f"no GPU compilation here: {exc}")
    assert "ptx" in compiled.asm and ".entry grid_kernel" in \
        compiled.asm["ptx"]
    if compiled.metadata is None:
        with pytest.raises(kiln.KilnError, match="ptxas"):
            compiled.n_regs
        pytest.skip("ptxas not found: no register counts")
    assert isinstance(compiled.n_regs, int) and compiled.n_regs > 0
    assert isinstance(compiled.n_spills, int) and compiled.n_spills >= 0
    assert compiled.asm["cubin"]
    # The fused softmax tutorial's reads.
    compiled._init_handles()
    assert compiled.metadata.shared == compiled.metadata.shared_memory


# -- heuristics, autotune, Config ----------------------------------------

@triton.heuristics(values={
    "BLOCK": lambda args: triton.next_power_of_2(args["n"]),
    "EVEN": lambda args: args["n"] == args["BLOCK"]})
@triton.jit
def heuristic_kernel(out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offsets, offsets + 1000)
    else:
        tl.store(out_ptr + offsets, offsets, mask=offsets < n)


@BOTH
@pytest.mark.parametrize("n", [37, 64])
def test_heuristics_compute_meta_parameters_before_launch(interpret, n,
                                                         monkeypatch):
    monkeypatch.setenv("KILN_INTERPRET", "1" if interpret else "0")
    out = np.full(64, -1, np.int32)
    seen = []
    heuristic_kernel[lambda meta: (seen.append(meta) or 1,)](out, n)
    assert seen[0]["BLOCK"] == triton.next_power_of_2(n)
    expected = np.arange(n) + (1000 if n == 64 else 0)
    np.testing.assert_array_equal(out[:n], expected)
    assert (out[n:] == -1).all()


@triton.autotune(configs=[triton.Config({"BLOCK": 16}, num_warps=1),
                          triton.Config({"BLOCK": 64}, num_stages=2)],
                 key=["n"], warmup=1, rep=1)
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def tuned_kernel(out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offsets, offsets * 2)
    else:
        tl.store(out_ptr + offsets, offsets * 2, mask=offsets < n)


def test_autotune_over_heuristics(tmp_path, monkeypatch):
    """The heuristics see each config's meta-parameters; the grid sees
    the heuristics' values."""
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))  # tunes anew
    out = np.zeros(200, np.int32)
    grids = []

    def grid(meta):
        grids.append((meta["BLOCK"], meta["EVEN"], meta["num_warps"]))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    tuned_kernel[grid](out, 200)
    np.testing.assert_array_equal(out, 2 * np.arange(200))
    assert {(16, False, 1), (64, False, 4)} <= set(grids)


def test_a_configs_maxnreg_is_its_compiles(tmp_path, monkeypatch):
    """triton.Config(maxnreg=...) limits that config's registers; the grid
    function sees it, as each config's other options."""
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))  # tunes anew
    configs = [triton.Config({"BLOCK": 64}, maxnreg=40),
               triton.Config({"BLOCK": 32}, num_warps=2)]
    assert configs[0].all_kwargs() == {"BLOCK": 64, "num_warps": 4,
                                       "num_stages": 3, "maxnreg": 40}
    tuned = triton.autotune(configs, key=["n"])(
        kiln.JITFunction(axpy_kernel.fn))
    x, y = RNG.standard_normal((2, 100)).astype(np.float32)
    out = np.zeros(100, np.float32)
    seen = []

    def grid(meta):
        seen.append(meta.get("maxnreg"))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    tuned[grid](x, y, out, 2.0, 100)
    np.testing.assert_array_equal(out, np.float32(2.0) * x + y)
    assert {40, None} <= set(seen)
    try:
        compiled = tuned.warmup(x, y, out, 2.0, 100, grid=(1,))
    except kiln.KilnError as exc:
        pytest.skip(f"no GPU compilation here: {exc}")
    assert [".maxnreg 40" in c.asm["ptx"] for c in compiled] == [True, False]


def test_triton_config_and_autotune_refuse_what_kiln_lacks():
    config = triton.Config({"BLOCK": 8}, num_warps=2, num_stages=1)
    assert isinstance(config, kiln.Config) and config.num_ctas == 1
    for keyword in ({"num_ctas": 2}, {"ir_override": "k.ttgir"}):
        with pytest.raises(kiln.KilnError, match=next(iter(keyword))):
            triton.Config({"BLOCK": 8}, **keyword)
    with pytest.raises(kiln.KilnError, match="post_hook"):
        triton.autotune([config], key=["n"], post_hook=print)
    with pytest.raises(kiln.KilnError, match="prune_configs_by is a dict of "
                       "early_config_prune, perf_model, top_k"):
        triton.autotune([config], key=["n"],
                        prune_configs_by={"prune": print})(grid_kernel)
    with pytest.raises(kiln.KilnError, match="top_k is a count"):
        triton.autotune([config], key=["n"],
                        prune_configs_by={"top_k": 0})(grid_kernel)


@triton.jit
def pruned_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, offsets * 2, mask=offsets < n)


def test_prune_configs_by_and_a_configs_pre_hook_are_tritons(tmp_path,
                                                             monkeypatch):
    """early_config_prune gets the configs, the positional arguments by
    name and the keywords; perf_model every argument and the config's;
    the top_k it estimates fastest are timed; one left is not timed. A
    config's pre_hook runs before each of its launches."""
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))  # tunes anew
    hooked = []
    configs = [triton.Config({"BLOCK": b}, num_warps=w,
                             pre_hook=lambda args: hooked.append(
                                 (args["BLOCK"], args["n"])))
               for b, w in ((16, 1), (32, 2), (64, 4), (128, 4))]
    seen = {}

    def early(configs, named, **kwargs):
        seen["early"] = (len(configs), sorted(named), sorted(kwargs))
        return [c for c in configs if c.kwargs["BLOCK"] <= named["n"]]

    def model(**kwargs):
        seen.setdefault("model", sorted(kwargs))
        return -kwargs["BLOCK"]  # the widest first

    tuned = triton.autotune(configs, key=["n"], prune_configs_by={
        "early_config_prune": early, "perf_model": model, "top_k": 2})(
            kiln.JITFunction(pruned_kernel.fn))
    out = np.zeros(100, np.int32)
    tuned[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](out, 100)
    np.testing.assert_array_equal(out, 2 * np.arange(100))
    assert seen["early"] == (4, ["n", "out_ptr"], ["grid", "warmup"])
    assert {"BLOCK", "n", "num_warps", "out_ptr"} <= set(seen["model"])
    assert set(tuned.timings) == set(configs[1:3])  # 128 > n pruned first
    assert {block for block, _ in hooked} == {32, 64}
    # One config left after pruning is launched untimed.
    hooked.clear()
    out[:] = 0
    tuned[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](out, 20)
    assert tuned.timings == {} and tuned.best_config is configs[0]
    assert hooked == [(16, 20)]
    np.testing.assert_array_equal(out[:20], 2 * np.arange(20))
    with pytest.raises(kiln.KilnError, match="heuristics"):
        triton.heuristics({"X": lambda args: 1})(lambda: None)
    with pytest.raises(kiln.KilnError, match="'X', which is not a "
                       "parameter"):
        triton.heuristics({"X": lambda args: 1})(grid_kernel)


# -- Loops ----------------------------------------------------------------

@triton.jit
def loops_kernel(out_ptr, start, end, STEP: tl.constexpr,
                 num_stages: tl.constexpr):
    total = 0
    for i in tl.range(start, end, STEP, num_stages=num_stages):
        total += i
    tl.store(out_ptr, total)
    count = 0
    for i in tl.range(end, loop_unroll_factor=2):
        count += 1
    tl.store(out_ptr + 1, count)
    unrolled = 0
    for j in tl.static_range(1, 10, 3):
        unrolled += j
    for j in tl.static_range(4, step=2):
        unrolled += 100 * j
    tl.store(out_ptr + 2, unrolled)
    for k in range(0, end, 4):
        k = tl.multiple_of(k, 4)  # rebinding the loop variable
        tl.store(out_ptr + 3 + k // 4, k)


@pytest.mark.parametrize("target", triton_interpreter.TARGETS)
@pytest.mark.parametrize("start, end, step", [(3, 17, 2), (5, 5, 1),
                                              (10, 2, -3)])
def test_tl_range_and_static_range(target, start, end, step):
    # static_range's step was once dropped: checked against Triton's
    # interpreter too.
    out = np.zeros(3 + 5, np.int32)
    triton_interpreter.launch(target, loops_kernel, (1,), out, start, end,
                              STEP=step, num_stages=2)
    assert out[0] == sum(range(start, end, step))
    assert out[1] == max(end, 0)
    assert out[2] == 1 + 4 + 7 + 100 * (0 + 2)
    ks = list(range(0, end, 4))[:5]
    np.testing.assert_array_equal(out[3:3 + len(ks)], ks)


@triton.jit
def loop_variable_after_rebinding(out_ptr, n):
    for k in range(n):
        k = k + 1
    tl.store(out_ptr, k)


def test_a_rebound_loop_variable_has_no_value_after_its_loop():
    with pytest.raises(kiln.KilnError, match="'k' is assigned in its loop"):
        loop_variable_after_rebinding.ir(np.zeros(1, np.int32), 3)


# -- Language additions ---------------------------------------------------

@triton.jit
def atomics_kernel(bits_ptr, x_ptr, out_ptr):
    i = tl.arange(0, 4)
    old_and = tl.atomic_and(bits_ptr + i, 0b0110)
    old_or = tl.atomic_or(bits_ptr + 4 + i, 0b1000, sem="relaxed",
                          scope="cta")
    old_xor = tl.atomic_xor(bits_ptr + 8 + i, 0b0101, mask=i < 3,
                            sem="acquire")
    tl.store(out_ptr + i, old_and + old_or + old_xor)
    x = tl.load(x_ptr + i, cache_modifier=".cg", eviction_policy="evict_last")
    tl.store(x_ptr + 4 + i, tl.cast(x, tl.int32).to(tl.float32) * 2,
             cache_modifier=".cs")
    top, where = tl.max(x, 0, return_indices=True)
    tl.store(x_ptr + 8, top)
    tl.store(x_ptr + 9, where.to(tl.float32))
    tl.store(x_ptr + 10, tl.argmin(x, 0, True).to(tl.float32))


@BOTH
def test_bitwise_atomics_hints_cast_and_max_with_indices(interpret):
    bits = RNG.integers(0, 16, 12, dtype=np.int32)
    before = bits.copy()
    x = np.array([1.5, 7.25, -3.75, 7.25] + [0] * 7, np.float32)
    out = np.zeros(4, np.int32)
    launch(atomics_kernel, interpret, (1,), bits, x, out)
    np.testing.assert_array_equal(bits[:4], before[:4] & 0b0110)
    np.testing.assert_array_equal(bits[4:8], before[4:8] | 0b1000)
    xor = before[8:] ^ 0b0101
    xor[3] = before[11]  # masked off
    np.testing.assert_array_equal(bits[8:], xor)
    np.testing.assert_array_equal(out, before[:4] + before[4:8] + np.where(
        np.arange(4) < 3, before[8:], 0))
    np.testing.assert_array_equal(x[4:8], np.trunc(x[:4]) * 2)
    assert x[8] == 7.25 and x[9] == 1 and x[10] == 2


@triton.jit
def locked_sum_kernel(lock_ptr, total_ptr, x_ptr, flags_ptr, halves_ptr):
    # Triton's tutorial 05 takes its lock this way: spin until the CAS
    # sees 0, then release with an exchange.
    pid = tl.program_id(0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(total_ptr, tl.load(total_ptr) + tl.load(x_ptr + pid))
    tl.atomic_xchg(lock_ptr, 0)
    i = tl.arange(0, 4)
    # Per element: only the flags equal to pid flip to pid + 10.
    tl.atomic_cas(flags_ptr + i, pid, pid + 10, sem="relaxed", scope="cta")
    if pid == 0:
        old = tl.atomic_cas(halves_ptr + i, 1.5, -2.0)
        tl.store(halves_ptr + 4 + i, old)


@BOTH
def test_atomic_cas_takes_a_lock_and_swaps_where_equal(interpret):
    programs = 6
    lock, total = np.zeros(1, np.int32), np.zeros(1, np.float32)
    x = np.arange(programs, dtype=np.float32) + 0.5
    flags = np.array([0, 3, 7, 5], np.int32)
    halves = np.array([1.5, 0.0, 1.5, -0.0] + [9] * 4, np.float16)
    launch(locked_sum_kernel, interpret, (programs,), lock, total, x, flags,
           halves)
    assert lock[0] == 0 and total[0] == x.sum()
    assert flags.tolist() == [10, 13, 7, 15]
    assert halves[:4].tolist() == [-2.0, 0.0, -2.0, 0.0]
    assert halves[4:].tolist() == [1.5, 0.0, 1.5, 0.0]
    # Bits, not values: -0.0 == 0.0 but its bits differ from +0.0's.
    assert np.signbit(halves[3])


def test_atomic_cas_is_atom_cas_on_the_gpu():
    """The lock's CAS is one atom.cas.b32 with acquire-release order at
    GPU scope, the flags' relaxed at CTA scope; the float16 CAS is
    atom.cas.b16 or, as LLVM expands it, a loop of 32-bit CASes on the
    word that holds the element (between fences); ptxas assembles all."""
    args = (np.zeros(1, np.int32), np.zeros(1, np.float32),
            np.zeros(6, np.float32), np.zeros(4, np.int32),
            np.zeros(8, np.float16))
    for chip in ("sm_80", "sm_90a"):
        ptx = locked_sum_kernel.asm(*args, chip=chip)["ptx"]
        assert "atom.acq_rel.gpu.global.cas.b32" in ptx
        assert "atom.relaxed.cta.global.cas.b32" in ptx
        assert ".cas.b16" in ptx or \
            "atom.relaxed.gpu.global.cas.b32" in ptx
        assert locked_sum_kernel.asm(*args, chip=chip)["cubin"]


@triton.jit
def bad_cas_kernel(x_ptr, CASE: tl.constexpr):
    if CASE == 0:
        tl.atomic_cas(x_ptr, 0, 1)
    if CASE == 1:
        tl.atomic_cas(x_ptr, 0, 1, sem="seq_cst")


@BOTH
@pytest.mark.parametrize("case, message, dtype", [
    (0, "16, 32 or 64 bits", np.int8), (1, "atomic sem", np.int32)])
def test_atomic_cas_refuses_what_it_cannot_do(interpret, case, message,
                                              dtype):
    with pytest.raises(kiln.KilnError, match=message):
        launch(bad_cas_kernel, interpret, (1,), np.zeros(1, dtype),
               CASE=case)


@triton.jit
def bad_hints_kernel(x_ptr, CASE: tl.constexpr):
    if CASE == 0:
        tl.load(tl.make_block_ptr(x_ptr, (4,), (1,), (0,), (4,), (0,)),
                volatile=True)
    if CASE == 1:
        tl.load(x_ptr, cache_modifier=".wb")
    if CASE == 2:
        tl.atomic_add(x_ptr, 1, sem="seq_cst")
    if CASE == 4:
        tl.atomic_or(x_ptr.to(tl.pointer_type(tl.float32)), 1)


@BOTH
@pytest.mark.parametrize("case, message", [
    (0, r"volatile=True\) of a block pointer is not supported"),
    (1, "cache_modifier"),
    (2, "atomic sem")])
def test_what_kiln_cannot_honour_is_refused(interpret, case, message):
    x = np.zeros(4, np.int32)
    with pytest.raises(kiln.KilnError, match=message):
        launch(bad_hints_kernel, interpret, (1,), x, CASE=case)


@triton.jit
def float_or_kernel(x_ptr):
    tl.atomic_or(x_ptr, 1.0)


@BOTH
def test_bitwise_atomics_need_integers(interpret):
    with pytest.raises(kiln.KilnError, match="atomic_or needs integers"):
        launch(float_or_kernel, interpret, (1,), np.zeros(1, np.float32))


SCALE = tl.constexpr(3)


@triton.jit
def idioms_kernel(x_ptr, out_ptr, N: "tl.constexpr"):
    # A string annotation (this file has `from __future__ import
    # annotations`), a module-level constexpr, an if on a loaded scalar, a
    # ternary on a run-time condition, tl.where over pointers.
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    s = tl.load(x_ptr)
    if s > 0:
        y = x * SCALE
    else:
        y = x - 1
    z = y + 1 if s > 2 else y - 1
    # Only the side taken runs: the load past the end does not.
    far = tl.load(x_ptr + 1000) if s > 1000 else 5
    p = tl.where(i < 2, x_ptr + i, x_ptr + i - 1)
    tl.store(out_ptr + i, z + tl.load(p) + far)


@BOTH
@pytest.mark.parametrize("first", [1, 4, -2])
def test_triton_front_end_idioms(interpret, first):
    x = np.arange(1, 9, dtype=np.int64)
    x[0] = first
    out = np.zeros(8, np.int64)
    launch(idioms_kernel, interpret, (1,), x, out, N=8)
    y = x * 3 if first > 0 else x - 1
    z = y + 1 if first > 2 else y - 1
    shifted = np.where(np.arange(8) < 2, x, np.roll(x, 1))
    np.testing.assert_array_equal(out, z + shifted + 5)


@triton.jit
def mixed_ternary_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    z = x if tl.load(x_ptr) > 2 else 1.5
    tl.store(x_ptr + tl.arange(0, 4), z)


def test_a_run_time_ternary_needs_one_type():
    with pytest.raises(kiln.KilnError, match="two sides of a conditional "
                       "expression are tensor<4xi32> and f32"):
        mixed_ternary_kernel.ir(np.zeros(4, np.int32))


@triton.jit
def scalar_as_tile_kernel(x_ptr, out_ptr, CASE: tl.constexpr):
    s = tl.sum(tl.load(x_ptr + tl.arange(0, 4)))
    if CASE == 0:
        tl.store(out_ptr + tl.arange(0, 1), tl.reshape(s, (1,)))
    else:
        tl.store(out_ptr, tl.sum(s))


@BOTH
@pytest.mark.parametrize("case, message", [
    (0, "kl.reshape takes a tile, not a scalar"),
    (1, "reductions need a tile")])
def test_a_scalar_is_no_tile_to_reshape_or_reduce(interpret, case, message):
    """Triton refuses both; Kiln's compiler reported an internal error for
    the reshape, and its interpreter computed both."""
    with pytest.raises(kiln.KilnError, match=message):
        launch(scalar_as_tile_kernel, interpret, (1,),
               np.ones(4, np.int32), np.zeros(1, np.int32), CASE=case)


@triton.jit
def summed_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def test_hooks_and_grid_functions_see_the_tensors_passed(tmp_path,
                                                         monkeypatch):
    """A config's pre_hook zeroes the output with its tensor's zero_(), and
    a grid function reads numel(), as Triton's see the PyTorch tensors
    passed (Kiln gave them numpy arrays)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    configs = [triton.Config({"BLOCK": b},
                             pre_hook=lambda args: args["out_ptr"].zero_())
               for b in (16, 32)]
    tuned = triton.autotune(configs, key=["n"])(
        kiln.JITFunction(summed_kernel.fn))
    x, out = torch.ones(64), torch.full((1,), 100.0)
    tuned[lambda meta: (triton.cdiv(meta["x_ptr"].numel(),
                                    meta["BLOCK"]),)](x, out, 64)
    assert out.item() == 64.0
    out.fill_(0)
    summed_kernel[lambda meta: (triton.cdiv(meta["x_ptr"].numel(),
                                            meta["BLOCK"]),)](
        x, out, 64, BLOCK=16)
    assert out.item() == 64.0


@triton.jit
def constexpr_passed_kernel(out_ptr, n, B: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, B), n)


@BOTH
def test_a_constexpr_passed_for_any_parameter_is_a_constant(interpret):
    """As Triton specializes it (Kiln's host target refused it)."""
    out = np.zeros(8, np.int32)
    launch(constexpr_passed_kernel, interpret, (1,), out, tl.constexpr(5), 8)
    np.testing.assert_array_equal(out, 5)
    assert "arith.constant 5" in constexpr_passed_kernel.ir(
        out, tl.constexpr(5), 8)


@BOTH
def test_a_lambda_is_no_kernel(interpret):
    """Refused with Kiln's message both ways (the interpreter's raised an
    AttributeError of its own code); Triton refuses it too."""
    kernel = triton.jit(lambda out_ptr: tl.store(out_ptr, 7.0))
    with pytest.raises(kiln.KilnError, match="@kiln.jit applies to a "
                       "function"):
        launch(kernel, interpret, (1,), np.zeros(1, np.float32))

"""``kl.range(..., warp_specialize=True)`` on sm_90a: a producer warpgroup
issues the loop's TMA copies while the kernel's warps consume them. The
PTX of Triton's persistent TMA matmul (the corpus's) split into the two
roles; the launch's extra warpgroup, through the stand-in driver; the
remark where a loop cannot be specialized; and, where a GPU is lent, the
results against PyTorch."""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import kiln
import kiln.language as kl
from test_compiler_remarks import line_marked, remarks_of
from test_gpu import aligned_tma_matmul, needs_stand_in, run_python, torch_cuda

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "bench" / "corpus"), str(ROOT / "bench")]

import compare  # noqa: E402
import isa  # noqa: E402
from isa_cases import CASES  # noqa: E402

needs_ptxas = pytest.mark.skipif(compare.find_ptxas() is None,
                                 reason="no ptxas")


def loops_holding(ptx: str, pattern: str) -> list[str]:
    """The text of each innermost loop of ``ptx`` in which ``pattern``
    occurs."""
    spans = isa.loop_spans(ptx)
    found = []
    for start, end in spans:
        inner = [(a, b) for a, b in spans
                 if start < a and b <= end and (a, b) != (start, end)]
        text = ptx[start:end]
        if re.search(pattern, text) and not inner:
            found.append(text)
    return found


@needs_ptxas
def test_the_persistent_tma_matmul_splits_into_producer_and_consumers():
    ptx = compare.kiln_ptx(CASES["matmul_tma_persistent_ws"])
    # 8 consumer warps and a producer warpgroup; registers at launch are
    # the block's share, moved to the consumers once the roles split.
    assert ".maxntid 384, 1, 1" in ptx
    assert ".maxnreg 168" in ptx
    moves = re.findall(r"setmaxnreg\.(\w+)\.sync\.aligned\.u32\s+(\d+)", ptx)
    assert sorted(moves) == [("dec", "40"), ("inc", "232")]
    split = min(m.start() for m in re.finditer("setmaxnreg", ptx))
    # The whole block meets only before the split; the consumers at a
    # named barrier of their 256 threads.
    assert all(m.start() < split
               for m in re.finditer(r"bar\.sync\s+0;", ptx))
    assert re.search(r"bar\.sync\s+1, 256;", ptx)
    # The producer's loop waits for an empty slot and copies into it; the
    # consumers' loop waits for a full one, runs wgmma and empties it, and
    # neither meets the other at a block barrier.
    [producer] = loops_holding(ptx, r"cp\.async\.bulk\.tensor\.2d\.shared")
    assert "mbarrier.try_wait.parity" in producer
    assert "mbarrier.arrive.expect_tx" in producer
    assert "wgmma" not in producer and "bar.sync" not in producer
    consumers = loops_holding(ptx, r"wgmma\.mma_async")
    assert len(consumers) == 1
    assert "mbarrier.try_wait.parity" in consumers[0]
    assert re.search(r"mbarrier\.arrive\.shared\.b64", consumers[0])
    assert "cp.async.bulk.tensor.2d.shared" not in consumers[0]
    assert "bar.sync" not in consumers[0].split("mbarrier.arrive.shared")[0]
    ptxas = isa.ptxas_log(ptx, compare.find_ptxas(), compare.CHIP)
    assert "0 bytes spill stores" in ptxas


@needs_ptxas
def test_without_the_hint_the_loop_is_software_pipelined():
    ptx = compare.kiln_ptx(CASES["matmul_tma_persistent"])
    assert "setmaxnreg" not in ptx
    assert ".maxntid 256, 1, 1" in ptx
    assert not re.search(r"bar\.sync\s+1,", ptx)


@kiln.jit
def hinted_sum(x_ptr, out_ptr, n, BLOCK: kl.constexpr):
    acc = kl.zeros((BLOCK,), kl.float32)
    for i in kl.range(0, n, warp_specialize=True):  # the loop
        acc += kl.load(x_ptr + i * BLOCK + kl.arange(0, BLOCK))
    kl.store(out_ptr + kl.arange(0, BLOCK), acc)


@needs_ptxas
def test_a_loop_it_cannot_specialize_says_why():
    line = line_marked(hinted_sum, "# the loop")
    x = np.zeros(64, np.float32)
    remarks = remarks_of(lambda: hinted_sum.warmup(
        x, x, 4, BLOCK=16, chip="sm_90a", num_warps=4))
    assert remarks == [(line, "not warp-specialized: no load there feeds a "
                              "dot operand")]


@needs_ptxas
def test_before_sm90a_the_hint_is_declined_and_the_loop_pipelined():
    case = CASES["matmul_tma_persistent_ws"]
    kernel = getattr(compare.load_kiln(case.module), case.kernel)
    line = line_marked(kernel, "warp_specialize=WARP_SPECIALIZE") - 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = kernel.warmup(**case.args(), **case.constexprs,
                                 chip="sm_90", num_warps=8, num_stages=3)
    assert (case.module + ".py", line,
            "not warp-specialized: the target has no setmaxnreg (sm_90a)") \
        in [(Path(w.filename).name, w.lineno, str(w.message))
            for w in caught if issubclass(w.category, kiln.CompilerRemark)]
    ptx = compiled.asm["ptx"]
    assert "setmaxnreg" not in ptx
    assert "cp.async.bulk.tensor.2d.shared" in ptx


def warp_specialized_tma_matmul() -> str:
    """docs/examples/matmul_tma.mlir, aligned, its loop marked."""
    return re.sub(r"^  }$", "  } {tile.warp_specialize = true}",
                  aligned_tma_matmul(), flags=re.MULTILINE)


def test_the_binary_launches_the_producer_warps_too():
    from kiln.gpu import GPUBinary
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, warp_specialized_tma_matmul())
        with GPUBinary(module, "sm_90a", num_warps=8) as binary:
            assert binary.threads_per_block == 384
            assert "setmaxnreg.dec.sync.aligned.u32" in binary.ptx
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, aligned_tma_matmul())
        with GPUBinary(module, "sm_90a", num_warps=8) as binary:
            assert binary.threads_per_block == 256


@needs_stand_in
def test_a_warp_specialized_launch_has_the_producer_warpgroup():
    result = run_python("""
        import ctypes, re
        import numpy as np
        import kiln
        from kiln.gpu import GPUBinary
        from test_gpu import FAKE, FakeDeviceArray
        from test_warp_specialize import warp_specialized_tma_matmul

        class Launch(ctypes.Structure):
            _fields_ = [("grid", ctypes.c_uint * 3),
                        ("block", ctypes.c_uint * 3)]
        last = ctypes.CDLL(str(FAKE)).fakeCudaLastLaunch
        last.restype = ctypes.POINTER(Launch)
        m, n, k = 256, 192, 352
        a = FakeDeviceArray(np.zeros((m, k), np.float16))
        b = FakeDeviceArray(np.zeros((k, n), np.float16))
        c = FakeDeviceArray(np.zeros((m, n), np.float32))
        with kiln.Context() as ctx:
            module = kiln.Module.parse(ctx, warp_specialized_tma_matmul())
            with GPUBinary(module, "sm_90a", num_warps=8) as binary, \\
                    binary.load() as loaded:
                loaded.launch("matmul_tma", (2, 2), a, b, c, m, n, k)
                print(list(last().contents.block))
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[384, 1, 1]"]


@pytest.mark.parametrize("epilogue_subtile", [False, True])
def test_warp_specialized_matmul_on_the_gpu_against_torch(epilogue_subtile):
    torch = torch_cuda()
    module = compare.load_kiln("matmul_tma_persistent")
    M, N, K = 1000, 768, 1024  # ragged in M
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    descriptors = module.descriptors(a, b, c, 128, 256, 64, epilogue_subtile)
    module.matmul_kernel_tma_persistent[(sms,)](
        *descriptors, M, N, K, BLOCK_SIZE_M=128, BLOCK_SIZE_N=256,
        BLOCK_SIZE_K=64, GROUP_SIZE_M=8, EPILOGUE_SUBTILE=epilogue_subtile,
        NUM_SMS=sms, WARP_SPECIALIZE=True, num_warps=8, num_stages=3)
    torch.cuda.synchronize()
    want = a.double() @ b.double().T
    torch.testing.assert_close(c.double(), want, atol=0.25, rtol=2e-2)

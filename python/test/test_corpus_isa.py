"""The corpus's instruction-class gate (bench/corpus/compare.py): every
corpus kernel compiles for sm_90a and for sm_80 with Kiln, and, where
Triton is installed, gets no lower instruction class than Triton's compile
of the same file for the same chip. Also: isa.classify on small PTX texts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "bench" / "corpus"), str(ROOT / "bench")]

import compare  # noqa: E402
import isa  # noqa: E402
import triton_peer  # noqa: E402
from isa_cases import CASES, TRITON_REFUSES  # noqa: E402


@pytest.fixture(scope="module")
def ptxas():
    found = compare.find_ptxas()
    if found is None:
        pytest.skip("no ptxas (KILN_PTXAS, PATH, /usr/local/cuda): the "
                    "classes come from ptxas -v")
    return found


#: Corpus kernels whose code is below Triton's on a chip, and why. Strict:
#: one that reaches Triton's classes fails here until it is taken off the
#: list.
BELOW_TRITON: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("chip, name", [
    pytest.param(chip, name, marks=pytest.mark.xfail(
        reason=BELOW_TRITON[chip, name], strict=True))
    if (chip, name) in BELOW_TRITON else (chip, name)
    for chip in compare.CHIPS for name in CASES])
def test_corpus_kernel_against_triton(chip, name, ptxas):
    kiln = compare.classes(compare.kiln_ptx(CASES[name], chip), ptxas, chip)
    if (name, chip) in TRITON_REFUSES:
        pytest.skip(f"Kiln compiled {name} ({kiln.describe()}); no peer: "
                    f"{TRITON_REFUSES[name, chip]}")
    if triton_peer.MISSING:
        pytest.skip(f"{triton_peer.MISSING}: Kiln compiled {name} "
                    f"({kiln.describe()}) but has no peer to compare")
    triton = compare.classes(compare.triton_ptx(CASES[name], chip), ptxas,
                             chip)
    found = isa.shortfalls(kiln, triton)
    assert not found, (
        f"{chip} {name}: Kiln {kiln.describe()}, Triton "
        f"{triton.describe()}; below Triton in {sorted(found)} ({found})")


#: Chips without a gate of their own: every corpus kernel compiles for
#: them and ptxas assembles it (sm_86/89's 99 KiB of shared memory a
#: block, sm_90 without wgmma).
OTHER_CHIPS = ("sm_86", "sm_90")


@pytest.mark.parametrize("chip, name", [(chip, name) for chip in OTHER_CHIPS
                                        for name in CASES])
def test_corpus_kernel_compiles_for(chip, name, ptxas):
    log = isa.ptxas_log(compare.kiln_ptx(CASES[name], chip), ptxas, chip)
    assert f"for '{chip}'" in log, log


PTX = """
    ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];
    @%p1 ld.global.nc.L1::evict_last.v2.u32 { %r5, %r6 }, [ %rd2 ];
    ld.global.b16 %rs1, [ %rd3 ];
    st.global.v2.f32 [ %rd4 ], { %f1, %f2 };
    cp.async.cg.shared.global [ %r29 + 0 ], [ %rd26 + 0 ], 0x10, %r31;
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {...};
"""
LOG = """ptxas info    : Compiling entry function 'k' for 'sm_90a'
    0 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 168 registers, used 1 barriers"""


def test_classify_reads_widths_copies_matmuls_and_spills():
    classes = isa.classify(PTX, LOG)
    assert (classes.load_bytes, classes.store_bytes) == (16, 8)
    assert classes.pipelined and not classes.tma_loads
    assert classes.matmul == "mma.sync"
    assert (classes.registers, classes.spilled_bytes) == (168, 40)


def test_classify_tma_and_wgmma():
    ptx = ("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
           "complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];\n"
           "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {...};\n"
           "st.global.b32 [%rd2], %r5;")
    classes = isa.classify(ptx, "")
    assert classes.tma_loads and classes.pipelined
    assert classes.matmul == "wgmma" and classes.store_bytes == 4
    # Triton 3.9 names the CTA's shared memory.
    cta = isa.classify(ptx.replace("shared::cluster", "shared::cta"), "")
    assert cta.tma_loads and cta.pipelined


def test_shortfalls_name_each_lower_class():
    low = isa.classify("ld.global.b16 %rs1, [%rd1];", LOG)
    high = isa.classify(PTX.replace(LOG, ""), "")
    gaps = isa.shortfalls(low, high)
    assert set(gaps) == {"load", "store", "async copies", "matmul",
                         "spilled"}
    assert isa.shortfalls(high, low) == {}

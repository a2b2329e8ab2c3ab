"""Instruction classes of a GPU kernel, to compare two compilers' output.

A kernel's speed on Hopper is decided first by a few coarse facts of its
code: how wide its global accesses are, whether its loads are copied
asynchronously (cp.async, or TMA's cp.async.bulk.tensor) so that a loop can
be pipelined, which instructions do its matmuls (wgmma, mma.sync, or plain
FMA), and whether registers spill. ``classify`` reads them from PTX and a
``ptxas -v`` log; ``shortfalls`` lists where one compiler's classes fall
below another's. Registers are reported, not ranked.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import tempfile
from pathlib import Path

# ld.global / st.global with an optional vector count and an element size.
_ACCESS = re.compile(
    r"\b(ld|st)\.global(?:\.[a-zA-Z0-9_:]+)*?(?:\.v(\d))?\.[bfsu](\d+)\b")
# cp.async.{ca,cg}.shared.global [dst], [src], bytes (decimal or hex)
_ASYNC_COPY = re.compile(
    r"\bcp\.async\.c[ag]\.shared\.global(?:\.[a-zA-Z0-9_:]+)*\s+\[[^\]]+\],"
    r"\s*\[[^\]]+\],\s*(0x[0-9a-fA-F]+|\d+)")
# The destination is the CTA's shared memory (Triton 3.9 writes
# shared::cta) or the cluster's (shared::cluster, a CTA's own included).
_TMA_LOAD = re.compile(r"\bcp\.async\.bulk\.tensor\.\dd\."
                       r"shared::(?:cluster|cta)\.global")
_TMA_STORE = re.compile(r"\bcp\.async\.bulk\.tensor\.\dd\.global\.shared")
_MATMULS = ("scalar", "mma.sync", "wgmma")


@dataclasses.dataclass(frozen=True)
class InstructionClasses:
    """The coarse facts of one kernel's code."""
    load_bytes: int
    """Widest global load of one thread, cp.async included (bytes)."""
    tma_loads: bool
    store_bytes: int
    """Widest global store of one thread (bytes)."""
    tma_stores: bool
    pipelined: bool
    """Whether loads are copied asynchronously (cp.async or TMA)."""
    matmul: str
    """wgmma, mma.sync, or scalar (no tensor-core instruction)."""
    registers: int
    spilled_bytes: int

    def describe(self) -> dict[str, str]:
        """Each class as a table cell."""
        return {
            "load": "TMA" if self.tma_loads else f"{self.load_bytes} B",
            "store": "TMA" if self.tma_stores else f"{self.store_bytes} B",
            "async copies": "yes" if self.pipelined else "no",
            "matmul": self.matmul,
            "spilled": f"{self.spilled_bytes} B",
            "registers": str(self.registers),
        }


def loop_spans(ptx: str) -> list[tuple[int, int]]:
    """Where each loop of ``ptx`` starts and ends (offsets in the text):
    its header's label and the last branch back to it (a loop whose rare
    path LLVM places after its body has two)."""
    labels = {m.group(1): m.start()
              for m in re.finditer(r"^(\$L__BB\d+_\d+):", ptx, re.MULTILINE)}
    ends: dict[int, int] = {}
    for m in re.finditer(r"bra(?:\.uni)?\s+(\$L__BB\d+_\d+);", ptx):
        start = labels.get(m.group(1), m.start())
        if start < m.start():
            ends[start] = max(ends.get(start, 0), m.start())
    return sorted(ends.items())


def _ptxas_report(log: str) -> tuple[int, int]:
    """Registers and spilled bytes (stores + loads) of the kernel in a
    ``ptxas -v`` log (the largest, where it holds several)."""
    registers = max((int(n) for n in re.findall(r"Used (\d+) registers",
                                                log)), default=0)
    spilled = sum(int(n) for n in re.findall(
        r"(\d+) bytes spill (?:stores|loads)", log))
    return registers, spilled


def ptxas_log(ptx: str, ptxas: str, arch: str = "sm_90a") -> str:
    """What ``ptxas -v`` says of ``ptx`` for ``arch``."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "kernel.ptx"
        source.write_text(ptx)
        done = subprocess.run(
            [ptxas, f"-arch={arch}", "-v", str(source), "-o",
             str(Path(folder) / "kernel.cubin")],
            capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"ptxas failed: {done.stderr[-2000:]}")
    return done.stdout + done.stderr


def classify(ptx: str, log: str) -> InstructionClasses:
    """The classes of the kernel in ``ptx``, with ``log`` its ``ptxas -v``
    report."""
    loads, stores = [0], [0]
    for kind, vector, bits in _ACCESS.findall(ptx):
        size = int(vector or 1) * int(bits) // 8
        (loads if kind == "ld" else stores).append(size)
    loads += [int(n, 0) for n in _ASYNC_COPY.findall(ptx)]
    tma_loads = bool(_TMA_LOAD.search(ptx))
    matmul = ("wgmma" if "wgmma.mma_async" in ptx else
              "mma.sync" if re.search(r"\bmma\.sync\b", ptx) else "scalar")
    registers, spilled = _ptxas_report(log)
    return InstructionClasses(
        load_bytes=max(loads), tma_loads=tma_loads, store_bytes=max(stores),
        tma_stores=bool(_TMA_STORE.search(ptx)),
        pipelined=tma_loads or bool(_ASYNC_COPY.search(ptx)),
        matmul=matmul, registers=registers, spilled_bytes=spilled)


def shortfalls(ours: InstructionClasses,
               peer: InstructionClasses) -> dict[str, str]:
    """Each class in which ``ours`` is below ``peer`` (by the class's name
    in ``describe``), with a sentence saying how."""
    found = {}
    mine, theirs = ours.describe(), peer.describe()
    if (ours.tma_loads, ours.load_bytes) < (peer.tma_loads, peer.load_bytes):
        found["load"] = f"loads {mine['load']} wide against {theirs['load']}"
    if (ours.tma_stores, ours.store_bytes) < (peer.tma_stores,
                                              peer.store_bytes):
        found["store"] = (f"stores {mine['store']} wide against "
                          f"{theirs['store']}")
    if peer.pipelined and not ours.pipelined:
        found["async copies"] = "no asynchronous copies where the peer has them"
    if _MATMULS.index(ours.matmul) < _MATMULS.index(peer.matmul):
        found["matmul"] = f"{ours.matmul} against {peer.matmul}"
    if ours.spilled_bytes > peer.spilled_bytes:
        found["spilled"] = (f"{ours.spilled_bytes} bytes spilled against "
                            f"{peer.spilled_bytes}")
    return found

"""Kiln's code for the corpus kernels against Triton's, by instruction
class, on a machine without a GPU.

    PYTHONPATH=python python3 bench/corpus/compare.py [--write] [CASE...]

Each case of ``isa_cases.py`` is compiled for a chip (sm_90a, or sm_80
with ``--chip sm_80``) twice from the same source file: by Kiln through ``kiln.triton`` (the file as it is), and by
Triton (the same file with its imports pointed at ``triton``). Both PTX
files go through one ``ptxas -v`` (Triton's own where Triton is installed,
since its PTX may be newer than the CUDA toolkit's ptxas; else Kiln's), and
``isa.classify`` reads their classes. Prints a Markdown table; ``--write``
puts it in docs/performance.md between its corpus markers.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT / "python"), str(HERE), str(HERE.parent)]

import isa  # noqa: E402
import triton_peer  # noqa: E402
from isa_cases import CASES, TRITON_REFUSES, Case  # noqa: E402

#: The chips compared: Hopper's, and Ampere's (mma.sync, cp.async, no TMA).
CHIPS = ("sm_90a", "sm_80")
CHIP = CHIPS[0]
# Triton's default FMA fusion, which it warns it will change, kept quietly.
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


def markers(chip: str) -> tuple[str, str]:
    """Where the table of `chip` goes in docs/performance.md."""
    return (f"<!-- corpus-isa-table {chip}: begin (bench/corpus/compare.py "
            f"--chip {chip} --write) -->",
            f"<!-- corpus-isa-table {chip}: end -->")


def capability(chip: str) -> int:
    """sm_90a -> 90."""
    return int(re.fullmatch(r"sm_(\d+)a?", chip).group(1))
_IMPORT = re.compile(r"^(\s*(?:import|from)\s+)kiln\.triton\b", re.MULTILINE)


#: Where the corpus kernels Kiln ships live: kiln.ops runs them.
SHIPPED = ROOT / "python" / "kiln" / "ops"


def corpus_file(module: str, directory: Path = HERE) -> Path:
    """The file of ``module``: in ``directory`` (the corpus's by default),
    or, for a corpus kernel Kiln ships (flash attention), in kiln/ops."""
    path = directory / f"{module}.py"
    return path if path.exists() else SHIPPED / f"{module}.py"


def load_kiln(module: str):
    """The corpus file ``module`` as written, on kiln.triton."""
    spec = importlib.util.spec_from_file_location(
        f"kiln_corpus_{module}", corpus_file(module))
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


_TRITON_FILES = tempfile.mkdtemp(prefix="kiln-corpus-triton-")


def load_triton(module: str, directory: Path = HERE):
    """The same file (of ``directory``, the corpus's by default) with its
    imports pointed at Triton. Triton's jit reads a kernel's source from
    its file, so the copy is written out."""
    path = Path(_TRITON_FILES) / f"triton_corpus_{module}.py"
    if not path.exists():
        path.write_text(_IMPORT.sub(
            r"\1triton", corpus_file(module, directory).read_text()))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def find_ptxas() -> str | None:
    """Triton's bundled ptxas where Triton is installed, else Kiln's."""
    if triton_peer.MISSING is None:
        bundled = Path(triton_peer.triton.__file__).parent / "backends" / \
            "nvidia" / "bin"
        for name in ("ptxas-blackwell", "ptxas"):
            if (bundled / name).is_file():
                return str(bundled / name)
    from kiln.gpu import find_ptxas as kiln_ptxas
    return kiln_ptxas()


def kiln_ptx(case: Case, chip: str = CHIP) -> str:
    kernel = getattr(load_kiln(case.module), case.kernel)
    compiled = kernel.warmup(**case.args(), **case.constexprs, chip=chip,
                             num_warps=case.num_warps,
                             num_stages=case.num_stages)
    return compiled.asm["ptx"]


def triton_ptx(case: Case, chip: str = CHIP) -> str:
    kernel = getattr(load_triton(case.module), case.kernel)
    # A parameter named like a launch option takes the option's value.
    options = {"num_warps": case.num_warps, "num_stages": case.num_stages}
    constexprs = {**case.constexprs, **{name: value for name, value in
                                        options.items()
                                        if name in kernel.arg_names}}
    compiled = triton_peer.compile_for(kernel, case.args(), constexprs,
                                       case.num_warps, case.num_stages,
                                       capability(chip))
    return compiled.asm["ptx"]


def classes(ptx: str, ptxas: str,
            chip: str = CHIP) -> isa.InstructionClasses:
    return isa.classify(ptx, isa.ptxas_log(ptx, ptxas, chip))


def compare(name: str, ptxas: str, chip: str = CHIP) -> dict:
    """Kiln's and (where installed) Triton's classes for case ``name`` on
    ``chip``, and Kiln's shortfalls against Triton."""
    case = CASES[name]
    row: dict = {"kiln": classes(kiln_ptx(case, chip), ptxas, chip)}
    if (name, chip) in TRITON_REFUSES:
        row["refused"] = TRITON_REFUSES[name, chip]
        return row
    if triton_peer.MISSING is None:
        row["triton"] = classes(triton_ptx(case, chip), ptxas, chip)
        row["shortfalls"] = isa.shortfalls(row["kiln"], row["triton"])
    return row


def table(rows: dict[str, dict], ptxas: str, chip: str = CHIP) -> list[str]:
    peer = ("Triton " + triton_peer.triton.__version__
            if triton_peer.MISSING is None else "Triton (not installed)")
    columns = ["load", "store", "async copies", "matmul", "spilled",
               "registers"]
    lines = [f"Kiln against {peer}, {chip}, one ptxas for both "
             f"(`{Path(ptxas).name}`). Each cell is Kiln / Triton.", "",
             "| kernel | " + " | ".join(columns) + " | Kiln below Triton |",
             "|---|" + "---|" * len(columns) + "---|"]
    for name, row in rows.items():
        ours = row["kiln"].describe()
        theirs = row["triton"].describe() if "triton" in row else {}
        cells = [f"{ours[c]} / {theirs.get(c, '-')}" for c in columns]
        gaps = "; ".join(row.get("shortfalls", {}).values()) or "-"
        if "refused" in row:
            gaps = f"- (no peer: {row['refused']})"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {gaps} |")
    return lines


def write(lines: list[str], chip: str = CHIP) -> None:
    path = ROOT / "docs" / "performance.md"
    text = path.read_text()
    begin, end_marker = markers(chip)
    start, end = text.index(begin) + len(begin), text.index(end_marker)
    path.write_text(text[:start] + "\n" + "\n".join(lines) + "\n" +
                    text[end:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=list(CASES))
    parser.add_argument("--chip", choices=CHIPS, default=CHIP)
    parser.add_argument("--write", action="store_true",
                        help="put the table in docs/performance.md")
    options = parser.parse_args()
    ptxas = find_ptxas()
    if ptxas is None:
        sys.exit("no ptxas found: set KILN_PTXAS or install the CUDA toolkit")
    rows = {name: compare(name, ptxas, options.chip)
            for name in options.cases}
    lines = table(rows, ptxas, options.chip)
    print("\n".join(lines))
    if options.write:
        write(lines, options.chip)


if __name__ == "__main__":
    main()

"""The tutorials in docs/tutorials run as a user runs them and pass the
checks they print: each is a script, started here in a fresh interpreter,
that must exit with status 0 and print a table whose every row is "ok"."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIALS_DIR = ROOT / "docs" / "tutorials"
TUTORIALS = sorted(TUTORIALS_DIR.glob("[0-9][0-9]_*.py"))
#: Modules the tutorials import; not tutorials themselves.
SHARED = {"harness.py"}
SUMMARY = re.compile(r"(\d+) of (\d+) checks (passed|FAILED)")


def test_every_tutorial_is_found():
    """A tutorial added or renamed outside the NN_name.py pattern would
    otherwise drop out of the runs below without a word."""
    scripts = {p.name for p in TUTORIALS_DIR.glob("*.py")} - SHARED
    assert scripts == {p.name for p in TUTORIALS}
    assert [p.name for p in TUTORIALS] == [
        "01_vector_add.py", "02_fused_softmax.py", "03_matmul.py",
        "04_layer_norm.py"]
    index = (TUTORIALS_DIR / "README.md").read_text()
    for tutorial in TUTORIALS:
        assert f"({tutorial.name})" in index, f"README.md does not list " \
                                               f"{tutorial.name}"


def run_tutorial(script: Path) -> subprocess.CompletedProcess:
    """``script`` as the README runs it: the package from python/, the
    library from $KILN_BUILD_DIR (else build/), as the tests use them."""
    env = dict(os.environ)
    # The tutorials check the compiled kernels, not the interpreter.
    env.pop("KILN_INTERPRET", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "python")] + ([env["PYTHONPATH"]]
                                  if env.get("PYTHONPATH") else []))
    return subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def check_rows(stdout: str) -> list[list[str]]:
    """The rows of the table of checks, after its header, up to the
    summary line."""
    lines = stdout.splitlines()
    header = next(i for i, line in enumerate(lines)
                  if line.split()[:1] == ["kernel"] and
                  line.split()[-1:] == ["check"])
    rows = []
    for line in lines[header + 1:]:
        if SUMMARY.fullmatch(line):
            break
        rows.append(line.split())
    return rows


@pytest.mark.parametrize("script", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_passes_its_checks(script):
    result = run_tutorial(script)
    output = f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 0, output
    rows = check_rows(result.stdout)
    assert rows, output
    assert all(row[-1] == "ok" for row in rows), output
    assert any(row[-2] == "host" for row in rows), output
    summary = [m for m in map(SUMMARY.fullmatch, result.stdout.splitlines())
               if m]
    assert len(summary) == 1, output
    passed, total, verdict = summary[0].groups()
    assert (int(passed), int(total), verdict) == (len(rows), len(rows),
                                                  "passed"), output

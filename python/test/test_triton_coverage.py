"""docs/python-api.md's table of Triton's language names against
Kiln's (scripts/triton_coverage.py) is current, every name Kiln lacks has
its reason, and Kiln's functions take every keyword Triton's take."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import kiln.triton.language as tl

ROOT = Path(__file__).resolve().parents[2]


def coverage():
    spec = importlib.util.spec_from_file_location(
        "triton_coverage", ROOT / "scripts" / "triton_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_documented_table_is_current():
    pytest.importorskip("triton")
    script = coverage()
    doc = script.DOC.read_text()
    start = doc.index(script.BEGIN) + len(script.BEGIN)
    assert doc[start:doc.index(script.END)].strip() == script.table(), \
        "run: PYTHONPATH=python python3 scripts/triton_coverage.py --write"


def test_every_missing_name_says_why_and_no_keyword_is_missing():
    triton_language = pytest.importorskip("triton.language")
    names = set(triton_language.__all__)
    missing = names - set(tl.__all__)
    assert missing <= set(tl.NOT_SUPPORTED), missing - set(tl.NOT_SUPPORTED)
    assert not set(tl.NOT_SUPPORTED) & set(tl.__all__)
    assert "none." in coverage().table()


def test_a_missing_name_gives_its_reason():
    with pytest.raises(AttributeError, match="MLIR has no type for it"):
        tl.float8e4b15

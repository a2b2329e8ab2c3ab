"""The Python package drives the compiler through the C API."""

from __future__ import annotations

import threading

import pytest

import kiln
from kiln import _ffi

VALID = """
func.func @f(%x: f32) -> tensor<4xf32> {
  %c = arith.constant 2.0 : f32
  %s = tile.splat %c : f32 -> tensor<4xf32>
  %t = tile.splat %x : f32 -> tensor<4xf32>
  %u = arith.addf %s, %t : tensor<4xf32>
  return %u : tensor<4xf32>
}
"""


@pytest.fixture
def ctx():
    with kiln.Context() as context:
        yield context


def test_parse_prints_what_it_parsed(ctx):
    module = kiln.Module.parse(ctx, VALID, "valid.mlir")
    text = str(module)
    assert "func.func @f(%arg0: f32) -> tensor<4xf32>" in text
    assert text.count("tile.splat") == 2
    # The printed form parses again to the same text.
    assert str(kiln.Module.parse(ctx, text)) == text


def test_pipeline_runs_the_canonicalizer(ctx):
    module = kiln.Module.parse(ctx, VALID)
    module.run_pipeline("builtin.module(canonicalize,cse)")
    text = str(module)
    assert "arith.constant dense<2.000000e+00> : tensor<4xf32>" in text
    assert text.count("tile.splat") == 1


def test_verifier_error_points_at_the_line(ctx):
    source = ("func.func @g(%x: tensor<2x4xf32>) {\n"
              "  %0 = tile.broadcast %x : tensor<2x4xf32> -> tensor<8x4xf32>\n"
              "  return\n"
              "}\n")
    with pytest.raises(kiln.CompilationError) as info:
        kiln.Module.parse(ctx, source, "kernel.mlir")
    error = info.value
    assert error.message == "failed to parse kernel.mlir"
    assert len(error.diagnostics) == 1
    diag = error.diagnostics[0]
    assert diag.severity == kiln.Severity.ERROR
    assert (diag.file, diag.line, diag.column) == ("kernel.mlir", 2, 8)
    assert diag.message == (
        "'tile.broadcast' op source shape 2x4 cannot be broadcast to result "
        "shape 8x4 (dimension 0 is 2, not 1 or 8)")
    assert str(diag).startswith("kernel.mlir:2:8: error: 'tile.broadcast'")
    assert isinstance(error, kiln.KilnError)


def test_notes_follow_their_error(ctx):
    source = "func.func @h(%a: i32) {\n  %a = arith.constant 1 : i32\n  return\n}\n"
    with pytest.raises(kiln.CompilationError) as info:
        kiln.Module.parse(ctx, source, "dup.mlir")
    severities = [d.severity for d in info.value.diagnostics]
    assert severities == [kiln.Severity.ERROR, kiln.Severity.NOTE]
    assert info.value.diagnostics[0].line == 2
    assert info.value.diagnostics[1].message == "previously defined here"


def test_syntax_error(ctx):
    with pytest.raises(kiln.CompilationError) as info:
        kiln.Module.parse(ctx, "func.func @f( {", "s.mlir")
    assert info.value.diagnostics[0].file == "s.mlir"
    assert info.value.diagnostics[0].line == 1


@pytest.mark.parametrize("pipeline, message", [
    ("builtin.module(no-such-pass)", "'no-such-pass' does not refer to a "
                                     "registered pass"),
    ("func.func(cse)", "must be anchored on builtin.module"),
    ("builtin.module(canonicalize", "invalid pass pipeline"),
])
def test_bad_pipelines_raise(ctx, pipeline, message):
    module = kiln.Module.parse(ctx, VALID)
    with pytest.raises(kiln.CompilationError, match="pipeline") as info:
        module.run_pipeline(pipeline)
    assert message in str(info.value)
    # The module is still usable after a rejected pipeline.
    assert "tile.splat" in str(module)


def test_non_ascii_source_and_filename(ctx):
    source = '// ünïcode comment\nfunc.func @f() { return }\n'
    module = kiln.Module.parse(ctx, source, "kérnel.mlir")
    assert "func.func @f()" in str(module)
    with pytest.raises(kiln.CompilationError) as info:
        kiln.Module.parse(ctx, "func.func @f( {", "kérnel.mlir")
    assert info.value.diagnostics[0].file == "kérnel.mlir"


def test_closed_objects_raise_instead_of_crashing():
    context = kiln.Context()
    module = kiln.Module.parse(context, VALID)
    context.close()  # closes the module too
    with pytest.raises(kiln.KilnError, match="module is closed"):
        str(module)
    with pytest.raises(kiln.KilnError, match="context is closed"):
        kiln.Module.parse(context, VALID)
    module.close()
    context.close()  # closing twice is harmless


def test_contexts_are_independent_across_threads():
    errors = []

    def work(n: int) -> None:
        try:
            with kiln.Context() as context:
                for _ in range(5):
                    module = kiln.Module.parse(context, VALID, f"t{n}.mlir")
                    module.run_pipeline("builtin.module(canonicalize)")
                    assert "dense<2.000000e+00>" in str(module)
                    module.close()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_missing_library_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("KILN_LIBRARY_PATH", str(tmp_path / "libKilnCAPI.so"))
    with pytest.raises(kiln.KilnError, match="cannot find libKilnCAPI.so"):
        _ffi._load()


def test_library_version_is_checked(monkeypatch):
    built = _ffi.API_VERSION
    monkeypatch.setattr(_ffi, "API_VERSION", built + 1)
    with pytest.raises(kiln.KilnError,
                       match=f"has C API version {built}, but this package "
                             f"needs version {built + 1}"):
        _ffi._load()

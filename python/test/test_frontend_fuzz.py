"""Random kernels: every well-typed one compiles and agrees with the
interpreter; every ill-typed one raises a KilnError with a line number.

A generator builds kernels from the language's grammar: expressions over
loaded tiles and scalars (arithmetic, comparisons, where, min/max, math,
casts, broadcasting through [:, None]), reductions, masked loads and
stores, for and while loops and branches on scalars. Seeds are fixed, so
a failure reproduces; KILN_FUZZ_PROGRAMS sets how many programs a run tries.
"""

from __future__ import annotations

import importlib.util
import os
import random
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kiln

PROGRAMS = int(os.environ.get("KILN_FUZZ_PROGRAMS", "60"))

FLOAT_UNARY = ["kl.exp({})", "kl.sin({})", "kl.cos({})", "kl.abs({})",
               "kl.tanh({})", "kl.sigmoid({})", "kl.sqrt(kl.abs({}) + 1.0)",
               "kl.log(kl.abs({}) + 1.0)", "-({})", "kl.erf({})"]
INT_UNARY = ["kl.abs({})", "-({})", "({} + 0 * a).to(kl.float32)"]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "kl.minimum({}, {})",
          "kl.maximum({}, {})", "kl.where({} > {}, {}, {})"]


class Generator:
    """Builds one random kernel's source and its launch arguments."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.lines: list[str] = []
        self.count = 0

    def name(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def expression(self, depth: int, kind: str) -> str:
        """A tile expression of `kind` ('f' float32, 'i' int32) over x and
        y (f32) or a and b (i32), and scalars."""
        leaves = {"f": ["x", "y", "s", "1.5", "0.25"],
                  "i": ["a", "b", "n", "3", "7"]}[kind]
        if depth == 0 or self.rng.random() < 0.25:
            return self.rng.choice(leaves)
        if self.rng.random() < 0.4:
            table = FLOAT_UNARY if kind == "f" else INT_UNARY
            template = self.rng.choice(table)
            inner = self.expression(depth - 1, kind)
            result = template.format(inner)
            if ".to(kl.float32)" in template and kind == "i":
                return f"({result}).to(kl.int32)"
            return result
        template = self.rng.choice(BINARY)
        args = [self.expression(depth - 1, kind)
                for _ in range(template.count("{}"))]
        return template.format(*args)

    def kernel(self) -> str:
        body = []
        for _ in range(self.rng.randint(1, 3)):
            kind = self.rng.choice("fi")
            expr = self.expression(self.rng.randint(1, 4), kind)
            name = self.name()
            # Adding a zero tile keeps an expression of scalars a tile.
            tile = "x" if kind == "f" else "a"
            body.append(f"{name} = ({expr}) + 0 * {tile}")
            target = "outf" if kind == "f" else "outi"
            slot = len([l for l in body if l.startswith("kl.store")])
            choice = self.rng.random()
            if choice < 0.25:
                reduced = self.rng.choice(["kl.sum", "kl.max", "kl.min"])
                body.append(f"kl.store({target}_ptr + {slot} * BLOCK, "
                            f"{reduced}({name}, axis=0))")
            elif choice < 0.4:
                body.append(f"kl.store({target}_ptr + {slot} * BLOCK + offs, "
                            f"kl.cumsum({name}, axis=0), mask=mask)")
            else:
                body.append(f"kl.store({target}_ptr + {slot} * BLOCK + offs, "
                            f"{name}, mask=mask)")
        loop = self.rng.random()
        if loop < 0.3:
            body += ["acc = 0",
                     "for i in range(n % 5):",
                     "    if i % 2 == 0:",
                     "        acc += i",
                     "kl.store(outi_ptr + 7 * BLOCK, acc)"]
        elif loop < 0.5:
            # A while loop carrying a scalar and a tile.
            body += ["k = n % 6",
                     "w = x",
                     "while k > 0:",
                     "    w = w * 0.5 + y",
                     "    k -= 1",
                     "kl.store(outf_ptr + 7 * BLOCK + offs, w, mask=mask)"]
        source = ["def kernel(x_ptr, y_ptr, a_ptr, b_ptr, outf_ptr, outi_ptr,",
                  "           s, n, BLOCK: kl.constexpr):",
                  "    offs = kl.arange(0, BLOCK)",
                  "    mask = offs < n",
                  "    x = kl.load(x_ptr + offs, mask=mask, other=1.0)",
                  "    y = kl.load(y_ptr + offs, mask=mask, other=2.0)",
                  "    a = kl.load(a_ptr + offs, mask=mask, other=1)",
                  "    b = kl.load(b_ptr + offs, mask=mask, other=3)"]
        source += ["    " + line for line in body]
        return "\n".join(source) + "\n"


def load_kernel(source: str, path: Path):
    """The kernel from `source`, written to a file (the JIT reads sources)."""
    path.write_text("import kiln\nimport kiln.language as kl\n\n@kiln.jit\n"
                    + source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


def arguments(seed: int):
    rng = np.random.default_rng(seed)
    block, n = 32, int(rng.integers(1, 33))
    return [rng.standard_normal(block).astype(np.float32),
            rng.standard_normal(block).astype(np.float32),
            rng.integers(-20, 20, block).astype(np.int32),
            rng.integers(-20, 20, block).astype(np.int32),
            np.zeros(8 * block, np.float32), np.zeros(8 * block, np.int32),
            float(rng.standard_normal()), n], block


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_well_typed_kernels_match_the_interpreter(seed, tmp_path):
    source = Generator(seed).kernel()
    kernel = load_kernel(source, tmp_path / f"k{seed}.py")
    compiled_args, block = arguments(seed)
    interpreted_args, _ = arguments(seed)
    with np.errstate(all="ignore"):
        kernel[(1,)](*compiled_args, BLOCK=block)
        kiln.JITFunction(kernel.fn, interpret=True)[(1,)](
            *interpreted_args, BLOCK=block)
    for c, i in zip(compiled_args[4:6], interpreted_args[4:6]):
        np.testing.assert_allclose(c, i, rtol=2e-5, atol=2e-5,
                                   err_msg=source)


ILL_TYPED = [
    ("kl.store(outf_ptr + offs, x + kl.arange(0, 2 * BLOCK))",
     "do not broadcast"),
    ("kl.store(outf_ptr + offs, kl.dot(x, x))", ""),
    ("kl.store(outf_ptr + offs, x[:, :, None])", "index has"),
    ("kl.store(x, x)", "needs pointers"),
    ("kl.store(outf_ptr + offs, kl.sum(x, axis=3))", "out of range"),
    ("kl.store(outf_ptr + offs, undefined_name)", "'undefined_name' is not "
                                                  "defined"),
    ("kl.store(outf_ptr + offs, x.to(5))", "expected a kl dtype"),
    ("while x > 0:\n        x = x - 1", "needs a scalar condition"),
    ("while True:\n        n = n - 1", "never ends"),
    ("while n > 0:\n        n = x", "before the loop but"),
    ("kl.store(outf_ptr + 1.5, x)", "offsets must be integers"),
    ("kl.store(outf_ptr + offs, kl.arange(0, n))", "constant bounds"),
    ("kl.static_assert(BLOCK > 64, 'big blocks')", "static assertion failed"),
]


@pytest.mark.parametrize("statement, message", ILL_TYPED)
def test_ill_typed_kernels_raise_with_a_line(statement, message, tmp_path):
    source = textwrap.dedent("""\
        def kernel(x_ptr, y_ptr, a_ptr, b_ptr, outf_ptr, outi_ptr,
                   s, n, BLOCK: kl.constexpr):
            offs = kl.arange(0, BLOCK)
            x = kl.load(x_ptr + offs)
        """) + "    " + statement + "\n"
    kernel = load_kernel(source, tmp_path / "bad.py")
    args, block = arguments(0)
    with pytest.raises(kiln.KilnError) as info:
        kernel[(1,)](*args, BLOCK=block)
    assert isinstance(info.value, kiln.KilnCompileError), info.value
    # Line 9 of the file: 4 lines of header, then the kernel's fifth line.
    assert info.value.line == 9, str(info.value)
    assert message in info.value.message

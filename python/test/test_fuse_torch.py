"""``@kiln.fuse`` on PyTorch CPU tensors: functions of torch operations
traced with PyTorch's semantics (through ``__torch_function__`` and the
tensor methods), run on the host target, against PyTorch eager on the
same tensors."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import kiln  # noqa: E402

from fuse_helpers import raises_at  # noqa: E402

HERE = str(Path(__file__).resolve())


def _inputs(dtype, *shapes, seed=0, positive=False):
    generator = torch.Generator().manual_seed(seed)
    out = []
    for shape in shapes:
        if dtype.is_floating_point:
            t = torch.randn(shape, generator=generator, dtype=torch.float64)
            t = t.abs() + 0.1 if positive else t * 3
        elif dtype == torch.bool:
            t = torch.randint(0, 2, shape, generator=generator) > 0
        else:
            t = torch.randint(-50, 50, shape, generator=generator)
            if positive:
                t = t.abs() + 1
        out.append(t.to(dtype))
    return out


def _same(got, want, exact: bool, what: str = "") -> None:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, torch.Tensor), what
        assert g.dtype == w.dtype and g.shape == w.shape, (what, g, w)
        if exact or not w.dtype.is_floating_point:
            assert torch.equal(g, w), (what, g, w)
        else:
            tolerance = {torch.float16: 2e-3, torch.float32: 1e-5,
                         torch.float64: 1e-13}[w.dtype]
            torch.testing.assert_close(g, w, rtol=tolerance,
                                       atol=tolerance, msg=what)


def _check(fn, *args, exact: bool = False):
    """``kiln.fuse(fn)(*args)`` against ``fn(*args)`` run by PyTorch."""
    _same(kiln.fuse(fn)(*args), fn(*args), exact, getattr(fn, "__name__",
                                                          ""))


# Arithmetic that rounds once in PyTorch's type: bit for bit.
EXACT_BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "radd_scalar": lambda a, b: 2.5 + a,
    "rsub_scalar": lambda a, b: 3 - a,
    "mul_scalar": lambda a, b: a * 0.7978845608,
    "div_scalar": lambda a, b: a / 3,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2),
    "maximum": lambda a, b: torch.maximum(a, b),
    "minimum": lambda a, b: torch.minimum(a, b),
    "where": lambda a, b: torch.where(a > b, a, b),
    "where_scalar": lambda a, b: torch.where(a > 0, a, 0.1),
    "clamp": lambda a, b: torch.clamp(a, -1.5, 2),
    "clamp_min": lambda a, b: a.clamp(min=b),
    "lt": lambda a, b: a < b,
    "ge_scalar": lambda a, b: a >= 0.1,
    "eq": lambda a, b: a == b,
    "ne_scalar": lambda a, b: a != 1,
    "masked_fill": lambda a, b: a.masked_fill(a < b, -7.25),
    "floor_div": lambda a, b: torch.floor_divide(a, b),
    "remainder": lambda a, b: a % b,
    "abs_neg": lambda a, b: -a.abs(),
    "relu": lambda a, b: torch.relu(a) + F.relu(b),
    "floor_ceil": lambda a, b: a.floor() + torch.ceil(b),
    "round_trunc": lambda a, b: torch.round(a) - torch.trunc(b),
    "square": lambda a, b: torch.square(a),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16,
                                   torch.int32])
@pytest.mark.parametrize("name", sorted(EXACT_BINARY))
def test_exact_elementwise(name, dtype):
    fn = EXACT_BINARY[name]
    a, b = _inputs(dtype, (5, 37), (37,), seed=zlib.crc32(name.encode()))
    if dtype != torch.float32 and name in ("floor_div", "remainder"):
        b = torch.where(b == 0, torch.ones_like(b), b)
    if dtype == torch.int32 and name in ("floor_div", "remainder"):
        b = b.abs() + 1
    _check(fn, a, b, exact=True)


def test_float16_scalars_are_float32_in_arithmetic_and_rounded_in_compares():
    """PyTorch multiplies a float16 tensor by a Python float in float32 (its
    opmath) and rounds once; a comparison rounds the scalar to float16. The
    inputs are every float16 in [0.5, 4): kiln.fuse gives PyTorch's bits,
    which rounding the scalar to float16 first would not."""
    x = torch.arange(0x3800, 0x4400, dtype=torch.int16).view(torch.float16)

    def scaled(x):
        return x * 0.7978845608, x < 1.0009765625 * 1.0004

    got = kiln.fuse(scaled)(x)
    _same(got, scaled(x), exact=True)
    rounded_first = x * torch.tensor(0.7978845608, dtype=torch.float16)
    assert not torch.equal(got[0], rounded_first)


def test_result_types_are_pytorchs():
    i = torch.arange(-9, 9, dtype=torch.int32)
    b = i > 0

    def promote(i, b):
        return (i / 2, i + 0.5, i < 2.5, b.sum(), i.sum(), i * 3,
                torch.exp(i), i.float().mean(), b + b)
    got = kiln.fuse(promote)(i, b)
    assert [g.dtype for g in got] == [
        torch.float32, torch.float32, torch.bool, torch.int64, torch.int64,
        torch.int32, torch.float32, torch.float32, torch.bool]
    _same(got, promote(i, b), exact=False)


TRANSCENDENTAL = {
    "exp": lambda x: torch.exp(x),
    "log": lambda x: torch.log(x.abs() + 0.5),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: torch.sigmoid(x),
    "erf": lambda x: torch.erf(x),
    "sqrt": lambda x: x.abs().sqrt(),
    "rsqrt": lambda x: (x.abs() + 1).rsqrt(),
    "sin": lambda x: torch.sin(x),
    "exp2": lambda x: torch.exp2(x),
    "log1p": lambda x: torch.log1p(x.abs()),
    "gelu": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": lambda x: F.silu(x),
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "pow": lambda x: x ** 3 + x.abs() ** 0.5,
    "reciprocal": lambda x: torch.reciprocal(x + 20),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("name", sorted(TRANSCENDENTAL))
def test_unary_functions(name, dtype):
    (x,) = _inputs(dtype, (3, 41), seed=len(name))
    _check(TRANSCENDENTAL[name], x)


REDUCTIONS = {
    "sum": lambda x: (x.sum(), x.sum(dim=1), torch.sum(x, (0, 2),
                                                       keepdim=True)),
    "mean": lambda x: (x.mean(-1), torch.mean(x, dim=(0, 1))),
    "amax_amin": lambda x: (x.amax(dim=-1), torch.amin(x, 0, keepdim=True)),
    "max_dim": lambda x: tuple(x.max(dim=1)) + tuple(torch.min(x, -1, True)),
    "max_full": lambda x: (x.max(), torch.min(x)),
    "argmax": lambda x: (x.argmax(dim=-1), torch.argmin(x, 1, keepdim=True),
                         x.argmax()),
    "var_std": lambda x: (x.var(dim=-1), torch.var(x, 1, False),
                          x.std(dim=(0, 2), correction=0, keepdim=True),
                          torch.std(x)),
    "softmax": lambda x: (x.softmax(-1), F.softmax(x, dim=1),
                          torch.log_softmax(x, dim=-1)),
    "logsumexp": lambda x: torch.logsumexp(x, dim=-1),
    "any_all": lambda x: ((x > 2).any(dim=-1), torch.all(x > -4, 1)),
    "prod": lambda x: ((x / 4 + 1).prod(dim=-1),
                       torch.prod(x.clamp(-1, 1), 0, keepdim=True)),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name, dtype):
    (x,) = _inputs(dtype, (4, 6, 29), seed=len(name))
    _check(REDUCTIONS[name], x)


def test_var_divides_by_n_minus_one_as_pytorch():
    x = torch.tensor([[1.0, 2.0, 4.0]])
    got = kiln.fuse(lambda x: (x.var(dim=1), x.var(dim=1, unbiased=False)))(x)
    assert got[0].item() == pytest.approx(7 / 3)
    assert got[1].item() == pytest.approx(14 / 9)


def test_norms_and_linear():
    x, w, b = _inputs(torch.float32, (6, 48), (48,), (48,), seed=3)
    w1, b1 = _inputs(torch.float32, (32, 48), (32,), seed=4)

    def block(x, w, b, w1, b1):
        h = F.layer_norm(x, (48,), w, b)
        r = F.rms_norm(x, (48,), w, eps=1e-6)
        return F.linear(F.gelu(h), w1, b1), r, x @ w1.T
    _check(block, x, w, b, w1, b1)


def test_float16_layer_norm_and_matmul():
    x, w, b = _inputs(torch.float16, (8, 64), (64,), (64,), seed=5)
    (m,) = _inputs(torch.float16, (64, 16), seed=6)
    _check(lambda x, w, b, m: (F.layer_norm(x, (64,), w, b), x @ m,
                               torch.bmm(x.view(2, 4, 64),
                                         m.expand(2, 64, 16))), x, w, b, m)


def test_shapes_views_and_joins():
    x, y = _inputs(torch.float32, (4, 6, 5), (4, 6, 5), seed=7)

    def shapes(x, y):
        return (x.view(24, 5) * 2, x.reshape(4, -1).t(),
                x.permute(2, 0, 1) + 1, x.transpose(0, 2).contiguous() - 1,
                torch.flatten(x, 1).unsqueeze(0) * 3, x[:, None, 1:3] + 0,
                x[..., 1] * y[0, :, 2], torch.cat([x, y], dim=1) + 1,
                torch.stack([x, y], -1) * 2, x.mT - y.mT,
                x.expand(2, 4, 6, 5) + y, x.to(torch.float16),
                x.double(), x.int(), torch.movedim(x, 0, -1) + 0,
                x.squeeze().sum(0) + y.unsqueeze(1).squeeze(1)[0])
    _check(shapes, x, y, exact=True)


def test_gather_by_an_index_tensor():
    (w,) = _inputs(torch.float32, (10, 7), seed=8)
    ids = torch.tensor([3, 0, 9, 3], dtype=torch.int64)
    _check(lambda w, ids: w[ids] * 2, w, ids, exact=True)


def test_results_are_tensors_and_zero_d_stays_a_tensor():
    (x,) = _inputs(torch.float32, (9,))
    got = kiln.fuse(lambda x: x.sum())(x)
    assert isinstance(got, torch.Tensor) and got.shape == ()


def test_dynamic_strides_are_read():
    (x,) = _inputs(torch.float32, (8, 12))
    _check(lambda x: x * 2, x.t())
    _check(lambda x: x + 1, x[:, ::3])


# Bad input: errors at the user's line, naming what is refused.
def test_unsupported_function_is_refused_at_its_line():
    def cumulative(x):
        return torch.cumsum(x, 0)  # cumsum line
    (x,) = _inputs(torch.float32, (4,))
    raises_at(HERE, kiln.fuse(cumulative), x,
              match=r"torch.cumsum is not supported by kiln.fuse",
              line="# cumsum line")


def test_unsupported_method_is_refused_at_its_line():
    def cumulative(x):
        return x.cumsum(0)  # method line
    (x,) = _inputs(torch.float32, (4,))
    raises_at(HERE, kiln.fuse(cumulative), x,
              match=r"torch.Tensor.cumsum is not supported",
              line="# method line")


def test_pytorchs_own_error_at_the_users_line():
    def mismatched(x, y):
        return x + y  # mismatch line
    x, y = _inputs(torch.float32, (4, 3), (5,))
    raises_at(HERE, kiln.fuse(mismatched), x, y,
              match=r"operator.add: .*broadcast",
              line="# mismatch line")


def test_a_captured_tensor_is_refused():
    (c,) = _inputs(torch.float32, (4,))

    def captured(x):
        return x * c  # captured line
    raises_at(HERE, kiln.fuse(captured), c,
              match="not an argument", line="# captured line")


@pytest.mark.parametrize("make, match", [
    (lambda: torch.zeros(3, dtype=torch.bfloat16), r"torch.bfloat16"),
    (lambda: torch.zeros(3, requires_grad=True), r"requires grad"),
    (lambda: torch.zeros(3, device="meta"), r"on meta"),
    (lambda: torch.zeros(0), r"no elements"),
    (lambda: torch.zeros(3, dtype=torch.complex64), r"complex64"),
])
def test_tensors_it_cannot_take_are_named(make, match):
    with pytest.raises(kiln.KilnError, match=rf"argument 'x'.*{match}"):
        kiln.fuse(lambda x: x + 1)(make())


def test_requires_grad_under_no_grad_is_taken():
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        _same(kiln.fuse(lambda x: x * 2)(x), torch.full((3,), 2.0), True)


def test_numpy_and_torch_mixed_are_refused():
    with pytest.raises(kiln.KilnError,
                       match=r"argument 'y' is a ndarray while 'x' is a "
                             r"torch tensor"):
        kiln.fuse(lambda x, y: x + y)(torch.ones(3), np.ones(3))


def test_values_are_not_known_while_tracing():
    def branches(x):
        if x.sum() > 0:  # branch line
            return x
        return -x
    raises_at(HERE, kiln.fuse(branches), torch.ones(3),
              match="truth value", line="# branch line")


def test_training_dropout_is_refused():
    with pytest.raises(kiln.KilnError, match="random numbers"):
        kiln.fuse(lambda x: F.dropout(x, 0.1))(torch.ones(3))
    _check(lambda x: F.dropout(x, 0.1, training=False) * 2, torch.ones(3),
           exact=True)

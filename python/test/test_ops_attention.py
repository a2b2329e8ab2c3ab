"""kiln.ops.attention: flash attention (the corpus's kernels, forward and
backward) as a function over arrays, and a drop-in for PyTorch's
``scaled_dot_product_attention`` with autograd. Numpy arrays and PyTorch
CPU tensors run on the host target, against numpy in float64 and against
PyTorch's own attention in float32; CUDA tensors where PyTorch sees a
GPU."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import attention_reference
import kiln
import kiln.ops
from test_gpu import torch_cuda

RNG = np.random.default_rng(26)
#: Error of the output or gradients, which meet in the inputs' type.
TOLERANCE = {"float16": 5e-3, "bfloat16": 4e-2}


def normal(shape, dtype):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed")


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16],
                         ids=["float16", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [16, 64])
def test_numpy_arrays_on_the_host(dtype, causal, head_dim):
    q, k, v = (normal((2, 3, 50, head_dim), dtype) for _ in range(3))
    out = kiln.ops.attention(q, k, v, causal=causal)
    want, _ = attention_reference.forward(q, k, v, causal, head_dim ** -0.5)
    assert out.dtype == dtype and out.shape == q.shape
    tolerance = TOLERANCE[np.dtype(dtype).name]
    np.testing.assert_allclose(out.astype(np.float64), want, atol=tolerance,
                               rtol=tolerance)


def test_sm_scale_and_strided_inputs():
    """A given scale is the scores'; inputs that are views of other
    arrays (here one head of every other batch) are taken as copies."""
    base = normal((4, 2, 40, 32), np.float16)
    q, k, v = base[::2], base[1::2], normal((2, 2, 40, 32), np.float16)
    out = kiln.ops.attention(q, k, v, sm_scale=0.7)
    want, _ = attention_reference.forward(q, k, v, False, 0.7)
    np.testing.assert_allclose(out.astype(np.float64), want, atol=5e-3,
                               rtol=5e-3)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_autograd_on_cpu_tensors_against_torch(torch, dtype, causal):
    """Output and gradients of q, k and v against PyTorch's attention in
    float32, on a ragged sequence length."""
    q, k, v = (torch.randn(2, 2, 70, 64, dtype=getattr(torch, dtype),
                           requires_grad=True) for _ in range(3))
    out = kiln.ops.attention(q, k, v, causal=causal)
    assert out.dtype == q.dtype and out.grad_fn is not None
    do = torch.randn_like(out)
    out.backward(do)
    leaves = [t.detach().float().requires_grad_() for t in (q, k, v)]
    want = torch.nn.functional.scaled_dot_product_attention(
        *leaves, is_causal=causal)
    want.backward(do.float())
    tolerance = TOLERANCE[dtype]
    torch.testing.assert_close(out.float(), want, atol=tolerance,
                               rtol=tolerance)
    for name, got, leaf in zip("qkv", (q, k, v), leaves):
        torch.testing.assert_close(got.grad.float(), leaf.grad,
                                   atol=2 * tolerance, rtol=2 * tolerance,
                                   msg=lambda m: f"d{name}: {m}")


def test_without_grad_it_runs_the_forward_alone(torch):
    q, k, v = (torch.randn(1, 1, 20, 32, dtype=torch.float16,
                           requires_grad=True) for _ in range(3))
    with torch.no_grad():
        out = kiln.ops.attention(q, k, v)
    assert out.grad_fn is None and not out.requires_grad


def test_a_drop_in_in_a_model(torch):
    """A self-attention block whose attention is kiln.ops.attention
    trains as the same block on PyTorch's attention: the projections'
    gradients agree."""
    torch.manual_seed(0)

    class Block(torch.nn.Module):
        def __init__(self, attend):
            super().__init__()
            self.qkv = torch.nn.Linear(64, 3 * 64, dtype=torch.float16)
            self.attend = attend

        def forward(self, x):
            batch, sequence, _ = x.shape
            q, k, v = (self.qkv(x).view(batch, sequence, 3, 2, 32)
                       .permute(2, 0, 3, 1, 4))
            return self.attend(q, k, v).transpose(1, 2).reshape(x.shape)

    ours = Block(lambda q, k, v: kiln.ops.attention(q, k, v, causal=True))
    theirs = Block(lambda q, k, v: torch.nn.functional.
                   scaled_dot_product_attention(q.float(), k.float(),
                                                v.float(), is_causal=True)
                   .to(q.dtype))
    theirs.load_state_dict(ours.state_dict())
    x = torch.randn(2, 33, 64, dtype=torch.float16)
    for block in (ours, theirs):
        block(x).float().square().mean().backward()
    torch.testing.assert_close(ours.qkv.weight.grad.float(),
                               theirs.qkv.weight.grad.float(), atol=2e-2,
                               rtol=2e-2)


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_cuda_tensors_against_sdpa(head_dim, causal):
    torch = torch_cuda()
    q, k, v = (torch.randn(2, 3, 1000, head_dim, device="cuda",
                           dtype=torch.float16, requires_grad=True)
               for _ in range(3))
    out = kiln.ops.attention(q, k, v, causal=causal)
    do = torch.randn_like(out)
    out.backward(do)
    leaves = [t.detach().float().requires_grad_() for t in (q, k, v)]
    want = torch.nn.functional.scaled_dot_product_attention(
        *leaves, is_causal=causal)
    want.backward(do.float())
    torch.testing.assert_close(out.float(), want, atol=2e-2, rtol=2e-2)
    for got, leaf in zip((q, k, v), leaves):
        torch.testing.assert_close(got.grad.float(), leaf.grad, atol=5e-2,
                                   rtol=5e-2)


@pytest.mark.parametrize("change, message", [
    (lambda q, k, v: (q, k[:, :, :10], v),
     "attention takes q, k and v of one shape batch x heads x sequence x "
     "head_dim, not (1, 2, 20, 32), (1, 2, 10, 32), (1, 2, 20, 32)"),
    (lambda q, k, v: (q[0], k[0], v[0]),
     "attention takes q, k and v of one shape batch x heads x sequence x "
     "head_dim, not (2, 20, 32), (2, 20, 32), (2, 20, 32)"),
    (lambda q, k, v: (q.astype(np.float32), k.astype(np.float32),
                      v.astype(np.float32)),
     "attention takes q, k and v all float16 or all bfloat16, not float32, "
     "float32, float32"),
    (lambda q, k, v: (q, k, v.astype(ml_dtypes.bfloat16)),
     "attention takes q, k and v all float16 or all bfloat16, not float16, "
     "float16, bfloat16"),
    (lambda q, k, v: (q[..., :24], k[..., :24], v[..., :24]),
     "attention takes head dims (16, 32, 64, 128, 256), not 24"),
])
def test_what_the_kernels_do_not_take_is_refused_by_name(change, message):
    q, k, v = change(*(normal((1, 2, 20, 32), np.float16)
                       for _ in range(3)))
    with pytest.raises(kiln.KilnError, match="^" + re.escape(message) + "$"):
        kiln.ops.attention(q, k, v)


def test_a_scale_that_is_not_finite_is_refused():
    q = normal((1, 1, 8, 16), np.float16)
    with pytest.raises(kiln.KilnError, match="sm_scale must be finite"):
        kiln.ops.attention(q, q, q, sm_scale=float("nan"))

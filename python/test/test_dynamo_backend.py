"""``torch.compile(..., backend=kiln.dynamo_backend)`` on the CPU: the
partitions kiln.fuse covers run as fused plans, the rest eagerly, with
the results of PyTorch eager."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import kiln  # noqa: E402
import kiln.dynamo  # noqa: E402


@pytest.fixture
def partitions(monkeypatch):
    """The partitions that ran: (signatures traced, why eager)."""
    ran = {}
    partition = kiln.dynamo.fused_partition_type()
    forward = partition.forward

    def recording(self, *args):
        result = forward(self, *args)
        ran[id(self)] = (len(self.fused._traces), self.refused)
        return result
    monkeypatch.setattr(partition, "forward", recording)
    torch._dynamo.reset()
    yield ran
    torch._dynamo.reset()


def _compiled(model):
    return torch.compile(model, backend=kiln.dynamo_backend)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(24, 64), nn.Linear(64, 24)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class NormBlock(nn.Module):
    """A transformer block's chains: pre-norm, residual, activation,
    RMS norm, dropout in eval."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.up, self.down = nn.Linear(32, 64), nn.Linear(64, 32)
        self.scale = nn.Parameter(torch.linspace(0.5, 1.5, 32))
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        h = x + self.drop(self.down(F.silu(self.up(self.norm(x)))))
        h = F.rms_norm(h, (32,), self.scale, eps=1e-6)
        return torch.softmax(h * 0.125, dim=-1) + h


@pytest.mark.parametrize("model, shape", [(MLP, (8, 24)),
                                          (NormBlock, (2, 5, 32))])
def test_models_match_eager(model, shape, partitions):
    torch.manual_seed(0)
    m = model().eval()
    x = torch.randn(shape)
    with torch.no_grad():
        want = m(x)
        got = _compiled(m)(x)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert partitions and all(traced == 1 and refused is None
                              for traced, refused in partitions.values())


def test_uncovered_ops_run_eagerly_between_plans(partitions):
    def program(x, y):
        h = torch.tanh(x * 2 + y)
        h = torch.cumsum(h, dim=-1)  # not covered: runs eagerly
        return (h - h.mean(-1, keepdim=True)).sigmoid()
    x, y = torch.randn(6, 20), torch.randn(20)
    torch.testing.assert_close(_compiled(program)(x, y), program(x, y),
                               rtol=1e-6, atol=1e-6)
    assert len(partitions) == 2  # before and after the cumsum


def test_graph_breaks(partitions):
    def program(x):
        h = torch.exp(x) - 1
        print("a graph break", end="\r")
        if h.sum() > 0:  # data-dependent: another break
            return F.relu(h) * 3
        return h.abs() / 2
    for sign in (1, -1):
        x = sign * torch.rand(4, 9)
        torch.testing.assert_close(_compiled(program)(x), program(x),
                                   rtol=1e-6, atol=1e-6)
    assert len(partitions) >= 2


def test_training_runs_eagerly_with_gradients(partitions):
    torch.manual_seed(1)
    m = MLP()
    x = torch.randn(4, 24)
    compiled = _compiled(m)
    loss = compiled(x).square().sum()
    loss.backward()
    got = m.fc1.weight.grad.clone()
    m.zero_grad()
    m(x).square().sum().backward()
    torch.testing.assert_close(got, m.fc1.weight.grad)
    assert all(traced == 0 for traced, _ in partitions.values())


def test_a_partition_kiln_cannot_trace_warns_and_runs_eagerly(partitions):
    def program(x, y):
        return torch.pow(x.abs() + 1, y) * 2  # a tensor exponent
    x, y = torch.randn(5, 7), torch.randn(5, 7)
    with pytest.warns(UserWarning, match=r"kiln.dynamo_backend: fused_0 "
                      r"runs eagerly:.*tensor exponent"):
        got = _compiled(program)(x, y)
    torch.testing.assert_close(got, program(x, y))
    assert list(partitions.values())[0][1] is not None


def test_unsupported_dtypes_run_eagerly(partitions):
    def program(x):
        return torch.exp(x) * 2
    x = torch.randn(6, dtype=torch.bfloat16)
    torch.testing.assert_close(_compiled(program)(x), program(x))
    assert not partitions


def test_float16_chain(partitions):
    def program(x, w):
        return F.gelu(x @ w) * 0.5 + x.sum(-1, keepdim=True)
    x = torch.randn(16, 32).half()
    w = (torch.randn(32, 32) / 8).half()
    torch.testing.assert_close(_compiled(program)(x, w), program(x, w),
                               rtol=2e-3, atol=2e-3)
    assert partitions

"""Attention in float64 numpy: what the flash-attention kernels
(kiln/ops/flash_attention.py) compute, forward and backward."""

from __future__ import annotations

import numpy as np


def _probabilities(q, k, causal, sm_scale):
    """The softmax of the scaled scores, and their maxima and sums."""
    scores = q @ np.swapaxes(k, -1, -2) * sm_scale
    if causal:
        n = q.shape[2]
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - top)
    total = e.sum(axis=-1, keepdims=True)
    return e / total, top, total


def forward(q, k, v, causal, sm_scale):
    """``(out, lse2)``: the attention and each query's log-sum-exp of its
    scaled scores in base 2."""
    q, k, v = (np.asarray(t, np.float64) for t in (q, k, v))
    p, top, total = _probabilities(q, k, causal, sm_scale)
    return p @ v, (top + np.log(total))[..., 0] / np.log(2)


def backward(q, k, v, do, causal, sm_scale):
    """``(dq, dk, dv)`` of the attention given ``do``."""
    q, k, v, do = (np.asarray(t, np.float64) for t in (q, k, v, do))
    p, _, _ = _probabilities(q, k, causal, sm_scale)
    dv = np.swapaxes(p, -1, -2) @ do
    dp = do @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))
    return ds @ k * sm_scale, np.swapaxes(ds, -1, -2) @ q * sm_scale, dv

"""Cross-entropy forward over a large vocabulary, in the form of
Liger-Kernel's ``liger_cross_entropy_kernel``: one program per row, the
row's target loaded first, then an online logsumexp over column blocks
(a running max ``m`` and a running sum ``d`` rescaled by ``exp(m -
m_new)``), so a 128k vocabulary never has to fit one block; the loss is
``lse - x[target]``, and 0 for rows whose target is ``ignore_index``."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def cross_entropy_fwd_kernel(X_ptr, X_stride, Y_ptr, Y_stride, loss_ptr,
                             loss_stride, n_cols, ignore_index,
                             BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    Y_ptr += program_id * Y_stride
    y = tl.load(Y_ptr)
    X_ptr += program_id * X_stride
    loss_ptr += program_id * loss_stride
    if y == ignore_index:
        tl.store(loss_ptr, 0.0)
        return

    m = float("-inf")
    d = 0.0
    ori_X_y = tl.load(X_ptr + y).to(tl.float32)
    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols,
                          other=float("-inf")).to(tl.float32)
        block_max = tl.max(X_block)
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(X_block - m_new))
        m = m_new
    lse = m + tl.log(d)
    loss = lse - ori_X_y
    tl.store(loss_ptr, loss)


MAX_FUSED_SIZE = 65536 // 2


def cross_entropy(logits, target, ignore_index=-100, block_size=None,
                  num_warps=32):
    """Per-row ``logsumexp(logits[i]) - logits[i, target[i]]``; the block
    is the vocabulary rounded up to a power of 2, at most 32k columns."""
    n_rows, n_cols = logits.shape
    BLOCK_SIZE = block_size or min(MAX_FUSED_SIZE,
                                   triton.next_power_of_2(n_cols))
    loss = np.empty(n_rows, dtype=np.float32)
    cross_entropy_fwd_kernel[(n_rows,)](
        logits, logits.strides[0] // logits.itemsize, target,
        target.strides[0] // target.itemsize, loss, 1, n_cols, ignore_index,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return loss


def reference(logits, target, ignore_index=-100):
    x = logits.astype(np.float64)
    m = x.max(axis=1)
    lse = m + np.log(np.exp(x - m[:, None]).sum(axis=1))
    keep = target != ignore_index
    picked = x[np.arange(len(x)), np.where(keep, target, 0)]
    return np.where(keep, lse - picked, 0.0)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    logits = (rng.standard_normal((64, 32000)) * 4).astype(np.float32)
    target = rng.integers(0, 32000, 64).astype(np.int64)
    target[3] = -100
    triton.testing.assert_close(cross_entropy(logits, target, block_size=4096),
                                reference(logits, target), atol=1e-4,
                                rtol=1e-5)
    print("cross_entropy: ok")

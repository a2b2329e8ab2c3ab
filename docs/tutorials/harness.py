"""Where the tutorials run and how they report, so each tutorial shows only
its kernel and its reference.

Every tutorial runs its kernels on the host target with numpy arrays and,
when PyTorch is installed and sees a GPU, on the GPU with CUDA tensors made
from the same numpy inputs. Each result is checked against a float64 numpy
reference, the checks are printed as a table, and a failed check makes the
script exit non-zero.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


class Target:
    """A place to run kernels: ``put`` turns a numpy array into an array
    there, ``get`` turns one back (waiting for the device's work)."""

    def __init__(self, name: str, put: Callable[[np.ndarray], Any],
                 get: Callable[[Any], np.ndarray]) -> None:
        self.name, self.put, self.get = name, put, get


def targets() -> list[Target]:
    """The host target, then the GPU when PyTorch sees one."""
    found = [Target("host", np.asarray, np.asarray)]
    try:
        import torch
    except ImportError:
        print("gpu: not run (PyTorch is not installed)")
        return found
    if not torch.cuda.is_available():
        print("gpu: not run (PyTorch sees no GPU)")
        return found

    def get(tensor) -> np.ndarray:
        torch.cuda.synchronize()  # launches are asynchronous
        return tensor.cpu().numpy()

    found.append(Target("gpu", lambda a: torch.from_numpy(a).cuda(), get))
    return found


def empty_like(a: Any, shape: tuple[int, ...] | None = None,
               dtype: np.dtype | None = None) -> Any:
    """An uninitialised contiguous array beside ``a`` (numpy or CUDA)."""
    shape = tuple(a.shape) if shape is None else shape
    if isinstance(a, np.ndarray):
        return np.empty(shape, dtype or a.dtype)
    import torch
    torch_dtype = a.dtype if dtype is None else getattr(
        torch, np.dtype(dtype).name)
    return a.new_empty(shape, dtype=torch_dtype)


def stride(a: Any, dim: int) -> int:
    """The stride of ``a`` along ``dim`` in elements, as kernels take it."""
    if isinstance(a, np.ndarray):
        return a.strides[dim] // a.itemsize
    return a.stride(dim)


class Report:
    """The checks of one tutorial, printed as a table by ``finish``."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def check(self, kernel: str, dtype: Any, size: str, where: str,
              out: np.ndarray, reference: np.ndarray, bound: Any) -> None:
        """Records whether ``|out - reference| <= bound`` everywhere
        (``bound`` a number or an array shaped like ``reference``)."""
        error = np.abs(np.asarray(out, np.float64) - reference)
        bound = np.broadcast_to(np.asarray(bound, np.float64), error.shape)
        ok = bool(np.all(error <= bound))  # False for any NaN too
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(error == 0, 0.0, error / bound)
        ratio = np.nan_to_num(ratio, nan=np.inf)  # a NaN result
        self.rows.append((kernel, np.dtype(dtype).name, size,
                          f"{error.max():.2e}", f"{ratio.max():.3g}",
                          where, "ok" if ok else "FAILED"))

    def finish(self) -> None:
        """Prints the table; fails (exit status 1) if a check failed."""
        header = ("kernel", "dtype", "size", "max error", "error/bound",
                  "where", "check")
        widths = [max(len(str(r[i])) for r in [header, *self.rows])
                  for i in range(len(header))]
        for row in [header, *self.rows]:
            print("  ".join(str(c).ljust(w)
                            for c, w in zip(row, widths)).rstrip())
        failed = sum(row[-1] != "ok" for row in self.rows)
        total = len(self.rows)
        if failed:
            print(f"{failed} of {total} checks FAILED")
        else:
            print(f"{total} of {total} checks passed")
        assert total and not failed, f"{failed} of {total} checks failed"

"""bench/corpus/timing.py without a GPU or PyTorch: every corpus case has
a launch whose arguments are exactly its kernel's parameters (with the
case's meta-parameters), whose grid is a grid and whose outputs are
arguments, built against a stand-in for the torch calls that make
tensors; and the table it writes."""

from __future__ import annotations

import itertools
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "bench" / "corpus"), str(ROOT / "bench")]

import compare  # noqa: E402
import timing  # noqa: E402
from isa_cases import CASES  # noqa: E402

_addresses = itertools.count(1 << 20, 1 << 20)


class Tensor:
    """A tensor's shape, contiguous strides and an address; any other
    method (cos, float, mean, ...) or arithmetic gives a tensor of the same
    shape, as the launches only describe tensors."""

    def __init__(self, *shape):
        self.shape = tuple(shape[0] if shape and isinstance(shape[0], tuple)
                           else shape)
        self.address = next(_addresses)

    def stride(self, dim: int) -> int:
        stride = 1
        for size in self.shape[dim + 1:]:
            stride *= size
        return stride

    def data_ptr(self) -> int:
        return self.address

    @property
    def T(self) -> "Tensor":
        return Tensor(self.shape[::-1])

    def __iter__(self):
        return (Tensor(self.shape[1:]) for _ in range(self.shape[0]))

    def __getattr__(self, name):
        return lambda *args, **kwargs: Tensor(self.shape)

    def _same(self, *other):
        return Tensor(self.shape)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __matmul__ = _same


def _tensor(*shape, **options):
    return Tensor(*shape)


def _like(other, **options):
    return Tensor(other.shape)


def _randint(low, high, shape, **options):
    return Tensor(shape)


def _from_data(data, **options):
    if data and isinstance(data[0], list):
        return Tensor(len(data), len(data[0]))
    return Tensor(len(data))


FAKE_TORCH = types.SimpleNamespace(
    randn=_tensor, rand=_tensor, empty=_tensor, zeros=_tensor, ones=_tensor,
    empty_like=_like, randint=_randint, tensor=_from_data,
    logsumexp=lambda t, dim: Tensor(t.shape[:-1]),
    float16="float16", float32="float32", int8="int8", int32="int32",
    float8_e5m2="float8_e5m2", float8_e4m3fn="float8_e4m3fn", int64="int64",
    bool="bool",
    nn=types.SimpleNamespace(functional=types.SimpleNamespace(
        scaled_dot_product_attention=lambda q, *args, **kwargs: _like(q))),
    cuda=types.SimpleNamespace(get_device_properties=lambda ordinal:
                               types.SimpleNamespace(
                                   multi_processor_count=132)))


@pytest.mark.parametrize("case", list(CASES))
def test_every_case_launches_its_kernel_with_its_parameters(case):
    spec = CASES[case]
    launch = timing.make_launch(FAKE_TORCH, case)
    kernel = getattr(compare.load_kiln(spec.module), spec.kernel)
    described = set()
    if launch.describe:
        # The compiler's copy of the file makes its own descriptors.
        module = types.SimpleNamespace(
            descriptors=lambda *args: tuple(
                a for a in args if not isinstance(a, int)))
        described = set(launch.describe(module))
    given = set(launch.args) | described | set(spec.constexprs)
    # A parameter named like a launch option takes the option's value.
    parameters = set(kernel.signature.parameters) - {"num_stages"}
    assert given == parameters, case
    assert all(isinstance(n, int) and n > 0 for n in launch.grid)
    assert len(launch.grid) in (1, 2, 3)
    for name in launch.outputs:
        assert name in launch.args or name in launch.written
    unit, work = launch.work
    assert unit in ("GB/s", "TFLOP/s") and work > 0


def test_the_table():
    rows = [
        {"kernel": "matmul", "unit": "TFLOP/s", "work": 2 * 4096 ** 3,
         "kiln_s": 250e-6, "triton_s": 200e-6, "torch_s": 180e-6,
         "matches_triton": True, "max_difference": 0.01},
        {"kernel": "softmax", "unit": "GB/s", "work": 8e9, "kiln_s": 2e-3,
         "triton_error": "out of resources", "torch_s": 2.5e-3},
        {"kernel": "rotary", "unit": "GB/s", "work": 4e9, "kiln_s": 1e-3,
         "triton_s": 1e-3, "torch_s": 3e-3, "matches_triton": False,
         "max_difference": 0.5},
    ]
    lines = timing.table(rows)
    assert lines[3] == ("| matmul | 250.0 | 200.0 | 180.0 | 550 TFLOP/s | "
                        "0.80 | 0.72 | yes |")
    assert lines[4] == ("| softmax | 2000.0 | failed | 2500.0 | 4000 GB/s "
                        "|  | 1.25 |  |")
    assert lines[5].endswith("| 1.00 | 3.00 | no (max difference 0.5) |")
    assert lines[-1] == "- softmax, triton: out of resources"

"""The cache-hit launch path of @kiln.jit on the GPU (the extension
kiln._launch, configured by kiln.launch_keys): a key that specializes
exactly as the full path does, and repeated launches that pass each
launch's own arguments (checked against the stand-in driver here;
test_gpu.py checks the numbers on a GPU)."""

from __future__ import annotations

import ctypes
import shutil

import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln import launch_keys
from kiln.jit import LAUNCH_OPTIONS
from test_gpu import FakeDeviceArray, TorchBfloat16Like, needs_stand_in, \
    run_python


@kiln.jit
def one_argument(x):
    pass


def read(value):
    """What the extension reads of ``value`` as a kernel's only argument:
    its share of the key and the value the kernel receives, or None."""
    reading = one_argument._dispatcher.read((value,), {})
    return None if reading is None else (
        reading[0][len(LAUNCH_OPTIONS) + 1], reading[1][0])


class TorchLike:
    """What launch_keys reads of a PyTorch tensor: its address and dtype
    as attributes, no __cuda_array_interface__ needed after the first."""

    def __init__(self, address: int, dtype: str, device: int = 0,
                 elements: int = 4, requires_grad: bool = False):
        self.address, self.dtype, self.device = address, dtype, device
        self.is_cuda = device >= 0  # -1: a CPU tensor
        self.elements, self.requires_grad = elements, requires_grad
        self.interface_reads = 0

    def data_ptr(self) -> int:
        return self.address

    def get_device(self) -> int:
        return self.device

    def numel(self) -> int:
        return self.elements

    @property
    def __cuda_array_interface__(self) -> dict:
        # PyTorch's rules: no interface for a tensor that needs grad, and
        # address 0 for an empty one.
        if self.requires_grad:
            raise RuntimeError("Can't get __cuda_array_interface__ on "
                               "Variable that requires grad.")
        self.interface_reads += 1
        typestr = {"torch.float32": "<f4", "torch.float16": "<f2",
                   "torch.bfloat16": "<V2", "torch.int64": "<i8"}[self.dtype]
        return {"shape": (self.elements,), "typestr": typestr,
                "data": (self.address if self.elements else 0, False),
                "version": 3}


def arguments() -> list:
    """Values of every kind launch_keys reads, near each boundary that
    changes a specialization."""
    numbers = [0, 1, 2, 15, 16, 32, -16, -1, 2**31 - 1, 2**31, -2**31,
               -2**31 - 1, 2**40, 2**63 - 1, -2**63, 0.0, -0.0, 1.0, 2.5,
               True, False]
    arrays = [FakeDeviceArray(np.zeros(8, dtype)[offset:])
              for dtype in (np.float32, np.float16, np.int64, np.int8)
              for offset in (0, 1)]
    torch_like = [TorchLike(address, dtype) for address in (4096, 4100)
                  for dtype in ("torch.float32", "torch.bfloat16",
                                "torch.int64")]
    return numbers + arrays + torch_like + [TorchBfloat16Like()]


def test_a_key_is_the_type_the_full_path_specializes_to():
    """An argument's share of the key is the kernel argument type
    JITFunction.specialize gives it: one key is one specialization, and
    arguments that specialize apart never share a key."""
    kinds = set()
    for value in arguments():
        reading = read(value)
        assert reading is not None, value
        types, _ = one_argument.specialize(one_argument.bind((value,), {}))
        assert reading[0] == launch_keys.token(types["x"]), value
        kinds.add(types["x"])
    # The boundaries: 1, multiples of 16, i32 and i64, alignment, bf16.
    assert len(kinds) >= 15


def test_the_value_passed_is_the_address_or_the_number():
    array = FakeDeviceArray(np.zeros(4, np.float32))
    assert read(array)[1] == array.array.ctypes.data
    assert read(TorchLike(4096, "torch.float32"))[1] == 4096
    for number in (7, 2**40, 2.5, True):
        value = read(number)[1]
        assert value == number and type(value) is type(number)


def test_a_tensors_interface_is_read_once_per_dtype():
    first, second = (TorchLike(4096, "torch.float16") for _ in range(2))
    read(first)
    read(second)
    read(second)
    assert first.interface_reads + second.interface_reads <= 1


@pytest.mark.parametrize("value", [
    2**63, -2**63 - 1,  # uint64, or no type: the full path decides
    TorchLike(4100, "torch.float32", elements=0),  # its interface says 0
    np.float32(1.0), np.int32(3), np.zeros(3),  # numpy: the host or checks
    TorchLike(4096, "torch.float32", device=-1),  # a CPU tensor
    "text", None, object()])
def test_what_only_the_full_path_can_tell_has_no_key(value):
    assert read(value) is None


class TensorMap(ctypes.Structure):
    """FakeCudaDriver.c's FakeTensorMap, in its 56 bytes."""
    _fields_ = [("magic", ctypes.c_char * 8), ("words", ctypes.c_ulonglong * 4),
                ("ints", ctypes.c_int * 4)]


class Launch(ctypes.Structure):
    """The stand-in driver's record of the last launch (FakeCudaDriver.c's
    FakeLaunch)."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared", ctypes.c_uint), ("max_shared", ctypes.c_int),
                ("args", ctypes.c_void_p), ("maps", ctypes.c_int),
                ("map", TensorMap * 4), ("params", ctypes.c_int),
                ("values", ctypes.c_ulonglong * 16),
                ("stream", ctypes.c_void_p)]


@kiln.jit
def scaled(x_ptr, n, scale, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) * scale,
             mask=mask)


LAUNCHES = """
    import ctypes
    import numpy as np
    import kiln
    import kiln.gpu
    from test_gpu import FAKE, FakeDeviceArray
    from test_launch_keys import Launch, scaled as kernel

    fake = ctypes.CDLL(str(FAKE))

    last = fake.fakeCudaLastLaunch
    last.restype = ctypes.POINTER(Launch)

    def report(what):
        launch = last().contents
        address, n, scale = launch.values[:3]
        scale = ctypes.c_float.from_buffer(ctypes.c_uint32(scale)).value
        print(what, fake.fakeCudaLaunchCount(), list(launch.grid),
              launch.params, addresses.index(address), n, scale,
              len(kernel._launchers), len(kernel._gpu_cache))

    xs = [FakeDeviceArray(np.zeros(64, np.float32)) for _ in range(3)]
    addresses = [x.array.ctypes.data for x in xs]
    kernel[(1,)](xs[0], 10, 2.0, BLOCK=16)
    report("first")
    kernel[lambda meta: (meta["n"] // meta["BLOCK"],)](xs[1], 50, 0.5,
                                                       BLOCK=16)
    report("hit")
    kernel[(2, 1)](x_ptr=xs[2], n=20, scale=3.0, BLOCK=16)
    report("keywords")
    kernel[(0,)](xs[0], 10, 2.0, BLOCK=16)
    print("empty grid", fake.fakeCudaLaunchCount())
    kernel[(1,)](xs[0], 10, 2.0, BLOCK=32)
    report("other constexpr")
    kernel[(1,)](xs[1], 1, 2.0, BLOCK=16)
    report("n == 1")
    kernel[(1,)](xs[0], 10, 2.0, BLOCK=16, num_warps=8)
    report("other num_warps")
    for bad in ((-1,), (1, 2, 3, 4), (2**32 + 5,)):
        try:
            kernel[bad](xs[0], 10, 2.0, BLOCK=16)
        except kiln.KilnError as error:
            print("refused:", error)
    try:
        kernel[(1,)](xs[0], 2**64, 2.0, BLOCK=16)
    except kiln.KilnError as error:
        print("refused:", error)
    host = np.ones(16, np.float32)
    kernel[(1,)](host, 16, 3.0, BLOCK=16)
    print("host", host[:2], len(kernel._launchers))
"""


@needs_stand_in
def test_repeated_launches_pass_their_own_arguments():
    result = run_python(LAUNCHES)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # what, launches, grid, parameters, which array, n, scale, launchers,
    # compiled specializations.
    assert lines[:3] == ["first 1 [1, 1, 1] 3 0 10 2.0 1 1",
                         "hit 2 [3, 1, 1] 3 1 50 0.5 1 1",
                         "keywords 3 [2, 1, 1] 3 2 20 3.0 1 1"]
    assert lines[3] == "empty grid 3"
    assert lines[4:7] == ["other constexpr 4 [1, 1, 1] 3 0 10 2.0 2 2",
                          "n == 1 5 [1, 1, 1] 3 1 1 2.0 3 3",
                          "other num_warps 6 [1, 1, 1] 3 0 10 2.0 4 4"]
    for line in lines[7:10]:  # on the cache-hit path: no size wraps
        assert line.startswith("refused: grid must be 1 to 3 integer sizes")
    assert "does not fit in i64" in lines[10]
    assert lines[11] == "host [3. 3.] 4"


@kiln.jit
def constexpr_kernel(x, FLAG: kl.constexpr):
    pass


def test_constexprs_key_as_the_full_path_keys_them():
    """0.0 and -0.0 are equal but compile apart; kl.constexpr wrappers are
    their values."""
    read = constexpr_kernel._dispatcher.read
    keys = {read((1,), {"FLAG": flag})[0]
            for flag in (0.0, -0.0, kl.constexpr(-0.0))}
    assert len(keys) == 2
    assert read((1,), {}) is None  # missing
    assert read((1,), {"FLAG": 1, "other": 2}) is None
    assert read((1,), {"FLAG": 1, "x": 2}) is None  # given twice
    assert read((1, 2, 3), {}) is None  # too many
    # run() checks these
    assert read((1,), {"FLAG": 1, "num_warps": 4.0}) is None
    assert read((1,), {"FLAG": 1, "enable_fp_fusion": "yes"}) is None


class OnAnotherGpu(FakeDeviceArray):
    """A CuPy-like array on GPU 1 (``device.id``)."""

    class device:
        id = 1


def _on_gpu(kind: str, ordinal: int):
    """An array of `kind` on GPU `ordinal`."""
    if kind == "torch":
        return TorchLike(4096, "torch.float32", device=ordinal)
    if kind == "cupy":
        array = OnAnotherGpu(np.zeros(4, np.float32))
        array.device = type("device", (), {"id": ordinal})
        return array
    from test_gpu import DLPackCudaArray
    array = DLPackCudaArray(np.zeros(4, np.float32))
    array._tensor.device.device_id = ordinal
    return kiln.dlpack.adapt(array)


@pytest.mark.parametrize("kind", ["torch", "cupy", "dlpack"])
def test_an_array_on_another_gpu_is_keyed_with_its_gpu(kind):
    # A launch runs on its arrays' GPU (test_multi_gpu.py): the same array
    # on GPU 0 and on GPU 1 are two keys.
    on_0, on_1 = (read(_on_gpu(kind, d))[0] for d in (0, 1))
    assert on_1 == launch_keys.on_device(on_0, 1) != on_0


STREAMS = """
    import ctypes
    import sys
    import types
    import numpy as np
    from test_gpu import FAKE, FakeDeviceArray
    from test_launch_keys import Launch, scaled

    last = ctypes.CDLL(str(FAKE)).fakeCudaLastLaunch
    last.restype = ctypes.POINTER(Launch)
    x = FakeDeviceArray(np.zeros(64, np.float32))
    scaled[(1,)](x, 10, 2.0, BLOCK=16)
    print("no torch", last().contents.stream)
    # PyTorch's current stream, as its C function gives it.
    torch = types.ModuleType("torch")
    torch._C = types.SimpleNamespace(
        _cuda_getCurrentRawStream=lambda ordinal: 0x5000 + ordinal)
    sys.modules["torch"] = torch
    scaled[(1,)](x, 10, 2.0, BLOCK=16)  # the cache-hit path
    print("hit", hex(last().contents.stream))
    scaled[(1,)](x, 10, 2.0, BLOCK=32)  # the full path
    print("full", hex(last().contents.stream))
"""


@needs_stand_in
def test_launches_go_to_pytorchs_current_stream():
    result = run_python(STREAMS)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:3] == [
        "no torch None", "hit 0x5000", "full 0x5000"]


def test_a_tensor_that_needs_grad_is_read_as_its_data():
    """As Triton reads its address (a layer norm's weight, an
    nn.Parameter, inside an autograd Function); PyTorch gives no interface
    of it, and Kiln refused it."""
    tensor = TorchLike(4096, "torch.float32", requires_grad=True)
    assert read(tensor) == (read(TorchLike(4096, "torch.float32"))[0], 4096)


class Wrapper:
    """An array type that delegates to what it wraps: its objects differ in
    what they offer."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_objects_of_one_type_that_differ_take_the_full_path():
    assert read(Wrapper(TorchLike(4096, "torch.float32")))
    # The reader chosen for Wrapper expects a tensor; this one is not.
    assert read(Wrapper(FakeDeviceArray(np.zeros(4)))) is None


class SameRepr:
    def __repr__(self) -> str:
        return "SameRepr()"


def test_constexprs_that_print_alike_key_apart():
    """A function passed as a constexpr is its own key (and kept alive by
    it), not its repr, which a later object can share."""
    first, second = SameRepr(), SameRepr()
    assert launch_keys.constant_key(first) != launch_keys.constant_key(second)
    assert launch_keys.constant_key(first) == launch_keys.constant_key(first)
    assert launch_keys.constant_key(float("nan")) == \
        launch_keys.constant_key(float("nan"))
    assert launch_keys.constant_key((0.0, 1)) != \
        launch_keys.constant_key((-0.0, 1))
    big = np.arange(5000)
    changed = big.copy()
    changed[2500] = -1  # beyond what repr shows
    assert launch_keys.constant_key(big) != launch_keys.constant_key(changed)


def test_grids_of_numpy_integers():
    assert scaled._grid(np.int64(3), dict) == (3,)
    assert scaled._grid(lambda meta: np.int32(2), dict) == (2,)


REGISTRATION = """
    import numpy as np
    import kiln.launch_keys
    from kiln.frontend.ir import Type
    from test_gpu import FakeDeviceArray
    from test_launch_keys import scaled

    # A reading that disagrees with what the full path specializes (it
    # says aligned; the array is not) must not be registered.
    kiln.launch_keys._pointer_token = lambda element, aligned: \
        kiln.launch_keys.token(Type((), f"!tile.ptr<{element}>", 16))
    x = FakeDeviceArray(np.zeros(65, np.float32)[1:])
    scaled[(1,)](x, 10, 2.0, BLOCK=16)
    print(len(scaled._gpu_cache), len(scaled._launchers))
"""


@needs_stand_in
def test_a_key_the_full_path_disagrees_with_is_not_registered():
    result = run_python(REGISTRATION)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "0"]


def test_the_stream_is_pytorchs_where_pytorch_has_cuda(monkeypatch):
    import sys
    import types
    from kiln.gpu import current_stream
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert current_stream() == 0
    torch = types.ModuleType("torch")
    monkeypatch.setitem(sys.modules, "torch", torch)
    assert current_stream() == 0  # a PyTorch built without CUDA

    def no_driver(ordinal):
        raise RuntimeError("Found no NVIDIA driver on your system")
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=no_driver)
    assert current_stream() == 0
    torch._C._cuda_getCurrentRawStream = lambda ordinal: 0x7000 + ordinal
    assert current_stream() == 0x7000 and current_stream(1) == 0x7001


@kiln.jit
def half_scalar(x_ptr, h, n):
    offsets = kl.arange(0, 16)
    kl.store(x_ptr + offsets, kl.zeros((16,), kl.float32) + h.to(kl.float32),
             mask=offsets < n)


WIDTHS = """
    import ctypes
    import numpy as np
    from test_gpu import FAKE, FakeDeviceArray
    from test_launch_keys import Launch, half_scalar

    last = ctypes.CDLL(str(FAKE)).fakeCudaLastLaunch
    last.restype = ctypes.POINTER(Launch)
    x = FakeDeviceArray(np.zeros(16, np.float32))
    half_scalar[(1,)](x, np.float16(1.0), 7)
    launch = last().contents
    print(launch.params, hex(launch.values[1]), launch.values[2])
"""


@needs_stand_in
def test_the_stand_in_records_each_parameter_at_its_width():
    """An f16 scalar is a 2-byte parameter (".b8 name[2]" in the PTX)."""
    result = run_python(WIDTHS)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["3", "0x3c00", "7"]


def test_scalars_that_are_not_numbers_are_refused_by_name():
    from kiln.arguments import scalar_value
    for value, type_text, message in [
            (None, "i32", "must be a number, not NoneType"),
            ("1.5", "f32", "must be a number, not str"),
            (float("nan"), "i32", "nan does not fit in i32"),
            (float("inf"), "i64", "inf does not fit in i64")]:
        with pytest.raises(kiln.KilnError, match=message):
            scalar_value("argument 2", type_text, value)
    assert scalar_value("x", "f32", float("inf")) == float("inf")
    assert scalar_value("x", "f16", 1.0) == 0x3C00


class Sparse(TorchLike):
    """A tensor with no address, as a sparse PyTorch tensor."""

    def data_ptr(self) -> int:
        raise RuntimeError("Cannot access data pointer of Tensor that "
                           "doesn't have storage")


def test_a_tensor_without_an_address_takes_the_full_path():
    read(TorchLike(4096, "torch.float32"))  # the dtype is known
    assert read(Sparse(4096, "torch.float32")) is None


class NativeTensor:
    """A PyTorch-like CUDA tensor whose methods are C functions, as
    PyTorch's are: a cache-hit launch of it runs no Python code."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array  # the stand-in's "device" memory
        self.is_cuda, self.requires_grad = True, False
        self.dtype = "torch.float32"
        self.data_ptr = array.ctypes.data.__int__
        self.numel = array.size.__int__
        self.get_device = (0).__int__
        self.__cuda_array_interface__ = {
            "data": (array.ctypes.data, False), "shape": array.shape,
            "typestr": array.dtype.str, "version": 3}


NO_PYTHON = """
    import ctypes
    import sys
    import numpy as np
    from test_gpu import FAKE
    from test_launch_keys import Launch, NativeTensor, scaled

    fake = ctypes.CDLL(str(FAKE))
    x = NativeTensor(np.zeros(64, np.float32))
    scaled[(1,)](x, 10, 2.0, BLOCK=16)  # compiles, registers
    calls = []
    bound = scaled[(2,)]
    sys.setprofile(lambda frame, event, arg: calls.append(
        frame.f_code.co_name) if event == "call" else None)
    bound(x, 20, 3.0, BLOCK=16)
    sys.setprofile(None)
    print(calls, fake.fakeCudaLaunchCount(), len(scaled._launchers))
    # Triton's launch options, those that change the code and those that
    # do not, on the cache-hit path too.
    options = dict(num_warps=8, maxnreg=64, enable_fp_fusion=False,
                   num_ctas=1, launch_pdl=True, launch_cooperative_grid=False)
    scaled[(1,)](x, 10, 2.0, BLOCK=16, **options)  # compiles, registers
    calls.clear()
    sys.setprofile(lambda frame, event, arg: calls.append(
        frame.f_code.co_name) if event == "call" else None)
    bound(x, 20, 3.0, BLOCK=16, **options)
    sys.setprofile(None)
    print(calls, fake.fakeCudaLaunchCount(), len(scaled._launchers),
          len(scaled._gpu_cache))
"""


@needs_stand_in
def test_a_cache_hit_runs_no_python_code():
    """Issue 28: Python code runs only on a miss."""
    result = run_python(NO_PYTHON)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[] 2 1", "[] 4 2 2"]


@kiln.jit(do_not_specialize=["n"])
def not_specialized(x_ptr, n):
    kl.store(x_ptr + kl.arange(0, 16), kl.zeros((16,), kl.float32) + n,
             mask=kl.arange(0, 16) < n)


@kiln.jit
def named_as_an_option(x_ptr, num_warps: kl.constexpr):
    kl.store(x_ptr, kl.full((), num_warps, kl.float32))


OPTIONS_AND_FLAGS = """
    import ctypes
    import numpy as np
    import kiln
    import kiln.language as kl
    from test_gpu import FAKE, FakeDeviceArray
    from test_launch_keys import named_as_an_option, not_specialized, scaled

    fake = ctypes.CDLL(str(FAKE))
    x = FakeDeviceArray(np.zeros(64, np.float32))
    # do_not_specialize: 16, 1 and 7 are one specialization and one key.
    for n in (16, 1, 7, 16):
        not_specialized[(1,)](x, n)
    print("not specialized", len(not_specialized._gpu_cache),
          len(not_specialized._launchers), fake.fakeCudaLaunchCount())
    # Options as keywords, and through run().
    for _ in range(2):
        scaled[(1,)](x, 10, 2.0, BLOCK=16, num_warps=8)
        scaled.run(x, 10, 2.0, grid=(1,), BLOCK=16, num_warps=8)
    print("options", len(scaled._gpu_cache), len(scaled._launchers))
    # maxnreg and fp fusion compile apart; the options that change no code
    # make launches of their own keys, of the one compilation.
    for _ in range(2):
        scaled[(1,)](x, 10, 2.0, BLOCK=16, num_warps=8, maxnreg=64)
        scaled[(1,)](x, 10, 2.0, BLOCK=16, num_warps=8,
                     enable_fp_fusion=False)
        scaled[(1,)](x, 10, 2.0, BLOCK=16, num_warps=8, num_ctas=1,
                     launch_pdl=True)
    print("triton options", len(scaled._gpu_cache), len(scaled._launchers))
    for warps in (2, 2, 8):
        named_as_an_option[(1,)](x, num_warps=warps)
        print("named", len(named_as_an_option._gpu_cache),
              len(named_as_an_option._launchers))
"""


@needs_stand_in
def test_unspecialized_parameters_and_options_hit_the_cache():
    result = run_python(OPTIONS_AND_FLAGS)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "not specialized 1 1 4"
    assert lines[1] == "options 1 1"
    assert lines[2] == "triton options 3 4"
    # A parameter named as an option receives it (a specialization for
    # each value), on the full path.
    assert lines[3:] == ["named 1 0", "named 1 0", "named 2 0"]


CLOSED = """
    import numpy as np
    import kiln
    from test_gpu import FakeDeviceArray
    from test_launch_keys import scaled

    x = FakeDeviceArray(np.zeros(64, np.float32))
    scaled[(1,)](x, 10, 2.0, BLOCK=16)
    (_, _, launcher), = scaled._launchers.values()
    launcher._module.close()
    for grid in ((1,), (0,)):  # a zero size is refused too, as the full path
        try:
            scaled[grid](x, 10, 2.0, BLOCK=16)
        except kiln.KilnError as error:
            print("refused:", error)
"""


@needs_stand_in
def test_a_launch_of_a_closed_module_is_refused():
    result = run_python(CLOSED)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["refused: the module is closed"] * 2


FAILED_LAUNCH = """
    import numpy as np
    import kiln
    from test_gpu import FakeDeviceArray
    from test_launch_keys import scaled

    x = FakeDeviceArray(np.zeros(64, np.float32))
    scaled[(1,)](x, 10, 2.0, BLOCK=16)
    try:  # beyond the device's limit on y (65535)
        scaled[(1, 70000)](x, 10, 2.0, BLOCK=16)
    except kiln.LaunchError as error:
        print("LaunchError:", error)
"""


@needs_stand_in
def test_a_failed_cache_hit_launch_raises_the_drivers_error():
    result = run_python(FAILED_LAUNCH)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("LaunchError:")
    assert "70000" in result.stdout, result.stdout


WITHOUT_EXTENSION = """
    import warnings
    import numpy as np
    from test_gpu import FakeDeviceArray
    from test_launch_keys import scaled

    x = FakeDeviceArray(np.zeros(64, np.float32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            scaled[(1,)](x, 10, 2.0, BLOCK=16)
    print(scaled._dispatcher, len(caught), x.array[:2], x.array[10])
    print(caught[0].message)
"""


@needs_stand_in
def test_without_the_extension_launches_take_the_full_path_and_say_so(
        tmp_path):
    from kiln._ffi import LIBRARY_NAME
    from test_gpu import BUILD
    shutil.copy(BUILD / "lib" / LIBRARY_NAME, tmp_path)  # the library alone
    result = run_python(WITHOUT_EXTENSION,
                        KILN_LIBRARY_PATH=str(tmp_path / LIBRARY_NAME))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "None 1 [0. 0.] 0.0"
    assert "launch extension" in lines[1] and "full path" in lines[1]


GLOBALS = """
    import numpy as np
    import kiln
    import kiln.language as kl
    from test_gpu import FakeDeviceArray
    import test_launch_keys

    x = FakeDeviceArray(np.zeros(16, np.float32))
    for offset in (1.0, 1.0, 5.0):
        test_launch_keys.OFFSET = offset
        test_launch_keys.add_offset[(1,)](x)
        print(x.array[0], len(test_launch_keys.add_offset._gpu_cache))
"""

OFFSET = 1.0


@kiln.jit
def add_offset(x_ptr):
    offsets = kl.arange(0, 16)
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets) + OFFSET)


@needs_stand_in
def test_a_changed_global_recompiles_on_the_cache_hit_path():
    result = run_python(GLOBALS)
    assert result.returncode == 0, result.stderr
    # The stand-in runs no kernel: the count of compilations tells.
    assert result.stdout.split() == ["0.0", "1", "0.0", "1", "0.0", "1"]


RACES = """
    import numpy as np
    from kiln.jit import JITFunction
    from test_gpu import FakeDeviceArray
    from test_launch_keys import scaled

    x = FakeDeviceArray(np.zeros(64, np.float32))
    compile_gpu = JITFunction.compile_gpu

    def meanwhile(change):
        def compile_then_change(self, *args, **kwargs):
            module = compile_gpu(self, *args, **kwargs)
            change(self)
            return module
        JITFunction.compile_gpu = compile_then_change

    # Another thread forgets the compilations (a global changed) between
    # this launch's compile and its registration: no key is registered.
    meanwhile(lambda self: setattr(self, "_generation",
                                   self._generation + 1))
    scaled[(1,)](x, 10, 2.0, BLOCK=16)
    print("forgotten", len(scaled._launchers))
    # The debug setting changes meanwhile: the kernel compiled without
    # kl.device_assert is not registered under the debug key.
    meanwhile(lambda self: setattr(self, "_debug", True))
    scaled[(1,)](x, 10, 2.0, BLOCK=32)
    print("debug", len(scaled._launchers))
    JITFunction.compile_gpu = compile_gpu
    scaled[(1,)](x, 10, 2.0, BLOCK=32)
    print("then", len(scaled._launchers))
"""


@needs_stand_in
def test_a_compile_overtaken_by_a_change_registers_no_key():
    result = run_python(RACES)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:3] == ["forgotten 0", "debug 0",
                                              "then 1"]


def test_a_tensor_of_a_type_kernels_do_not_take_is_refused_by_name():
    class Complex(TorchLike):
        @property
        def __cuda_array_interface__(self):
            return {"shape": (4,), "typestr": "<c8", "data": (4096, False),
                    "version": 3}

    tensor = Complex(4096, "torch.complex64")
    assert read(tensor) is None
    with pytest.raises(kiln.KilnError, match="argument 'x_ptr': numpy dtype "
                       "complex64 has no kiln type"):
        scaled[(1,)](tensor, 4, 2.0, BLOCK=16)


def test_the_extensions_objects_refuse_misuse_without_crashing():
    extension = launch_keys.extension()
    with pytest.raises(TypeError):
        extension.Bound(object(), (1,))
    bare = extension.Dispatcher.__new__(extension.Dispatcher)
    with pytest.raises(TypeError, match="uninitialized"):
        bare.launch((1,), (), {})
    with pytest.raises(TypeError, match="uninitialized"):
        bare.read((), {})
    with pytest.raises(ValueError, match="pbilf"):
        extension.Kernel(0, 0, b"k", "pz")

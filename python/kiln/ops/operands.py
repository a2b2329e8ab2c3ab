"""What kiln.ops asks of the arrays it is given, numpy arrays or PyTorch
tensors (on the host or a GPU) alike."""


def is_torch(x) -> bool:
    return type(x).__module__.startswith("torch")


def on_gpu(x) -> bool:
    return bool(getattr(x, "is_cuda", False)) or hasattr(
        x, "__cuda_array_interface__")


def strides(x) -> tuple:
    """``x``'s strides in elements."""
    if is_torch(x):
        return tuple(x.stride())
    return tuple(s // x.itemsize for s in x.strides)

"""``@kiln.fuse``: numpy functions traced into whole-tensor programs, fused
into tile kernels and run on the host target.

    import numpy as np
    import kiln

    @kiln.fuse
    def gelu(x):
        return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))

    y = gelu(np.random.rand(1000, 77).astype(np.float32))  # one kernel

A call with a new signature (the shapes and dtypes of its arguments) traces
the function once: it runs on traced arrays that record each numpy
operation as the array level's IR (``linalg.generic`` for elementwise
operations, broadcasts in their indexing maps, and for gathers, whose
bodies ``tensor.extract`` from the array they index; ``linalg.generic``
over rows with a ``linalg.fill`` init for reductions, one axis each;
``linalg.matmul`` or ``linalg.batch_matmul`` into a ``linalg.fill`` for
``@``; ``tensor.extract_slice`` for basic indexing), then
``kiln.host.ARRAY_PIPELINE`` (kiln-fuse, kiln-tile) groups the operations
into tile kernels and a launch plan, compiled once for the host. Later
calls with the same signature look the plan up and run it.

Results follow numpy's types (NEP 50: Python scalars take the array's
type) and float16 arithmetic is done in float32 and rounded after each
operation, as numpy does. A matmul accumulates in float32 (float64 for
float64 operands) and rounds its result once.

What a traced function may use: the operators ``+ - * / // % ** @``, unary
``-`` and ``abs``, comparisons, ``& | ^ ~``; the ufuncs in
``SUPPORTED_UFUNCS`` (``np.exp``, ``np.tanh``, ``np.maximum``,
``np.where``...) and ``kiln.fuse.erf``; ``sum``, ``prod``, ``max``,
``min``, ``mean``, ``var``, ``std``, ``any``, ``all`` and
``np.linalg.norm`` over any axes, ``argmax`` and ``argmin`` over one
(``keepdims`` or not); ``np.einsum`` of one or two arrays;
``x.T``, ``np.transpose``, ``swapaxes``, ``np.moveaxis``,
``np.broadcast_to``, ``astype``, ``np.clip``, reshapes, and basic
indexing: integers, slices of any step, ``None`` and an ellipsis
(``x[1:] - x[:-1]``, ``x[..., ::2]``, ``x[:, None]``), each slice read in
place by the kernels that use it; indexing by integer arrays (``w[ids]``,
``x[rows, labels]``), ``np.take`` and ``np.take_along_axis``, gathers
whose index arguments are checked before each call as numpy checks them
(``KilnIndexError``); ``np.concatenate`` and ``np.stack``. Anything else
(another numpy function, ``cumsum``, ``if`` on a traced value, indexing by
booleans) raises ``KilnCompileError``
(a ``KilnError``) at the line of the function that did it; compiler
diagnostics (``CompilationError``) point at the Python lines of the
operations they name.

Called with PyTorch CPU tensors instead, the function is traced with
PyTorch's semantics and returns tensors: its arguments are
``TracedTensor``s, which answer PyTorch's operators, methods and
functions (``kiln.fuse.torch_functions``). ``kiln.dynamo_backend`` runs
the parts of a ``torch.compile`` graph that this covers as fused plans.
"""

from kiln.fuse.array import TracedArray
from kiln.fuse.fused import IR_FILENAME, FusedFunction, fuse
from kiln.fuse.ufuncs import SUPPORTED_UFUNCS, erf

__all__ = ["IR_FILENAME", "SUPPORTED_UFUNCS", "FusedFunction", "TracedArray",
           "erf", "fuse"]

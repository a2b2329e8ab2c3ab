"""``@kiln.jit``: kernels written in Python, compiled on first launch.

    @kiln.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
        ...

    add[(kiln.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

A launch specializes the kernel on its arguments (array dtypes, scalar
types, ``constexpr`` values, alignment), compiles each specialization once,
and runs it where its arrays are: device arrays (objects with
``__cuda_array_interface__``, such as PyTorch CUDA tensors and CuPy arrays,
or CUDA arrays offering only ``__dlpack__``) run it on the GPU, with
``num_warps`` warps per program (default 4, as in Triton); numpy arrays
(and CPU arrays offering ``__dlpack__``) run it on the host target. Either
way arrays are passed by address and modified in place.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import inspect
import os
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from kiln import (cache, dlpack, interpreter, launch_keys, semantics,
                  source_key)
from kiln import language as kl
from kiln.arguments import check_grid, grid_sizes
from kiln.compiler import Context, Module
from kiln.errors import (CompilationError, KilnCompileError, KilnError,
                         Severity, user_facing, warn_remarks)
from kiln.frontend.ir import Type, find_location, pointer_type, symbol
from kiln.frontend.values import DescriptorType, TupleType
from kiln.frontend.walker import CodeGenerator, is_plain_value
from kiln.gpu import (CudaModule, GPUBinary, GPUOptions, KernelLauncher,
                      KernelMetadata,
                      current_stream, device_address, device_array_element,
                      device_array_ordinal, device_chip, disassemble,
                      is_device_array, record_passes)
from kiln.host import HostExecutable
from kiln.tensor_descriptor import TensorDescriptor


#: The name the generated IR goes by in diagnostics.
IR_FILENAME = "<kiln generated IR>"
_MISSING = object()


def _source_line(filename: str, line: int) -> str:
    try:
        with open(filename) as source:
            return source.read().splitlines()[line - 1]
    except (OSError, IndexError):
        return ""


def _constant(value: Any) -> Any:
    """A constexpr argument's value (a ``kl.constexpr`` is its value)."""
    return value.value if isinstance(value, kl.constexpr) else value


def _signless(value: Any, type_: Type | None) -> Any:
    """A launch argument as the signless IR takes it: an unsigned
    scalar as the signed value of its bits."""
    if type_ is not None and type_.is_unsigned and not type_.is_pointer \
            and type_.elem != "i1":
        return semantics.integer_constant(int(value), type_.elem)
    return value


def _argument_type(name: str, value: Any) -> Type:
    """The kernel argument type a launch argument specializes to."""
    try:
        if isinstance(value, np.ndarray):
            return Type((), pointer_type(kl.from_numpy(value.dtype).ir))
        if is_device_array(value):
            return Type((), pointer_type(device_array_element(value)))
    except KilnError as error:  # an element type kernels do not take
        raise KilnError(f"argument '{name}': {error}") from None
    if isinstance(value, (bool, np.bool_)):
        return Type((), "i1")
    if isinstance(value, float):  # np.float64 too, as in Triton
        return Type((), "f32")
    if isinstance(value, (int, np.integer)):
        if isinstance(value, np.integer):
            return Type((), kl.from_numpy(value.dtype).ir)
        # Triton's: int32, uint64 from 2**63, else int64 (whose packing
        # refuses what does not fit).
        return Type((), "i32" if -2**31 <= value < 2**31 else
                    "ui64" if 2**63 <= value < 2**64 else "i64")
    if isinstance(value, (float, np.floating)):
        if isinstance(value, np.floating):
            return Type((), kl.from_numpy(value.dtype).ir)
        return Type((), "f32")
    raise KilnError(f"argument '{name}' of type {type(value).__name__} "
                    "cannot be passed to a kernel")


def _adapted(value: Any) -> Any:
    """A launch argument as a launch takes it (`dlpack.adapt`), a tuple's
    elements each."""
    if isinstance(value, tuple):
        return semantics.tuple_elements_mapped(
            lambda v, _: _adapted(v), value)
    return dlpack.adapt(value)


def _parts(label: str, value: Any,
           type_: Type | DescriptorType | TupleType | None
           ) -> Iterator[tuple[str, Any, Type | None]]:
    """The kernel parameters argument ``value`` (of ``type_``, named
    ``label``) is passed as, in order, each labelled and typed: a
    descriptor's base, sizes and strides but the last; a tuple's elements'
    (a None element is a constant, passed as nothing)."""
    if isinstance(type_, DescriptorType):
        yield f"{label}.base", value.base, type_.base
        for k, (size, size_type) in enumerate(zip(value.shape, type_.shape)):
            yield f"{label}.shape[{k}]", size, size_type
        for k, (stride, stride_type) in enumerate(zip(value.strides,
                                                      type_.strides)):
            yield f"{label}.strides[{k}]", stride, stride_type
    elif isinstance(type_, TupleType):
        for k, (element, element_type) in enumerate(zip(value,
                                                        type_.elements)):
            if element_type is not None:
                yield from _parts(f"{label}[{k}]", element, element_type)
    else:
        yield label, value, type_


class _Stages(dict):
    """A compilation's stages by name; "sass" is disassembled on first
    access (cuobjdump takes longer than the compile), where cuobjdump is
    found and there is a cubin."""

    def __missing__(self, stage: str) -> str:
        sass = disassemble(self["cubin"]) if stage == "sass" else ""
        if not sass:
            raise KeyError(stage)
        self[stage] = sass
        return sass


@dataclasses.dataclass(frozen=True)
class CompiledKernel:
    """A kernel compiled for the GPU: each stage's text or bytes by name, and
    what ptxas reported (None where ptxas was not found)."""
    asm: dict[str, str | bytes]
    metadata: KernelMetadata | None

    def _reported(self, what: str) -> KernelMetadata:
        if self.metadata is None:
            raise KilnError(f"{what} is known only where ptxas is found (it "
                            "reports it when it makes the cubin)")
        return self.metadata

    @property
    def n_regs(self) -> int:
        """Registers per thread, as Triton's ``CompiledKernel.n_regs``."""
        return self._reported("n_regs").registers

    def _init_handles(self) -> None:
        """Triton's loads the kernel before its ``n_regs`` is read (its
        fused softmax tutorial calls it); Kiln's are known when compiled."""

    @property
    def n_spills(self) -> int:
        """Triton's ``n_spills``: the thread's local memory (ptxas's stack
        frame, which holds the spilled registers) in 4-byte words."""
        return self._reported("n_spills").stack_frame // 4


def _timing() -> bool:
    """Whether KILN_TIMING asks for each compilation's times."""
    return os.environ.get("KILN_TIMING", "") not in ("", "0")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


#: Triton's launch options Kiln takes, with their defaults (a kernel
#: parameter of the same name also receives what is given for one): those
#: of GPUOptions change the GPU code; a launch is made the same whatever
#: ``launch_pdl`` says (without programmatic dependent launch, which is
#: correct for every kernel), and ``num_ctas`` and
#: ``launch_cooperative_grid`` are taken at their defaults only.
LAUNCH_OPTIONS = {**GPUOptions()._asdict(), "num_ctas": 1,
                  "launch_pdl": False, "launch_cooperative_grid": False}


class JITFunction:
    """A kernel; ``kernel[grid](*args)`` launches it."""

    #: What the code generator recognizes a nested @kiln.jit function by
    #: (it cannot import this module, which imports it).
    __kiln_jit__ = True

    def __init__(self, fn: Callable, interpret: bool | None = None,
                 debug: bool | None = None,
                 do_not_specialize: Sequence[int | str] = (),
                 do_not_specialize_on_alignment: Sequence[int | str] = ()
                 ) -> None:
        self.fn = fn
        self.interpret = interpret
        self._debug = debug
        self.__name__ = fn.__name__
        # The kernel's name in its IR and binaries.
        self._symbol = symbol(fn.__name__)
        self.__doc__ = fn.__doc__
        self.signature = inspect.signature(fn)
        self.constexprs = {
            name for name, p in self.signature.parameters.items()
            if kl.is_constexpr_annotation(p.annotation, fn.__globals__)}
        # Scalar parameters whose annotation gives their type (n: tl.int64).
        self.annotated = {
            name: annotated for name, p in self.signature.parameters.items()
            if (annotated := kl.annotation_dtype(p.annotation,
                                                 fn.__globals__))}
        self.do_not_specialize = self._parameters_named(
            "do_not_specialize", do_not_specialize)
        self.do_not_specialize_on_alignment = self._parameters_named(
            "do_not_specialize_on_alignment", do_not_specialize_on_alignment)
        self._cache: dict[tuple, tuple[Module, HostExecutable]] = {}
        self._gpu_cache: dict[tuple, tuple[Module, CudaModule]] = {}
        # The cache-hit path: GPU launches by launch key (see _launch_key).
        parameters = list(self.signature.parameters.values())
        self._names = tuple(p.name for p in parameters)
        self._defaults = {p.name: p.default for p in parameters
                          if p.default is not p.empty}
        self._is_constexpr = tuple(n in self.constexprs for n in self._names)
        self._plain = all(p.kind is p.POSITIONAL_OR_KEYWORD
                          for p in parameters)
        # Each as the extension launches it (see _register).
        self._launchers: dict[tuple, tuple[Any, int, KernelLauncher]] = {}
        # The plain module globals compiled in, with the values compiled
        # (CodeGenerator.globals_read); a change drops every compilation.
        self._globals_read: dict[tuple[int, str], tuple[dict, str, Any]] = {}
        # What the disk cache keys this kernel's binaries by (source_key),
        # computed once; None until then, "" where the source is unreadable.
        self._fingerprint: str | None = None
        self._lock = threading.Lock()
        self._context: Context | None = None
        # Bumped whenever the compilations are forgotten: a launch compiled
        # before registers no key after (see _register).
        self._generation = 0
        self._dispatcher = self._make_dispatcher()

    def _parameters_named(self, option: str, entries: Sequence[int | str]
                          ) -> set[str]:
        """The parameters ``option`` names (or gives the positions of),
        none a constexpr."""
        names = list(self.signature.parameters)
        named = set()
        for entry in entries:
            if isinstance(entry, int) and 0 <= entry < len(names):
                entry = names[entry]
            if entry not in names or entry in self.constexprs:
                raise KilnError(f"{self.fn.__name__}: {option} names "
                                f"{entry!r}, which is no parameter that is "
                                "not a constexpr")
            named.add(entry)
        return named

    def _make_dispatcher(self) -> Any:
        """The cache-hit launch path in C (kiln._launch) for this kernel's
        parameters; None where the extension was not built or the
        parameters are not all plain (``*args``: the full path refuses)."""
        extension = launch_keys.extension()
        # (Its keys do not tell alignment from the value 1 apart.)
        if extension is None or not self._plain or \
                self.do_not_specialize_on_alignment:
            return None
        flags = "".join("c" if constant else
                        "n" if name in self.do_not_specialize else "s"
                        for name, constant in zip(self._names,
                                                  self._is_constexpr))
        return extension.Dispatcher(
            self, self._names, flags, self._defaults, self._launchers,
            self._globals_read, self._check_globals, self.run,
            LAUNCH_OPTIONS,
            any(option in self._names for option in LAUNCH_OPTIONS))

    def __getitem__(self, grid: Sequence[int] | Callable) -> Callable:
        # No frame of Kiln's above the user's: a C object, else a partial.
        if self._dispatcher is not None:
            return self._dispatcher.bind(grid)
        return functools.partial(self.run, grid=grid)

    def __call__(self, *args, **kwargs):
        if interpreter.active():  # a kernel calling this one, interpreted
            return interpreter.as_kernel(self.fn)(*args, **kwargs)
        raise KilnError(f"launch a kernel with {self.__name__}[grid](...); "
                        "call it directly only from another kernel")

    @property
    def interpreted(self) -> bool:
        """Whether launches run in the interpreter (``interpret=True``, or
        ``KILN_INTERPRET=1`` in the environment)."""
        if self.interpret is not None:
            return self.interpret
        return os.environ.get("KILN_INTERPRET", "") not in ("", "0")

    @property
    def debug(self) -> bool:
        """Whether launches compile ``kl.device_assert`` and check every
        host-target access against the arrays passed even where
        ``KILN_HOST_CHECK_BOUNDS=0`` turned that off (``debug=True``, or
        ``KILN_DEBUG=1`` or Triton's ``TRITON_DEBUG=1`` in the
        environment)."""
        if self._debug is not None:
            return self._debug
        return any(os.environ.get(variable, "") not in ("", "0")
                   for variable in ("KILN_DEBUG", "TRITON_DEBUG"))

    def bind(self, args: tuple, kwargs: dict) -> inspect.BoundArguments:
        unknown = [name for name in kwargs if name not in self._names]
        if unknown:
            close = difflib.get_close_matches(unknown[0], self._names, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise KilnError(
                f"{self.__name__}: unknown argument '{unknown[0]}'{hint}; "
                f"{self.__name__} takes {', '.join(self._names)}")
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise KilnError(f"{self.__name__}: {exc}") from None
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            try:
                bound.arguments[name] = _adapted(value)
            except RuntimeError as exc:  # PyTorch refusing its interface
                raise KilnError(f"{self.__name__}: argument '{name}': "
                                f"{exc}") from None
        return bound

    def specialize(self, bound: inspect.BoundArguments
                   ) -> tuple[dict[str, Type], dict[str, Any]]:
        """Argument types and compile-time values for this launch. Like
        Triton, integers and pointers divisible by 16 are specialized as such
        (`tile.divisibility`, which lets the GPU vectorize), and an integer
        equal to 1 is the constexpr 1 in the kernel's body (its type's
        ``known``), except the parameters named in ``do_not_specialize``."""
        types, constants = {}, {}
        for name, value in bound.arguments.items():
            # None is a constant, as Triton specializes it (`bias_ptr=None`
            # with `if bias_ptr is not None:` in the kernel), and so is a
            # kl.constexpr passed for any parameter.
            if name in self.constexprs or value is None or \
                    isinstance(value, kl.constexpr):
                constants[name] = _constant(value)
                continue
            if self.signature.parameters[name].kind in (
                    inspect.Parameter.VAR_POSITIONAL,
                    inspect.Parameter.VAR_KEYWORD):
                continue  # refused at its line by the code generator
            types[name] = self._argument_types(name, value, name)
        return types, constants

    def _argument_types(self, name: str, value: Any, label: str
                        ) -> Type | DescriptorType | TupleType:
        """What argument ``name``'s part ``label`` (the argument itself,
        or an element of a tuple it is) specializes to: a descriptor's
        parts and a tuple's elements each as an argument of its own."""
        if isinstance(value, TensorDescriptor):
            return DescriptorType(
                self._specialized(name, value.base, label),
                tuple(self._specialized(name, v, label) for v in value.shape),
                tuple(self._specialized(name, v, label)
                      for v in value.strides[:-1]),
                value.block_shape, value.padding)
        if isinstance(value, tuple):
            return TupleType(
                tuple(None if v is None else
                      self._argument_types(name, v, f"{label}[{k}]")
                      for k, v in enumerate(value)),
                getattr(type(value), "_fields", None))
        return self._specialized(name, value, label)

    def _specialized(self, name: str, value: Any,
                     label: str | None = None) -> Type:
        """The type argument ``name`` (or its part ``label``) specializes
        to."""
        type_ = _argument_type(label or name, value)
        annotated = self.annotated.get(name) if label in (None, name) else \
            None
        if annotated is not None and not type_.is_pointer:
            # As Triton's: the annotation's type, specialized on alignment
            # only, and integers only.
            type_ = Type((), annotated.ir)
            if name in self.do_not_specialize or not type_.is_int or \
                    type_.elem == "i1" or int(value) % 16:
                return type_
            return type_.divisible_by(16)
        if name in self.do_not_specialize:
            return type_
        aligned = name not in self.do_not_specialize_on_alignment
        if isinstance(value, np.ndarray) or is_device_array(value):
            address = (value.ctypes.data if isinstance(value, np.ndarray)
                       else device_address(value))
            if address % 16 == 0 and aligned:
                type_ = type_.divisible_by(16)
        elif isinstance(value, (int, np.integer)) and not isinstance(
                value, (bool, np.bool_)):
            if value == 1:
                type_ = type_.known_to_be(1)
            elif value % 16 == 0 and aligned:
                type_ = type_.divisible_by(16)
        return type_

    def _interpreted(self, name: str, value: Any, label: str) -> Any:
        """Argument ``name``'s part ``label`` as the interpreter takes it:
        refused as a compiled launch refuses it, a scalar typed as the
        compiled kernel types it, a tuple element by element."""
        if value is None or isinstance(value, TensorDescriptor):
            return value
        if isinstance(value, tuple):
            return semantics.tuple_elements_mapped(
                lambda v, k: self._interpreted(name, v, f"{label}[{k}]"),
                value)
        type_ = self._specialized(name, value, label)
        if type_.known is not None:  # the constexpr, as compiled
            return type_.known
        if isinstance(value, (bool, int, float, np.generic)):
            return interpreter.scalar(value, kl.BY_IR[type_.elem].numpy)
        return value

    @user_facing
    def ir(self, *args, **kwargs) -> str:
        """The tile IR this kernel compiles to for these arguments."""
        types, constants = self.specialize(self.bind(args, kwargs))
        return CodeGenerator(self.fn, types, constants, self.debug).generate()

    def _options(self, kwargs: dict) -> tuple[GPUOptions, tuple]:
        """A launch's options, taken out of ``kwargs`` (where a kernel
        parameter is named as one, it receives the value too, as in
        Triton), checked: what the GPU code is compiled with, and every
        option's value, default where not given, in LAUNCH_OPTIONS's order
        (as the launch extension keys launches)."""
        given = {}
        for option in LAUNCH_OPTIONS:
            if option in kwargs:
                value = kwargs[option] if option in self._names \
                    else kwargs.pop(option)
                if value is not None:
                    given[option] = _constant(value)
        if "debug" in kwargs and "debug" not in self._names:
            debug = _constant(kwargs.pop("debug"))
            if debug is not None and bool(debug) != self.debug:
                raise KilnError(
                    f"{self.__name__}: debug={debug!r} at a launch, but the "
                    f"kernel is compiled with debug={self.debug}: Kiln sets "
                    "it per kernel (@jit(debug=...), or KILN_DEBUG=1)")
        for option in ("num_ctas", "launch_cooperative_grid"):
            if option in given and given[option] != LAUNCH_OPTIONS[option]:
                raise KilnError(
                    f"{self.__name__}: {option}={given[option]!r} is not "
                    f"supported by Kiln (only {LAUNCH_OPTIONS[option]!r})")
        options = GPUOptions(**{name: given[name] for name in
                                GPUOptions._fields if name in given}
                             ).checked()
        return options, tuple(
            getattr(options, option) if option in GPUOptions._fields
            else given.get(option, default)
            for option, default in LAUNCH_OPTIONS.items())

    @user_facing
    def warmup(self, *args, chip: str = "sm_90a", grid: Any = None,
               **kwargs) -> CompiledKernel:
        """Compiles for the GPU (no launch, no GPU needed) for these
        arguments; arrays may be numpy or device arrays, only their types
        and alignment count. ``grid`` is taken, as Triton's ``warmup``
        takes it, and not used. The binary goes into the disk cache, so
        that a later launch on a device of ``chip`` with the same arguments
        loads it (even under ``KILN_REQUIRE_CACHE_HIT=1``). The result's
        ``asm`` holds every stage, its ``metadata`` what ptxas reported,
        and its ``n_regs`` and ``n_spills`` what Triton's hold. Takes
        Triton's launch options (LAUNCH_OPTIONS)."""
        options, _ = self._options(kwargs)
        types, constants = self.specialize(self.bind(args, kwargs))
        with self._lock:
            module, text = self._parse(types, constants)
            entry = self._source_entry(types, constants, chip, options) \
                or cache.key(str(module), chip, options)
        try:
            with self._new_binary(module, text, chip, options) as binary:
                self._store(entry, binary)
                asm = _Stages(tile=text, llvm=binary.llvm_ir, ptx=binary.ptx,
                              cubin=binary.cubin,
                              **{"ptxas-log": binary.ptxas_log})
                metadata = (binary.metadata(self._symbol)
                            if binary.cubin else None)
                return CompiledKernel(asm, metadata)
        except CompilationError as exc:
            raise self._located(exc, text) from None
        finally:
            module.close()

    @user_facing
    def asm(self, *args, **kwargs) -> dict[str, str | bytes]:
        """Every stage of the GPU compilation for these arguments, by name:
        "tile" (the tile IR), "llvm" (LLVM IR), "ptx", "cubin" (empty where
        ptxas is not found), "ptxas-log", and "sass" (disassembled when
        first read) where cuobjdump is found. Takes the options of
        `warmup`."""
        return self.warmup(*args, **kwargs).asm

    def _key(self, types: dict[str, Type | DescriptorType],
             constants: dict[str, Any]) -> tuple:
        return (tuple(sorted(types.items(), key=lambda item: item[0])),
                tuple(sorted(((n, launch_keys.constant_key(v))
                              for n, v in constants.items()),
                             key=lambda item: item[0])),
                self.debug,
                # What a float32 dot that names no precision takes.
                os.environ.get("TRITON_F32_DEFAULT", ""))

    def _parse(self, types: dict[str, Type],
               constants: dict[str, Any]) -> tuple[Module, str]:
        """The specialization's tile IR, parsed; the caller holds the lock."""
        start = time.perf_counter()
        generator = CodeGenerator(self.fn, types, constants, self.debug)
        text = generator.generate()
        self._globals_read.update(generator.globals_read)
        if dump := self._dump_directory(text):
            (dump / "tile.mlir").write_text(text)
        if self._context is None:
            self._context = Context()
        try:
            module = Module.parse(self._context, text, IR_FILENAME)
        except CompilationError as exc:
            raise self._located(exc, text) from None
        self._report_time(f"front end {_ms(time.perf_counter() - start)} "
                          f"(tile IR written and parsed)")
        return module, text

    def _report_time(self, what: str) -> None:
        """One line of KILN_TIMING's report, on standard error."""
        if _timing():
            print(f"kiln timing: {self.__name__}: {what}", file=sys.stderr,
                  flush=True)

    def _dump_directory(self, text: str) -> Path | None:
        """Where KILN_DUMP_DIR asks this specialization's stages to be
        written, made: ``<kernel>-<hash of its tile IR>``; None unset."""
        root = os.environ.get("KILN_DUMP_DIR", "")
        if not root:
            return None
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        path = Path(root) / f"{self.__name__}-{digest}"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _new_binary(self, module: Module, text: str, chip: str,
                    options: GPUOptions) -> GPUBinary:
        """``module`` compiled for ``chip``, its remarks warned; under
        KILN_DUMP_DIR each stage written beside the tile IR, in
        ``<chip>-<options' label>/``: the IR after each lowering pass
        that changed it (``passes.mlir``), LLVM IR, PTX, cubin, ptxas's
        report, the tensor maps and the remarks."""
        dump = self._dump_directory(text)
        if dump:
            dump = dump / f"{chip}-{options.label()}"
            dump.mkdir(exist_ok=True)
            record_passes(True)
        try:
            binary = GPUBinary(module, chip, *options)
        finally:
            if dump:
                record_passes(False)
        warn_remarks(binary.remarks, "<kernel>")
        if _timing():
            steps = [line.split("\t") for line in
                     binary.artifact("timings").decode().splitlines()]
            self._report_time(
                f"{chip} ({options.describe()}): " +
                ", ".join(f"{step} {_ms(float(seconds))}"
                          for step, seconds in steps))
        if dump:
            for name, stage in (("llvm.ll", "llvm"), ("kernel.ptx", "ptx"),
                                ("kernel.cubin", "cubin"),
                                ("ptxas.log", "ptxas-log"),
                                ("tensor-maps.txt", "tensor-maps"),
                                ("remarks.jsonl", "remarks"),
                                ("passes.mlir", "passes")):
                (dump / name).write_bytes(binary.artifact(stage))
        return binary

    def _check_globals(self) -> None:
        """Drops every compilation if a module global compiled in has
        changed since (the extension calls it before each cache hit)."""
        if self._globals_read and self._globals_changed():
            with self._lock:
                self._forget_compilations()

    def _globals_changed(self) -> bool:
        """Whether a module global compiled into a specialization holds
        another value now."""
        for globals_, name, value in list(self._globals_read.values()):
            current = globals_.get(name, _MISSING)
            if current is not value and not (type(current) is type(value)
                                             and current == value):
                return True
        return False

    def _forget_compilations(self) -> None:
        """Drops every compilation (a global compiled in has changed, so
        each recompiles with its new value; Triton raises instead); the
        caller holds the lock."""
        for module, _ in [*self._cache.values(), *self._gpu_cache.values()]:
            if module is not None:
                module.close()
        self._fingerprint = None
        self._cache.clear()
        self._gpu_cache.clear()
        self._launchers.clear()
        self._globals_read.clear()
        self._generation += 1

    def _compiled(self, cache: dict, key: tuple, types: dict[str, Type],
                  constants: dict[str, Any],
                  build: Callable[[Module, str], Any],
                  stored: Callable[[], Any] | None = None):
        """The cached compilation of a specialization, else what ``stored``
        finds without the front end (a disk cache hit), else ``build`` on
        its parsed IR (and its text), with compiler errors located at the
        Python source."""
        with self._lock:
            if self._globals_changed():
                self._forget_compilations()
            cached = cache.get(key)
            if cached is not None:
                return cached[1]
            found = stored() if stored else None
            if found is not None:
                cache[key] = (None, found)
                return found
            module, text = self._parse(types, constants)
            try:
                compiled = build(module, text)
            except CompilationError as exc:
                module.close()
                raise self._located(exc, text) from None
            cache[key] = (module, compiled)
            return compiled

    def compile(self, types: dict[str, Type],
                constants: dict[str, Any]) -> HostExecutable:
        check_bounds = self.debug or os.environ.get(
            "KILN_HOST_CHECK_BOUNDS", "") != "0"
        entry = None
        name = self._symbol

        def stored() -> HostExecutable | None:
            nonlocal entry
            origin = self._source_origin(types, constants)
            if origin is None:
                return None
            entry = cache.host_key(origin, check_bounds)
            found = cache.load_host(entry)
            if found is None or name not in found.arguments:
                return None
            start = time.perf_counter()
            try:
                executable = HostExecutable.from_artifacts(*found)
            except KilnError as exc:  # an object the JIT cannot link
                cache.report_damaged(entry, exc, "host")
                return None
            self._report_time(f"host target: from the disk cache, linked in "
                              f"{_ms(time.perf_counter() - start)}")
            return executable

        def build(module: Module, text: str) -> HostExecutable:
            start = time.perf_counter()
            executable = HostExecutable(module, check_bounds=check_bounds)
            warn_remarks(module.remarks, "<kernel>")
            self._report_time(f"host target: lowered and compiled by LLVM "
                              f"in {_ms(time.perf_counter() - start)}")
            if entry:
                cache.store_host(entry, *executable.artifacts(),
                                 {name: executable.kernel_argument_types(
                                     name)})
            return executable

        return self._compiled(
            self._cache, self._key(types, constants) + (check_bounds,), types,
            constants, build, stored)

    def _source_origin(self, types: dict[str, Type],
                       constants: dict[str, Any]) -> str | None:
        """What a specialization is compiled from, for the disk cache's
        keys by source: the kernel's source fingerprint and the
        specialization, found without the front end; None where the source
        cannot be read or a constexpr is not a plain value (a function's
        repr names its address, not its code: such a specialization is
        keyed by its tile IR instead, or not kept on the host). The caller
        holds the lock."""
        if not all(is_plain_value(_constant(value))
                   for value in constants.values()):
            return None
        if self._fingerprint is None:
            try:
                self._fingerprint, read = source_key.fingerprint(
                    self.fn, lambda value: isinstance(value, JITFunction),
                    is_plain_value, launch_keys.constant_key)
                self._globals_read.update(read)
            except (OSError, TypeError, SyntaxError, source_key.Unkeyable):
                self._fingerprint = ""
        if not self._fingerprint:
            return None
        return repr([self._fingerprint, self._key(types, constants)])

    def _source_entry(self, types: dict[str, Type],
                      constants: dict[str, Any], chip: str,
                      options: GPUOptions) -> str | None:
        """The GPU entry of a specialization keyed by source (see
        `_source_origin`); the caller holds the lock."""
        origin = self._source_origin(types, constants)
        return cache.key(origin, chip, options) if origin else None

    def _binary_in(self, entry: str, module: Module | None,
                   chip: str) -> GPUBinary | None:
        """The binary disk cache ``entry`` holds for ``chip`` (of
        ``module``, or, keyed by source, of its own argument types); None
        where it holds none or a damaged one."""
        found = cache.load(entry)
        if found is None or (module is None and
                             self._symbol not in found.arguments):
            return None
        try:
            return GPUBinary.from_artifacts(module, chip, *found)
        except KilnError as exc:  # tensor maps it cannot read
            cache.report_damaged(entry, exc)
            return None

    @user_facing
    def cached_binary(self, *args, chip: str = "sm_90a",
                      **kwargs) -> GPUBinary | None:
        """The binary a launch with these arguments on a device of
        ``chip`` would load from the disk cache, found as the launch finds
        it, by the kernel's source fingerprint and the specialization,
        without generating or parsing IR; None where the cache holds none
        (or the specialization is keyed by its IR: a constexpr that is not
        a plain value). The globals the kernel reads are taken as they are
        now, as a new process takes them. Takes the options of
        `warmup`."""
        options, _ = self._options(kwargs)
        types, constants = self.specialize(self.bind(args, kwargs))
        with self._lock:
            self._fingerprint = None
            entry = self._source_entry(types, constants, chip, options)
        return self._binary_in(entry, None, chip) if entry else None

    def _store(self, entry: str, binary: GPUBinary) -> None:
        """Keeps ``binary`` as the disk cache's ``entry``, with the
        kernel's argument types so that a hit needs no IR."""
        name = self._symbol
        cache.store(entry, binary.ptx, binary.cubin,
                    binary.threads_per_block, binary.dynamic_shared_bytes,
                    binary.tensor_maps,
                    {name: binary.kernel_argument_types(name)})

    def compile_gpu(self, types: dict[str, Type], constants: dict[str, Any],
                    options: GPUOptions = GPUOptions(),
                    ordinal: int = 0) -> CudaModule:
        """The specialization compiled for device ``ordinal``'s chip and
        loaded there: from the disk cache, found by the kernel's source
        fingerprint without running the front end, where it is there."""
        chip = device_chip(ordinal)
        key = (self._key(types, constants), chip, options, ordinal)
        source_entry = None

        def load(binary: GPUBinary, how: str) -> CudaModule:
            start = time.perf_counter()
            loaded = binary.load(ordinal)
            self._report_time(f"{how}, loaded on device {ordinal} in "
                              f"{_ms(time.perf_counter() - start)}")
            return loaded

        def from_disk(entry: str, module: Module | None) -> CudaModule | None:
            binary = self._binary_in(entry, module, chip)
            return load(binary, "from the disk cache") if binary else None

        def stored() -> CudaModule | None:
            nonlocal source_entry
            source_entry = self._source_entry(types, constants, chip,
                                              options)
            return from_disk(source_entry, None) if source_entry else None

        def build(module: Module, text: str) -> CudaModule:
            entry = source_entry or cache.key(str(module), chip, options)
            if source_entry is None:
                loaded = from_disk(entry, module)
                if loaded is not None:
                    return loaded
            cache.require_hit(f"kernel '{self.__name__}' for {chip} "
                              f"({options.describe()})")
            binary = self._new_binary(module, text, chip, options)
            self._store(entry, binary)
            return load(binary, "compiled")

        return self._compiled(self._gpu_cache, key, types, constants, build,
                              stored)

    def _located(self, error: CompilationError, text: str) -> KilnError:
        """A compiler error as a KilnCompileError at the Python line its
        first located error names (remarks, such as why a loop is not
        pipelined, are not the error). A diagnostic in the generated IR
        itself (a front-end bug) points at the Python line of that op. An
        error that names no line stays the CompilationError, listing every
        diagnostic."""
        for diag in error.diagnostics:
            if diag.severity != Severity.ERROR:
                continue
            if diag.file == IR_FILENAME and diag.line:
                lines = text.splitlines()
                found = find_location(lines[diag.line - 1]) if \
                    diag.line <= len(lines) else None
                if found:
                    file, line, column = found
                    return KilnCompileError(
                        f"internal error, the generated IR is invalid: "
                        f"{diag.message}", file, line, column,
                        _source_line(file, line))
            if diag.file and diag.line:
                return KilnCompileError(diag.message, diag.file, diag.line,
                                        diag.column,
                                        _source_line(diag.file, diag.line))
        return error

    def _register(self, given: tuple, compiled_as: tuple, module: CudaModule,
                  types: dict[str, Type], constants: dict[str, Any],
                  values: list, launch_options: tuple,
                  ordinal: int) -> None:
        """Makes the extension launch ``module``'s kernel for arguments
        read as ``given`` (run's arguments and keywords, options among
        them, whose values are ``launch_options``) from now
        on, if the full path's launch just now specialized and passed
        exactly what their key says (what the extension reads of them
        agrees with what specialize saw, and the values it would pass are
        the ones the full path checked), and nothing the compile depended
        on changed since (``compiled_as``: the generation of compilations
        and the debug setting it was compiled under): a key never stands
        for something else."""
        if self._dispatcher is None:
            if self._plain:
                _warn_no_launch_extension()
            return
        with self._lock:
            if (self._generation, self.debug) != compiled_as:
                return  # a global or the debug setting changed meanwhile
            if any(name in constants and not constant
                   for name, constant in zip(self._names, self._is_constexpr)):
                return  # a None argument: keys have no token for it
            fast = self._dispatcher.read(*given)
            if fast is None:
                return
            key, fast_values = fast
            expected = launch_options + (compiled_as[1],) + tuple(
                launch_keys.constant_key(constants[name]) if constant
                else launch_keys.on_device(launch_keys.token(types[name]),
                                           ordinal)
                if types[name].is_pointer
                else launch_keys.token(types[name])
                for name, constant in zip(self._names, self._is_constexpr))
            launcher = module.launcher(self._symbol)
            if launcher.native is not None and key == expected and \
                    launcher.checked_values(values) == fast_values:
                self._launchers[key] = (launcher.native, ordinal, launcher)

    def _passed(self, args: tuple, kwargs: dict) -> dict[str, Any]:
        """A launch's arguments by name, defaults included, as passed (a
        grid function reads a PyTorch tensor's numel, as Triton's)."""
        passed = self.signature.bind(*args, **kwargs)
        passed.apply_defaults()
        return dict(passed.arguments)

    def _grid(self, grid: Any, arguments: Callable[[], dict]) -> tuple:
        """The launch's grid: given, or computed from the arguments (by
        name, made only for a grid function)."""
        if callable(grid):
            grid = grid(arguments())
        return grid_sizes(grid)

    @user_facing
    def run(self, *args, grid, warmup: bool = False,
            **kwargs) -> CompiledKernel | None:
        """Launches on ``grid`` (Triton's ``run``; ``kernel[grid](...)``
        calls it), with Triton's launch options (LAUNCH_OPTIONS) among the
        keywords; ``warmup=True`` compiles for the GPU and launches
        nothing, as `warmup`."""
        if warmup:
            return self.warmup(*args, grid=grid, **kwargs)
        if self._dispatcher is not None and self._dispatcher.launch(
                grid, args, kwargs):
            return None  # a cache hit, launched in C
        given = args, dict(kwargs)
        options, launch_options = self._options(kwargs)
        self._check_globals()
        compiled_as = self._generation, self.debug
        bound = self.bind(args, kwargs)
        grid = self._grid(grid, lambda: self._passed(args, kwargs))
        if self.interpreted:
            check_grid(grid)
            arguments = {}
            for name, value in bound.arguments.items():
                if isinstance(value, kl.constexpr) or \
                        name in self.constexprs or value is None:
                    arguments[name] = _constant(value)
                    continue
                arguments[name] = self._interpreted(name, value, name)
            interpreter.run(self.fn, grid, arguments)
            return None
        types, constants = self.specialize(bound)
        values, names = [], []
        for name, value in bound.arguments.items():
            if name in constants:
                continue
            # (A *args parameter has no type: the code generator refuses
            # it at its line.)
            for label, part, type_ in _parts(name, value, types.get(name)):
                values.append(_signless(part, type_))
                names.append(label)
        on_gpu = [is_device_array(v) for v in values]
        on_host = [isinstance(v, np.ndarray) for v in values]
        if any(on_gpu) and any(on_host):
            raise KilnError(f"{self.__name__}: a launch takes its arrays all "
                            "on the GPU (device arrays) or all on the host "
                            "(numpy arrays), not both")
        if any(on_gpu):
            ordinal = self._launch_device(names, values)
            module = self.compile_gpu(types, constants, options, ordinal)
            module.launch(self._symbol, grid, *values,
                          stream=current_stream(ordinal))
            self._register(given, compiled_as, module, types, constants,
                           values, launch_options, ordinal)
            return None
        self.compile(types, constants).launch(self._symbol, grid,
                                              *values, names=names)
        return None

    def _launch_device(self, names: list[str], values: list) -> int:
        """The GPU a launch runs on: the one its device arrays say they are
        on (GPU 0 where none says, as for CuPy's interface without a
        device); arrays on two GPUs are an error naming them."""
        on: dict[int, list[str]] = {}
        for name, value in zip(names, values):
            if is_device_array(value):
                ordinal = device_array_ordinal(value)
                if ordinal is not None:
                    on.setdefault(ordinal, []).append(name)
        if len(on) > 1:
            where = "; ".join(
                f"{', '.join(repr(n) for n in arguments)} on GPU {ordinal}"
                for ordinal, arguments in sorted(on.items()))
            raise KilnError(f"{self.__name__}: a launch takes its arrays on "
                            f"one GPU, and these are on {len(on)}: {where}")
        return next(iter(on), 0)


@functools.cache
def _warn_no_launch_extension() -> None:
    warnings.warn("kiln: the launch extension (_launch.abi3.so, built with "
                  "Python's headers) was not found beside libKilnCAPI.so: "
                  "every GPU launch takes the full path, which costs tens "
                  "of microseconds more", RuntimeWarning, stacklevel=4)


def jit(fn: Callable | None = None, *, interpret: bool | None = None,
        debug: bool | None = None,
        do_not_specialize: Sequence[int | str] = (),
        do_not_specialize_on_alignment: Sequence[int | str] = ()):
    """Makes ``fn`` a kernel (``@kiln.jit``, ``@kiln.jit(interpret=True)``,
    ``@kiln.jit(debug=True)``); ``do_not_specialize`` names parameters (or
    their positions) whose values are not specialized on (divisible by 16,
    equal to 1), ``do_not_specialize_on_alignment`` those not specialized
    on divisibility by 16 (an integer equal to 1 still is), as in Triton.
    See the module documentation."""
    def make(f: Callable) -> JITFunction:
        return JITFunction(f, interpret, debug, do_not_specialize,
                           do_not_specialize_on_alignment)
    return make if fn is None else make(fn)

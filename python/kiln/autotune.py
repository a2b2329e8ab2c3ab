"""``@kiln.autotune``: pick a kernel's meta-parameters by timing them, as
Triton's autotuner does.

    @kiln.autotune(configs=[kiln.Config({"BLOCK": 256}, num_warps=4),
                            kiln.Config({"BLOCK": 1024}, num_warps=8)],
                   key=["n"])
    @kiln.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
        ...

    add[lambda meta: (cdiv(meta["n"], meta["BLOCK"]),)](x, y, out, n)

The first launch with a given key (the values of the arguments named in
``key``, the dtypes of the array arguments, and where the launch runs: the
host target, the interpreter or the GPU's chip) launches every config,
times it, and keeps the fastest; later launches with that key use the
winner straight away. A grid given as a function receives the launch's
arguments and the config's meta-parameters (``num_warps`` and
``num_stages`` included).

On the host target each run is timed with the wall clock. On the GPU it
is timed with CUDA events where PyTorch is importable, with 256 MiB
written between runs so that none finds its data in L2 (elsewhere with
the wall clock, waiting for the device). The median of the timed runs
counts.

The winner of each key is also kept on disk, in a JSON file under
``$KILN_CACHE_DIR/autotune`` (default ``~/.cache/kiln/autotune``) named by
the kernel's source, the configs and the key, so the next process does not
time again; editing the kernel or the configs tunes again (editing a
kernel it calls does not). A file that cannot be read (not a regular
file, larger than 16 MiB, or not a winner's JSON) is ignored with a
warning and the key tuned again, a directory that cannot be written is no
error.

Timing never changes what the launch computes: arrays named in
``restore_value`` are put back after every timed run and hold their
original contents when tuning ends, arrays named in ``reset_to_zero`` are
zeroed before every timed run and when tuning ends (so the launch starts
from zeros, as Triton's does after timing), and then the launch runs once
with the winner. A kernel with one config is not timed, as in Triton. A config that fails (its kernel does not compile, or a launch
fails) is skipped with a warning.

``KILN_PRINT_AUTOTUNING=1`` (Triton's ``TRITON_PRINT_AUTOTUNING``) prints a
line per tuned key: the winner, its time, every config's time and how
long tuning took, or that the winner came from the disk cache. While
tuning with standard error on a terminal, a progress bar counts the
configs (tqdm's where it is installed, a plain line otherwise).

On the host target, with numpy arrays:

>>> import numpy as np, kiln, kiln.language as kl
>>> @kiln.autotune(configs=[kiln.Config({"BLOCK": 64}),
...                         kiln.Config({"BLOCK": 256})],
...                key=["n"], restore_value=["x_ptr"], warmup=1, rep=5)
... @kiln.jit
... def increment(x_ptr, n, BLOCK: kl.constexpr):
...     offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
...     mask = offsets < n
...     kl.store(x_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) + 1,
...              mask=mask)
>>> x = np.zeros(1000, np.float32)
>>> increment[lambda meta: (kiln.cdiv(meta["n"], meta["BLOCK"]),)](x, 1000)
>>> float(x.min()), float(x.max())
(1.0, 1.0)
>>> increment.best_config in increment.configs
True
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import platform
import statistics
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from kiln import cache, dlpack
from kiln import language as kl
from kiln.cuda import device_info
from kiln.errors import KilnError, user_facing
from kiln.gpu import (device_array_element, device_chip, is_device_array,
                      synchronize)
from kiln.jit import CompiledKernel, JITFunction

#: Bumped when the format of the winners kept on disk changes.
_FORMAT = 1
#: The largest winner file read back; one holds a line per config.
_MAX_ENTRY_BYTES = 16 << 20
#: Bytes written between timed GPU runs, so that none finds its data in L2.
_L2_FLUSH_BYTES = 256 << 20
#: The meta-parameters every config sets besides its kwargs.
_LAUNCH_OPTIONS = ("num_warps", "num_stages", "maxnreg")


class Config:
    """One choice of meta-parameters to try: values of the kernel's
    ``constexpr`` parameters (``kwargs``), the warps per program, the
    pipeline depth and the register limit (``maxnreg``, None: none) of
    its GPU compilation; ``pre_hook`` (as Triton's) is called with the
    launch's arguments by name and the config's before each of its
    launches, timed or not.

    >>> import kiln
    >>> kiln.Config({"BLOCK": 1024}, num_warps=8)
    Config({'BLOCK': 1024}, num_warps=8, num_stages=3)
    >>> kiln.Config({"BLOCK": 1024}, maxnreg=128).all_kwargs()
    {'BLOCK': 1024, 'num_warps': 4, 'num_stages': 3, 'maxnreg': 128}
    """

    def __init__(self, kwargs: dict[str, Any], num_warps: int = 4,
                 num_stages: int = 3, maxnreg: int | None = None,
                 pre_hook: Callable[[dict], Any] | None = None) -> None:
        if not isinstance(kwargs, dict):
            raise KilnError(f"Config takes a dict of constexpr values, not "
                            f"{type(kwargs).__name__}")
        for name, value, least in (("num_warps", num_warps, 1),
                                   ("num_stages", num_stages, 1),
                                   ("maxnreg", maxnreg, 1)):
            if name == "maxnreg" and value is None:
                continue
            if not isinstance(value, int) or value < least:
                raise KilnError(f"Config {name} must be an integer of at "
                                f"least {least}, not {value!r}")
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        if pre_hook is not None and not callable(pre_hook):
            raise KilnError(f"Config pre_hook is a function of the launch's "
                            f"arguments, not {pre_hook!r}")
        self.pre_hook = pre_hook

    def launch_options(self) -> dict[str, Any]:
        """The launch options the config sets: ``num_warps``,
        ``num_stages`` and, where set, ``maxnreg``."""
        options = {"num_warps": self.num_warps,
                   "num_stages": self.num_stages}
        if self.maxnreg is not None:
            options["maxnreg"] = self.maxnreg
        return options

    def all_kwargs(self) -> dict[str, Any]:
        """The kwargs with the launch options."""
        return {**self.kwargs, **self.launch_options()}

    def _identity(self) -> tuple:
        return (tuple(sorted(self.kwargs.items())), self.num_warps,
                self.num_stages, self.maxnreg)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Config)
                and self._identity() == other._identity())

    def __hash__(self) -> int:
        return hash(repr(self._identity()))

    def __repr__(self) -> str:
        register_limit = ("" if self.maxnreg is None
                          else f", maxnreg={self.maxnreg}")
        return (f"Config({self.kwargs!r}, num_warps={self.num_warps}, "
                f"num_stages={self.num_stages}{register_limit})")


# Arrays named in restore_value and reset_to_zero, numpy or device arrays
# (PyTorch tensors have clone/copy_/zero_; numpy and CuPy arrays copy and
# take slice assignment).

def _copy(array: Any) -> Any:
    return array.clone() if hasattr(array, "clone") else array.copy()


def _assign(array: Any, source: Any) -> None:
    if hasattr(array, "copy_"):
        array.copy_(source)
    else:
        array[...] = source


def _zero(array: Any) -> None:
    if hasattr(array, "zero_"):
        array.zero_()
    else:
        array[...] = 0


def _is_array(value: Any) -> bool:
    return isinstance(value, np.ndarray) or is_device_array(value)


def _shape(array: Any) -> tuple[int, ...]:
    if isinstance(array, np.ndarray):
        return array.shape
    return tuple(array.__cuda_array_interface__["shape"])


def _dtype(array: Any) -> str:
    if isinstance(array, np.ndarray):
        return str(array.dtype)
    return device_array_element(array)


def _key_value(value: Any) -> Any:
    """What an argument named in ``key`` contributes to the tuning key: its
    value, or the shape of an array."""
    if isinstance(value, kl.constexpr):
        value = value.value
    if isinstance(value, np.generic):
        return value.item()
    if _is_array(value):
        return ("shape", _shape(value))
    return value


@functools.cache
def _gpu_name(ordinal: int) -> str:
    return device_info(ordinal).name


# Clocks: how a timed run is measured where it runs. ``mark`` is taken
# right before and after a launch, ``seconds`` turns two marks into the
# run's time once ``synchronize`` has waited for the work, and ``flush``
# runs (untimed) before every timed run.

class _HostClock:
    """Wall time of launches on the host target (which return when done)."""

    def mark(self) -> float:
        return time.perf_counter()

    def seconds(self, start: float, end: float) -> float:
        return end - start

    def synchronize(self) -> None:
        pass

    def flush(self) -> None:
        pass


class _SynchronizedClock(_HostClock):
    """Wall time of GPU launches, waiting for the device at each mark:
    for GPUs where PyTorch is not there to record events."""

    def mark(self) -> float:
        synchronize()
        return time.perf_counter()


class _EventClock:
    """Device time of GPU launches between CUDA events (PyTorch's), with
    the L2 cache overwritten before each run."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.buffer = torch.empty(_L2_FLUSH_BYTES, dtype=torch.int8,
                                  device="cuda:0")

    def mark(self) -> Any:
        event = self.torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def seconds(self, start: Any, end: Any) -> float:
        return start.elapsed_time(end) / 1e3

    def synchronize(self) -> None:
        self.torch.cuda.synchronize()

    def flush(self) -> None:
        self.buffer.zero_()


def benchmark_clock(on_gpu: bool) -> _HostClock | _EventClock:
    """The clock that times launches on the host target, or on the GPU
    (CUDA events where PyTorch has CUDA, else the wall clock after
    waiting for the device): ``mark()`` before and after a run,
    ``synchronize()`` once the runs are issued, then ``seconds(start,
    end)`` of each; ``flush()`` clears the GPU's L2 before a run."""
    if not on_gpu:
        return _HostClock()
    try:
        import torch
    except ImportError:
        return _SynchronizedClock()
    if not torch.cuda.is_available():
        return _SynchronizedClock()
    return _EventClock(torch)


def _median_seconds(launch: Callable[[], None], clock: Any,
                    before: Callable[[], None], after: Callable[[], None],
                    warmup: float, rep: float) -> float:
    """The median time of ``launch`` on ``clock``: a first run (which
    compiles), then warm-up runs for about ``warmup`` ms and timed runs for
    about ``rep`` ms. ``before`` and ``after`` run, untimed, around every
    run; ``after`` also when the launch fails."""

    def run() -> tuple[Any, Any]:
        before()
        clock.flush()
        try:
            start = clock.mark()
            launch()
            end = clock.mark()
        finally:
            after()
        return start, end

    run()
    begin = time.perf_counter()
    run()
    clock.synchronize()
    cost_ms = max((time.perf_counter() - begin) * 1e3, 1e-3)
    for _ in range(int(warmup / cost_ms)):
        run()
    marks = [run() for _ in range(max(1, int(rep / cost_ms)))]
    clock.synchronize()
    return statistics.median(clock.seconds(*pair) for pair in marks)


def _first_line(error: BaseException) -> str:
    return (str(error).splitlines() or [type(error).__name__])[0]


def _read_winner(path: Path, configs: list[Config]) -> Config | None:
    """The config a former tuning kept at ``path``, or None (with a warning
    when the file is there but unusable)."""
    try:
        entry = json.loads(cache.read_entry(path, _MAX_ENTRY_BYTES))
        index = entry["config"]
        if (entry["format"] != _FORMAT or not isinstance(index, int)
                or not 0 <= index < len(configs)
                or entry["description"] != repr(configs[index])):
            raise ValueError("it names none of the configs")
        return configs[index]
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError, KeyError, TypeError,
            RecursionError) as exc:
        warnings.warn(f"kiln.autotune: ignoring the unreadable tuning result "
                      f"{path} ({exc}); tuning again", stacklevel=5)
        return None


def _write_winner(path: Path, entry: dict) -> None:
    """Writes ``entry`` to ``path`` whole or not at all; a cache that cannot
    be written is no error."""
    cache.write_atomically(path, json.dumps(entry, indent=1).encode())


def _names(what: str, names: Iterable[str] | None) -> list[str]:
    if names is None:
        return []
    if isinstance(names, str):
        raise KilnError(f"kiln.autotune {what} must be a list of argument "
                        f"names, not the string {names!r}")
    return list(names)


class _Progress:
    """Counts configs while tuning, on standard error when it is a
    terminal: tqdm's bar where tqdm is installed, else a line rewritten in
    place."""

    def __init__(self, what: str, total: int) -> None:
        self.what, self.total, self.done = what, total, 0
        self.bar = None
        self.shown = sys.stderr.isatty()
        if self.shown:
            try:
                from tqdm import tqdm
            except ImportError:
                return
            self.bar = tqdm(total=total, desc=what, unit="config",
                            file=sys.stderr, leave=False)

    def step(self) -> None:
        """Marks the start of the next config."""
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.shown:
            print(f"\r{self.what}: config {self.done} of {self.total}",
                  end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.shown:
            print(file=sys.stderr, flush=True)


class Autotuner:
    """A ``@kiln.jit`` kernel launched with the fastest of its configs;
    ``kernel[grid](*args)`` launches it. See the module documentation.

    ``best_config`` is the config the last launch used; ``timings`` maps
    each config that ran to its median time in seconds in the last launch
    that tuned, and is empty after a launch that found its winner already
    known (in this process or on disk)."""

    def __init__(self, fn: JITFunction | Heuristics,
                 configs: Sequence[Config], key: Sequence[str],
                 restore_value: Sequence[str] | None,
                 reset_to_zero: Sequence[str] | None, warmup: float,
                 rep: float, prune_configs_by: dict | None = None) -> None:
        if not isinstance(fn, (JITFunction, Heuristics)):
            raise KilnError("kiln.autotune applies to a @kiln.jit kernel: "
                            "put @kiln.autotune(...) above @kiln.jit (and "
                            "above any @heuristics)")
        # What launches (the kernel, or heuristics over it), and the kernel.
        self.launches = fn
        self.fn = fn if isinstance(fn, JITFunction) else fn.fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.configs = list(configs)
        self.key = _names("key", key)
        self.restore_value = _names("restore_value", restore_value)
        self.reset_to_zero = _names("reset_to_zero", reset_to_zero)
        self.warmup_ms, self.rep_ms = warmup, rep
        self.prune_configs_by = _checked_pruning(prune_configs_by)
        self._check_configs()
        self._tuned = {name for c in self.configs for name in c.kwargs}
        self._check_options()
        self.best_config: Config | None = None
        self.timings: dict[Config, float] = {}
        self._winners: dict[tuple, Config] = {}
        self._lock = threading.Lock()

    def _check_configs(self) -> None:
        """Rejects configs that cannot work with the kernel, naming them."""
        name = self.__name__
        if not self.configs:
            raise KilnError(f"kiln.autotune of '{name}' needs at least one "
                            "Config")
        for config in self.configs:
            if not isinstance(config, Config):
                raise KilnError(f"kiln.autotune of '{name}' takes "
                                f"kiln.Config objects, not {config!r}")
            for kwarg in config.kwargs:
                if kwarg not in self.fn.constexprs:
                    raise KilnError(
                        f"{config} of '{name}' sets '{kwarg}', which is not "
                        f"a constexpr parameter of the kernel (those are: "
                        f"{', '.join(sorted(self.fn.constexprs)) or 'none'})")

    def _check_options(self) -> None:
        """Rejects argument names that are not the kernel's, or that the
        configs set, and times that are not times, naming them."""
        name = self.__name__
        parameters = list(self.fn.signature.parameters)
        for what, names in (("key", self.key),
                            ("restore_value", self.restore_value),
                            ("reset_to_zero", self.reset_to_zero)):
            for argument in names:
                if argument not in parameters:
                    raise KilnError(
                        f"kiln.autotune {what} names '{argument}', which is "
                        f"not an argument of '{name}' (those are: "
                        f"{', '.join(parameters)})")
        for argument in self.key:
            if argument in self._tuned:
                raise KilnError(f"kiln.autotune key names '{argument}', "
                                f"which the configs of '{name}' set")
        for what, value in (("warmup", self.warmup_ms),
                            ("rep", self.rep_ms)):
            if not isinstance(value, (int, float)) or value < 0:
                raise KilnError(f"kiln.autotune {what} is a time in ms, "
                                f"not {value!r}")

    def __getitem__(self, grid: Sequence[int] | Callable) -> Callable:
        return functools.partial(self.run, grid=grid)

    def __call__(self, *args, **kwargs):
        raise KilnError(f"launch a kernel with {self.__name__}[grid](...)")

    @user_facing
    def run(self, *args, grid: Sequence[int] | Callable, **kwargs) -> None:
        """Launches the kernel on ``grid`` with the winner of this launch's
        key, tuning first when the key is new."""
        passed, given = self._given(args, kwargs)
        key = self._key(given)
        config = self._winners.get(key)
        if len(self.configs) == 1:
            # As Triton's: one config is not timed (a kernel's atomics
            # run once).
            config, self.timings = self.configs[0], {}
        elif config is None:
            with self._lock:
                config = self._winners.get(key)
                if config is None:
                    candidates = self._pruned(args, kwargs, grid)
                    self.timings = {}
                    config = candidates[0] if len(candidates) == 1 else \
                        self._find(key, given, passed, grid, candidates)
                self._winners[key] = config
        else:
            self.timings = {}
        self.best_config = config
        self._launch(config, passed, grid)

    @user_facing
    def warmup(self, *args, chip: str = "sm_90a", grid: Any = None,
               **kwargs) -> list[CompiledKernel]:
        """Each config's GPU compilation for ``chip`` with these arguments
        (no launch), as Triton's ``Autotuner.warmup``."""
        passed, _ = self._given(args, kwargs)
        return [self.launches.warmup(chip=chip, grid=grid,
                                     **config.launch_options(),
                                     **{**passed, **config.kwargs})
                for config in self.configs]

    def _given(self, args: tuple, kwargs: dict
               ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The launch's arguments by name, as passed (what launches, grid
        functions and pre-hooks take: a PyTorch tensor stays one) and as
        given to the key, the clock and restore_value (DLPack-only arrays
        as the launch reads them); none may be one the configs set."""
        for option in _LAUNCH_OPTIONS:
            if option in kwargs:
                raise self._passed_tuned(option)
        try:
            given = self.fn.signature.bind_partial(*args, **kwargs).arguments
        except TypeError as exc:
            raise KilnError(f"{self.__name__}: {exc}") from None
        clashes = sorted(self._tuned & set(given))
        if clashes:
            raise self._passed_tuned(clashes[0])
        return given, {name: dlpack.adapt(value)
                       for name, value in given.items()}

    def _passed_tuned(self, name: str) -> KilnError:
        return KilnError(f"{self.__name__}: '{name}' is set by the "
                         "kiln.autotune configs and cannot be passed to the "
                         "launch")

    def _key(self, given: dict[str, Any]) -> tuple:
        """The launch's tuning key: the ``key`` arguments' values, the
        array arguments' dtypes, and where the launch runs."""
        values = tuple(_key_value(self._argument(given, name))
                       for name in self.key)
        arrays = {name: value for name, value in given.items()
                  if name not in self.fn.constexprs and _is_array(value)}
        dtypes = tuple((name, _dtype(a)) for name, a in arrays.items())
        if self.fn.interpreted:
            target = ("interpreter",)
        elif self._on_gpu(given):
            target = ("cuda", device_chip(0), _gpu_name(0))
        else:
            target = ("host", platform.machine(),
                      os.environ.get("KILN_HOST_THREADS") or "1")
        return values, dtypes, target

    def _on_gpu(self, given: dict[str, Any]) -> bool:
        return not self.fn.interpreted and any(map(is_device_array,
                                                   given.values()))

    def _argument(self, given: dict[str, Any], name: str) -> Any:
        """Argument ``name`` of a launch, given or by default."""
        if name in given:
            return given[name]
        default = self.fn.signature.parameters[name].default
        if default is inspect.Parameter.empty:
            raise KilnError(f"{self.__name__}: missing a required argument: "
                            f"'{name}'")
        return default

    def _launch(self, config: Config, passed: dict[str, Any],
                grid: Sequence[int] | Callable) -> None:
        if callable(grid):
            # Called by the kernel's launch with every argument it binds
            # (those heuristics add too), and the config's options.
            grid = functools.partial(_grid_with_options, grid, config)
        if config.pre_hook is not None:
            config.pre_hook({**passed, **config.all_kwargs()})
        self.launches.run(grid=grid, **config.launch_options(),
                          **{**passed, **config.kwargs})

    def _cache_path(self, key: tuple, candidates: list[Config]
                    ) -> Path | None:
        """The file that keeps the winner of ``key`` among ``candidates``,
        named by the kernel's source, the candidates and the key; None for
        a kernel without source."""
        try:
            source = inspect.getsource(self.fn.fn)
        except (OSError, TypeError):
            return None
        text = json.dumps([_FORMAT, source, [repr(c) for c in candidates],
                           repr(key)])
        digest = hashlib.sha256(text.encode()).hexdigest()
        return cache.directory() / "autotune" / f"{digest}.json"

    def _pruned(self, args: tuple, kwargs: dict,
                grid: Sequence[int] | Callable) -> list[Config]:
        """The configs a new key times, as Triton's ``prune_configs_by``
        leaves them: those ``early_config_prune(configs, named_args,
        **kwargs)`` keeps, then the ``top_k`` that ``perf_model`` estimates
        fastest (a fraction of them for a float of at most 1). As Triton,
        the functions take the positional arguments by name and the
        keyword arguments (the grid among them)."""
        configs = self.configs
        pruning = self.prune_configs_by
        if not pruning:
            return configs
        named = dict(zip(self.fn.signature.parameters, args))
        keywords = {**kwargs, "grid": grid, "warmup": False}
        if pruning.get("early_config_prune"):
            configs = list(pruning["early_config_prune"](
                self.configs, named, **keywords))
            if not configs or not all(c in self.configs for c in configs):
                raise KilnError(
                    f"kiln.autotune of '{self.__name__}': early_config_prune "
                    "returns at least one of the configs, and only them")
        model, top_k = pruning.get("perf_model"), pruning.get("top_k")
        if model and top_k is not None:
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            if len(configs) > top_k:
                estimates = {config: model(**named, **keywords,
                                           **config.all_kwargs())
                             for config in configs}
                configs = sorted(configs, key=estimates.__getitem__)[:top_k]
        return configs

    def _find(self, key: tuple, given: dict[str, Any],
              passed: dict[str, Any], grid: Sequence[int] | Callable,
              candidates: list[Config]) -> Config:
        """The winner of ``key`` among ``candidates``: the one kept on
        disk, else the fastest, timed now and then kept on disk."""
        path = self._cache_path(key, candidates)
        winner = _read_winner(path, candidates) if path else None
        if winner is not None:
            self.timings = {}
            if _printing():
                print(f"kiln.autotune: '{self.__name__}' {key!r}: {winner} "
                      f"(from the disk cache)", flush=True)
            return winner
        start = time.perf_counter()
        timings = self._tune(given, passed, grid, candidates)
        winner = min(timings, key=timings.__getitem__)
        if _printing():
            tried = ", ".join(f"{config}: {seconds * 1e6:.1f} us"
                              for config, seconds in timings.items())
            print(f"kiln.autotune: '{self.__name__}' {key!r}: {winner} in "
                  f"{timings[winner] * 1e6:.1f} us; tuned in "
                  f"{time.perf_counter() - start:.2f} s over "
                  f"{len(timings)} configs ({tried})", flush=True)
        if path:
            _write_winner(path, {
                "format": _FORMAT, "kernel": self.__name__, "key": repr(key),
                "config": candidates.index(winner),
                "description": repr(winner),
                "timings": {repr(c): t for c, t in timings.items()}})
        self.timings = timings
        return winner

    def _tune(self, given: dict[str, Any], passed: dict[str, Any],
              grid: Sequence[int] | Callable,
              candidates: list[Config]) -> dict[Config, float]:
        """Times every candidate; skips, with a warning, those that
        fail."""
        arrays = {name: value for name, value in given.items()
                  if _is_array(value)}
        restored = {name: _copy(arrays[name]) for name in self.restore_value
                    if name in arrays}
        zeroed = [name for name in self.reset_to_zero
                  if name in arrays and name not in restored]
        clock = benchmark_clock(self._on_gpu(given))

        def before() -> None:
            for name in self.reset_to_zero:
                if name in arrays:
                    _zero(arrays[name])

        def after() -> None:
            for name, saved in restored.items():
                _assign(arrays[name], saved)

        timings, failures = {}, []
        progress = _Progress(f"kiln.autotune: '{self.__name__}'",
                             len(candidates))
        try:
            for config in candidates:
                progress.step()
                try:
                    timings[config] = _median_seconds(
                        functools.partial(self._launch, config, passed,
                                          grid),
                        clock, before, after, self.warmup_ms,
                        self.rep_ms)
                except KilnError as exc:
                    failures.append(f"{config}: {_first_line(exc)}")
                    warnings.warn(f"kiln.autotune: skipping {config} of "
                                  f"'{self.__name__}': {_first_line(exc)}",
                                  stacklevel=5)
        finally:
            progress.close()
            # As Triton's: the launch that follows starts from zeros.
            for name in zeroed:
                _zero(arrays[name])
        if not timings:
            raise KilnError(f"kiln.autotune: every config of "
                            f"'{self.__name__}' failed:\n  "
                            + "\n  ".join(failures))
        return timings


def _checked_pruning(pruning: dict | None) -> dict:
    """Triton's ``prune_configs_by``, its entries checked."""
    if pruning is None:
        return {}
    known = ("early_config_prune", "perf_model", "top_k")
    if not isinstance(pruning, dict) or any(k not in known for k in pruning):
        raise KilnError(f"kiln.autotune prune_configs_by is a dict of "
                        f"{', '.join(known)}, not {pruning!r}")
    for name in ("early_config_prune", "perf_model"):
        if pruning.get(name) is not None and not callable(pruning[name]):
            raise KilnError(f"kiln.autotune prune_configs_by {name} is a "
                            f"function, not {pruning[name]!r}")
    top_k = pruning.get("top_k")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(
            top_k, (int, float)) or top_k <= 0):
        raise KilnError(f"kiln.autotune prune_configs_by top_k is a count "
                        f"or a fraction of at most 1, not {top_k!r}")
    return dict(pruning)


def _printing() -> bool:
    """Whether KILN_PRINT_AUTOTUNING asks for each key's result."""
    return os.environ.get("KILN_PRINT_AUTOTUNING", "") not in ("", "0")


def _grid_with_options(grid: Callable, config: Config,
                       arguments: dict[str, Any]) -> Any:
    return grid({**arguments, **config.launch_options()})


class Heuristics:
    """A ``@kiln.jit`` kernel (or an autotuned one) whose launches compute
    some arguments first, as Triton's ``@triton.heuristics``: each of
    ``values`` maps a parameter name to a function of the launch's
    arguments (a dict by name: those given, positional and keyword, and
    the values computed before it) that returns the value passed for it.
    ``kernel[grid](*args)`` launches it.

    >>> import kiln, kiln.language as kl
    >>> @heuristics({"BLOCK": lambda args: 1 << (args["n"] - 1).bit_length()})
    ... @kiln.jit
    ... def fill(x_ptr, n, BLOCK: kl.constexpr):
    ...     offsets = kl.arange(0, BLOCK)
    ...     kl.store(x_ptr + offsets, offsets, mask=offsets < n)
    >>> x = np.zeros(100, np.int32)
    >>> fill[(1,)](x, 100)
    >>> int(x[-1])
    99
    """

    def __init__(self, fn: JITFunction | Autotuner,
                 values: dict[str, Callable[[dict], Any]]) -> None:
        if not isinstance(fn, (JITFunction, Autotuner, Heuristics)):
            raise KilnError("heuristics apply to a @kiln.jit kernel: put "
                            "@heuristics(...) above @kiln.jit")
        if not isinstance(values, dict) or not all(
                callable(v) for v in values.values()):
            raise KilnError("heuristics take a dict from parameter name to "
                            "a function of the launch's arguments")
        self.launches = fn
        self.fn = fn.fn if isinstance(fn, (Autotuner, Heuristics)) else fn
        self.values = dict(values)
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        for name in self.values:
            if name not in self.fn.signature.parameters:
                raise KilnError(
                    f"heuristics of '{self.__name__}' set '{name}', which is "
                    f"not a parameter of the kernel (those are: "
                    f"{', '.join(self.fn.signature.parameters)})")

    def __getitem__(self, grid: Sequence[int] | Callable) -> Callable:
        return functools.partial(self.run, grid=grid)

    def __call__(self, *args, **kwargs):
        raise KilnError(f"launch a kernel with {self.__name__}[grid](...)")

    @user_facing
    def run(self, *args, grid: Sequence[int] | Callable, **kwargs) -> None:
        """Launches the kernel with the computed values added to
        ``kwargs``."""
        names = list(self.fn.signature.parameters)
        for name, heuristic in self.values.items():
            kwargs[name] = heuristic({**dict(zip(names, args)), **kwargs})
        self.launches.run(*args, grid=grid, **kwargs)

    @user_facing
    def warmup(self, *args, **kwargs) -> Any:
        """The kernel's GPU compilation (each config's, autotuned) with
        the computed values, as Triton's ``Heuristics.warmup``."""
        names = list(self.fn.signature.parameters)
        for name, heuristic in self.values.items():
            kwargs[name] = heuristic({**dict(zip(names, args)), **kwargs})
        return self.launches.warmup(*args, **kwargs)


def heuristics(values: dict[str, Callable[[dict], Any]]
               ) -> Callable[[JITFunction], Heuristics]:
    """Computes the arguments named in ``values`` at each launch from the
    others (see `Heuristics`)."""
    return lambda fn: Heuristics(fn, values)


def autotune(configs: Sequence[Config], key: Sequence[str], *,
             restore_value: Sequence[str] | None = None,
             reset_to_zero: Sequence[str] | None = None,
             warmup: float = 25, rep: float = 100,
             prune_configs_by: dict | None = None
             ) -> Callable[[JITFunction], Autotuner]:
    """Makes a ``@kiln.jit`` kernel pick the fastest of ``configs`` for each
    new value of the arguments named in ``key`` (see the module
    documentation). ``restore_value`` names arrays the kernel modifies in
    place, restored after each timed run; ``reset_to_zero`` names arrays
    zeroed before each timed run (outputs accumulated with atomics).
    ``warmup`` and ``rep`` are about how many milliseconds each config is
    run before timing and while timing. ``prune_configs_by`` is Triton's:
    a dict of ``early_config_prune``, ``perf_model`` and ``top_k``
    (`Autotuner._pruned`)."""
    return lambda fn: Autotuner(fn, configs, key, restore_value,
                                reset_to_zero, warmup, rep, prune_configs_by)

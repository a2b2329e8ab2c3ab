"""An on-disk cache of GPU binaries, so that a kernel compiled once is not
compiled again by the next process. Entries live in ``$KILN_CACHE_DIR``
(default ``~/.cache/kiln``), named by a hash of everything the binary
depends on: what it is compiled from (a ``@kiln.jit`` kernel's source
fingerprint, ``kiln/source_key.py``, with its specialization; else the tile
IR), the chip, the warps per program, the pipeline depth (stages) and the
compiler build (the C API library's and the Python package's files' paths,
sizes and modification times). An entry holds the kernels' argument types
too, so that a kernel keyed by its source launches from it without its IR.
An entry is written to a temporary file and renamed into place, so a reader
never sees half of one; temporaries an hour old, left by a writer that
died, are removed by the next write to the folder. An entry that is
truncated or garbled (its header records the body's SHA-256), that is not a
regular file, that is larger than ``MAX_ENTRY_BYTES``, or whose header
holds a value no compilation gives (threads per block outside 32 to 1024 or
not a multiple of 32, dynamic shared memory outside 0 to
``MAX_SHARED_BYTES``) is reported with a warning and compiled again; a
cache directory that cannot be written is the same as no cache. With
``KILN_REQUIRE_CACHE_HIT=1`` a kernel missing from the cache is an error
instead of a compilation.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import tempfile
import time
import warnings
from pathlib import Path
from typing import NamedTuple

from kiln import _ffi
from kiln.errors import KilnError
from kiln.gpu import GPUOptions

#: Bumped when the entry format changes.
_FORMAT = 5

#: The largest entry read back; a kernel's PTX and cubin take megabytes.
MAX_ENTRY_BYTES = 1 << 30

#: The most threads a block has: 32 warps of 32 threads.
MAX_THREADS = 1024

#: The most dynamic shared memory a block has on any chip Kiln compiles
#: for (227 KiB on sm_90 and sm_100: getMaxSharedBytesPerBlock in
#: lib/Target/GPU/GPUCompiler.cpp).
MAX_SHARED_BYTES = 227 * 1024

#: How old a temporary is before it counts as a dead writer's: no live
#: writer takes this long between creating it and renaming it.
STALE_SECONDS = 3600


def directory() -> Path:
    return Path(os.environ.get("KILN_CACHE_DIR")
                or Path.home() / ".cache" / "kiln")


@functools.cache
def _compiler_identity() -> list:
    """What tells one build of the compiler from another: the loaded C API
    library's path, size and modification time, and those of the Python
    package's modules (the front end writes the IR that a key by source
    stands for)."""
    library = Path(_ffi.lib()._name)
    files = [library, *sorted(Path(__file__).parent.rglob("*.py"))]
    stamps = [(str(path.resolve()), path.stat().st_size,
               path.stat().st_mtime_ns) for path in files]
    return [stamps[0], hashlib.sha256(repr(stamps[1:]).encode()).hexdigest()]


class Entry(NamedTuple):
    """What an entry holds: a compilation's PTX and cubin, its threads per
    block, dynamic shared bytes and tensor maps (the "tensor-maps"
    artifact), and its kernels' argument types (IR text) by kernel."""

    ptx: str
    cubin: bytes
    threads: int
    shared: int = 0
    tensor_maps: str = ""
    arguments: dict[str, list[str]] = {}


def key(origin: str, chip: str, options: GPUOptions) -> str:
    """The entry name of a compilation of `origin` (what it is compiled
    from: a source fingerprint with a specialization, or IR) for ``chip``
    with ``options``."""
    text = json.dumps([_FORMAT, _ffi.lib().kilnGetAPIVersion(),
                       _compiler_identity(), chip, list(options), origin])
    return hashlib.sha256(text.encode()).hexdigest()


def require_hit(what: str) -> None:
    """Raises where ``KILN_REQUIRE_CACHE_HIT=1`` forbids compiling ``what``,
    which the cache does not hold."""
    if os.environ.get("KILN_REQUIRE_CACHE_HIT", "") not in ("", "0"):
        raise KilnError(f"KILN_REQUIRE_CACHE_HIT is set, but {what} is not "
                        f"in the cache ({directory()})")


def load(name: str) -> Entry | None:
    """Entry ``name``, or None when there is none; a damaged entry is
    reported with a warning."""
    path = directory() / f"{name}.kiln"
    try:
        data = read_entry(path, MAX_ENTRY_BYTES)
        header_size = int.from_bytes(data[:4], "little")
        header = json.loads(data[4:4 + header_size])
        if not isinstance(header, dict):
            raise ValueError("its header is not a JSON object")
        if header.get("format") != _FORMAT:
            return None  # written by another version: replaced
        _check_header(header)
        ptx_size, tensor_maps = header["ptx"], header["tensor_maps"]
        body = data[4 + header_size:]
        if len(body) != ptx_size + header["cubin"] or \
                hashlib.sha256(body + tensor_maps.encode() + json.dumps(
                    header["arguments"]).encode()).hexdigest() \
                != header["sha256"]:
            raise ValueError("its contents do not match its header")
        return Entry(body[:ptx_size].decode(), body[ptx_size:],
                     header["threads"], header["shared"], tensor_maps,
                     header["arguments"])
    except OSError:
        return None
    except (ValueError, RecursionError) as exc:
        report_damaged(name, exc)
        return None


def report_damaged(name: str, reason: Exception,
                   kind: str = "kiln") -> None:
    """Warns that entry ``name`` (a ``.kiln`` GPU entry, or a ``.host``
    one) cannot be used (for ``reason``), so that its kernel is compiled
    again and the entry replaced."""
    warnings.warn(f"kiln cache entry {directory() / f'{name}.{kind}'} is "
                  f"damaged ({reason}); compiling the kernel again",
                  RuntimeWarning, stacklevel=3)


def _check_header(header: dict) -> None:
    """Raises ValueError where ``header`` holds what no compilation
    writes: a field of the wrong type, a negative size, threads or shared
    memory no GPU launches a block with."""
    for field, kind in (("ptx", int), ("cubin", int), ("threads", int),
                        ("shared", int), ("tensor_maps", str),
                        ("sha256", str)):
        # type(), not isinstance(): JSON's true is no size.
        if type(header.get(field)) is not kind:
            raise ValueError(f"its header's {field} is not of type "
                             f"{kind.__name__}")
    if not _argument_types(header.get("arguments")):
        raise ValueError("its header's arguments are not lists of types by "
                         "kernel")
    if header["ptx"] < 0 or header["cubin"] < 0:
        raise ValueError("its header has a negative size")
    threads, shared = header["threads"], header["shared"]
    if not 0 < threads <= MAX_THREADS or threads % 32:
        raise ValueError(f"{threads} threads per block is not a multiple "
                         f"of 32 from 32 to {MAX_THREADS}")
    if not 0 <= shared <= MAX_SHARED_BYTES:
        raise ValueError(f"{shared} bytes of shared memory is not from 0 "
                         f"to {MAX_SHARED_BYTES}")


def _argument_types(arguments) -> bool:
    """Whether a header's ``arguments`` are lists of types by kernel."""
    return type(arguments) is dict and all(
        type(types) is list and all(type(t) is str for t in types)
        for types in arguments.values())


def read_entry(path: Path, limit: int) -> bytes:
    """The contents of the regular file at ``path`` (or the one a link
    there names); OSError where there is none, ValueError where something
    else is there (a FIFO, a device, a folder) or it holds more than
    ``limit`` bytes."""
    # Without O_NONBLOCK, opening a FIFO waits for a writer.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise ValueError("it is not a regular file")
        if status.st_size > limit:
            raise ValueError(f"it holds {status.st_size} bytes, more than "
                             f"the {limit} an entry may")
        with open(descriptor, "rb", closefd=False) as file:
            return file.read(status.st_size)
    finally:
        os.close(descriptor)


def store(name: str, ptx: str, cubin: bytes, threads: int,
          shared: int = 0, tensor_maps: str = "",
          arguments: dict[str, list[str]] | None = None) -> bool:
    """Writes entry ``name`` (kernels of ``threads`` threads launched with
    ``shared`` bytes of dynamic shared memory, building the TMA
    ``tensor_maps``, taking the ``arguments`` types by kernel) atomically;
    False (and no partial file) when the cache directory cannot be
    written."""
    ptx_bytes = ptx.encode()
    arguments = arguments or {}
    header = json.dumps({"format": _FORMAT, "ptx": len(ptx_bytes),
                         "cubin": len(cubin), "threads": threads,
                         "shared": shared, "tensor_maps": tensor_maps,
                         "arguments": arguments,
                         "sha256": hashlib.sha256(
                             ptx_bytes + cubin + tensor_maps.encode() +
                             json.dumps(arguments).encode())
                         .hexdigest()}).encode()
    return write_atomically(directory() / f"{name}.kiln",
                            len(header).to_bytes(4, "little") + header +
                            ptx_bytes + cubin)


class HostEntry(NamedTuple):
    """What a host entry holds: a host compilation's object file, the
    description of its kernels (HostExecutable.artifacts) and their
    argument types (IR text) by kernel."""

    object_file: bytes
    description: str
    arguments: dict[str, list[str]]


def host_key(origin: str, check_bounds: bool) -> str:
    """The entry name of a host compilation of `origin` (a source
    fingerprint with a specialization), for this machine's CPU."""
    text = json.dumps([_FORMAT, "host", _ffi.lib().kilnGetAPIVersion(),
                       _compiler_identity(),
                       _ffi.lib().kilnGetHostTarget().decode(),
                       check_bounds, origin])
    return hashlib.sha256(text.encode()).hexdigest()


def store_host(name: str, object_file: bytes, description: str,
               arguments: dict[str, list[str]]) -> bool:
    """Writes host entry ``name`` atomically, as ``store`` does."""
    header = json.dumps({"format": _FORMAT, "object": len(object_file),
                         "description": description,
                         "arguments": arguments,
                         "sha256": _host_digest(object_file, description,
                                                arguments)}).encode()
    return write_atomically(directory() / f"{name}.host",
                            len(header).to_bytes(4, "little") + header +
                            object_file)


def load_host(name: str) -> HostEntry | None:
    """Host entry ``name``, or None where there is none; a damaged entry is
    reported with a warning, as ``load`` reports one."""
    try:
        data = read_entry(directory() / f"{name}.host", MAX_ENTRY_BYTES)
        size = int.from_bytes(data[:4], "little")
        header = json.loads(data[4:4 + size])
        if not isinstance(header, dict):
            raise ValueError("its header is not a JSON object")
        if header.get("format") != _FORMAT:
            return None
        object_file = data[4 + size:]
        description, arguments = header.get("description"), \
            header.get("arguments")
        if type(description) is not str or not _argument_types(arguments):
            raise ValueError("its header's description or arguments are "
                             "not what a compilation writes")
        if len(object_file) != header.get("object") or header.get(
                "sha256") != _host_digest(object_file, description,
                                          arguments):
            raise ValueError("its contents do not match its header")
        return HostEntry(object_file, description, arguments)
    except OSError:
        return None
    except (ValueError, RecursionError) as exc:
        report_damaged(name, exc, "host")
        return None


def _host_digest(object_file: bytes, description: str,
                 arguments: dict) -> str:
    return hashlib.sha256(object_file + description.encode() +
                          json.dumps(arguments).encode()).hexdigest()


def write_atomically(path: Path, data: bytes) -> bool:
    """Writes ``data`` to ``path`` whole or not at all (a temporary file
    renamed into place); False, and no file left, when the folder cannot be
    written. Temporaries in the folder older than ``STALE_SECONDS``, left
    by writers that died before renaming, are removed."""
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent,
                                         prefix=f".{path.name}.",
                                         delete=False) as out:
            temporary = out.name
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        if temporary:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        return False
    _remove_stale_temporaries(path)
    return True


def _remove_stale_temporaries(path: Path) -> None:
    """Removes the temporaries of entries like ``path`` (named
    ``.<entry>.<random>``, as write_atomically makes them) in its folder
    that are older than ``STALE_SECONDS``."""
    cutoff = time.time() - STALE_SECONDS
    for temporary in path.parent.glob(f".*{path.suffix}.*"):
        try:
            if temporary.lstat().st_mtime < cutoff:
                temporary.unlink()
        except OSError:
            pass  # removed by another writer, or not ours to remove

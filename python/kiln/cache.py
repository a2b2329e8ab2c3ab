"""An on-disk cache of GPU binaries, so that a kernel compiled once is not
compiled again by the next process.

Entries live in ``$KILN_CACHE_DIR`` (default ``~/.cache/kiln``), named by a
hash of everything the binary depends on: the tile IR, the chip, the warps
per program, the pipeline depth (stages) and the compiler build (the C API
library's path, size and modification time). An entry is written to a
temporary
file and renamed into place, so a reader never sees half of one. An entry
that is truncated or garbled (its header records the body's SHA-256) is
reported with a warning and compiled again; a cache directory that cannot
be written is the same as no cache. With ``KILN_REQUIRE_CACHE_HIT=1`` a
kernel missing from the cache is an error instead of a compilation.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path

from kiln import _ffi
from kiln.errors import KilnError

#: Bumped when the entry format changes.
_FORMAT = 4


def directory() -> Path:
    return Path(os.environ.get("KILN_CACHE_DIR")
                or Path.home() / ".cache" / "kiln")


def _compiler_identity() -> list:
    """What tells one build of the compiler from another: the loaded C API
    library's path, size and modification time."""
    path = Path(_ffi.lib()._name)
    stat = path.stat()
    return [str(path.resolve()), stat.st_size, stat.st_mtime_ns]


def key(ir: str, chip: str, num_warps: int, num_stages: int) -> str:
    """The entry name of a compilation."""
    text = json.dumps([_FORMAT, _ffi.lib().kilnGetAPIVersion(),
                       _compiler_identity(), chip, num_warps, num_stages, ir])
    return hashlib.sha256(text.encode()).hexdigest()


def require_hit(what: str) -> None:
    """Raises where ``KILN_REQUIRE_CACHE_HIT=1`` forbids compiling ``what``,
    which the cache does not hold."""
    if os.environ.get("KILN_REQUIRE_CACHE_HIT", "") not in ("", "0"):
        raise KilnError(f"KILN_REQUIRE_CACHE_HIT is set, but {what} is not "
                        f"in the cache ({directory()})")


def load(name: str) -> tuple[str, bytes, int, int, str] | None:
    """(PTX, cubin, threads per block, dynamic shared bytes, tensor maps)
    of entry ``name``, or None when there is none; a damaged entry is
    reported with a warning."""
    path = directory() / f"{name}.kiln"
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        header_size = int.from_bytes(data[:4], "little")
        header = json.loads(data[4:4 + header_size])
        ptx_size, cubin_size = header["ptx"], header["cubin"]
        body = data[4 + header_size:]
        if header.get("format") != _FORMAT:
            return None  # written by another version: replaced
        tensor_maps = header["tensor_maps"]
        if len(body) != ptx_size + cubin_size or \
                hashlib.sha256(body + tensor_maps.encode()).hexdigest() \
                != header["sha256"]:
            raise ValueError("its contents do not match its header")
        return (body[:ptx_size].decode(), body[ptx_size:],
                int(header["threads"]), int(header["shared"]), tensor_maps)
    except (ValueError, KeyError, UnicodeDecodeError, TypeError) as exc:
        warnings.warn(f"kiln cache entry {path} is damaged ({exc}); "
                      "compiling the kernel again", RuntimeWarning,
                      stacklevel=2)
        return None


def store(name: str, ptx: str, cubin: bytes, threads: int,
          shared: int = 0, tensor_maps: str = "") -> bool:
    """Writes entry ``name`` (kernels of ``threads`` threads launched with
    ``shared`` bytes of dynamic shared memory, building the TMA
    ``tensor_maps``) atomically; False (and no partial file) when the cache
    directory cannot be written."""
    ptx_bytes = ptx.encode()
    header = json.dumps({"format": _FORMAT, "ptx": len(ptx_bytes),
                         "cubin": len(cubin), "threads": threads,
                         "shared": shared, "tensor_maps": tensor_maps,
                         "sha256": hashlib.sha256(
                             ptx_bytes + cubin + tensor_maps.encode())
                         .hexdigest()}).encode()
    return write_atomically(directory() / f"{name}.kiln",
                            len(header).to_bytes(4, "little") + header +
                            ptx_bytes + cubin)


def write_atomically(path: Path, data: bytes) -> bool:
    """Writes ``data`` to ``path`` whole or not at all (a temporary file
    renamed into place); False, and no file left, when the folder cannot be
    written."""
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent,
                                         prefix=f".{path.name}.",
                                         delete=False) as out:
            temporary = out.name
            out.write(data)
        os.replace(temporary, path)
        return True
    except OSError:
        if temporary:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        return False

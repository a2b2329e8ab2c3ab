"""Damaged disk-cache entries, at random: whatever an entry has become (its
bytes flipped, cut or extended; its header's fields of other types, sizes
or nesting; the entry a link, a FIFO, a folder or a device), loading it
returns a usable entry or None with a warning, promptly, and never raises
or blocks. Seeds are fixed, so a failure reproduces;
KILN_CACHE_FUZZ_ITERATIONS sets how many entries a run tries."""

from __future__ import annotations

import json
import os
import random
import signal
import warnings

import pytest

from kiln import cache
from kiln.gpu import GPUOptions

ITERATIONS = int(os.environ.get("KILN_CACHE_FUZZ_ITERATIONS", "3000"))

ENTRY = cache.Entry(".version 8.0\n.target sm_90a\n",
                    b"\x7fELF" + bytes(range(60)), 128, 98304,
                    "[{\"dims\": [64, 64]}]",
                    {"k": ["!tile.ptr<f32>", "i32"]})

VALUES = [0, -1, 1, 31, 32, 1024, 2**40, 2**63, 1.5, True, None, "", "128",
          [], {}, [[[]]], "x" * 100]


def mutate_header(rng: random.Random, header: dict) -> bytes:
    changed = dict(header)
    for _ in range(rng.randint(1, 3)):
        field = rng.choice([*header, "extra"])
        choice = rng.random()
        if choice < 0.2:
            changed.pop(field, None)
        elif choice < 0.8:
            changed[field] = rng.choice(VALUES)
        else:
            depth = rng.choice([10, 1000, 50_000])
            return b"[" * depth + b"]" * rng.choice([0, depth])
    return json.dumps(changed).encode()


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        if choice < 0.5 and data:
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif choice < 0.7:
            del data[rng.randrange(len(data) + 1):]
        elif choice < 0.85:
            data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        else:  # a header size that points anywhere
            data[:4] = rng.randrange(2**32).to_bytes(4, "little")
    return bytes(data)


def make_entry(rng: random.Random, path, good: bytes) -> None:
    """Puts at ``path`` one of the things a damaged cache holds."""
    kind = rng.random()
    if kind < 0.04:
        os.mkfifo(path)
    elif kind < 0.06:
        path.mkdir()
    elif kind < 0.08:
        path.symlink_to("/dev/zero")
    elif kind < 0.10:
        path.symlink_to(path.parent / "missing")
    elif kind < 0.45:
        size = int.from_bytes(good[:4], "little")
        header = json.loads(good[4:4 + size])
        text = mutate_header(rng, header)
        path.write_bytes(len(text).to_bytes(4, "little") + text +
                         good[4 + size:])
    else:
        path.write_bytes(mutate_bytes(rng, good))


def is_usable(entry) -> bool:
    ptx, cubin, threads, shared, tensor_maps, arguments = entry
    return (isinstance(ptx, str) and isinstance(cubin, bytes) and
            type(arguments) is dict and
            all(type(types) is list and all(type(t) is str for t in types)
                for types in arguments.values()) and
            type(threads) is int and 32 <= threads <= cache.MAX_THREADS and
            threads % 32 == 0 and type(shared) is int and
            0 <= shared <= cache.MAX_SHARED_BYTES and
            isinstance(tensor_maps, str))


def remove(path) -> None:
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    else:
        path.unlink()


@pytest.mark.parametrize("seed", range(4))
def test_damaged_entries_load_or_are_refused(tmp_path, monkeypatch, seed):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    rng = random.Random(seed)
    name = cache.key(f"module {{}} // {seed}", "sm_90a", GPUOptions())
    path = tmp_path / f"{name}.kiln"
    assert cache.store(name, *ENTRY)
    good = path.read_bytes()

    def expire(signum, frame):
        raise TimeoutError("loading the entry took more than 10 s")

    previous = signal.signal(signal.SIGALRM, expire)
    for _ in range(ITERATIONS // 4):
        remove(path)
        make_entry(rng, path, good)
        # A read that blocks (a FIFO) or runs away fails here, not hangs.
        signal.alarm(10)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                entry = cache.load(name)
        finally:
            signal.alarm(0)
        assert entry is None or is_usable(entry), entry
    signal.signal(signal.SIGALRM, previous)
    # After any of them, the next compilation's entry is whole again.
    remove(path)
    assert cache.store(name, *ENTRY) and cache.load(name) == ENTRY

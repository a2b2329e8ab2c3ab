"""Makes the package importable from the source tree, gives the run a
disk cache of its own, and gives tests a ``deadline``."""

import atexit
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# Kernels compiled by an earlier run (or by the user) would be disk hits
# here, and a test that looks at a compilation would see none: each run
# starts from an empty cache, shared by its workers (they inherit it).
if "KILN_CACHE_DIR" not in os.environ:
    os.environ["KILN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-test-cache-")
    atexit.register(shutil.rmtree, os.environ["KILN_CACHE_DIR"], True)


@pytest.fixture
def deadline():
    """Fails the test that asks for it where it runs for more than a
    minute, so that a read that blocks (on a FIFO) fails instead of hanging
    the run."""
    def expire(signum, frame):
        raise TimeoutError("the test ran for more than a minute")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)

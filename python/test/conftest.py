"""Makes the package importable from the source tree, and gives tests a
``deadline``."""

import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


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

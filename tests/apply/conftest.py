"""Fixtures for apply tests: a `kubelite serve` process, kubectl and kubelite runners."""
from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from apply_support import HAVE_KUBECTL, KUBECTL, Runner, served  # noqa: E402,F401


@pytest.fixture
def embedded(tmp_path):
    return Runner(tmp_path, None)

import pathlib

import pytest

DATA = pathlib.Path(__file__).parent / "data"
CONFORMANCE = DATA / "conformance"


@pytest.fixture(scope="session")
def conformance_dir() -> pathlib.Path:
    return CONFORMANCE

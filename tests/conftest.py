import pathlib

import pytest

DATA = pathlib.Path(__file__).parent / "data"
CONFORMANCE = DATA / "conformance"


@pytest.fixture(scope="session")
def conformance_dir() -> pathlib.Path:
    return CONFORMANCE


def _hypothesis_profiles() -> None:
    """CI runs property tests derandomized: a red CI run then means a real, reproducible failure,
    not a new random example; by hand (`HYPOTHESIS_PROFILE=explore`) they search freely."""
    import os

    from hypothesis import HealthCheck, settings

    settings.register_profile("ci", derandomize=True, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("explore", deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


_hypothesis_profiles()

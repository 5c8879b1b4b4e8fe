import os
import shutil

import pytest

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "kustomize")
KUBECTL = "/usr/bin/kubectl"


def pytest_configure(config):
    config.addinivalue_line("markers", "kubectl: differential test against /usr/bin/kubectl")


@pytest.fixture
def kubectl():
    if not os.path.exists(KUBECTL) or shutil.which(KUBECTL) is None:
        pytest.skip("kubectl not installed")
    return KUBECTL

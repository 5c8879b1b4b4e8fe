"""Quantity canonical form, differentially against kubectl (which serialises
quantities with the same apimachinery code as kube-apiserver)."""

import json
import pathlib
import shutil
import subprocess

import pytest

from kubelite.quantity import QuantityError, canonical_quantity, parse_quantity

KUBECTL = "/usr/bin/kubectl"

QUANTITIES = (
    "0.5 1.5Gi 1000 1e3 2 128Mi 0 100Mi 1025 0.1m 1500 1024 1Ki 2048Ki 1.5 1.25 0.001 1E6 1M 1000000 "
    "12e6 1.5e-3 100u 5n 0.0000000001 1Ti 1073741824 1G 3.5k 999m +1 00100 1.0 12345678912345 1Ei "
    "0.5Ki 1023 2e-9 007 0.50 +0.5 01Ki 1.50 -0 +0 000 0.0 10Ki 8Ki 9Ki 12Mi 1000Ki 100e3 001e3 "
    "1000e3 -5 -1000 -1.5 5.000 0100m 100m 1000m 1100m 7Ei 250M 0.25Gi 3e2 1.000001 64Mi 512Ki"
).split()

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "q"},
    "spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
    },
}


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which(KUBECTL) and not pathlib.Path(KUBECTL).exists(), reason="kubectl missing")
def test_canonical_quantity_matches_kubectl(tmp_path):
    manifest = tmp_path / "d.json"
    manifest.write_text(json.dumps(DEPLOYMENT))
    limits = ",".join(f"example.com/r{i}={q}" for i, q in enumerate(QUANTITIES))
    out = subprocess.run(
        [KUBECTL, "set", "resources", "--local", "-f", str(manifest), f"--limits={limits}", "-o", "json"],
        capture_output=True,
        text=True,
        env={"KUBECONFIG": "/dev/null", "PATH": "/usr/bin:/bin"},
        check=True,
    ).stdout
    got = json.loads(out)["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    mismatches = [
        (q, got[f"example.com/r{i}"], canonical_quantity(q))
        for i, q in enumerate(QUANTITIES)
        if canonical_quantity(q) != got[f"example.com/r{i}"]
    ]
    assert mismatches == []


@pytest.mark.parametrize("bad", ["1.5.5", "", "abc", "1Qi", "--1", "1e", "."])
def test_invalid_quantities_raise(bad):
    with pytest.raises(QuantityError):
        parse_quantity(bad)


def test_numbers_are_accepted():
    assert canonical_quantity(2) == "2"
    assert canonical_quantity(0.5) == "500m"

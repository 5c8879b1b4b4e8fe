"""set env --from/--keys/--prefix/--list/--resolve and --all/-l on live objects: real kubectl and
kubelite against one `kubelite serve`. -o json is compared as parsed JSON (kubectl prints typed objects
in Go struct order, which kubelite's printer does not reproduce for server objects)."""
import json
from pathlib import Path

import pytest

from imperative_support import kubelite, needs_kubectl, normalize, run_kubectl

pytestmark = [pytest.mark.kubectl, needs_kubectl]
TARGETS = Path(__file__).parent / "data" / "env_targets.yaml"

CASES = [
    "set env deployment/envd --list", "set env deployment/envd --list --resolve",
    "set env deployment/envd --list -c d NEW=1", "set env deployment/envd --list -c nothing",
    "set env deployment envd --from=configmap/cfg --dry-run=client -o json",
    "set env deployment envd --from=secret/sec --prefix=P_ -c d A=b --dry-run=client -o yaml",
    "set env deployment envd2 --prefix=X_ A=1 --dry-run=client -o yaml",
    "set env deployment envd2 --from=configmap/cfg --keys=only.key,other --dry-run=client -o json",
    "set env deployment envd2 --from=configmap/cfg --keys=other --dry-run=client -o json",
    "set env deployment envd --keys=x", "set env deployment envd --list -o yaml",
    "set env deployment --all --list", "set env deployment -l grp=e Z=1 --dry-run=client -o name",
    "set env deployment -l grp=none Z=1 --dry-run=client -o name",
    "set env deployment --all -l grp=e Z=1", "set env deployment envd --from=deployment/envd2 --dry-run=client",
    "set env deployment/envd2 --from=configmap/missing",
    "set env deployment --all Q=2 --dry-run=client", "set env deployment/envd -c nothing A=1 --dry-run=client",
    "set env --local -f " + str(TARGETS) + " -c nothing A=1 -o name",
]


def _comparable(result):
    rc, out, err = result
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, out, err


def _rolled_out(env: dict, cache_dir) -> None:
    """Waits until the deployment controller is done with the targets: the -o json/yaml cases
    print the live Deployments, status and resourceVersion included, so kubectl and kubelite
    must both read them at rest."""
    for name in ("envd", "envd2"):
        p = run_kubectl(["rollout", "status", f"deployment/{name}", "--timeout=120s"], env, cache_dir=cache_dir)
        assert p.returncode == 0, p.stderr


def test_set_env_sources_and_listing_match_kubectl(served_env, tmp_path):
    assert kubelite(["create", "-f", str(TARGETS)])[0] == 0
    _rolled_out(served_env, tmp_path / "kc")
    mismatches = []
    for case in CASES:
        argv = case.split(" ")
        p = run_kubectl(argv, served_env, cache_dir=tmp_path / "kc")
        expected = _comparable((p.returncode, p.stdout, normalize(p.stderr)))
        got = _comparable(kubelite(argv))
        if got != expected:
            mismatches.append((case, expected, got))
        if not any(flag in case for flag in ("--dry-run", "--list", "--local")):
            _rolled_out(served_env, tmp_path / "kc")  # a write may have started a rollout
    for m in mismatches:
        print("MISMATCH", m)
    assert not mismatches, f"{len(mismatches)}/{len(CASES)}"


def test_live_set_env_from_configmap_patches_like_kubectl(served_env, tmp_path):
    kubelite(["create", "-f", str(TARGETS)])
    for tool, name in (("kubectl", "live-k"), ("kubelite", "live-l")):
        argv = ["create", "deployment", name, "--image=nginx"]
        assert kubelite(argv)[0] == 0
        argv = ["set", "env", f"deployment/{name}", "--from=secret/sec", "--prefix=S_", "K=v"]
        if tool == "kubectl":
            p = run_kubectl(argv, served_env, cache_dir=tmp_path / "kc")
            result = (p.returncode, p.stdout.replace(name, "N"), p.stderr)
        else:
            rc, out, err = kubelite(argv)
            result = (rc, out.replace(name, "N"), err)
        assert result == (0, "deployment.apps/N env updated\n", "Warning: key pass-word transferred to PASS_WORD\n")
    envs = []
    for name in ("live-k", "live-l"):
        rc, out, _ = kubelite(["get", "deployment", name, "-o", "json"])
        envs.append(json.loads(out)["spec"]["template"]["spec"]["containers"][0]["env"])
    assert envs[0] == envs[1] == [
        {"name": "S_K", "value": "v"},
        {"name": "S_PASS_WORD", "valueFrom": {"secretKeyRef": {"name": "sec", "key": "pass-word"}}}]

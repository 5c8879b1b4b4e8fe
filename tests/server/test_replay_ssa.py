"""Replay of the recorded raw-HTTP server-side apply sequence (reference/apiserver/ssa) against
kubelite: status codes and bodies, managedFields included (times normalised), in order.

Two doors: the in-process app, and HTTPS to `kubelite serve --controllers=-*` (an API server
alone, as the recording's apiserver ran: no controller writes the Deployments of 30-36).

After the raw cases the recording goes on with real kubectl (50-59: client-side apply, the
migration to server-side apply, a conflict, force, client-side apply again, server-side apply over
`kubectl create`), with raw GETs of the object in between (51, 52, 54, 58). Over HTTPS they are
replayed in the recorded order: each transcript's command is run by /usr/bin/kubectl against the
served cluster and its exit code, stdout and stderr compared (uids, resourceVersions and times
masked), the -v=8 one by the PATCH it logs (method, path and query, request and response bodies);
the GETs are compared as the raw cases are.
"""
from __future__ import annotations

import json
import re
import shutil
import ssl

import httpx
import pytest
import yaml

from replay_support import REF, TOKEN, SequenceReplay, diff

FOLDER = "ssa"
RECORDED = json.loads((REF / FOLDER / "cases.json").read_text())
CASES = [c for c in RECORDED if c["name"] < "50"]
# After the raw cases: kubectl transcripts (NAME.kubectl.txt) and raw GETs (in cases.json), in recorded order
KUBECTL_STEPS = ["50-kubectl-apply-client-side", "51-get-after-csa", "51-kubectl-get-after-csa",
                 "52-kubectl-apply-client-side-modify", "52-get-after-csa-modify", "53-kubectl-apply-server-side",
                 "53-kubectl-apply-server-side-v8", "54-get-after-ssa", "54-kubectl-get-after-ssa",
                 "55-kubectl-apply-server-side-conflict", "56-kubectl-apply-server-side-force",
                 "57-kubectl-apply-client-side-after-ssa", "58-get-final", "59-kubectl-create-then-ssa",
                 "59-kubectl-ssa-over-create"]


def _managed(body) -> list:
    if not isinstance(body, dict):
        return []
    entries = (body.get("metadata") or {}).get("managedFields") or []
    return [{k: ("<time>" if k == "time" else v) for k, v in e.items()} for e in entries]


class _ServedClient:
    """httpx to `kubelite serve`, the recorded bearer token swapped for the served one."""

    def __init__(self, served):
        self.token = served.token
        self.client = httpx.Client(base_url=served.url, verify=ssl.create_default_context(cafile=served.ca),
                                   timeout=30,
                                   headers={"Authorization": f"Bearer {self.token}"})

    def request(self, method, url, content=None, headers=None, params=None):
        headers = {k: (f"Bearer {self.token}" if v == f"Bearer {TOKEN}" else v) for k, v in (headers or {}).items()}
        return self.client.request(method, url, content=content, headers=headers, params=params)

    def close(self):
        self.client.close()


class _Served:
    def __init__(self, served):
        self.client = _ServedClient(served)

    def must(self, method: str, path: str, body=None):
        response = self.client.request(method, path, content=json.dumps(body).encode(),
                                       headers={"Content-Type": "application/json"})
        assert response.status_code < 300, (method, path, response.status_code, response.text)
        return response.json()

    def close(self):
        self.client.close()


def _replay(run: SequenceReplay, cases: list) -> SequenceReplay:
    run.server.must("POST", "/api/v1/namespaces", {"metadata": {"name": "rc-ssa"}})
    run.server.must("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                    yaml.safe_load((REF / "defaults" / "crd-rich.in.yaml").read_text()))
    for case in cases:
        run.run(case["name"])
    return run


@pytest.fixture(scope="module")
def in_process():
    run = _replay(SequenceReplay(FOLDER), CASES)
    yield run
    run.server.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from test_serve_support import serving

    with serving(tmp_path_factory.mktemp("ssa-served"), "--controllers=-*") as server:
        yield server


@pytest.fixture(scope="module")
def over_https(served):
    run = _replay(SequenceReplay(FOLDER, server=_Served(served)), CASES)
    yield run
    run.server.close()


def _problems(replay, name: str) -> list[str]:
    problems = replay.problems(name)
    outcome = replay.outcomes[name]
    if not problems and outcome["expected"] is not None:
        problems = diff(_managed(outcome["expected"]), _managed(outcome["got"]), ".metadata.managedFields")
    return problems


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_recorded_response(in_process, case):
    problems = _problems(in_process, case["name"])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_recorded_response_over_https(over_https, case):
    problems = _problems(over_https, case["name"])
    assert not problems, "\n".join(problems)


# -- the kubectl transcripts (50-59) and the GETs between them, over HTTPS ----------------------------


def _transcript(name: str) -> dict:
    text = (REF / FOLDER / f"{name}.kubectl.txt").read_text()
    m = re.search(r"^\$ (.*?)\n(?:--- stdin ---\n(.*?))?--- stdout ---\n(.*?)--- stderr ---\n(.*?)"
                  r"--- exit code: (\d+)", text, re.S | re.M)
    command, stdin, stdout, stderr, code = m.groups()
    return {"argv": command.split()[1:], "stdin": stdin, "stdout": stdout, "stderr": stderr, "code": int(code)}


def _masked(text: str) -> str:
    text = re.sub(r"\buid: [0-9a-f-]{36}$", "uid: <uid>", text, flags=re.M)
    text = re.sub(r'\bresourceVersion: "\d+"', "resourceVersion: <rv>", text)
    return re.sub(r'\b(creationTimestamp|time): "[0-9-]+T[0-9:]+Z"', r"\1: <time>", text)


def _masked_json(value, key: str = ""):
    if isinstance(value, dict):
        return {k: _masked_json(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked_json(v) for v in value]
    if key in ("uid", "resourceVersion", "creationTimestamp", "time") and isinstance(value, str):
        return f"<{key}>"
    return value


def _logged_write(stderr: str) -> dict | None:
    """The write kubectl logs at -v=8: method, path with query, request and response bodies."""
    m = re.search(r'"Request Body" body=<\n\t(.*?)\n >\n.*?\] (PATCH|POST|PUT) https://[^/]+(\S+)\n'
                  r'.*?"Response Body" body=<\n\t(.*?)\n >\n', stderr, re.S)
    if m is None:
        return None
    request, method, target, response = m.groups()
    return {"method": method, "target": target, "request": json.loads(request),
            "response": _masked_json(json.loads(response))}


@pytest.fixture(scope="module")
def kubectl_steps(over_https, served, tmp_path_factory):
    """Each step's (recorded, replayed) outcome, after the raw cases, in the recorded order."""
    from test_serve_support import KUBECTL, kubectl_at

    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    cache = tmp_path_factory.mktemp("ssa-kubectl-cache")
    outcomes = {}
    for step in KUBECTL_STEPS:
        if "-kubectl-" not in step:
            over_https.run(step)
            outcomes[step] = _problems(over_https, step)
            continue
        recorded = _transcript(step)
        proc = kubectl_at(served, cache, *recorded["argv"], stdin=recorded["stdin"])
        if step.endswith("-v8"):  # its stderr is kubectl's request log: the write it made
            outcomes[step] = ((recorded["code"], recorded["stdout"], _logged_write(recorded["stderr"])),
                              (proc.returncode, proc.stdout, _logged_write(proc.stderr)))
        else:
            outcomes[step] = ((recorded["code"], _masked(recorded["stdout"]), recorded["stderr"]),
                              (proc.returncode, _masked(proc.stdout), proc.stderr))
    return outcomes


@pytest.mark.kubectl
@pytest.mark.parametrize("step", KUBECTL_STEPS)
def test_recorded_kubectl_session_over_https(kubectl_steps, step):
    outcome = kubectl_steps[step]
    if isinstance(outcome, list):  # a raw GET: its differences
        assert not outcome, "\n".join(outcome)
    else:
        recorded, replayed = outcome
        assert replayed == recorded

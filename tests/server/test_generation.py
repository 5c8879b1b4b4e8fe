"""metadata.generation rules checked against the recorded meta/ sequence.

Each recorded write's response is the stored object; replaying consecutive
responses (previous = old, current = new) through next_generation must give
the generation the server stored.
"""

import json
import pathlib

import pytest

from kubelite.server.admission import generation

META = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "meta"


def _body(step: str) -> dict:
    return json.loads((META / f"{step}.body.json").read_text())


def _request_body(step: str) -> dict:
    text = (META / f"{step}.txt").read_text()
    request = text.split("### REQUEST", 1)[1].split("### RESPONSE", 1)[0]
    return json.loads(request.partition("\n\n")[2].strip())


def _summary() -> dict:
    rows = (META / "summary.tsv").read_text().splitlines()
    header = rows[0].split("\t")
    return {r.split("\t")[0]: dict(zip(header, r.split("\t"))) for r in rows[1:]}


# (old step, new step, status subresource?) for main-resource writes
TRANSITIONS = [
    ("d01-create", "d02-patch-label", True),
    ("d02-patch-label", "d03-patch-annotation", True),
    ("d03-patch-annotation", "d04-patch-spec-image", True),
    ("d04-patch-spec-image", "d05-patch-spec-template-label", True),
    ("d06-patch-status", "d08-get", True),  # /scale changes spec.replicas
    ("d08-get", "d09-noop-patch", True),
    ("d09-noop-patch", "d10-noop-put", True),
    ("d10-noop-put", "d11-put-generation-override", True),
    ("d11-put-generation-override", "d12-patch-spec-paused", True),
    ("d12-patch-spec-paused", "d13-patch-finalizer", True),
    ("d15-get-deleting", "d17-spec-change-while-deleting", True),
    ("c01-create", "c02-update-data", True),
    ("w01-create", "w02-label", True),
    ("w02-label", "w03-spec", True),
    ("g01-create", "g02-status", False),
    ("g02-status", "g03-other-toplevel", False),
]


@pytest.mark.parametrize("old_step,new_step,status_sub", TRANSITIONS, ids=[t[1] for t in TRANSITIONS])
def test_update_generation_matches_recording(old_step, new_step, status_sub):
    old, new = _body(old_step), _body(new_step)
    recorded = new["metadata"].get("generation")
    new["metadata"]["generation"] = 999  # clients cannot set it
    assert generation.next_generation(old, new, status_subresource=status_sub) == recorded


@pytest.mark.parametrize("step", ["d01-create", "d21-recreate", "c01-create", "w01-create", "g01-create", "p01-create-unscheduled"])
def test_create_generation_matches_recording(step):
    request = _request_body(step)
    expected = _body(step)["metadata"].get("generation")
    assert generation.initial_generation(request) == expected


def test_client_generation_on_create_is_ignored_for_deployments():
    request = _request_body("d01-create")
    assert request["metadata"].get("generation") == 42
    assert generation.initial_generation(request) == 1


def test_delete_with_finalizer_bumps_generation():
    before, after = _body("d13-patch-finalizer"), _body("d14-delete")
    assert generation.deletion_generation(before) == after["metadata"]["generation"]


def test_summary_agrees_with_bodies():
    summary = _summary()
    assert summary["d03-patch-annotation"]["generation"] == "2"
    assert summary["d02-patch-label"]["generation"] == "1"


def test_manages_generation():
    assert generation.manages_generation({"apiVersion": "apps/v1", "kind": "Deployment"})
    assert not generation.manages_generation({"apiVersion": "v1", "kind": "ConfigMap"})
    assert not generation.manages_generation({"apiVersion": "v1", "kind": "Pod"})
    assert generation.manages_generation({"apiVersion": "rc.example.com/v1", "kind": "Widget"})


def test_new_finalizer_while_deleting_is_the_recorded_422():
    from kubelite.server import errors
    from kubelite.server.admission import defaults
    from kubelite.server.admission.validation import validate

    old = _body("d15-get-deleting")
    new = json.loads(json.dumps(old))
    new["metadata"]["finalizers"].append("example.com/another")
    new = defaults.prepare_for_update(defaults.apply_defaults(new), old)
    err = errors.invalid("apps", "Deployment", "gen", validate(new, old))
    assert err.to_json() == (META / "d16-add-finalizer-while-deleting.body.json").read_bytes()

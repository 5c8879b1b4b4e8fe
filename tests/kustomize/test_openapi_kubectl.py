"""Differential: `openapi:` with a custom schema file (merge keys, patch strategies and
list types of custom kinds; where the file is named; when Kustomize merges it with the
built-in Kubernetes definitions), built by kubelite and by `kubectl kustomize`."""
from __future__ import annotations

import json

import pytest
import yaml

from .differential import assert_same, kubectl_outcome, kubelite_outcome, write_tree

K = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
COMPONENT = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
MERGE_BY_NAME = {"x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"}


def schema(parts: dict | None = None, gvks=(("example.com", "v1", "Widget"),)) -> str:
    """A schema for one custom kind: parts (merged by name unless told), tags (a merged set of
    strings), ports (a map list) and a pod template given by reference only."""
    parts_schema = {"type": "array", "items": {"$ref": "#/definitions/com.example.Part"}}
    parts_schema.update(MERGE_BY_NAME if parts is None else parts)
    widget = {"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {
            "parts": parts_schema,
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": "merge"},
            "ports": {"type": "array", "items": {"type": "object"}, "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["port", "protocol"]},
            "template": {"$ref": "#/definitions/io.k8s.api.core.v1.PodTemplateSpec"}}}},
        "x-kubernetes-group-version-kind": [{"group": g, "version": v, "kind": k} for g, v, k in gvks]}
    part = {"type": "object", "properties": {"name": {"type": "string"}, "size": {"type": "integer"}}}
    return json.dumps({"definitions": {"com.example.v1.Widget": widget, "com.example.Part": part}}, indent=2)


WIDGET = """apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  parts:
  - {name: a, size: 1}
  - {name: b, size: 2}
  tags: [x, y]
  ports:
  - {port: 80, protocol: TCP, note: one}
  - {port: 80, protocol: UDP, note: two}
  template:
    spec:
      containers:
      - {name: c1, image: i1}
"""
WIDGET_PATCH = """apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  parts:
  - name: b
    size: 20
  - name: c
    size: 3
  tags: [z]
  ports:
  - {port: 80, protocol: UDP, note: changed}
  template:
    spec:
      containers:
      - {name: c2, image: i2}
"""
DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  template:
    spec:
      containers:
      - {name: a, image: a}
"""
DEPLOY_PATCH = DEPLOY.replace("{name: a, image: a}", "{name: b, image: b}")


def inline(patch: str) -> str:
    return "- patch: |-\n" + "".join("    " + line + "\n" for line in patch.splitlines())


def top(openapi: str = "openapi:\n  path: s.json\n", resources: str = "- w.yaml\n- d.yaml\n") -> str:
    return K + "resources:\n" + resources + openapi + "patches:\n" + inline(WIDGET_PATCH) + inline(DEPLOY_PATCH)


BASIC = {"top/kustomization.yaml": top(), "top/w.yaml": WIDGET, "top/d.yaml": DEPLOY, "top/s.json": schema()}


def basic(**changes: str) -> dict:
    return {**BASIC, **{path.replace("__", "/").replace("_json", ".json").replace("_yaml", ".yaml"): text
                        for path, text in changes.items()}}


BASE_WITH_SCHEMA = {"top/base/kustomization.yaml": K + "resources:\n- w.yaml\nopenapi:\n  path: s.json\n",
                    "top/base/w.yaml": WIDGET, "top/base/s.json": schema()}
SCHEMA_COMPONENT = {"top/comp/kustomization.yaml": COMPONENT + "openapi:\n  path: s.json\n",
                    "top/comp/s.json": schema()}

CASES = {
    # a custom schema replaces the built-in definitions: the Deployment's containers are replaced too
    "json-schema": BASIC,
    "yaml-schema": basic(top__s_json=yaml.safe_dump(json.loads(schema()))),
    "no-schema": basic(**{"top/kustomization.yaml": top(openapi="")}),
    "empty-schema": basic(top__s_json="{}"),
    "patches-strategic-merge": {"top/kustomization.yaml": K + "resources:\n- w.yaml\nopenapi:\n  path: s.json\n"
                                "patchesStrategicMerge:\n- p.yaml\n", "top/w.yaml": WIDGET, "top/p.yaml": WIDGET_PATCH,
                                "top/s.json": schema()},
    "strategy-replace": basic(top__s_json=schema({"x-kubernetes-patch-strategy": "replace"})),
    # kyaml prints the offending node in its own style: here block style as the target's list
    "strategy-merge-without-key-on-maps": basic(top__s_json=schema({"x-kubernetes-patch-strategy": "merge"}),
                                                top__w_yaml=WIDGET.replace("- {name: a, size: 1}\n  - {name: b, size: 2}",
                                                                           "- name: a\n    size: 1")),
    "list-type-map": basic(top__s_json=schema({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]})),
    "list-type-set-on-maps": basic(top__s_json=schema({"x-kubernetes-list-type": "set"})),
    "strategy-merge-retain-keys": basic(top__s_json=schema({**MERGE_BY_NAME, "x-kubernetes-patch-strategy": "merge,retainKeys"})),
    "gvk-in-core-group": basic(top__s_json=schema(gvks=(("", "v1", "Widget"),))),
    "gvk-of-another-version": basic(top__s_json=schema(gvks=(("example.com", "v2", "Widget"),))),
    "gvk-listed-twice": basic(top__s_json=schema(gvks=(("example.com", "v2", "Widget"), ("example.com", "v1", "Widget")))),
    "delete-directive": {"top/kustomization.yaml": K + "resources:\n- w.yaml\nopenapi:\n  path: s.json\npatches:\n"
                         + inline("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  parts:\n"
                                  "  - name: a\n    $patch: delete\n"), "top/w.yaml": WIDGET, "top/s.json": schema()},
    "json6902-ignores-schema": {"top/kustomization.yaml": K + "resources:\n- w.yaml\nopenapi:\n  path: s.json\npatches:\n"
                                "- target: {kind: Widget}\n  patch: '[{\"op\": \"add\", \"path\": \"/spec/parts/-\", "
                                "\"value\": {\"name\": \"z\"}}]'\n", "top/w.yaml": WIDGET, "top/s.json": schema()},
    "builtin-version": basic(**{"top/kustomization.yaml": top(openapi="openapi:\n  version: v1.21.2\n")}),
    "unknown-version": basic(**{"top/kustomization.yaml": top(openapi="openapi:\n  version: v1.19.0\n")}),
    "version-and-path": basic(**{"top/kustomization.yaml": top(openapi="openapi:\n  version: v1.21.2\n  path: s.json\n")}),
    "missing-file": basic(**{"top/kustomization.yaml": top(openapi="openapi:\n  path: nope.json\n")}),
    # where the schema is named
    "in-a-base": {"top/kustomization.yaml": K + "resources:\n- base\npatches:\n" + inline(WIDGET_PATCH),
                  **BASE_WITH_SCHEMA},
    "overlay-wins-over-base": {**BASE_WITH_SCHEMA, "top/kustomization.yaml": K + "resources:\n- base\nopenapi:\n"
                               "  path: s.json\npatches:\n" + inline(WIDGET_PATCH),
                               "top/s.json": schema({"x-kubernetes-patch-strategy": "replace"})},
    "first-base-wins": {**BASE_WITH_SCHEMA, "top/kustomization.yaml": K + "resources:\n- base\n- other\npatches:\n"
                        + inline(WIDGET_PATCH),
                        "top/other/kustomization.yaml": K + "openapi:\n  path: s.json\n",
                        "top/other/s.json": schema({"x-kubernetes-patch-strategy": "replace"})},
    # the built-in definitions join the custom ones when a custom kind was read before the file
    "in-a-component-after-a-custom-kind": {**SCHEMA_COMPONENT, "top/kustomization.yaml": K + "resources:\n- w.yaml\n"
                                           "components:\n- comp\npatches:\n" + inline(WIDGET_PATCH), "top/w.yaml": WIDGET},
    "in-a-component-after-builtin-kinds": {**SCHEMA_COMPONENT, "top/kustomization.yaml": K + "resources:\n- d.yaml\n"
                                           "components:\n- comp\npatches:\n" + inline(DEPLOY_PATCH), "top/d.yaml": DEPLOY},
    "in-a-base-after-a-custom-kind": {**BASE_WITH_SCHEMA, "top/kustomization.yaml": K + "resources:\n- x.yaml\n- base\n"
                                      "- d.yaml\npatches:\n" + inline(WIDGET_PATCH) + inline(DEPLOY_PATCH),
                                      "top/x.yaml": WIDGET.replace("name: w", "name: x"), "top/d.yaml": DEPLOY},
    "in-a-base-after-builtin-kinds": {**BASE_WITH_SCHEMA, "top/kustomization.yaml": K + "resources:\n- d.yaml\n- base\n"
                                      "patches:\n" + inline(WIDGET_PATCH) + inline(DEPLOY_PATCH), "top/d.yaml": DEPLOY},
    "in-a-base-after-a-base-patched": {**BASE_WITH_SCHEMA, "top/kustomization.yaml": K + "resources:\n- dep\n- base\n"
                                       "patches:\n" + inline(WIDGET_PATCH) + inline(DEPLOY_PATCH),
                                       "top/dep/kustomization.yaml": K + "resources:\n- d.yaml\npatches:\n" + inline(
                                           DEPLOY_PATCH.replace("image: b", "image: b0")), "top/dep/d.yaml": DEPLOY},
}


@pytest.mark.kubectl
@pytest.mark.parametrize("case", sorted(CASES))
def test_openapi_as_kubectl(case, tmp_path, monkeypatch, kubectl):
    assert_same(kubectl, CASES[case], str(tmp_path), monkeypatch)


@pytest.mark.kubectl
@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"definitions": []}'])
def test_unreadable_schema_fails(text, tmp_path, monkeypatch, kubectl):
    """kubectl panics on these files (a Go stack trace, exit 2); kubelite fails with one line."""
    write_tree(str(tmp_path), basic(top__s_json=text))
    with pytest.raises(AssertionError, match="panic: invalid schema file"):
        kubectl_outcome(kubectl, str(tmp_path))
    outcome, message = kubelite_outcome(str(tmp_path), monkeypatch)
    assert outcome == "error" and message.startswith('"command failed" err="invalid schema file: ')

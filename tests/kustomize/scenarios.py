"""Hand-written kustomization trees for the failures issue 7 lists (and a few
behaviours found while matching Kustomize), each recorded with `kubectl kustomize`
by record_scenarios.py into tests/data/kustomize/scenarios/<name>/."""
from __future__ import annotations

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: \"1\"\n"
DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx
"""


def _k(body: str) -> str:
    return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" + body


SCENARIOS: dict[str, dict] = {
    # -- a missing file -------------------------------------------------------------
    "missing-resource-file": {"files": {"kustomization.yaml": _k("resources:\n- nope.yaml\n")}},
    "missing-patch-file": {"files": {"kustomization.yaml": _k("resources:\n- cm.yaml\npatches:\n- path: nope.yaml\n"),
                                     "cm.yaml": CM}},
    "missing-generator-env-file": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  envs:\n  - nope.env\n")}},
    "missing-openapi-file": {"files": {"kustomization.yaml": _k("openapi:\n  path: nope.json\nresources:\n- cm.yaml\n"),
                                       "cm.yaml": CM}},
    "missing-build-dir": {"files": {"kustomization.yaml": _k("")}, "entry": "nope"},
    # -- a directory without a kustomization file ------------------------------------
    "base-without-kustomization": {"files": {"kustomization.yaml": _k("resources:\n- base\n"), "base/cm.yaml": CM}},
    "build-dir-without-kustomization": {"files": {"cm.yaml": CM}},
    "component-without-kustomization": {"files": {"kustomization.yaml": _k("components:\n- comp\n"),
                                                  "comp/cm.yaml": CM}},
    "two-kustomization-files": {"files": {"kustomization.yaml": _k(""), "kustomization.yml": _k("")}},
    # -- a resource listed twice / id conflicts --------------------------------------
    "file-listed-twice": {"files": {"kustomization.yaml": _k("resources:\n- cm.yaml\n- cm.yaml\n"), "cm.yaml": CM}},
    "base-listed-twice": {"files": {"kustomization.yaml": _k("resources:\n- base\n- base\n"),
                                    "base/kustomization.yaml": _k("resources:\n- cm.yaml\n"), "base/cm.yaml": CM}},
    "same-object-two-files": {"files": {"kustomization.yaml": _k("resources:\n- a.yaml\n- b.yaml\n"),
                                        "a.yaml": CM, "b.yaml": CM}},
    "same-object-two-bases": {"files": {"kustomization.yaml": _k("resources:\n- a\n- b\n"),
                                        "a/kustomization.yaml": _k("resources:\n- cm.yaml\n"), "a/cm.yaml": CM,
                                        "b/kustomization.yaml": _k("resources:\n- cm.yaml\n"), "b/cm.yaml": CM}},
    "generator-twice": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  literals: [a=1]\n- name: c\n  literals: [b=2]\n")}},
    "generator-merge-without-base": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  behavior: merge\n  literals: [a=1]\n")}},
    "namespace-makes-conflict": {"files": {"kustomization.yaml": _k("namespace: x\nresources:\n- a.yaml\n"),
                                           "a.yaml": CM + "---\n" + CM.replace("name: plain", "name: plain\n  namespace: x")}},
    # -- a patch whose target is missing ---------------------------------------------
    "smp-target-missing": {"files": {"kustomization.yaml": _k("resources:\n- cm.yaml\npatches:\n- path: p.yaml\n"),
                                     "cm.yaml": CM,
                                     "p.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  b: x\n"}},
    "json6902-null-patch": {"files": {"kustomization.yaml": _k(
        "resources:\n- cm.yaml\npatchesJson6902:\n- target: {version: v1, kind: ConfigMap, name: a}\n  path: p.yaml\n"),
        "cm.yaml": CM, "p.yaml": "null\n"}},
    "psm-target-missing": {"files": {"kustomization.yaml": _k("resources:\n- cm.yaml\npatchesStrategicMerge:\n- p.yaml\n"),
                                     "cm.yaml": CM,
                                     "p.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  b: x\n"}},
    "json6902-target-no-name": {"files": {"kustomization.yaml": _k(
        "resources:\n- cm.yaml\npatchesJson6902:\n- target:\n    kind: ConfigMap\n  patch: '[{\"op\": \"add\", \"path\": \"/data/b\", \"value\": \"x\"}]'\n"),
        "cm.yaml": CM}},
    "json-patch-path-missing": {"files": {"kustomization.yaml": _k(
        "resources:\n- cm.yaml\npatches:\n- target:\n    kind: ConfigMap\n  patch: '[{\"op\": \"replace\", \"path\": \"/data/zzz/y\", \"value\": \"x\"}]'\n"),
        "cm.yaml": CM}},
    # -- a cycle between kustomizations ----------------------------------------------
    "cycle-self": {"files": {"kustomization.yaml": _k("resources:\n- .\n")}},
    "cycle-two": {"files": {"kustomization.yaml": _k("resources:\n- a\n"), "a/kustomization.yaml": _k("resources:\n- ../b\n"),
                            "b/kustomization.yaml": _k("resources:\n- ../a\n")}, "entry": "."},
    "cycle-parent": {"files": {"kustomization.yaml": _k("resources:\n- sub\n"),
                               "sub/kustomization.yaml": _k("resources:\n- ..\n")}},
    # -- paths escaping the root -----------------------------------------------------
    "escape-resource-file": {"files": {"app/kustomization.yaml": _k("resources:\n- ../cm.yaml\n"), "cm.yaml": CM},
                             "entry": "app"},
    "escape-resource-file-allowed": {"files": {"app/kustomization.yaml": _k("resources:\n- ../cm.yaml\n"), "cm.yaml": CM},
                                     "entry": "app", "flags": ["--load-restrictor=LoadRestrictionsNone"]},
    "escape-generator-file": {"files": {"app/kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  files:\n  - ../data.txt\n"), "data.txt": "hello\n"}, "entry": "app"},
    "escape-generator-file-allowed": {"files": {"app/kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  files:\n  - ../data.txt\n"), "data.txt": "hello\n"}, "entry": "app",
        "flags": ["--load-restrictor=LoadRestrictionsNone"]},
    "escape-base-directory": {"files": {"app/kustomization.yaml": _k("resources:\n- ../base\n"),
                                        "base/kustomization.yaml": _k("resources:\n- cm.yaml\n"), "base/cm.yaml": CM},
                              "entry": "app"},
    # -- unknown fields ----------------------------------------------------------------
    "unknown-top-field": {"files": {"kustomization.yaml": _k("resourcez:\n- cm.yaml\n"), "cm.yaml": CM}},
    "unknown-generator-field": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  literal:\n  - a=1\n")}},
    "unknown-patch-field": {"files": {"kustomization.yaml": _k(
        "resources:\n- cm.yaml\npatches:\n- path: p.yaml\n  targets:\n    kind: ConfigMap\n"), "cm.yaml": CM, "p.yaml": CM}},
    "field-case-insensitive": {"files": {"kustomization.yaml": _k("Resources:\n- cm.yaml\nnameprefix: x-\n"), "cm.yaml": CM}},
    # -- malformed generator entries ---------------------------------------------------
    "generator-literal-without-equals": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  literals:\n  - novalue\n")}},
    "generator-file-key-without-path": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  files:\n  - key=\n")}},
    "generator-file-path-without-key": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  files:\n  - =data.txt\n"), "data.txt": "x\n"}},
    "generator-env-key-with-space": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  envs:\n  - a.env\n"), "a.env": "MY KEY=1\n"}},
    "generator-repeated-key": {"files": {"kustomization.yaml": _k(
        "secretGenerator:\n- name: s\n  literals:\n  - a=1\n  - a=2\n")}},
    "generator-bad-behavior": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  behavior: upsert\n  literals: [a=1]\n")}},
    "generator-not-a-list": {"files": {"kustomization.yaml": _k("configMapGenerator:\n  name: c\n")}},
    "generator-literals-not-a-list": {"files": {"kustomization.yaml": _k(
        "configMapGenerator:\n- name: c\n  literals: a=1\n")}},
    "generator-without-name": {"files": {"kustomization.yaml": _k("configMapGenerator:\n- literals: [a=1]\n")}},
    # -- behaviours matched along the way ---------------------------------------------
    "annotations-rewritten-as-strings": {"files": {"kustomization.yaml": _k("resources:\n- cm.yaml\n"), "cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    i: 1\n    b: true\n"
        "    f: 1.50\n    o: 0x10\n  labels: {}\ndata: {}\n---\napiVersion: v1\nkind: ConfigMap\n"
        "metadata:\n  name: b\n  annotations: {}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
        "  name: c\n  annotations:\n")}},
    "smp-directive-keys-kept": {"files": {"kustomization.yaml": _k("resources:\n- d.yaml\npatches:\n- path: p.yaml\n"),
                                          "d.yaml": DEPLOY, "p.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
        "      $retainKeys: [containers]\n      containers:\n      - name: app\n        image: nginx:2\n")}},
    "build-metadata-components-and-labels": {"files": {
        "kustomization.yaml": _k("buildMetadata: [originAnnotations, transformerAnnotations, managedByLabel]\n"
                                 "resources:\n- base\ncomponents:\n- comp\nlabels:\n- pairs: {team: a}\n"
                                 "commonAnnotations: {note: x}\n"),
        "base/kustomization.yaml": _k("resources:\n- d.yaml\nnamePrefix: b-\nimages:\n- name: nginx\n  newTag: \"2\"\n"),
        "base/d.yaml": DEPLOY,
        "comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                                   "secretGenerator:\n- name: s\n  literals: [p=q]\n"}},
}

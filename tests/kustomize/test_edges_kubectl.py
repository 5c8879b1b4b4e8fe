"""Differential: `labels:` with includeSelectors/includeTemplates on every workload kind,
component edge cases, name references through kinds of non-core API versions,
local-config objects, mapping keys given twice, and strategic patches on targets whose
lists repeat a merge key ("similar arrays"), built by kubelite and by `kubectl kustomize`
(Kustomize v5.5)."""
from __future__ import annotations

import pytest

from .differential import assert_same

K = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
COMPONENT = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: '1'\n"
LOCAL = "  annotations:\n    config.kubernetes.io/local-config: {}\n"


def local(doc: str, value: str = "'true'") -> str:
    """doc marked local-config (the annotation right after its name)."""
    head, _, rest = doc.partition("metadata:\n")
    name_line, _, tail = rest.partition("\n")
    return head + "metadata:\n" + name_line + "\n" + LOCAL.format(value) + tail


def tree(resources: list[str], kustomization: str = "namePrefix: p-\n", files: dict | None = None) -> dict:
    out = {"top/kustomization.yaml": K + "resources:\n- r.yaml\n" + kustomization, "top/r.yaml": "---\n".join(resources)}
    out.update(files or {})
    return out


# -- every workload kind ------------------------------------------------------------------
POD_SPEC = "      containers:\n      - {name: c, image: i}\n"


def workload(api: str, kind: str, spec: str = "") -> str:
    return (f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {kind.lower()}\n  labels: {{app: x}}\nspec:\n"
            "  selector:\n    matchLabels: {app: x}\n" + spec
            + "  template:\n    metadata:\n      labels: {app: x}\n    spec:\n" + POD_SPEC)


WORKLOADS = "---\n".join([
    workload("apps/v1", "Deployment"),
    workload("apps/v1", "StatefulSet", "  serviceName: s\n  volumeClaimTemplates:\n  - metadata:\n      name: data\n"
                                       "    spec:\n      accessModes: [ReadWriteOnce]\n"),
    workload("apps/v1", "DaemonSet"),
    workload("apps/v1", "ReplicaSet"),
    workload("extensions/v1beta1", "Deployment").replace("name: deployment", "name: old"),
    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: job\nspec:\n  template:\n    metadata:\n      labels: {app: x}\n"
    "    spec:\n" + POD_SPEC + "      restartPolicy: Never\n",
    "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: cron\nspec:\n  schedule: '* * * * *'\n  jobTemplate:\n"
    "    metadata:\n      labels: {app: x}\n    spec:\n      template:\n        metadata:\n          labels: {app: x}\n"
    "        spec:\n          containers:\n          - {name: c, image: i}\n",
    "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: rc\nspec:\n  selector: {app: x}\n  template:\n"
    "    metadata:\n      labels: {app: x}\n    spec:\n" + POD_SPEC,
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod\nspec:\n  containers:\n  - {name: c, image: i}\n",
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\nspec:\n  selector: {app: x}\n",
    "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: pdb\nspec:\n  selector:\n    matchLabels: {app: x}\n",
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: np\nspec:\n  podSelector:\n"
    "    matchLabels: {app: x}\n  ingress:\n  - from:\n    - podSelector:\n        matchLabels: {app: y}\n",
])


def labels(entries: str) -> dict:
    return {"top/kustomization.yaml": K + "resources:\n- all.yaml\nlabels:\n" + entries, "top/all.yaml": WORKLOADS}


LABELS = {
    "plain": labels("- pairs: {team: t}\n"),
    "include-selectors": labels("- pairs: {team: t}\n  includeSelectors: true\n"),
    "include-templates": labels("- pairs: {team: t}\n  includeTemplates: true\n"),
    "include-both": labels("- pairs: {team: t}\n  includeSelectors: true\n  includeTemplates: true\n"),
    "templates-without-selectors": labels("- pairs: {team: t}\n  includeSelectors: false\n  includeTemplates: true\n"),
    "with-fields": labels("- pairs: {team: t}\n  fields:\n  - path: spec/template/metadata/labels\n    kind: Deployment\n"
                          "    create: true\n  - path: metadata/annotations\n    create: true\n"),
    "two-entries": labels("- pairs: {a: '1'}\n  includeSelectors: true\n- pairs: {b: '2'}\n  includeTemplates: true\n"),
    "common-labels": {"top/kustomization.yaml": K + "resources:\n- all.yaml\ncommonLabels:\n  team: t\n",
                      "top/all.yaml": WORKLOADS},
}


# -- components ---------------------------------------------------------------------------
def with_component(component: str, extra: dict | None = None, top: str = "resources:\n- cm.yaml\ncomponents:\n- comp\n") -> dict:
    out = {"top/kustomization.yaml": K + top, "top/cm.yaml": CM, "top/comp/kustomization.yaml": component}
    out.update(extra or {})
    return out


COMPONENTS = {
    "without-api-version": with_component("kind: Component\nnamePrefix: c-\n"),
    "without-kind": with_component("apiVersion: kustomize.config.k8s.io/v1alpha1\nnamePrefix: c-\n"),
    "kustomization-api-version": with_component("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Component\nnamePrefix: c-\n"),
    "only-a-kind": with_component("kind: Component\n"),
    "listed-twice": with_component("kind: Component\nnameSuffix: -x\n", top="resources:\n- cm.yaml\ncomponents:\n- comp\n- comp\n"),
    "missing-directory": with_component("kind: Component\n", top="resources:\n- cm.yaml\ncomponents:\n- nope\n"),
    "a-file": with_component("kind: Component\n", top="resources:\n- cm.yaml\ncomponents:\n- cm.yaml\n"),
    "as-the-top": {"top/kustomization.yaml": COMPONENT + "resources:\n- cm.yaml\nnamePrefix: c-\n", "top/cm.yaml": CM},
    "as-a-resource": {"top/kustomization.yaml": K + "resources:\n- comp\n",
                      "top/comp/kustomization.yaml": COMPONENT + "resources:\n- cm.yaml\n", "top/comp/cm.yaml": CM},
    "kustomization-as-component": {"top/kustomization.yaml": K + "components:\n- base\n",
                                   "top/base/kustomization.yaml": K + "resources:\n- cm.yaml\n", "top/base/cm.yaml": CM},
    "merges-a-generated-map": with_component("kind: Component\nconfigMapGenerator:\n- name: g\n  behavior: merge\n"
                                             "  literals: [b=2]\n",
                                             top="configMapGenerator:\n- name: g\n  literals: [a=1]\ncomponents:\n- comp\n"),
    "patches-before-the-prefix": with_component("kind: Component\npatches:\n- patch: |-\n    apiVersion: v1\n"
                                                "    kind: ConfigMap\n    metadata:\n      name: cm\n    data:\n"
                                                "      b: '2'\n",
                                                top="resources:\n- cm.yaml\ncomponents:\n- comp\nnamePrefix: p-\n"),
    "nested-without-api-version": with_component("kind: Component\ncomponents:\n- ../comp2\nnamePrefix: a-\n",
                                                 {"top/comp2/kustomization.yaml": "kind: Component\nnamePrefix: b-\n"}),
    "file-named-Kustomization": {"top/kustomization.yaml": K + "resources:\n- cm.yaml\ncomponents:\n- comp\n",
                                 "top/cm.yaml": CM, "top/comp/Kustomization": "kind: Component\nnamePrefix: a-\n"},
    "with-bases": with_component("kind: Component\nbases:\n- ../base\n", {
        "top/base/kustomization.yaml": K + "resources:\n- cm.yaml\n", "top/base/cm.yaml": CM}, top="components:\n- comp\n"),
}


# -- name references through kinds of other API groups and versions -------------------------
def deployment(api: str = "apps/v1") -> str:
    return (f"apiVersion: {api}\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
            "      serviceAccountName: sa\n      priorityClassName: high\n      containers:\n      - name: c\n"
            "        image: i\n        envFrom:\n        - configMapRef: {name: cm}\n        - secretRef: {name: sec}\n"
            "      volumes:\n      - name: v\n        configMap: {name: cm}\n      - name: p\n"
            "        persistentVolumeClaim: {claimName: pvc}\n")


SVC = "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\nspec:\n  ports:\n  - port: 80\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sec\n"
SA = "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n"
PVC = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: pvc\nspec:\n  storageClassName: fast\n"
STORAGE_CLASS = "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: fast\nprovisioner: x\n"
PRIORITY_CLASS = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: 10\n"
INGRESS = ("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: ing\nspec:\n  ingressClassName: nginx\n"
           "  defaultBackend:\n    service: {name: svc, port: {number: 80}}\n  tls:\n  - secretName: sec\n  rules:\n"
           "  - http:\n      paths:\n      - path: /\n        pathType: Prefix\n        backend:\n"
           "          service: {name: svc, port: {number: 80}}\n")
INGRESS_BETA = ("apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: ingb\nspec:\n"
                "  backend: {serviceName: svc, servicePort: 80}\n  rules:\n  - http:\n      paths:\n"
                "      - backend: {serviceName: svc, servicePort: 80}\n")
INGRESS_CLASS = "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: nginx\nspec:\n  controller: x\n"
HPA = ("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: hpa\nspec:\n"
       "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 3\n")
ROLE = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: role\nrules: []\n"
ROLE_BINDING = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rb\n"
                "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: role}\n"
                "subjects:\n- {kind: ServiceAccount, name: sa}\n")
CLUSTER_ROLE = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: cr\nrules:\n"
                "- apiGroups: ['']\n  resources: [configmaps]\n  resourceNames: [cm]\n  verbs: [get]\n")
CLUSTER_ROLE_BINDING = ("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n"
                        "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cr}\n"
                        "subjects:\n- {kind: ServiceAccount, name: sa, namespace: default}\n")
CRONJOB_BETA = ("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: cj\nspec:\n  schedule: '* * * * *'\n"
                "  jobTemplate:\n    spec:\n      template:\n        spec:\n          serviceAccountName: sa\n"
                "          containers:\n          - name: c\n            image: i\n            env:\n"
                "            - name: X\n              valueFrom:\n                configMapKeyRef: {name: cm, key: a}\n")
STATEFULSET = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: sts\nspec:\n  serviceName: svc\n"
               "  template:\n    spec:\n" + POD_SPEC + "  volumeClaimTemplates:\n  - metadata: {name: d}\n    spec:\n"
               "      storageClassName: fast\n")
POLICY = ("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: vap\n"
          "spec:\n  validations: []\n")
POLICY_BINDING = ("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
                  "metadata:\n  name: vapb\nspec:\n  policyName: vap\n")
API_SERVICE = ("apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1.x.io\nspec:\n"
               "  service: {name: svc, namespace: default}\n")
WEBHOOK = ("apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: mwc\n"
           "webhooks:\n- name: a.b.c\n  clientConfig:\n    service: {name: svc, namespace: default}\n")
CUSTOM_REFS = "nameReference:\n- kind: Foo\n  group: example.com\n  version: v1\n  fieldSpecs:\n  - kind: Bar\n    path: spec/fooName\n"
FOO = "apiVersion: example.com/{}\nkind: Foo\nmetadata:\n  name: foo\n"
BAR = "apiVersion: example.com/v1\nkind: Bar\nmetadata:\n  name: bar\nspec:\n  fooName: foo\n"


def beta(doc: str, api: str, name: str) -> str:
    """doc under another apiVersion and name."""
    head, _, rest = doc.partition("\n")
    rest = rest.replace("\n  name: ", f"\n  name: {name}-", 1)
    return f"apiVersion: {api}\n" + rest if head.startswith("apiVersion: ") else doc


REFERENCES = {
    "core-kinds": tree([deployment(), CM, SECRET, SA, PVC, STORAGE_CLASS, PRIORITY_CLASS]),
    "apps-v1beta2-deployment": tree([deployment("apps/v1beta2"), CM, SECRET, SA, PVC]),
    "extensions-deployment": tree([deployment("extensions/v1beta1"), CM, SECRET, SA, PVC]),
    "ingress-networking-v1": tree([INGRESS, SVC, SECRET, INGRESS_CLASS]),
    "ingress-beta-versions": tree([INGRESS_BETA, beta(INGRESS_BETA, "networking.k8s.io/v1beta1", "n"), SVC]),
    "hpa-v2-and-v1": tree([HPA, beta(HPA, "autoscaling/v1", "one"), deployment()]),
    "hpa-target-of-another-kind": tree([HPA, deployment().replace("kind: Deployment", "kind: StatefulSet")]),
    "rbac-v1-and-v1beta1": tree([ROLE, ROLE_BINDING, beta(ROLE_BINDING, "rbac.authorization.k8s.io/v1beta1", "b"),
                                 SA, CLUSTER_ROLE_BINDING, CLUSTER_ROLE, CM]),
    "cronjob-batch-v1beta1": tree([CRONJOB_BETA, CM, SA]),
    "statefulset": tree([STATEFULSET, SVC, STORAGE_CLASS]),
    "admission-policy-binding": tree([POLICY, POLICY_BINDING,
                                      beta(POLICY_BINDING, "admissionregistration.k8s.io/v1beta1", "b")]),
    "api-service-and-webhook": tree([API_SERVICE, WEBHOOK, SVC]),
    "namespace-and-suffix": tree([deployment(), CM, SECRET, SA, INGRESS, SVC, ROLE_BINDING, ROLE,
                                  CLUSTER_ROLE_BINDING, CLUSTER_ROLE], "namespace: ns1\nnameSuffix: -s\n"),
    "custom-kind-same-version": tree([FOO.format("v1"), BAR], "namePrefix: p-\nconfigurations:\n- conf.yaml\n",
                                     {"top/conf.yaml": CUSTOM_REFS}),
    "custom-kind-other-version": tree([FOO.format("v2"), BAR], "namePrefix: p-\nconfigurations:\n- conf.yaml\n",
                                      {"top/conf.yaml": CUSTOM_REFS}),
    "custom-kind-any-version": tree([FOO.format("v2"), BAR], "namePrefix: p-\nconfigurations:\n- conf.yaml\n",
                                    {"top/conf.yaml": CUSTOM_REFS.replace("  group: example.com\n  version: v1\n", "")}),
}

# -- local-config objects ------------------------------------------------------------------
VALUES = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: values\ndata:\n  image: nginx:9\n"
LOCAL_CONFIG = {
    "as-a-name-reference-source": tree([deployment(), local(CM)]),
    "as-a-referrer": tree([local(deployment()), CM]),
    "value-false-kept": tree([local(CM, "'false'")]),
    "value-yes-dropped": tree([local(CM, "'yes'")]),
    "value-empty-dropped": tree([local(CM, "''")]),
    "value-bool-false-kept": tree([local(CM, "false")]),
    "value-bool-true-dropped": tree([local(CM, "true")]),
    "value-False-dropped": tree([local(CM, "'False'")]),
    "generated": {"top/kustomization.yaml": K + "resources:\n- r.yaml\nconfigMapGenerator:\n- name: cm\n"
                  "  literals: [a=b]\n  options:\n    annotations:\n      config.kubernetes.io/local-config: 'true'\n",
                  "top/r.yaml": deployment()},
    "replacement-source": tree([deployment(), local(VALUES)], "replacements:\n- source: {kind: ConfigMap, name: values, "
                               "fieldPath: data.image}\n  targets:\n  - select: {kind: Deployment}\n"
                               "    fieldPaths: [spec.template.spec.containers.0.image]\n"),
    "var-source": tree([deployment().replace("image: i", "image: $(IMG)"), local(VALUES)],
                       "vars:\n- name: IMG\n  objref: {kind: ConfigMap, name: values, apiVersion: v1}\n"
                       "  fieldref: {fieldpath: data.image}\n"),
    "in-a-renamed-base": {"top/kustomization.yaml": K + "resources:\n- base\n- r.yaml\nnamePrefix: p-\n",
                          "top/r.yaml": deployment(), "top/base/kustomization.yaml": K + "resources:\n- cm.yaml\nnameSuffix: -b\n",
                          "top/base/cm.yaml": local(CM)},
}

# -- mapping keys given twice ------------------------------------------------------------------
DEPLOY_TWICE = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  name: e\nspec:\n  replicas: 1\n  replicas: 2\n"
NAMESPACE_TWICE = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\n  labels: {a: b, a: c}\n"


def files(resources: str, kustomization: str = "", extra: dict | None = None) -> dict:
    out = {"top/kustomization.yaml": K + "resources:\n- r.yaml\n" + kustomization, "top/r.yaml": resources}
    out.update(extra or {})
    return out


PATCH_CM = CM.replace("a: '1'", "b: x\n  b: y")
DUPLICATE_KEYS = {
    "top-level": files(CM + "kind: Secret\n"),
    "nested": files(CM + "  a: '2'\n"),
    "three-times-and-two-maps": files(CM.replace("  name: cm\n", "  name: cm\n  name: x\n  name: y\n") + "  a: '2'\n"),
    "second-document": files(CM + "---\n" + CM.replace("name: cm", "name: cm2") + "  b: x\n  b: y\n"),
    "leading-separator": files("---\n" + CM + "  a: '2'\n---\n# c\n" + CM.replace("cm", "cm2") + "  a: '2'\n"),
    "in-a-list-item": files("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n"
                            "    image: x\n    name: b\n"),
    "flow-mapping": files("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, name: cm2}\n"),
    "quoted-and-plain": files(CM + "  \"a\": '2'\n"),
    "merge-key-is-not-a-repeat": files("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n"
                                       "  <<: {a: '1'}\n  a: '2'\n"),
    "json-file": {"top/kustomization.yaml": K + "resources:\n- r.json\n",
                  "top/r.json": '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, '
                                '"data": {"a": "1", "a": "2"}}\n'},
    "first-in-output-order": files(DEPLOY_TWICE + "---\n" + NAMESPACE_TWICE),
    "name-prefix-on-first-name": files(DEPLOY_TWICE, "namePrefix: p-\n"),
    "in-a-base": {"top/kustomization.yaml": K + "resources:\n- base\n",
                  "top/base/kustomization.yaml": K + "resources:\n- r.yaml\n", "top/base/r.yaml": DEPLOY_TWICE},
    "after-a-failing-patch": files(CM + "  a: '2'\n", "patches:\n- path: p.yaml\n",
                                   {"top/p.yaml": CM.replace("name: cm", "name: nope")}),
    "local-config-dropped-first": files(local(CM) + "  a: '2'\n"),
    "patched-object": files(DEPLOY_TWICE, "patches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n"
                                          "    metadata:\n      name: d\n    spec:\n      replicas: 5\n"),
    "patch-file-first-value-wins": files(CM, "patches:\n- path: p.yaml\n", {"top/p.yaml": CM + "  a: '3'\n"}),
    "inline-patch-first-value-wins": files(CM, "patches:\n- patch: |-\n"
                                           + "".join("    " + line + "\n" for line in PATCH_CM.splitlines())),
    "strategic-merge-file-first-value-wins": files(CM, "patchesStrategicMerge:\n- p.yaml\n", {"top/p.yaml": CM + "  a: '3'\n"}),
    "json-patch-last-value-wins": files(CM, "patches:\n- path: j.yaml\n  target: {kind: ConfigMap}\n",
                                        {"top/j.yaml": "- op: add\n  op: replace\n  path: /data/a\n  value: x\n"}),
    "kustomization-file": files(CM, "namePrefix: a-\nnamePrefix: b-\ncommonLabels:\n  a: b\n  a: c\n"),
    "plugin-config": files(CM, "transformers:\n- t.yaml\n", {"top/t.yaml": "apiVersion: builtin\nkind: PrefixTransformer\n"
                                                                         "metadata:\n  name: x\nprefix: a-\nprefix: b-\n"
                                                                         "fieldSpecs:\n- path: metadata/name\n"}),
    "configurations-file": files(CM, "configurations:\n- c.yaml\n", {"top/c.yaml": "namePrefix:\n- path: metadata/name\n"
                                                                                   "  kind: a\n  kind: b\n  kind: c\n"
                                                                                   "namePrefix: []\n"}),
    "lines-of-the-rewritten-document": files("\n\n# head comment\napiVersion: v1\nkind: ConfigMap\n\nmetadata:\n"
                                             "  name: cm   # trailing\n\n  # a comment\ndata:\n  b: |\n    multi\n"
                                             "    line\n  c: [1,\n     2]\n  a: '1'\n  a: '2'\n"),
    "long-lines-are-not-wrapped": files("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  s: "
                                        + " ".join(["word"] * 50) + "\n  f: [" + ", ".join(["item"] * 40) + "]\n"
                                        "  a: '1'\n  a: '2'\n"),
    "replacement-file": files(CM, "replacements:\n- path: rep.yaml\n", {"top/rep.yaml": "source:\n  kind: ConfigMap\n"
                                                                                      "  fieldPath: data.a\n"
                                                                                      "  fieldPath: metadata.name\n"
                                                                                      "targets: []\n"}),
}

# -- lists the patch leaves alone (kyaml rebuilds every mergeable list of the target) ------------
LABEL_PATCH = ("patches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: d\n"
               "      labels: {x: y}\n")


def patched(pod_spec: str, patch: str = LABEL_PATCH, meta: str = "") -> dict:
    return {"top/kustomization.yaml": K + "resources:\n- d.yaml\n" + patch,
            "top/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n" + meta
                          + "spec:\n  template:\n    spec:\n" + pod_spec}


def containers(body: str) -> str:
    return "      containers:\n" + body


def containers_patch(body: str) -> str:
    return ("patches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: d\n"
            "    spec:\n      template:\n        spec:\n          containers:\n" + body)


SIMILAR_ARRAYS = {
    "containers-named-twice": patched(containers("      - {name: a, image: one}\n      - {name: b, image: b1}\n"
                                                 "      - {name: c, image: c1}\n      - {name: b, image: b2}\n")),
    "env-named-three-times": patched(containers("      - name: a\n        env:\n        - {name: E, value: '1'}\n"
                                                "        - {name: F, value: x}\n        - {name: E, value: '2'}\n"
                                                "        - {name: G, value: g}\n        - {name: E, value: '3'}\n")),
    "env-element-without-name": patched(containers("      - name: a\n        env:\n        - {name: E}\n"
                                                   "        - {value: nokey}\n        - {name: F, value: f}\n")),
    "env-element-without-name-first": patched(containers("      - name: a\n        env:\n        - {value: nokey}\n"
                                                         "        - {name: E}\n")),
    "env-null-and-empty-elements": patched(containers("      - name: a\n        env:\n        - {name: E}\n        - null\n"
                                                      "        - {}\n        - {name: F}\n")),
    "env-scalar-element": patched(containers("      - name: a\n        env: [{name: E}, x, {name: E, value: v}]\n")),
    "ports-by-port-and-protocol": patched(containers(
        "      - name: a\n        ports:\n        - {containerPort: 80, name: p1}\n"
        "        - {containerPort: 80, name: p2, protocol: TCP}\n        - {containerPort: 80, name: p3, protocol: UDP}\n"
        "        - {containerPort: 81, name: q1, protocol: TCP}\n        - {containerPort: 82, name: r1}\n"
        "        - {containerPort: 81, name: q2, protocol: TCP}\n        - {containerPort: 81, name: q3, protocol: TCP}\n")),
    "ports-same-port-and-protocol": patched(containers("      - name: a\n        ports:\n"
                                                       "        - {containerPort: 8080, name: x, protocol: TCP}\n"
                                                       "        - {containerPort: 8080, name: y, protocol: TCP}\n")),
    "repeated-containers-with-repeated-env": patched(containers(
        "      - name: a\n        env: [{name: E, value: '1'}, {name: E, value: '2'}]\n"
        "      - name: a\n        env: [{name: F, value: '1'}, {name: F, value: '2'}]\n")),
    "volumes-and-pull-secrets": patched("      volumes:\n      - {name: v, emptyDir: {}}\n      - {name: v, configMap: {name: c}}\n"
                                        "      - {name: w}\n      imagePullSecrets:\n      - {name: s}\n      - {name: s}\n"
                                        + containers("      - {name: a, image: i, args: [x, y, x]}\n")),
    "finalizers-repeated": patched(containers("      - {name: a}\n"), meta="  finalizers: [a, b, a, c, b]\n"),
    "tolerations-are-not-merged": patched("      tolerations: [{key: a}, {key: a}]\n" + containers("      - {name: a}\n")),
    "json-patch-leaves-them": patched(containers("      - {name: a, image: one}\n      - {name: a, image: two}\n"),
                                      "patches:\n- target: {kind: Deployment}\n  patch: '[{\"op\": \"add\", \"path\": "
                                      "\"/metadata/labels\", \"value\": {\"x\": \"y\"}}]'\n"),
    "no-patch-leaves-them": patched(containers("      - {name: a, image: one}\n      - {name: a, image: two}\n"),
                                    "namePrefix: p-\n"),
    "custom-kind-without-schema": {"top/kustomization.yaml": K + "resources:\n- w.yaml\npatches:\n- patch: |-\n"
                                   "    apiVersion: x.io/v1\n    kind: W\n    metadata:\n      name: w\n      labels: {x: y}\n",
                                   "top/w.yaml": "apiVersion: x.io/v1\nkind: W\nmetadata:\n  name: w\nspec:\n"
                                                 "  containers: [{name: a, v: 1}, {name: a, v: 2}]\n"},
    # the patch names the list whose target repeats a key
    "patch-adds-to-repeated": patched(containers("      - {name: a, image: one}\n      - {name: a, image: two}\n"
                                                 "      - {name: b, image: three}\n"),
                                      containers_patch("          - {name: b, image: new}\n")),
    "patch-deletes-repeated": patched(containers("      - {name: a, image: one}\n      - {name: a, image: two}\n"
                                                 "      - {name: b, image: three}\n"),
                                      containers_patch("          - {name: a, $patch: delete}\n")),
    "patch-merges-into-repeated": patched(containers("      - {name: a, image: one, args: [x]}\n      - {name: a, image: two}\n"
                                                     "      - {name: b, image: three}\n"),
                                          containers_patch("          - {name: a, command: [c]}\n")),
    "patch-replaces-repeated": patched(containers("      - {name: a, image: one, args: [x]}\n      - {name: a, image: two}\n"),
                                       containers_patch("          - {name: a, image: r, $patch: replace}\n")),
    "patch-new-port-beside-repeated": patched(containers(
        "      - name: a\n        ports:\n        - {containerPort: 80, name: x, protocol: TCP}\n"
        "        - {containerPort: 80, name: y, protocol: TCP}\n"),
        containers_patch("          - name: a\n            ports:\n            - {containerPort: 81, name: z}\n")),
}

# -- configurations: how their field specs merge with the defaults -----------------------------
THREE_KINDS = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n---\napiVersion: apps/v1\nkind: Deployment\n"
               "metadata:\n  name: d\n---\napiVersion: admissionregistration.k8s.io/v1\n"
               "kind: MutatingWebhookConfiguration\nmetadata:\n  name: m\n---\napiVersion: x/v1\nkind: Foo\n"
               "metadata:\n  name: f\n")


def configured(config: str, kustomization: str = "namePrefix: p-\nnameSuffix: -s\ncommonAnnotations: {a: b}\n") -> dict:
    return {"top/kustomization.yaml": K + "resources:\n- r.yaml\n" + kustomization + "configurations:\n- c.yaml\n",
            "top/r.yaml": THREE_KINDS, "top/c.yaml": config}


CONFIGURATIONS = {
    # a kind's own spec sorts before the spec for every kind, which is then left out
    "prefix-for-one-kind": configured("namePrefix:\n- path: metadata/name\n  kind: Foo\n"),
    "prefix-for-two-kinds": configured("namePrefix:\n- path: metadata/name\n  kind: Foo\n"
                                       "- path: metadata/name\n  kind: ConfigMap\n"),
    "prefix-for-one-group": configured("namePrefix:\n- path: metadata/name\n  group: x\n"),
    "prefix-general-and-one-kind": configured("namePrefix:\n- path: metadata/name\n- path: metadata/name\n  kind: Foo\n"),
    "suffix-for-one-kind": configured("nameSuffix:\n- path: metadata/name\n  kind: Foo\n"),
    "annotations-for-one-kind": configured("commonAnnotations:\n- path: metadata/annotations\n  kind: Foo\n  create: true\n"),
    # webhook kinds sort after the general spec: both stay, and the name is prefixed twice
    "prefix-for-a-webhook-kind": configured("namePrefix:\n- path: metadata/name\n  kind: MutatingWebhookConfiguration\n"),
    "prefix-other-path": configured("namePrefix:\n- path: spec/x\n  kind: Foo\n"),
    "empty-list": configured("namePrefix: []\n"),
    "conflicting-create-in-one-file": configured("namePrefix:\n- path: metadata/name\n  kind: Foo\n"
                                                 "- path: metadata/name\n  kind: Foo\n  create: true\n"),
    # local-config objects named through a configured reference, only they prefixed
    "local-config-reference-source": tree(
        [local("apiVersion: local/v1\nkind: IngressHost\nmetadata:\n  name: test.example.com\n"),
         "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: ing\nspec:\n  rules:\n"
         "  - host: test.example.com\n  - host: other.example.com\n  tls:\n  - hosts: [test.example.com]\n",
         deployment().replace("image: i", "image: i\n        env:\n        - {name: HOST, value: test.example.com}")],
        "namePrefix: p-\nconfigurations:\n- conf.yaml\n",
        {"top/conf.yaml": "nameReference:\n- kind: IngressHost\n  fieldSpecs:\n  - {path: spec/rules/host, kind: Ingress}\n"
                          "  - {path: spec/tls/hosts, kind: Ingress}\n"
                          "  - {path: spec/template/spec/containers/env/value, kind: Deployment}\n"
                          "namePrefix:\n- {path: metadata/name, kind: IngressHost}\n"}),
}

# a kind named like a cluster-scoped one, in another API group, is namespaced
OTHER_GROUPS = {
    "namespace-kind-of-another-group": tree(["apiVersion: servicebus.azure.com/v1beta1\nkind: Namespace\nmetadata:\n"
                                             "  name: sb\n  namespace: before\n", CM], "namespace: after\n"),
    "cluster-role-of-another-group": tree(["apiVersion: example.com/v1\nkind: ClusterRole\nmetadata:\n  name: cr\n",
                                           "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n"
                                           "  name: cr\nrules: []\n"], "namespace: ns\nnamePrefix: p-\n"),
    "storage-class-of-another-group": tree(["apiVersion: example.com/v1\nkind: StorageClass\nmetadata:\n  name: s\n",
                                            PVC.replace("fast", "s")], "namespace: ns\nnameSuffix: -x\n"),
}

# kinds and names that YAML reads as numbers or booleans: kyaml takes the scalar's text
SCALAR_IDS = {
    "kind-a-number": tree(["apiVersion: v1\nkind: 5\nmetadata:\n  name: a\n"], ""),
    "kind-a-list": tree(["apiVersion: v1\nkind: [a]\nmetadata:\n  name: a\n"], ""),
    "api-version-a-number": tree(["apiVersion: 5\nkind: ConfigMap\nmetadata:\n  name: a\n"], ""),
    "name-a-number-prefixed": tree(["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 5\n"]),
    "name-a-bool": tree(["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: true\n"], ""),
    "namespace-a-number": tree(["apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: 5\n"], ""),
    "metadata-a-list": tree(["apiVersion: v1\nkind: ConfigMap\nmetadata: [a]\n"], ""),
    "plugin-kind-a-number": {"top/kustomization.yaml": K + "transformers:\n- t.yaml\n",
                             "top/t.yaml": "apiVersion: builtin\nkind: 5\nmetadata:\n  name: x\n"},
}

# an ambiguous reference: Kustomize reports the referrer and each candidate with its renames
SA_AND_BINDING = ("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n---\n"
                  "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb-{n}\n"
                  "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cr-{n}\n"
                  "subjects:\n- kind: ServiceAccount\n  name: sa\n")


def two_namespaces(renames: str) -> dict:
    """One binding (Kustomize visits several in map order, so only one may be ambiguous)."""
    return {"top/kustomization.yaml": K + "resources:\n- a\n- b\n",
            "top/a/kustomization.yaml": K + f"namespace: a\n{renames}resources:\n- r.yaml\n",
            "top/a/r.yaml": SA_AND_BINDING.format(n="a"),
            "top/b/kustomization.yaml": K + f"namespace: b\n{renames}resources:\n- r.yaml\n",
            "top/b/r.yaml": SA_AND_BINDING.split("---")[0]}


AMBIGUOUS = {
    "service-accounts-of-two-namespaces": two_namespaces(""),
    "renamed-alike-in-two-namespaces": two_namespaces("namePrefix: p-\nnameSuffix: -s\n"),
}

# Double-quoted escapes: yaml.v3 refuses \/ (libyaml reads it) and reads \' (libyaml refuses it);
# in single quotes a backslash is itself.
ESCAPE_CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: \"{}\"\n  j: 'x\\/y'\n"
ESCAPES = {name: tree([ESCAPE_CM.format(value)]) for name, value in (
    ("slash", "a\\/b"), ("quote", "a\\'b"), ("known", "a\\tb\\x41\\u00e9\\_\\N"), ("unknown", "a\\qb"),
    ("short-hex", "a\\x4"), ("surrogate", "a\\ud800"), ("quote-then-slash", "a\\'b\\/c"))}

CASES = {f"{group}/{name}": tree_files for group, table in (
    ("labels", LABELS), ("components", COMPONENTS), ("references", REFERENCES), ("local-config", LOCAL_CONFIG),
    ("duplicate-keys", DUPLICATE_KEYS), ("similar-arrays", SIMILAR_ARRAYS), ("configurations", CONFIGURATIONS),
    ("other-groups", OTHER_GROUPS), ("scalar-ids", SCALAR_IDS), ("ambiguous", AMBIGUOUS),
    ("escapes", ESCAPES)) for name, tree_files in table.items()}


@pytest.mark.kubectl
@pytest.mark.parametrize("case", sorted(CASES))
def test_build_as_kubectl(case, tmp_path, monkeypatch, kubectl):
    assert_same(kubectl, CASES[case], str(tmp_path), monkeypatch)

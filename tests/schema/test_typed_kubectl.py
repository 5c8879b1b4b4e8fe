"""kubelite.schema.typed against kubectl, which decodes built-in kinds into Go structs.

`kubectl set ... --local -f F -o json|yaml` (offline) prints what json.Unmarshal into the API
struct followed by json.Marshal makes of F (plus the set change): the corpus below is written to
exercise that: unknown keys, zero values with and without omitempty, nulls, empty lists/maps,
quantities, times with offsets and fractions, IntOrString, wrongly typed values. Compared byte
for byte with kubelite's `set` (which decodes through typed.roundtrip), and kubectl's outputs are
checked to be fixed points of roundtrip (key order included).
"""
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

KUBECTL = "/usr/bin/kubectl"
pytestmark = [pytest.mark.kubectl,
              pytest.mark.skipif(not os.path.exists(KUBECTL), reason="needs /usr/bin/kubectl")]

CORPUS = {
    "deploy": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
  labels: {app: web, tier: front}
  annotations: {z: "1", a: "2"}
  creationTimestamp: "2024-05-01T10:20:30.123456Z"
  uid: ""
  generation: 0
  unknownMeta: x
spec:
  replicas: 3
  paused: false
  minReadySeconds: 0
  revisionHistoryLimit: null
  selector:
    matchLabels: {app: web}
    matchExpressions: []
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSeconds: 30
      dnsPolicy: ClusterFirst
      hostNetwork: false
      nodeSelector: {zone: a, disk: ssd}
      tolerations: []
      initContainers:
      - name: init
        image: busybox
        command: [sh, -c, "true"]
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
          protocol: TCP
          name: http
        - containerPort: 443
        env:
        - name: A
          value: ""
        - name: B
          valueFrom:
            fieldRef: {fieldPath: metadata.name}
        resources:
          limits: {cpu: "0.5", memory: 1048576Ki, nvidia.com/gpu: 1}
          requests: {cpu: 250m, memory: 0.5Gi}
        livenessProbe:
          httpGet: {path: /, port: http}
          initialDelaySeconds: 5
        readinessProbe:
          tcpSocket: {port: 80}
        securityContext:
          runAsNonRoot: true
          capabilities: {drop: [ALL]}
        volumeMounts:
        - {name: data, mountPath: /data, readOnly: false}
        bogus: [1, 2]
      volumes:
      - name: data
        emptyDir: {sizeLimit: 1Gi}
      - name: cfg
        configMap: {name: cfg, defaultMode: 420, items: [{key: a, path: b}]}
      - name: sec
        secret: {secretName: s}
status:
  replicas: 2
  conditions:
  - type: Available
    status: "True"
    lastUpdateTime: "2024-05-01T12:00:00+02:00"
    lastTransitionTime: "2024-05-01T12:00:00-00:30"
    reason: MinimumReplicasAvailable
""",
    "svc": """\
apiVersion: v1
kind: Service
metadata:
  name: svc
  finalizers: []
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: web, uid: abc, controller: true}
spec:
  type: NodePort
  clusterIP: ""
  ports:
  - {name: http, port: 80, targetPort: 8080, nodePort: 30080, protocol: TCP}
  - {port: 443, targetPort: https, appProtocol: h2}
  sessionAffinity: ClientIP
  sessionAffinityConfig: {clientIP: {timeoutSeconds: 10800}}
  externalIPs: [1.2.3.4]
  ipFamilies: [IPv4]
  allocateLoadBalancerNodePorts: false
status:
  loadBalancer:
    ingress: [{ip: 5.6.7.8, ports: [{port: 80, protocol: TCP}]}]
""",
    "pod": """\
apiVersion: v1
kind: Pod
metadata: {name: p, generateName: p-, deletionGracePeriodSeconds: 30}
spec:
  restartPolicy: Never
  activeDeadlineSeconds: 100
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: k, operator: In, values: [a, b]}]
  containers:
  - name: c
    image: alpine
    args: []
    stdin: true
    tty: false
    resources: {}
    lifecycle:
      preStop:
        exec: {command: [sleep, "5"]}
  hostAliases: [{ip: 1.1.1.1, hostnames: [a]}]
  overhead: {cpu: 100m}
  schedulingGates: []
  securityContext: {fsGroup: 2000, sysctls: [{name: a, value: b}]}
status:
  phase: Running
  startTime: "2024-01-01T00:00:00Z"
  containerStatuses:
  - name: c
    ready: true
    restartCount: 0
    image: alpine
    imageID: ""
    state: {running: {startedAt: "2024-01-01T00:00:01Z"}}
""",
    "job": """\
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  backoffLimit: 0
  completions: 1
  parallelism: 1
  ttlSecondsAfterFinished: 100
  podFailurePolicy:
    rules: [{action: FailJob, onExitCodes: {operator: In, values: [1, 2]}}]
  template:
    spec:
      restartPolicy: Never
      containers: [{name: j, image: perl, command: [perl, -e, print]}]
""",
    "cron": """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj, labels: {}}
spec:
  schedule: "*/5 * * * *"
  timeZone: Etc/UTC
  concurrencyPolicy: Forbid
  suspend: false
  successfulJobsHistoryLimit: 0
  jobTemplate:
    metadata: {labels: {a: b}}
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: cj, image: busybox, imagePullPolicy: IfNotPresent}]
status: {lastScheduleTime: "2024-02-29T23:59:59Z"}
""",
    "sts": """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 1
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: db}}
  persistentVolumeClaimRetentionPolicy: {whenDeleted: Retain}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 0, maxUnavailable: 50%}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres, ports: [{containerPort: 5432}]}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 10Gi}}
      storageClassName: ""
""",
    "ds": """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: OnDelete}
  template:
    metadata: {labels: {app: agent}, annotations: {}}
    spec:
      hostPID: true
      tolerations: [{operator: Exists, effect: NoSchedule, tolerationSeconds: null}]
      containers: [{name: agent, image: agent, env: [{name: X, value: "1"}]}]
""",
    "rs": """\
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec:
      containers: [{name: c, image: i}]
""",
    "rc": """\
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  replicas: 0
  selector: {a: b}
  template:
    metadata: {labels: {a: b}}
    spec:
      containers: [{name: c, image: i}]
""",
    "rb": """\
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb, namespace: ns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
subjects:
- {kind: ServiceAccount, name: sa, namespace: ns}
- {kind: Group, name: g, apiGroup: rbac.authorization.k8s.io, extra: 1}
""",
    "crb": """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
""",
    "e1": """\
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data: {a: 1}
""",
    "e2": """\
apiVersion: v1
kind: Secret
metadata: {name: s}
data: {a: "not base64!"}
""",
    "e3": """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i}
spec: {rules: [{host: 5}]}
""",
    "e4": """\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r}
rules: {verbs: [get]}
""",
    "e5": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {replicas: "3", template: {spec: {containers: [{name: c, image: i}]}}}
""",
    "e6": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, creationTimestamp: "yesterday"}
spec: {template: {spec: {containers: [{name: c, image: i}]}}}
""",
    "e7": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {replicas: 1.5, template: {spec: {containers: [{name: c, image: i}]}}}
""",
    "e8": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {template: {spec: {containers: [{name: c, image: i, resources: {limits: {cpu: abc}}}]}}}
""",
    "e9": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {replicas: 3000000000, template: {spec: {containers: [{name: c, image: i}]}}}
""",
    "e10": """\
apiVersion: v1
kind: Pod
metadata: {name: d}
spec: {containers: [{name: c, image: i, ports: [{containerPort: 80, protocol: 6}]}]}
""",
    "e11": """\
apiVersion: v1
kind: Pod
metadata: {name: d}
spec: {containers: {name: c}}
""",
    "e12": """\
apiVersion: v1
kind: Pod
metadata: {name: d}
spec: {containers: [{name: c, image: i, livenessProbe: {httpGet: {port: true}}}]}
""",
    "e13": """\
apiVersion: v1
kind: Pod
metadata: {name: d, labels: {a: true}}
spec: {containers: [{name: c, image: i}]}
""",
    "t21": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "yesterday"}
spec: {containers: [{name: c, image: i}]}
""",
    "t22": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: ""}
spec: {containers: [{name: c, image: i}]}
""",
    "t23": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-13-01T00:00:00Z"}
spec: {containers: [{name: c, image: i}]}
""",
    "t24": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-02-30T00:00:00Z"}
spec: {containers: [{name: c, image: i}]}
""",
    "t25": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-01-01T25:00:00Z"}
spec: {containers: [{name: c, image: i}]}
""",
    "t26": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-01-01T1:02:03Z"}
spec: {containers: [{name: c, image: i}]}
""",
    "t27": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-01-01T01:02:03"}
spec: {containers: [{name: c, image: i}]}
""",
    "t28": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-01-01T01:02:03+0100"}
spec: {containers: [{name: c, image: i}]}
""",
    "t29": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-01-01T01:02:03Zjunk"}
spec: {containers: [{name: c, image: i}]}
""",
    "t30": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-01-01 01:02:03Z"}
spec: {containers: [{name: c, image: i}]}
""",
    "t31": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-01-01T01:60:03Z"}
spec: {containers: [{name: c, image: i}]}
""",
    "t32": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "0001-01-01T00:00:00Z"}
spec: {containers: [{name: c, image: i}]}
""",
    "t33": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "0001-01-01T01:00:00+01:00"}
spec: {containers: [{name: c, image: i}]}
""",
    "t34": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-01-01T01:02:03,5+25:00"}
spec: {containers: [{name: c, image: i}]}
""",
    "t35": """\
apiVersion: v1
kind: Pod
metadata: {name: d, creationTimestamp: "2024-01-01T01:02:03.999999999-12:30"}
spec: {containers: [{name: c, image: i}]}
""",
}

WORKLOADS = ("deploy", "pod", "job", "cron", "sts", "ds", "rs", "rc")
CHANGES = [(name, ["env", "X=1"]) for name in WORKLOADS] + \
    [(name, ["serviceaccount", "sa1"]) for name in WORKLOADS] + [
    ("svc", ["selector", "a=b"]),
    ("rb", ["subject", "--user=u"]),
    ("crb", ["subject", "--group=g"]),
] + [(name, ["env", "X=1"]) for name in CORPUS if name[0] in "et"]


def _kubectl_many(argvs):
    env = {**os.environ, "KUBECONFIG": "/dev/null"}

    def one(argv):
        p = subprocess.run([KUBECTL, *argv], capture_output=True, text=True, env=env, timeout=60)
        return p.returncode, p.stdout, p.stderr

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, argvs))


def _kubelite(argv):
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from kubelite.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("typed")
    paths = {}
    for name, text in CORPUS.items():
        path = root / f"{name}.yaml"
        path.write_text(text)
        paths[name] = str(path)
    return paths


@pytest.fixture(scope="module")
def runs(corpus):
    """[(argv, kubectl's (rc, stdout, stderr))] for every change, as -o json and -o yaml."""
    argvs = [["set", change[0], "--local", "-f", corpus[name], *change[1:], "-o", output]
             for name, change in CHANGES for output in ("json", "yaml")]
    return list(zip(argvs, _kubectl_many(argvs)))


def test_set_local_prints_what_kubectl_prints(runs, monkeypatch, tmp_path):
    monkeypatch.setenv("KUBECONFIG", "/dev/null")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBELITE_HOME", str(tmp_path / "kubelite"))
    mismatches = [(argv, expected, ours) for argv, expected in runs
                  if (ours := _kubelite(argv)) != expected]
    assert not mismatches, mismatches[:2]
    printed = [out for (_, (rc, out, _)) in runs if rc == 0 and out]
    assert len(printed) >= 30  # most cases print an object; the rest are decode errors


def test_kubectl_typed_output_is_a_fixed_point(runs):
    from kubelite.schema.typed import roundtrip
    from kubelite.quantity import canonical_quantity

    outputs = [json.loads(out) for argv, (rc, out, _) in runs if rc == 0 and out and argv[-1] == "json"]
    assert len(outputs) >= 15
    for obj in outputs:
        again = roundtrip(obj, quantity=canonical_quantity)
        assert json.dumps(again) == json.dumps(obj)


def test_decode_errors_are_kubectls(runs):
    """Wrongly typed values: roundtrip raises encoding/json's (or time.Parse's) message."""
    import yaml

    from kubelite.schema.typed import TypedError, roundtrip
    from kubelite.quantity import canonical_quantity

    checked = 0
    for argv, (rc, _, err) in runs:
        prefix = f'error: unable to decode "{argv[4]}": '
        if rc == 0 or not err.startswith(prefix) or argv[-1] != "json":
            continue
        name = os.path.basename(argv[4])[:-len(".yaml")]
        with pytest.raises(TypedError) as caught:
            roundtrip(yaml.safe_load(CORPUS[name]), quantity=canonical_quantity)
        assert prefix + str(caught.value) + "\n" == err
        checked += 1
    assert checked >= 15

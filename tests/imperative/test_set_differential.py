"""`kubelite set ... --local -f F -o yaml` against `kubectl set ... --local` (offline), byte for byte."""
import pytest

from imperative_support import kubectl_many, kubelite, needs_kubectl

pytestmark = [pytest.mark.kubectl, needs_kubectl]

OBJECTS = {
    "svc": ["create", "service", "clusterip", "my-svc", "--clusterip=None", "-o", "yaml", "--dry-run=client"],
    "deploy": ["create", "deployment", "web", "--image=nginx", "--image=redis:7", "-o", "yaml", "--dry-run=client"],
    "cron": ["create", "cronjob", "cj", "--image=busybox", "--schedule=@hourly", "-o", "yaml", "--dry-run=client"],
    "rb": ["create", "rolebinding", "rb", "--role=r", "--user=u", "-o", "yaml", "--dry-run=client"],
    "crb": ["create", "clusterrolebinding", "crb", "--clusterrole=view", "-o", "yaml", "--dry-run=client"],
}

CASES = [
    ("svc", ["selector", "environment=qa"]),
    ("svc", ["selector", "a=b,c=d"]),
    ("svc", ["selector", "a in (b)"]),
    ("svc", ["image", "a=b"]),
    ("deploy", ["selector", "a=b"]),
    ("deploy", ["image", "nginx=nginx:1.27"]),
    ("deploy", ["image", "*=busybox"]),
    ("deploy", ["image", "nginx=nginx", "redis=redis:6"]),
    ("deploy", ["image", "missing=x"]),
    ("deploy", ["image", "nginx=nginx"]),
    ("cron", ["image", "cj=alpine"]),
    ("deploy", ["resources", "--limits=cpu=200m,memory=512Mi", "--requests=cpu=0.1"]),
    ("deploy", ["resources", "-c", "redis", "--limits=memory=1Gi"]),
    ("deploy", ["resources", "-c", "nope", "--limits=memory=1Gi"]),
    ("deploy", ["resources"]),
    ("deploy", ["serviceaccount", "builder"]),
    ("cron", ["serviceaccount", "runner"]),
    ("rb", ["subject", "--user=u", "--user=v", "--group=g", "--serviceaccount=ns:sa"]),
    ("crb", ["subject", "--group=devs"]),
    ("rb", ["subject"]),
    ("deploy", ["env", "A=1", "B=two words"]),
    ("deploy", ["env", "-c", "redis", "REDIS_ARGS=--save"]),
    ("deploy", ["env", "-e", "X=1"]),
    ("svc", ["serviceaccount", "x"]),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("set")
    paths = {}
    for key, (rc, out, err) in zip(OBJECTS, kubectl_many(list(OBJECTS.values()))):
        assert rc == 0, err
        path = tmp / f"{key}.yaml"
        path.write_text(out)
        paths[key] = str(path)
    return paths


def _argv(files, key, change):
    sub, rest = change[0], change[1:]
    return ["set", sub, "--local", "-f", files[key], *rest, "-o", "yaml"]


def test_set_local_matches_kubectl(files, isolated_home):
    argvs = [_argv(files, key, change) for key, change in CASES]
    expected = kubectl_many(argvs)
    mismatches = [(a, e, kubelite(a)) for a, e in zip(argvs, expected) if kubelite(a) != e]
    assert not mismatches, mismatches[:2]


def test_seed_pipeline_prints_what_kubectl_prints(isolated_home):
    """Seed 004 part 3: create service ... --dry-run=client | set selector --local -f - ... -o yaml."""
    create = ["create", "service", "clusterip", "my-svc", "--clusterip=None", "-o", "yaml", "--dry-run=client"]
    select = ["set", "selector", "--local", "-f", "-", "environment=qa", "-o", "yaml"]
    (rc1, generated, _), = kubectl_many([create])
    (rc2, expected, _), = kubectl_many([select], stdin=generated)
    rc, ours, err = kubelite(create)
    assert (rc, ours) == (rc1, generated)
    rc, selected, err = kubelite(select, stdin=ours)
    assert (rc, selected, err) == (rc2, expected, "")
    assert "environment: qa" in selected

"""`kubelite create TYPE ...` against `kubectl create TYPE ... --dry-run=client` (offline), byte for byte:
stdout, stderr (klog time/pid masked) and exit code, over seeded random flag combinations."""
import random

import pytest

from imperative_support import kubectl_many, kubelite, needs_kubectl

pytestmark = [pytest.mark.kubectl, needs_kubectl]

OUTPUTS = (["-o", "json"], ["-o", "yaml"], ["-o", "name"], [])
IMAGES = ["nginx", "busybox:1.36", "registry.k8s.io/pause:3.9", "ghcr.io/org/app@sha256:" + "a" * 64, "redis"]
TCP = ["80", "80:8080", "443:https", "5678:8080", "90:http-alt", "abc", "80:-1", "80:a--b", "70000", "0:80",
       "8080:toolongportname123", "80:0"]
LITERALS = ["a=b", "key.name=value with spaces", "K_2=x=y", "empty=", "novalue", "=nokey", "bad key=x",
            "..dots=x", "a=dup", "u=ünïcødé", "html=<a&b>"]
NAMES = ["demo", "my-app", "x1"]


def _fixture_files(tmp):
    (tmp / "f1.txt").write_text("hello\n")
    (tmp / "props").write_text("a=1\nb=2\n")
    (tmp / "bin").write_bytes(b"\xff\xfe\x00binary")
    d = tmp / "dir"
    d.mkdir()
    (d / "one").write_text("1")
    (d / "two.yaml").write_text("x: 2\n")
    (d / "sub").mkdir()
    (tmp / "env").write_text("# comment\nA=1\n  B=two words\nC\n\nD==x\n")
    (tmp / "badenv").write_text("1BAD=x\n")
    return tmp


def _cases(rng: random.Random, tmp) -> list[list[str]]:
    f = str(tmp)
    files = [f"{f}/f1.txt", f"k={f}/props", f"{f}/dir", f"{f}/missing", f"={f}/f1.txt", "key=", f"k={f}/dir",
             f"{f}/bin", f"a=b={f}/f1.txt"]
    env_files = [f"{f}/env", f"{f}/badenv", f"{f}/missing", f"{f}/dir"]
    cases: list[list[str]] = []

    def pick(pool, lo=0, hi=2):
        return rng.sample(pool, rng.randint(lo, min(hi, len(pool))))

    def ns():
        return rng.choice([[], [], ["-n", "team-a"]])

    for _ in range(30):
        images = pick(IMAGES, 0, 3) or (["nginx"] if rng.random() < 0.8 else [])
        argv = ["deployment", rng.choice(NAMES)] + [f"--image={i}" for i in images]
        if rng.random() < 0.5:
            argv.append(f"--replicas={rng.choice([0, 1, 3])}")
        if rng.random() < 0.5:
            argv.append(f"--port={rng.choice([80, 8080, 0])}")
        argv += ns() + rng.choice(OUTPUTS) + ["--dry-run=client"]
        if rng.random() < 0.3:
            argv += ["--", "sleep", "3600"]
        cases.append(argv)
    for _ in range(40):
        kind = rng.choice(["clusterip", "nodeport", "loadbalancer", "externalname"])
        argv = ["service", kind, rng.choice(NAMES)] + [f"--tcp={t}" for t in pick(TCP, 0, 3)]
        if kind == "clusterip" and rng.random() < 0.4:
            argv.append(f"--clusterip={rng.choice(['None', '10.0.0.10', ''])}")
        if kind == "nodeport" and rng.random() < 0.5:
            argv.append(f"--node-port={rng.choice([30080, 0])}")
        if kind == "externalname":
            argv.append(f"--external-name={rng.choice(['bar.com', 'Bad_Name', 'db.example.org'])}")
        cases.append(argv + ns() + rng.choice(OUTPUTS) + ["--dry-run=client"])
    for _ in range(40):
        which = rng.choice(["configmap", "secret generic"])
        argv = which.split() + [rng.choice(NAMES)]
        argv += [f"--from-literal={x}" for x in pick(LITERALS, 0, 3)]
        argv += [f"--from-file={x}" for x in pick(files, 0, 2)]
        if rng.random() < 0.25:
            argv += [f"--from-env-file={rng.choice(env_files)}"]
        if rng.random() < 0.3:
            argv.append("--append-hash")
        if which == "secret generic" and rng.random() < 0.3:
            argv.append("--type=example.com/custom")
        cases.append(argv + ns() + rng.choice(OUTPUTS) + ["--dry-run=client"])
    for _ in range(12):
        argv = ["secret", "docker-registry", rng.choice(NAMES)]
        for flag, val in (("--docker-username", "u"), ("--docker-password", "p&<ss"), ("--docker-email", "a@b.c"),
                          ("--docker-server", "registry.example.com:5000")):
            if rng.random() < 0.7:
                argv.append(f"{flag}={val}")
        if rng.random() < 0.2:
            argv.append(f"--from-file=.dockerconfigjson={f}/f1.txt")
        if rng.random() < 0.3:
            argv.append("--append-hash")
        cases.append(argv + rng.choice(OUTPUTS) + ["--dry-run=client"])
    for name in NAMES[:2]:
        cases.append(["namespace", name, "-o", "json", "--dry-run=client"])
        cases.append(["serviceaccount", name, "-o", "yaml", "--dry-run=client", "-n", "x"])
    for _ in range(12):
        argv = ["job", rng.choice(NAMES)]
        if rng.random() < 0.9:
            argv.append(f"--image={rng.choice(IMAGES)}")
        argv += ns() + rng.choice(OUTPUTS) + ["--dry-run=client"]
        if rng.random() < 0.5:
            argv += ["--", "date", "-u"]
        cases.append(argv)
    for _ in range(14):
        argv = ["cronjob", rng.choice(NAMES)]
        if rng.random() < 0.9:
            argv.append(f"--image={rng.choice(IMAGES)}")
        if rng.random() < 0.9:
            argv.append(f"--schedule={rng.choice(['*/1 * * * *', '0 0 * * 0', '@hourly'])}")
        if rng.random() < 0.4:
            argv.append(f"--restart={rng.choice(['Never', 'OnFailure'])}")
        argv += ns() + rng.choice(OUTPUTS) + ["--dry-run=client"]
        if rng.random() < 0.4:
            argv += ["--", "echo", "hi"]
        cases.append(argv)
    for _ in range(20):
        cluster = rng.random() < 0.5
        argv = ["clusterrolebinding" if cluster else "rolebinding", rng.choice(NAMES)]
        if not cluster and rng.random() < 0.5:
            argv.append("--role=reader")
        if rng.random() < 0.6 or cluster:
            argv.append("--clusterrole=view")
        argv += [f"--user={u}" for u in pick(["alice", "bob"], 0, 2)]
        argv += [f"--group={g}" for g in pick(["devs", "ops"], 0, 2)]
        argv += [f"--serviceaccount={s}" for s in pick(["ns1:sa1", "bad", "ns2:sa2", ":x"], 0, 2)]
        cases.append(argv + ([] if cluster else ns()) + rng.choice(OUTPUTS) + ["--dry-run=client"])
    for _ in range(10):
        argv = ["clusterrole", rng.choice(NAMES)]
        if rng.random() < 0.4:
            argv.append(f"--aggregation-rule={rng.choice(['rbac.example.com/aggregate=true', 'a=b,c=d'])}")
        else:
            argv += [f"--verb={v}" for v in pick(["get", "post", "list", "*"], 0, 2)]
            argv += [f"--non-resource-url={u}" for u in pick(["/logs/*", "/healthz", "bad", "/a*b", "*"], 0, 2)]
        cases.append(argv + rng.choice(OUTPUTS) + ["--dry-run=client"])
    for _ in range(12):
        argv = ["quota", rng.choice(NAMES)]
        if rng.random() < 0.8:
            argv.append("--hard=" + ",".join(pick(["cpu=1000m", "memory=1.5Gi", "pods=10", "requests.cpu=0.5",
                                                    "secrets=1e3", "bad", "services=2048Ki"], 1, 3)))
        if rng.random() < 0.5:
            argv.append("--scopes=" + rng.choice(["BestEffort", "NotTerminating,BestEffort", "BestEffort,"]))
        cases.append(argv + ns() + rng.choice(OUTPUTS) + ["--dry-run=client"])
    for _ in range(14):
        argv = ["poddisruptionbudget", rng.choice(NAMES)]
        if rng.random() < 0.9:
            argv.append("--selector=" + rng.choice(["app=web", "app=web,tier in (fe,be)", "!legacy", "a=b,c"]))
        for flag in ("--min-available", "--max-unavailable"):
            if rng.random() < 0.5:
                argv.append(f"{flag}={rng.choice(['1', '50%', 'x', '0'])}")
        cases.append(argv + ns() + rng.choice(OUTPUTS) + ["--dry-run=client"])
    for _ in range(8):
        argv = ["priorityclass", rng.choice(NAMES), f"--value={rng.choice([0, 1000, -5])}"]
        if rng.random() < 0.5:
            argv.append("--global-default")
        if rng.random() < 0.5:
            argv.append("--description=Use for <critical> & important pods")
        if rng.random() < 0.5:
            argv.append("--preemption-policy=Never")
        cases.append(argv + rng.choice(OUTPUTS) + ["--dry-run=client"])
    rules = ["foo.com/=svc:80", "foo.com/admin/=svcadmin:portadmin", "foo.com/path*=svc:8080,tls",
             "bar.com/x*=svc2:http,tls=secret1", "/=svc:80", "foo.com/other=svc3:81,tls=secret1", "bad-rule",
             "baz.com/=svc:https,tls=secret2"]
    for _ in range(16):
        argv = ["ingress", rng.choice(NAMES)] + [f"--rule={r}" for r in pick(rules, 0, 4)]
        if rng.random() < 0.3:
            argv.append("--class=nginx")
        if rng.random() < 0.3:
            argv.append(f"--default-backend={rng.choice(['defsvc:http', 'defsvc:80', 'nocolon'])}")
        argv += [f"--annotation={a}" for a in pick(["a=b", "x.io/y=", "novalue"], 0, 2)]
        cases.append(argv + ns() + rng.choice(OUTPUTS) + ["--dry-run=client"])
    return cases


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    tmp = _fixture_files(tmp_path_factory.mktemp("gen"))
    cases = _cases(random.Random(8), tmp)
    results = kubectl_many([["create", *c] for c in cases])
    return list(zip(cases, results))


def test_generated_cases_match_kubectl_byte_for_byte(recorded, isolated_home):
    mismatches = []
    for case, (rc, out, err) in recorded:
        got = kubelite(["create", *case])
        if got != (rc, out, err):
            mismatches.append((case, (rc, out, err), got))
    assert len(recorded) > 200
    assert not mismatches, f"{len(mismatches)}/{len(recorded)} differ; first: {mismatches[:3]}"

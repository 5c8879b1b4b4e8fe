"""`kubelite rollout ...` against real kubectl 1.32, both driving one `kubelite serve` (controllers
running in real time): same stdout, stderr and exit code. Read-only commands run on the same
Deployment; commands that change it run on two identical Deployments, one for each CLI."""
from __future__ import annotations

import itertools

import pytest

from test_serve_support import served  # noqa: F401 (module fixture)

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels: {{app: {name}}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: httpd
        image: httpd:2.4
        ports: [{{containerPort: 80}}]
"""
_counter = itertools.count()


def same(kubectl, kubelite, *args, rename=None):
    """Run both; compare. `rename` = (kubectl's name, kubelite's name) when they act on twins."""
    want = kubectl.run(*args)
    got_args = [a.replace(rename[0], rename[1]) for a in args] if rename else args
    got = kubelite.run(*got_args)
    fix = (lambda text: text.replace(rename[0], rename[1])) if rename else (lambda text: text)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, fix(want.stdout), fix(want.stderr)), args
    return want


@pytest.fixture
def ns(kubectl, tmp_path):
    name = f"ro-{next(_counter)}"
    assert kubectl.run("create", "namespace", name).returncode == 0
    return name


def deploy(cli, tmp_path, ns, name) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_text(MANIFEST.format(name=name))
    assert cli.run("apply", "-n", ns, "-f", str(path)).returncode == 0
    done = cli.run("rollout", "status", "-n", ns, f"deployment/{name}", "--timeout=60s")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(f'deployment "{name}" successfully rolled out\n')


def set_image(cli, ns, name, image) -> None:
    assert cli.run("set", "image", "-n", ns, f"deployment/{name}", f"httpd={image}").returncode == 0
    assert cli.run("rollout", "status", "-n", ns, f"deployment/{name}", "--timeout=60s").returncode == 0


def test_read_only_commands_answer_as_kubectl(kubectl, remote, tmp_path, ns):
    deploy(kubectl, tmp_path, ns, "web")
    rs = kubectl.run("get", "rs", "-n", ns, "-o", "name").stdout.split()[0]
    for args in (
        ["rollout", "status", "deployment/web"],
        ["rollout", "status", "deployment/web", "--watch=false"],
        ["rollout", "status", "deployment/web", "--revision=1"],
        ["rollout", "status", "deployment/web", "--revision=2"],
        ["rollout", "status", "deployment", "web"],
        ["rollout", "status", "deployment/nope"],
        ["rollout", "status", rs],
        ["rollout", "history", "deployment/web"],
        ["rollout", "history", "deployment/web", "--revision=1"],
        ["rollout", "history", "deployment/web", "--revision=7"],
        ["rollout", "history", "deployment/web", "-o", "name"],
        ["rollout", "history", rs],
        ["rollout", "undo", "deployment/web"],
        ["rollout", "undo", "deployment/web", "--to-revision=5"],
        ["rollout", "undo", "deployment/web", "--to-revision=1"],
        ["rollout", "undo", "deployment/web", "--to-revision=1", "--dry-run=client"],
        ["rollout", "undo", rs],
        ["rollout", "pause", rs],
    ):
        same(kubectl, remote, *args[:2], "-n", ns, *args[2:])


def test_objects_named_by_files_are_read_from_the_server(kubectl, remote, tmp_path, ns):
    deploy(kubectl, tmp_path, ns, "web")
    listed = tmp_path / "web.yaml"
    missing = tmp_path / "missing.yaml"
    missing.write_text(MANIFEST.format(name="missing"))
    for args in (["status", "-f", str(listed)], ["history", "-f", str(listed)], ["undo", "-f", str(listed)],
                 ["status", "-f", str(missing)], ["history", "-f", str(missing)], ["pause", "-f", str(missing)]):
        same(kubectl, remote, "rollout", args[0], "-n", ns, *args[1:])


def test_history_and_undo_after_an_update_answer_as_kubectl(kubectl, remote, tmp_path, ns):
    deploy(kubectl, tmp_path, ns, "web")
    set_image(kubectl, ns, "web", "httpd:2.4.62")
    assert kubectl.run("annotate", "-n", ns, "deployment/web", "kubernetes.io/change-cause=bump").returncode == 0
    for args in (["history", "deployment/web"], ["history", "deployment/web", "--revision=1"],
                 ["history", "deployment/web", "--revision=2", "-o", "jsonpath={.spec.template.spec.containers}"],
                 ["undo", "deployment/web", "--to-revision=1", "--dry-run=server"]):
        same(kubectl, remote, "rollout", args[0], "-n", ns, *args[1:])


def test_changes_answer_as_kubectl(kubectl, remote, tmp_path, ns):
    pair = (("twin-kubectl", kubectl), ("twin-kubelite", remote))
    for name, _ in pair:
        deploy(kubectl, tmp_path, ns, name)
    names = tuple(name for name, _ in pair)

    def both(*args):
        same(kubectl, remote, "rollout", args[0], "-n", ns, "deployment/twin-kubectl", *args[1:], rename=names)

    def each(action):
        for name, cli in pair:
            action(cli, name)

    for verb, *extra in (("pause",), ("pause",), ("undo",), ("restart",), ("resume",), ("resume",),
                         ("pause", "-o", "jsonpath={.spec.paused}"), ("resume", "-o", "name")):
        both(verb, *extra)
    each(lambda cli, name: set_image(cli, ns, name, "httpd:2.4.62"))
    both("undo")
    each(lambda cli, name: set_image(cli, ns, name, "httpd:2.4"))
    both("history")
    both("restart")
    each(lambda cli, name: set_image(cli, ns, name, "httpd:2.4"))
    both("history")
    restarted = [cli.run("get", "deployment", name, "-n", ns, "-o",
                         "jsonpath={.spec.template.metadata.annotations}").stdout for name, cli in pair]
    assert all("kubectl.kubernetes.io/restartedAt" in text for text in restarted)


def test_usage_errors_answer_as_kubectl(kubectl, remote):
    for args in (["rollout", "status"], ["rollout", "undo"], ["rollout", "history"], ["rollout", "nope"],
                 ["rollout", "status", "deployment/x", "--timeout=abc"]):
        want, got = kubectl.run(*args), remote.run(*args)
        assert got.returncode == want.returncode, args
        assert got.stderr.replace("kubelite", "kubectl") == want.stderr, args


def test_a_stuck_rollout_exceeds_its_progress_deadline_as_kubectl_reports_it(kubectl, remote, tmp_path, ns):
    import time

    stuck = MANIFEST.format(name="stuck").replace("  replicas: 2\n", "  replicas: 2\n  progressDeadlineSeconds: 2\n")
    stuck = stuck.replace("      containers:", "      nodeSelector: {no-such-node: \"true\"}\n      containers:")
    (tmp_path / "stuck.yaml").write_text(stuck)
    assert kubectl.run("apply", "-n", ns, "-f", str(tmp_path / "stuck.yaml")).returncode == 0
    reason = '{.status.conditions[?(@.type=="Progressing")].reason}'
    deadline = time.monotonic() + 60
    while kubectl.run("get", "deployment", "stuck", "-n", ns, "-o", f"jsonpath={reason}").stdout != \
            "ProgressDeadlineExceeded":
        assert time.monotonic() < deadline, "the progress deadline never passed"
        time.sleep(0.2)
    got = same(kubectl, remote, "rollout", "status", "-n", ns, "deployment/stuck")
    assert got.stderr == 'error: deployment "stuck" exceeded its progress deadline\n'
    message = '{.status.conditions[?(@.type=="Progressing")].message}'
    text = kubectl.run("get", "deployment", "stuck", "-n", ns, "-o", f"jsonpath={message}").stdout
    assert text.startswith('ReplicaSet "stuck-') and text.endswith('" has timed out progressing.')

"""logs, wait, events and exec against kubelite's embedded cluster: the pod a command creates is
scheduled and run by the time the next command looks (the cluster settles before each exits)."""
from __future__ import annotations


def test_run_then_logs_wait_events_exec(embedded):
    made = embedded.run("run", "web", "--image=busybox:1.36", "--command", "--", "echo", "hello", "there")
    assert made.returncode == 0, made.stderr
    waited = embedded.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    assert (waited.returncode, waited.stdout) == (0, "pod/web condition met\n"), waited.stderr
    logs = embedded.run("logs", "web")
    assert (logs.returncode, logs.stdout, logs.stderr) == (0, "hello there\n", "")
    events = embedded.run("events", "--for", "pod/web")
    assert events.returncode == 0, events.stderr
    assert events.stdout.splitlines()[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert "Scheduled   Pod/web   Successfully assigned default/web to node-a" in events.stdout
    refused = embedded.run("exec", "web", "--", "ls")
    assert (refused.returncode, refused.stderr) == (
        1, "Error from server: error dialing backend: dial tcp 127.0.0.1:10250: connect: connection refused\n")


def test_a_job_completes_and_wait_sees_it(embedded):
    made = embedded.run("create", "job", "once", "--image=busybox:1.36", "--", "echo", "done")
    assert made.returncode == 0, made.stderr
    waited = embedded.run("wait", "--for=condition=Complete", "job/once", "--timeout=60s")
    assert (waited.returncode, waited.stdout) == (0, "job.batch/once condition met\n"), waited.stderr
    logs = embedded.run("logs", "job/once")
    assert (logs.returncode, logs.stdout) == (0, "done\n"), logs.stderr

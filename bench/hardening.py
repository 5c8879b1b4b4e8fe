"""Hardening figures (issue 19), against a real `kubelite serve` (HTTPS, SQLite):

* /healthz latency while worst-case requests run (JSON patch of 10,000 doubling copies, YAML
  alias bomb, 10,000-deep and 3 MiB bodies), next to its latency on an idle server;
* RSS with 3 watchers whose clients never read, after 6,000 writes, and after they go;
* bad inputs tried against the HTTP API (seeded mutations of valid requests), with the number
  of 5xx answers that are not kube-apiserver's own, panics (500 text) and hangs (> 30 s).

Usage: python bench/hardening.py [--smoke]. Prints figures only.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import random
import socket
import ssl
import statistics
import sys
import tempfile
import time

import httpx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "server"))

CMS = "/api/v1/namespaces/default/configmaps"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
PANIC = "This request caused apiserver to panic"


def _rss_mib(pid: int) -> float:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _client(server, timeout: float = 120) -> httpx.Client:
    return httpx.Client(base_url=server.url, verify=ssl.create_default_context(cafile=server.ca),
                        headers={"Authorization": f"Bearer {server.token}"}, timeout=timeout)


def _configmap(name: str, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, **extra}


def _hostile() -> list[tuple[str, str, bytes, str]]:
    doubling = [{"op": "copy", "from": "/metadata", "path": f"/metadata/x{i}"} for i in range(10000)]
    bomb = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n" + b"".join(
        b"%s: &%s [%s]\n" % (n, n, b",".join([b"*" + p] * 9) if p else b'"lol"')
        for p, n in zip([b""] + [bytes([c]) for c in b"abcdefghi"], [bytes([c]) for c in b"abcdefghij"]))
    deep = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":' + b"[" * 9999 + b"]" * 9999 + b"}"
    wide = json.dumps(_configmap("wide", data={f"k{i}": "v" * 200 for i in range(14000)})).encode()
    return [("PATCH", f"{CMS}/target", json.dumps(doubling).encode(), "application/json-patch+json"),
            ("POST", CMS, bomb, "application/yaml"),
            ("POST", CMS, deep, "application/json"),
            ("POST", CMS, wide, "application/json")]


def _healthz_ms(client: httpx.Client, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        client.get("/healthz").raise_for_status()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _print_latency(label: str, samples: list[float]) -> None:
    samples = sorted(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"{label:<46} p50 {statistics.median(samples):7.1f} ms  p99 {p99:7.1f} ms  max {samples[-1]:7.1f} ms")


def attack(server) -> None:
    """Send the worst-case requests in a loop (run in a process of its own, so that the
    measuring client does not share its interpreter with the attacker)."""
    slowest = 0.0
    with _client(server) as client:
        while True:
            for method, path, body, content_type in _hostile():
                t0 = time.perf_counter()
                client.request(method, path, content=body, headers={"content-type": content_type})
                slowest = max(slowest, time.perf_counter() - t0)
                print(f"{slowest:.3f}", flush=True)
                client.delete(f"{CMS}/deep")
                client.delete(f"{CMS}/wide")


def healthz_under_attack(server, n: int) -> None:
    import subprocess

    with _client(server) as client:
        client.post(CMS, json=_configmap("target")).raise_for_status()
        _print_latency("/healthz, idle server", _healthz_ms(client, n))
    attacker = subprocess.Popen([sys.executable, __file__, "--attack", str(server.data_dir), str(server.port)],
                                stdout=subprocess.PIPE, text=True)
    try:
        attacker.stdout.readline()  # one worst-case request done: the loop is going
        with _client(server) as client:
            _print_latency("/healthz, while worst-case requests run", _healthz_ms(client, n))
    finally:
        attacker.kill()
        out = attacker.communicate()[0].split()
    print(f"{'slowest worst-case request':<46} {float(out[-1]) if out else 0.0:7.2f} s")


def _stalled_watch(server) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=server.ca)
    raw = socket.create_connection(("127.0.0.1", server.port))
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock = context.wrap_socket(raw, server_hostname="127.0.0.1")
    sock.sendall(f"GET {CMS}?watch=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {server.token}\r\n\r\n"
                 .encode())
    return sock


def stalled_watchers(server, writes: int) -> None:
    pid = server.proc.pid
    print(f"{'RSS before':<46} {_rss_mib(pid):7.1f} MiB")
    sockets = [_stalled_watch(server) for _ in range(3)]
    payload = {"blob": "x" * 1000}
    with _client(server) as client:
        for i in range(writes):
            client.post(CMS, json=_configmap(f"w-{i}", data=payload)).raise_for_status()
    print(f"{'RSS, 3 stalled watchers, after ' + str(writes) + ' writes':<46} {_rss_mib(pid):7.1f} MiB")
    for sock in sockets:
        sock.close()
    time.sleep(2)
    print(f"{'RSS after they disconnected':<46} {_rss_mib(pid):7.1f} MiB")


def _mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(out) + 1)
        kind = rng.randrange(3)
        if kind == 0 and at < len(out):
            out[at] = rng.randrange(256)
        elif kind == 1:
            out[at:at] = bytes([rng.randrange(256)])
        else:
            del out[at:at + 1]
    return bytes(out)


def bad_inputs(server, n: int) -> None:
    rng = random.Random(19)
    valid = {
        ("POST", CMS, "application/json"): json.dumps(_configmap("fz", data={"a": "b"})).encode(),
        ("POST", CMS, "application/yaml"): b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fz\ndata:\n  a: b\n",
        ("PATCH", f"{CMS}/target", "application/merge-patch+json"): b'{"data":{"a":"b"}}',
        ("PATCH", f"{CMS}/target", "application/json-patch+json"): b'[{"op":"add","path":"/data","value":{}}]',
        ("PATCH", f"{DEPLOYMENTS}/web", "application/strategic-merge-patch+json"):
            b'{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}}',
        ("PUT", f"{CMS}/target", "application/json"): json.dumps(_configmap("target")).encode(),
    }
    with _client(server, timeout=30) as client:
        client.post(DEPLOYMENTS, json={"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                                       "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
                                           "metadata": {"labels": {"a": "b"}},
                                           "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
        counts = {"tried": 0, "5xx (not kube-apiserver's)": 0, "panics": 0, "hangs": 0}
        kinds = list(valid)
        for _ in range(n):
            method, path, content_type = rng.choice(kinds)
            body = _mutate(rng, valid[(method, path, content_type)])
            counts["tried"] += 1
            try:
                response = client.request(method, path, content=body, headers={"content-type": content_type})
            except httpx.TimeoutException:
                counts["hangs"] += 1
                continue
            if PANIC in response.text:
                counts["panics"] += 1
            elif response.status_code >= 500 and not (method == "PATCH" and response.json().get("reason") is None):
                counts["5xx (not kube-apiserver's)"] += 1
            client.delete(f"{CMS}/fz")
    print("HTTP bad inputs: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


MANIFEST = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cli\n  labels: {a: b}\ndata:\n  k: v\n"
NAMED_MANIFESTS = [
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "a\\0b"\n',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x\\ud800"}}',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"nan"},"data":{"a":NaN}}',
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\n",
    "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n",
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":' + "[" * 9998 + "]" * 9998 + "}",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n  creationTimestamp: notatime\n",
]
# inputs kubectl accepts too (go-yaml keeps a number past 64 bits as a string): no error expected
ACCEPTED_MANIFESTS = ["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {a: " + "9" * 5000 + "}\n"]
# the broken kustomizations of issue 19 (kustomization.yaml text, extra files)
KUSTOMIZATIONS = [
    ("resources: [cm.yaml]\nlabels: [{pairs: [1]}]\n", {}),
    ("resources: [cm.yaml]\nimages: [{name: 5}]\n", {}),
    ("apiVersion: v9\nresources: [cm.yaml]\n", {}),
    ("", {}),
    ("helmCharts: [{name: x}]\n", {}),
    ("resources: [cm.yaml]\nnamePrefix: " + "[" * 1000 + "]" * 1000 + "\n", {}),
    ("resources: [cm.yaml]\nreplicas: [{name: x, count: " + "9" * 4400 + "}]\n", {}),
]


def _run_cli(argv: list[str], home: pathlib.Path) -> tuple[int | None, str]:
    import os
    import subprocess

    env = {**os.environ, "HOME": str(home), "KUBELITE_HOME": str(home / "kubelite")}
    env.pop("KUBECONFIG", None)
    try:
        done = subprocess.run([sys.executable, "-m", "kubelite", *argv], capture_output=True, text=True,
                              env=env, timeout=60)
    except subprocess.TimeoutExpired:
        return None, ""
    return done.returncode, done.stderr


def _tally(counts: dict, code: int | None, stderr: str, refused: bool = True) -> None:
    counts["tried"] += 1
    if code is None:
        counts["hangs"] += 1
    elif "Traceback" in stderr:
        counts["tracebacks"] += 1
    elif refused and code == 0:
        counts["accepted though kubectl refuses"] += 1


def cli_bad_inputs(n: int) -> None:
    rng = random.Random(19)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        counts = {"tried": 0, "tracebacks": 0, "hangs": 0, "accepted though kubectl refuses": 0}
        mutated = [_mutate(rng, MANIFEST.encode()).decode("utf-8", "replace") for _ in range(n)]
        cases = [(text, True) for text in NAMED_MANIFESTS] + [(text, False) for text in ACCEPTED_MANIFESTS + mutated]
        for i, (text, refused) in enumerate(cases):
            path = tmp / f"m{i}.yaml"
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            code, stderr = _run_cli(["apply", "-f", str(path)], tmp)
            _tally(counts, code, stderr, refused=refused)
        for args in (["configmap", "a\x01b"], ["configmap", "x", "--from-literal=" + "k" * 300 + "=v"],
                     ["secret", "generic", "s", "--from-file=/nonexistent"], ["deployment", "d", "--image="],
                     ["namespace", "-"]):
            code, stderr = _run_cli(["create", *args], tmp)
            _tally(counts, code, stderr)
        print("CLI apply/create bad inputs: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        counts = {"tried": 0, "tracebacks": 0, "hangs": 0, "accepted though kubectl refuses": 0}
        for i, (text, files) in enumerate(KUSTOMIZATIONS):
            folder = tmp / f"k{i}"
            folder.mkdir()
            (folder / "kustomization.yaml").write_text(text)
            (folder / "cm.yaml").write_text(MANIFEST)
            code, stderr = _run_cli(["kustomize", str(folder)], tmp)
            _tally(counts, code, stderr)
        print("kustomize bad inputs: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


def sqlite_soak(seconds: float, interval: float) -> None:
    """Updates of 465 live objects for `seconds`, compacted every `interval` as `kubelite serve`
    compacts (every 5 minutes by default): the file and its WAL against the live data."""
    import os

    from kubelite.server.storage.compactor import Compactor
    from kubelite.server.storage.sqlite import SQLiteStore

    value = b"x" * 2000
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "state.db")
        store = SQLiteStore(path)
        compactor = Compactor(store, interval).start()
        try:
            for i in range(465):
                store.create(f"/registry/soak/{i}", value)
            writes, deadline = 0, time.monotonic() + seconds
            while time.monotonic() < deadline:
                key = f"/registry/soak/{writes % 465}"
                store.update(key, value, store.get(key).mod_revision)
                writes += 1
        finally:
            compactor.stop()
        live = 465 * len(value)

        def report(label: str) -> None:
            total = sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))
            print(f"{label:<46} {total / 2**20:7.1f} MiB for {live / 2**20:.1f} MiB live ({total / live:.1f}x)")

        # the file holds the live data and the history kept since the previous compaction
        report(f"SQLite after {writes} updates ({int(seconds)} s)")
        store.compact(store.current_revision())
        report("SQLite once that history is compacted too")
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="small and quick (CI)")
    parser.add_argument("--attack", nargs=2, metavar=("DATA_DIR", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    from test_serve_support import Served

    if args.attack:  # the attacking process of healthz_under_attack
        server = Served(pathlib.Path(args.attack[0]), pathlib.Path(args.attack[0]) / "unused")
        server.port, server.url = int(args.attack[1]), f"https://127.0.0.1:{args.attack[1]}"
        attack(server)
        return 0

    cli_bad_inputs(5 if args.smoke else 60)
    sqlite_soak(*((10, 3) if args.smoke else (180, 30)))
    phases = [lambda s: healthz_under_attack(s, 20 if args.smoke else 200),
              lambda s: bad_inputs(s, 50 if args.smoke else 2000),
              lambda s: stalled_watchers(s, 200 if args.smoke else 6000)]
    for index, phase in enumerate(phases):  # a fresh server each: no phase inherits another's heap
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            server = Served(tmp / f"data{index}", tmp / "kubeconfig").start()
            try:
                phase(server)
            finally:
                server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

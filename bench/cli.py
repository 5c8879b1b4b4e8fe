"""CLI benchmark: each command a user waits for, kubelite next to kubectl, in one run.

  version --client
  get ns              embedded (kubelite only) and against one `kubelite serve` (both tools)
  get pods -o yaml    against the same server (3 pods), both tools
  apply -f one.yaml   re-applying one unchanged ConfigMap, both tools

Every row prints the median wall time and the median CPU time (user+sys of the process: on a
machine shared by several jobs the wall time is noisy, the CPU time much less so), and the
kubelite/kubectl ratio of both; the two tools' runs of a row take turns, so that a burst of
load weighs on both. kubelite runs as installed: the `kubelite` script next to this
Python, with byte code cached (in a private prefix, so the source tree stays untouched; a
package installed with compiled byte code behaves the same). The last rows run the same
commands with PYTHONDONTWRITEBYTECODE=1 and nothing compiled, which is what every run costs when
the install step did not compile the package (see the "Install" note below).

Usage: python bench/cli.py [--smoke] [--runs N]

Where the time went (profiles with `python -X importtime` and cProfile, 2-core machine shared
with other jobs; the figures move with the load, the shares do not):
  before (commit 1f8fbd8): `get ns` against serve ~340 ms, a third of it importing httpx/httpcore
    (~100 ms: anyio, h11, idna, email and http.cookiejar through urllib.request), then YAML for
    the kubeconfig (~25 ms), ssl (~15 ms), typing+dataclasses (~25 ms), argparse and the help
    texts; the request itself ~10 ms. Embedded `get ns` ~580 ms: the Cluster (API server,
    registry, controllers: ~190 ms, of which the ASGI app's import ~60 ms and asyncio ~50 ms of
    that), httpx (~40-130 ms), settling the controllers at open and at exit (~25-55 ms).
  after: no httpx on either path (kubelite.client.http1 speaks HTTP/1.1 over socket+ssl, and
    the embedded transport calls the ASGI app through server.door without an HTTP library), no
    PyYAML to read the kubeconfig (client.kubeconfig_yaml reads the files kubectl and serve
    write), no typing at run time, importlib.resources and tempfile only when used: `get ns`
    against serve loads 115 modules instead of 273. What remains against serve (CPU): the
    interpreter (~12 ms with site), argparse/dataclasses/inspect (~20 ms: the commands'
    parsers and dataclasses; dataclass creation compiles each class's methods at every start),
    the help texts every parser installs, ssl + idna + the TLS handshake, json, re, and since
    the command-line rework a first pass over the arguments that imports command modules
    (cli/command_line.py). Embedded: the Cluster itself (asyncio and the ASGI app, the API
    server's bootstrap, the controllers' modules, SQLite) and the two settles (at open, the
    simulated kubelet's node status patch; before exit).
  then (commits ee977f0..9bf5ac7; bench figures at load 4.5-6 on the 2 cores, so the wall times
    are mostly waiting: the CPU column and an interleaved A/B against the commit before, median
    of 21, tell more): `version --client` 68 -> 30 ms wall, 66 -> 25 ms CPU (kubectl 44-59);
    `get ns` against serve CPU 92 -> 77 ms, `get pods -o yaml` CPU 135 -> 93 ms (interleaved
    A/B). What went: dataclasses in cli.common, cli.help, client.kubeconfig/dynamic and create's
    tables (kubelite.record: the same declarations without inspect's import or per-class code
    generation: Connection's 22 fields alone were ~1.5 ms), the help texts (looked up by -h only;
    group subcommands come from command_line.SUBCOMMANDS), shutil (argparse's terminal width at
    every add_argument), tempfile+random (the client key pair is loaded from memfds), the idna
    codec (ASCII host names go to socket/ssl encoded), threading, typing (manifest.lists),
    platform and json for `version`, ~2.5 ms compiling two Unicode-range patterns of the YAML
    printer (now only for non-ASCII text), http.HTTPStatus on the embedded path.
    What remains for `get ns` against serve (~115 modules): the interpreter with site (~15 ms,
    distutils-precedence.pth included), re + argparse + gettext/locale (~8 ms), ssl + _ssl +
    socket (~10 ms, enum conversions in ssl.py), dataclasses + inspect + ast + dis + tokenize
    (~8-10 ms) and ResourceInfo's three frozen dataclasses (~3 ms) both from
    kubelite.server.resources (discovery's REST mapper), json, pathlib + urllib.parse, kubelite's
    own modules (~7 ms), the TLS handshake and the request (~6-8 ms). Embedded `get ns` (~230-290
    ms CPU): the server's modules (asyncio with ssl/concurrent/logging/typing, the ASGI app,
    admission, webhooks, printers, controllers with zoneinfo for CronJobs: ~150 ms), building the
    cluster (~50 ms) and the settle at open (~25 ms, the simulated kubelet renewing its Lease: a
    write and an fsync at every command); the settle before exit is ~0.2 ms when nothing is due.
  then (commits b881b12..d04d3f9; interleaved A/B of embedded `get ns` against b28a03b, 40 runs
    each, twice, load 1.1-2): CPU median 262-264 -> 210-236 ms, wall 263-265 -> 211-237 ms; 31
    fewer modules. What went: importlib.resources for the package's data files (with tempfile,
    shutil, zipfile and the resource readers: ~8.7 ms; plain open() next to the module now),
    loading the whole 1.32 OpenAPI definitions for the Table's column descriptions (~8-12 ms:
    server/data/column_docs.json holds the few the printers name, tools/gen_column_docs.py writes
    it), zoneinfo and shlex at import (~2 ms), building all 1,154 Go struct layouts of goorder
    (~1.4 ms: each built on first lookup), the RBAC authorizer, request attributes and escalation
    check that the in-process door never consults (~1.8 ms). These are commands less than 10 s
    apart: one later than that renews the simulated kubelet's Lease, a write, which loads the
    write path's data (the definitions among them) as before.
    What remains (importtime, min of 5; the shares hold, the figures inflate): ~350 modules. The
    controllers' 37 modules (~10 ms) and core's imports (admission ~4.5 ms, webhooks ~5 ms,
    fieldmanager, typing, uuid, dataclasses), asyncio (~8 ms, with ssl/_ssl/socket ~10 ms and
    inspect through asyncio.coroutines), storage (~5 ms, dataclasses in storage.base), printers
    (~4 ms, every kind's printer at import), handlers (~3.5 ms), the CLI (argparse, cli.common);
    the goorder table's JSON (~3.5 ms at the first Table answer); the work itself (building the
    cluster, the settles, the requests: ~30 ms for a second `get ns` in the same process). The
    next cuts are in the controllers and core (a controller's module imported when it first has
    work; webhooks and admission per write), both outside what this series touched.
  then (commit 119371d, against its parent 6ce3e88, each in a worktree of its own; this bench
    with --runs 11, base and new run in turn twice, load 4-5.4): embedded `get ns` CPU 156-157 ->
    67-68 ms (wall 170-183 -> 71-72), `get pods -o yaml` CPU 154-158 -> 69-70 ms (wall 183-196 ->
    75-77), `apply -f one.yaml` (unchanged: a read) CPU 189-191 -> 112 ms (wall 242-247 ->
    118-151); kubectl against serve in the same runs: CPU 50-66 ms for get ns, 56-58 for get pods
    -o yaml, 126-130 for apply. An interleaved A/B of `python -m kubelite get ns` (20 runs each,
    load ~2.4) said 153 -> 67 ms CPU. A second `get ns` loads 186 modules instead of 347.
    What went: the controllers when nothing is due (Cluster.catch_up: the settle before exit
    notes the store revision and the controllers' earliest timer in SQLite's meta table; a
    command at that revision before that time loads none of them and wakes them at its first
    write or watch, at their timer or at another process's write: ~13 ms of imports, the
    manager, and the settle at open that listed and synced every object, a cost that grew with
    the store), asyncio (~25 ms with ssl/concurrent/selectors: server.door drives a short
    request's coroutine without an event loop), what only writes use (admission with
    fractions/decimal, managedFields, webhooks with ssl: built at the first write), dataclasses
    with inspect (the 30 created at import: records, KV/Event/RangeResult written out), typing,
    logging, uuid, hashlib/OpenSSL (discovery's ETag through _sha512), the pickle module
    (_pickle's functions), pods' subresource handler with podlogs.
    Not changed: a command more than 10 s after the last settle still runs the controllers at
    open (the simulated kubelet renews its node's Lease every 10 s: a due timer, then a write,
    with the controllers' import and settle and the write path's modules). Embedded `get ns`
    10.5 s after the previous command (6 interleaved runs each, load ~4-5): CPU 189 -> 162 ms.
    Interactive use with pauses gains the asyncio/dataclass/lazy-import part; scripts and
    commands in quick succession gain it all.
    What remains for `get ns` when nothing is due (cProfile ~64 ms; importtime self times, quiet
    machine): the interpreter with site (~12-15 ms, distutils-precedence.pth included), 176
    modules (~43 ms of importtime self time: argparse/re/enum/gettext/locale, json, pathlib,
    urllib.parse with ipaddress, datetime, sqlite3; kubelite's 84 ~19 ms, the printers built at
    import the largest at ~2.7 ms), marshal.loads of their byte code (~9 ms under cProfile), the
    Cluster itself (~2 ms: SQLite open ~1.5, Registry 0.8, the app 0.8), the three requests (two
    discovery documents and the Table; ~15 ms under cProfile) and the printing. The embedded rows
    sit ~15 ms above the serve rows, which are at kubectl's figure: most of the rest is the CLI's
    own start, shared with the serve rows. Next: the controllers' and the write path's start for
    the due case (a controller's module imported when it first has work; logging and the
    leader's socket/uuid at the manager's start), printers built per kind when first asked.
  then (commits adae079, 2da46a0 and the early connection; interleaved runs of `python -m kubelite`
    from two worktrees, 21 each, machine at load ~4 from other jobs): `get ns` against serve CPU
    56.3 -> 48.3 ms, wall 75.3 -> 60.8 ms (median; min 57.9 -> 52.6). What went: ssl and socket
    (client.tls talks TLS on _ssl and _socket directly: ssl's enum conversions, selectors, base64;
    ~5 ms), the cyclic collector's passes at start (a command in its own process lets it wait for
    100,000 new objects: `get ns` ran 18 collections against serve and 37 embedded, 74 when the
    controllers woke, freeing a few hundred objects), the Warning header's pattern compiled at
    every start (~2 ms: now at the first warning), copy for the client's registry; and the TCP and
    TLS handshakes no longer go before the first request: the connection opens in the background
    while the command reads its discovery cache and builds the request (http1.Client.
    connect_early; the request then takes ~1.5 ms instead of ~4). What remains against serve
    (~106 modules): the interpreter with site (~10-12 ms), argparse with re, gettext and locale
    (~6 ms), _ssl itself (~2 ms: loading OpenSSL), json, pathlib with urllib.parse and ipaddress
    (~3 ms), kubelite's own modules (~6 ms), the request. Embedded `get ns` gains the collector's
    and the pattern's share (~3-7 ms CPU); it still sits ~10 ms above kubectl's time against serve:
    the server's ~75 modules (the app, core, storage with sqlite3, handlers, printers: ~12 ms, no
    one of them above ~0.8 ms) and opening and closing SQLite (~1.5 ms each: the last connection's
    close checkpoints and removes the write-ahead log). This bench on a quiet machine (load ~1.4)
    at 3c33b16, median of 11: `get ns` against serve 52.5 ms wall, 48.4 CPU (kubectl 54.2 / 56.3),
    `get pods -o yaml` 51.8 / 49.6 (kubectl 53.5 / 58.0), embedded `get ns` 67.3 / 65.7, embedded
    `get pods -o yaml` 78.7 / 76.9, `apply -f one.yaml` 108.2 against serve (kubectl 139.2) and
    101.1 embedded. A command that finds the simulated kubelet's Lease due (more than 10 s after
    the last) no longer imports logging (a quiet logger drops what nobody configured logging to
    see), uuid with platform, socket or hashlib: CPU 151.9 -> 144.9 ms (medians of 6, load ~6);
    what remains there is the controllers' modules (dataclasses with inspect, ~6 ms), the write
    path's (admission with typing, webhooks, managedFields) and the two settles.
  then (commits e5d9cd7, 19135d8, 7fe2214, 6ce4245, 31926d4, ab99783; others' commits in between
    touch apply, manifest reading and serve, not this command's path; interleaved runs of the
    `kubelite` script against a worktree of 2efd677, 25 each, load ~2): embedded `get ns` CPU
    61.0 -> 49.4 ms, wall 63.2 -> 51.8 ms. This bench twice per tree, the trees in turn (load
    2-2.5): embedded `get ns` 66.9 and 65.5 -> 52.4 and 52.9 ms wall (CPU 61.9, 64.1 -> 50.0,
    51.0), while kubectl's `get ns` against serve took 53.2-57.9 ms in the same runs; `get ns`
    against serve 50.7, 48.6 -> 44.4, 42.3 ms. What went:
    the interpreter's shutdown (~8 ms CPU: its last collections walked every object the command
    made, which gcpace.none_at_exit now freezes, and it emptied every module and freed every object
    one by one, which kubelite.quickexit skips after doing what an exit does first: join the
    threads, run atexit, flush stdout and stderr); the SQLite store's schema transaction at each
    open (a write lock, and a commit that close() fsynced: now two reads when the file has the
    schema); gettext's catalog lookup with locale for argparse's fixed texts; the workloads'
    printers for a Table of namespaces (a Table loads its resource's printer module);
    kubelite.labels without a selector; the patch decoders; jsoncopy's _pickle; /metrics' number
    format. A command that finds the Lease due (6 interleaved runs each, each 11 s after the
    previous, load ~3.5): CPU 119.1 -> 82.5 ms (wall 133.5 -> 92.3): the exit's share, and the
    controllers' and the write path's modules declare kubelite.record Records and keep typing to
    annotations (no dataclasses with inspect, ast, dis and tokenize; no typing); then 83.4 -> 81.3
    ms with fractions (and decimal) imported when a quantity is read, which a Lease renewal does
    not.
    What remains for `get ns` when nothing is due (166 modules instead of 178): the interpreter
    with site (~11.5 ms for `python -c pass`), argparse with re and enum, json, pathlib with
    urllib.parse and ipaddress (~2 ms, the serve path's too), datetime, threading, sqlite3 (~1.4
    ms), kubelite's 83 modules (~13 ms of importtime self time: server.core, resources,
    storage.sqlite, the app, handlers, printers.cluster, cli.common and client.http1 the largest),
    and the work (~6 ms for a second `get ns` in one process: the Registry ~0.8, the three
    requests, printing; SQLite's open ~0.3 and close ~0.1). With the Lease due: the controllers'
    37 modules and their settle (the manager, leader election, every controller's sync), the
    renewal's write (admission, the built-in definitions that pruning reads, managedFields, the
    webhooks' look); a light renewal that loads no controller is the next step there.

Install: with PYTHONDONTWRITEBYTECODE set (as on this machine) an editable install never writes
byte code, so every run compiles each module it imports; run `python -m compileall -q src` after
`pip install -e .` (a wheel install is compiled by pip itself).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "server"))

SCRIPT = pathlib.Path(sys.executable).with_name("kubelite")
KUBELITE = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kubelite"]

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: bench-one
data:
  key: value
"""

PODS = "".join(f"""---
apiVersion: v1
kind: Pod
metadata:
  name: bench-pod-{i}
  labels: {{app: bench}}
spec:
  containers:
  - name: c
    image: nginx:1.27
""" for i in range(3))


def _time(argv: list[str], env: dict, runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of `runs` runs of argv."""
    return _time_each([argv], env, runs)[0]


def _time_each(argvs: list[list[str] | None], env: dict, runs: int) -> list[tuple[float, float] | None]:
    """Median wall and CPU seconds of each argv (None: not measured), their runs taking turns: on a
    machine shared with other jobs a burst of load then weighs on both tools alike."""
    walls: list[list[float]] = [[] for _ in argvs]
    cpus: list[list[float]] = [[] for _ in argvs]
    for _ in range(runs):
        for i, argv in enumerate(argvs):
            if argv is None:
                continue
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            r = subprocess.run(argv, env=env, capture_output=True)
            walls[i].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[i].append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
            if r.returncode != 0:
                raise SystemExit(f"{' '.join(argv)} failed: {r.stderr.decode()}")
    return [(statistics.median(w), statistics.median(c)) if w else None for w, c in zip(walls, cpus)]


def _wait_for_pods(argv: list[str], env: dict, count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run(argv + ["get", "pods", "-o", "name"], env=env, capture_output=True, text=True).stdout
        if len(out.split()) >= count:
            return
        time.sleep(0.2)
    raise SystemExit("the bench pods did not appear")


def commands(base: pathlib.Path) -> list[tuple[str, list[str]]]:
    """(label, arguments) of each measured command."""
    return [("version --client", ["version", "--client"]),
            ("get ns", ["get", "ns"]),
            ("get pods -o yaml", ["get", "pods", "-o", "yaml"]),
            ("apply -f one.yaml", ["apply", "-f", str(base / "one.yaml")])]


def measure(base: pathlib.Path, env: dict, runs: int, kubectl: str | None) -> list[tuple[str, tuple, tuple | None]]:
    """Rows of (label, kubelite (wall, cpu), kubectl (wall, cpu) or None)."""
    from test_serve_support import Served

    rows = []
    server = Served(base / "served", base / "kubeconfig").start()
    try:
        kc = ["--kubeconfig", str(base / "kubeconfig")]
        kk = [kubectl, "--cache-dir", str(base / "kcache")] + kc if kubectl else None
        for tool in ([KUBELITE, KUBELITE + kc] + ([kk] if kk else [])):
            subprocess.run(tool + ["apply", "-f", str(base / "pods.yaml")], env=env, capture_output=True)
        _wait_for_pods(KUBELITE + kc, env, 3)
        _wait_for_pods(KUBELITE, env, 3)
        for label, argv in commands(base):
            # warm-up: the embedded store, discovery caches, the ConfigMap created once
            for tool in ([KUBELITE, KUBELITE + kc] + ([kk] if kk else [])):
                subprocess.run(tool + argv, env=env, capture_output=True)
            if label == "version --client":
                mine, theirs = _time_each([KUBELITE + argv, [kubectl, *argv] if kubectl else None], env, runs)
                rows.append((label, mine, theirs))
                continue
            rows.append((label + " (embedded)", _time(KUBELITE + argv, env, runs), None))
            mine, theirs = _time_each([KUBELITE + kc + argv, kk + argv if kk else None], env, runs)
            rows.append((label + " (serve)", mine, theirs))
        cold = dict(env, PYTHONDONTWRITEBYTECODE="1")
        cold.pop("PYTHONPYCACHEPREFIX")
        if not any((pathlib.Path(__file__).resolve().parent.parent / "src" / "kubelite").glob("__pycache__")):
            rows.append(("version --client, no byte code", _time(KUBELITE + ["version", "--client"], cold, runs), None))
            rows.append(("get ns (serve), no byte code", _time(KUBELITE + kc + ["get", "ns"], cold, runs), None))
    finally:
        server.stop()
    return rows


def report(rows, runs: int) -> None:
    print(f"{'command':<36} {'kubelite ms':>12} {'cpu':>6} {'kubectl ms':>11} {'cpu':>6} {'wall x':>7} {'cpu x':>6}"
          f"   (median of {runs})")
    for label, mine, theirs in rows:
        line = f"{label:<36} {mine[0] * 1000:12.1f} {mine[1] * 1000:6.1f}"
        if theirs:
            line += (f" {theirs[0] * 1000:11.1f} {theirs[1] * 1000:6.1f} {mine[0] / theirs[0]:7.2f}"
                     f" {mine[1] / max(theirs[1], 1e-6):6.2f}")
        print(line)
    print("(x: kubelite / kubectl; below 1 kubelite is faster. Embedded rows have no kubectl equivalent:"
          " compare them with the serve row's kubectl figure.)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="one run each (CI)")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    runs = 1 if args.smoke else args.runs
    kubectl = shutil.which("kubectl")
    with tempfile.TemporaryDirectory(prefix="kubelite-bench-cli-") as tmp:
        base = pathlib.Path(tmp)
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "PYTHONDONTWRITEBYTECODE")}
        env.update(HOME=str(base / "home"), KUBELITE_HOME=str(base / "embedded"),
                   PYTHONPYCACHEPREFIX=str(base / "pycache"))
        (base / "home").mkdir()
        (base / "one.yaml").write_text(CONFIGMAP)
        (base / "pods.yaml").write_text(PODS)
        rows = measure(base, env, runs, kubectl)
    report(rows, runs)


if __name__ == "__main__":
    main()

"""Apply benchmark: a directory of N objects (mixed kinds) — create, re-apply unchanged, apply with
10% changed, prune 10%, then `delete -f` of what is left — with kubelite on the embedded cluster,
kubelite -> `kubelite serve`, and real kubectl -> `kubelite serve` (when /usr/bin/kubectl exists).
Prints objects/s and ratios (kubelite / kubectl: above 1 kubelite is faster).

Usage: python bench/apply.py [--smoke] [--objects N] [--modes csa|ssa|both] [--without-kubectl] [--settled]
                            [--server-workers N] [--repeat N]
(--without-kubectl: the kubelite rows alone, to compare two kubelite versions quickly; at 500
objects kubectl's own rows take minutes. --settled: after each phase, wait untimed until every
Deployment's rollout is done (`wait --for=jsonpath=...`, with the tool of the row), so that each
phase starts on a settled cluster. kubectl's phases last long enough to meet one anyway; without
it, kubelite's re-apply starts while the controllers still make the 125 Deployments' ReplicaSets
and Pods, and its requests wait behind them in the server. --server-workers N: both servers run
`kubelite serve --workers N`, processes sharing the store, so a create is answered on a second
core while the first runs the client and the controllers.)

Where the time goes (500 objects, kubelite -> serve, cProfile, 2-core machine shared with other
jobs): kubectl spends it per object (22.8 s / 70.5 s / 99.4 s on an idle machine of this kind for
create / unchanged / delete; issue 16 puts it down to per-object OpenAPI work and client-side
throttling: kubectl itself was not profiled here). kubelite before (1f8fbd8): one GET per object, then the
write, each over httpx; after: one LIST per kind and namespace replaces the GETs (apply, and
delete's wait for the objects to be gone), requests go over kubelite.client.http1. What is left
is the server: creating 500 objects costs the client 0.9 s of CPU out of 9.6 s, the other 7 s are
spent waiting for the server's answers (~14 ms per create under that load: the Deployments set its
controllers to work while the POSTs arrive); one client thread writes at a time, as kubectl does.
Then (d2220d3, 0d02741): over HTTP, apply -f and delete -f keep four requests in flight
(client/inorder.py; outcomes, warnings and errors still in file order, objects that others are
admitted against written alone), and the server answers a write after an fsync of SQLite's log
that the writes ending together share (group commit), outside the write lock: before, every commit
synced the log under the lock (py-spy of the create phase: the writer thread's COMMITs were about
two fifths of its samples). Create 2.2-2.9 -> 1.4 s with the requests in flight, then a median
1.86 -> 1.47 s with the group commit (3 interleaved runs each, load ~6); delete -f 1.1-1.4 ->
0.7-0.9 s. 500 objects on a quiet machine (load 0.6-1.2), kubelite -> serve against kubectl ->
serve in one run: create 410 vs 43.8 objects/s (9.4x), unchanged 843 vs 20.9 (40x), 10% changed
693 vs 19.9 (35x), prune 10% 547 vs 12.5 (44x), delete -f 581 vs 5.0 (115x).
What is left: create is the server's (the client uses 0.3-0.4 s of CPU of the 1.2 s; the
server writes the 500 objects one at a time while its controllers make the Deployments'
ReplicaSets and Pods); a re-apply of unchanged objects still sends kubectl's 125 patches (each
Secret's stringData is patched at every apply, as kubectl does), and the client's own work (start,
reading 500 documents, 500 three-way diffs) is ~0.3 s of CPU.
Then (6fc6adc, e353e82, 73ef670, 743cc4d, 5f43453, 74def0b): the server's own work per create,
in-process through the app's door (callgrind, the bench's objects, 420 of them), 4.12 -> 3.40 M
instructions: the webhook configurations and admission policies were read again after every
write of the cluster (six reads of the revision and ranges of the group per create; now when
something under their group was written: Store.prefix_version, one indexed look per admission
stage), the typed decode worked out each schema's Go type at every value and walked every body
twice more for duplicated keys, a Service's address allocation read every stored Service's value
(now the keys and revisions, a value only when it changed); requests have their deadline from
asyncio.timeout (no second task each), and the controllers wait until no request has been in
flight for 3 ms (they started a reconciliation in every short gap between apply's answers and
its next requests). Interleaved against the same tree without these commits (6 pairs, load 6-9):
create 1.94 -> 1.85 s median, server CPU during it 1.24 -> 1.05 s; unchanged's server CPU 0.65 ->
0.53 s. Against 13bd064 (with the other work since, 5 pairs, load 1.5-2.6): create 1.71 -> 1.38
s, unchanged 0.75 -> 0.48 s. One run with kubectl at load ~3: create 410 vs 44.1 objects/s (9.3x),
unchanged 774 vs 18.5 (42x), 10% changed 682 vs 17.4 (39x), prune 10% 706 vs 11.0 (64x), delete -f
532 vs 5.1 (105x). What is left of the create phase (py-spy --gil of serve during the apply
alone): the controllers 23% (the Deployments' ReplicaSets and Pods, started between requests),
the event loop 39% (uvicorn's TLS reads and HTTP parsing 7%, asyncio 14%, the app 19%, of which
handing each write to a writer thread is a quarter), the writer threads 36% (the answer: stored
bytes decoded, put in Go's order and encoded, 7%; managedFields 4.5%; waking the watch poller,
which takes the interpreter from the writer, 4.7%; body decode 3%), the poller 2%. One process
answers one request at a time (the interpreter's lock): with 8 requests in flight rather than 4,
or 2 writer threads rather than 4, nothing changed; 20x kubectl (0.57 s) needs the server's CPU
per create halved again, most of it now outside the handlers (the HTTP server, threads).
Then (0fa11d8..dfa1d9c, with the manifest reader 254c6ac..304e711 and quickexit 6ce4245): against
a settled server the four threads gained nothing (one thread and four had the same wall time; the
threads only added CPU), so each object is now read and planned on the command's thread and only
its write goes to a worker (an unchanged object pays for no thread); json.Marshal of plain
documents goes through the C encoder; apply's path imports no dataclasses, typing or
concurrent.futures (with logging); block-style YAML is read without PyYAML (read_sources of the
500: 24 -> 7.7 ms). Client CPU of 500 unchanged objects against a settled serve, 2efd677 against
this tree, 11 interleaved runs: 377 -> 254 ms (wall 475 -> 320 ms); apply of one unchanged
ConfigMap 125 -> 82 ms. On the server: a fresh serve's first command no longer imports
cryptography.x509 to read the client certificate (~50 ms) nor the handlers, printers and RBAC it
loaded lazily (imported on a thread once it listens: server/warmup.py), and a write hands its rows
to the watchers on its own thread (server CPU of 500 creates 0.77 -> 0.72 s, load ~8). 500
objects on a quiet machine, one run each, kubelite -> serve against kubectl -> serve:
  --settled:            create 537 vs 51.5 (10.4x), unchanged 1752 vs 19.7 (88.7x), 10% changed
                        1232 vs 17.9 (68.7x), prune 785 vs 12.7 (61.8x), delete -f 667 vs 5.1
                        (131.8x); server-side apply 8.5x / 12.2x / 11.6x / 24.5x / 155.7x
  phases back to back:  9.5x / 85.5x / 62.8x / 86.8x / 122.6x
  --settled, 2 workers: 11.3x / 78.6x / 93.0x / 89.4x / 189.9x
What is left: unchanged is the client's (~0.25 s of CPU for 0.29 s: the interpreter and imports
~45 ms, reading 500 documents ~10 ms, 500 three-way diffs ~40 ms, the 125 Secret patches kubectl
also sends and their answers, 4 LISTs of ~1 MB decoded); create is the server's (~1.4 ms of CPU
per create, of which the HTTP/TLS/asyncio path about two fifths); server-side apply's rows are the
server's field manager, one apply patch per object as kubectl sends.
Then (6673d2d..700bece, with helper-23's 4410929..0eca9d9 on the server): the client's three-way
diff copies only what it diffs (plan over the 500 live objects 38.7 -> 33.5 ms), each kind's LIST
starts on a thread before the schemas load, patch schemas come from a description-less copy of
the definitions (schema/compact.py), datetime and decimal load when used; the server serves a
small GET or write on its event loop when it can start at once (only the wait for the disk goes
to a thread), compiles each Record's __init__, parses a path once and sends a response's head and
body in one TLS record: server CPU per request over HTTPS, GET 468 -> 270 us, no-op PATCH 860 ->
595 us (4 threads 1005 -> 545), CREATE 1183 -> 1083 us. Before these, half of the unchanged
re-apply's main thread waited on the 125 Secret patches (~1 ms of server each, one at a time).
500 objects on a quiet machine (load < 0.5), --settled, one run, kubelite -> serve against
kubectl -> serve: create 629 vs 51.5 (12.2x), unchanged 2236 vs 20.2 (110.9x), 10% changed 1682
vs 20.3 (82.7x), prune 1349 vs 13.2 (101.9x), delete -f 839 vs 5.1 (165.3x); server-side apply
10.9x / 15.9x / 14.2x / 32.9x / 145.5x.
What is left of create (12.2x, 20x needs ~1,030 objects/s): the server's ~1.1 ms of CPU per
create, now mostly APIServer.create itself (~42% of a py-spy of the phase: admission, defaulting,
validation, managedFields, storage), the body's decode (~11%) and the answer's encoding (~6%),
then uvicorn's TLS reads and writes and the wait for the disk (one thread hop).
Then (b763fb9..b8a25f1): a write on the event loop waits for the disk through one syncer thread
of the store (SQLiteStore.when_durable), not a writer-pool thread per write (~12 context switches
a create, each taking the interpreter from the loop); the store writes with fewer statements
(UPDATE ... RETURNING, the live table's key refusing an existing one, a write handing its own
event to the watchers, prefix_version reading only the rows since its last look: create 312k ->
187k instructions); a create does less in admission and field management (a Service's address
from what each stored Service is known to hold, a create's managedFields built as a tree while the
object is walked, Go key order planned once per layout, one look at the store's revision standing
for the namespace, webhook configurations and Services while it is the revision of this server's
own last write). In-process instructions per create (callgrind, fsync stubbed): ConfigMap 1.97 ->
1.54 M, Secret 1.88 -> 1.51 M, Service 3.08 -> 2.06 M, Deployment 3.51 -> 2.85 M. 500 creates
against serve, a945251 against this tree (4 interleaved pairs, load ~1): 1.218 -> 0.827 s median,
the server's CPU 1.065 -> 0.735 s. --settled now also waits until the store's revision has stood
still for a second (quiet()): a rollout is done before its pods are, and the first re-apply after
one shared the server with the kubelet's pod starts and the statuses that follow (0.43-0.57 s
against 0.19-0.23 s for the next ones). Two runs of 500 objects on this machine (slower today than
the run above: kubectl's own create 42.9 and 48.9 objects/s against 51.5), the first without
quiet(), the second with it:
  create 590 vs 42.9 (13.8x) / 645 vs 48.9 (13.2x); unchanged 1795 vs 18.1 (99.1x) / 2126 vs 17.8
  (119.4x); 10% changed 67.2x / 73.7x; prune 87.3x / 122.6x; delete -f 132.0x / 133.6x; server-side
  apply 14.1x / 12.2x / 12.2x / 26.2x / 139.2x, then 14.1x / 18.8x / 16.4x / 23.6x / 140.2x.
What is left of create (20x needs about 1,000 objects/s): the server's event loop is busy through
the whole phase, about 1.1 ms of its thread per create (perf of the server process: the
interpreter ~61% of samples, the kernel ~25%: the loopback send that wakes the client ~43 us a
request, fsync on the syncer thread, futex hand-overs, SQLite's WAL writes; libcrypto under 2%).
In-process a create now costs ~300-600 us by kind; a request's envelope (TLS, HTTP, the app's
dispatch, the send) ~150 us (GET /version: 140-165 us of server CPU); the controllers share the
interpreter during the burst (--controllers=-*: 0.64 against 0.72 s). Tried and dropped: uvloop
(a GET and a create cost the server the same CPU; server/tlssniff.py's sniffing also needs asyncio's
SSLProtocol), WAL checkpoints off the loop (commits over 1 ms add up to 5-24 ms of the 500), a
controller giving way longer while the API stays busy (no gain), an flock ordering the writers of
several processes (serve --workers 2 slower with it).
Then (673f500..37ac65c): the controllers wait through a busy spell's first second instead of 20 ms
at a time (server/traffic.py BURST: they reconciled the 125 Deployments in the middle of the create
phase), a write on the event loop waits for a child process's fsync of the log, asked and answered
through pipes the loop reads among its sockets (a syncer thread's three wakes a sync each took the
interpreter from the loop), and a small request arriving whole is answered without uvicorn's Task
and ASGI messages, head and body in one write (server/http11.py; a create that waits for the disk
still goes on in the Task, its answer written in one write). 500 creates, c2da68b against this
tree, 5 interleaved pairs: wall 0.841 -> 0.694 s median, server CPU (with the child) 0.78 -> 0.57 s.
500 objects, --settled, one run on a quiet machine, kubelite -> serve against kubectl -> serve:
  create 816 vs 50.4 (16.2x); unchanged 2068 vs 17.7 (117.1x); 10% changed 95.4x; prune 118.2x;
  delete -f 972 vs 5.1 (191.7x); server-side apply 16.0x / 16.9x / 14.5x / 28.6x / 225.1x.
What is left of create (20x needs about 1,010 objects/s, 0.5 s for the 500): the client starts its
first request ~55 ms after it is launched (the interpreter, imports, 500 documents read, the four
LISTs) and uses ~0.25 s of CPU; the server ~0.45-0.5 s of CPU for the 500 (~550 us of the loop
thread per Secret create, 4 client threads, controllers off; GET /livez 108 us of server CPU
against 47 us for a bare asyncio TLS server answering a fixed response: asyncio's TLS layer,
uvicorn's parsing, the kernel). Keeping 6 or 8 requests in flight rather than 4 measured 0.506 /
0.546 against 0.594 / 0.546 s in two runs: no clear gain, so 4 it stays.
Then (24eeb24, 6089430): a create's wait for the disk is a callback on the store's future and a
timer for the request's deadline, driven by serve's protocol, instead of uvicorn's Task, its ASGI
messages and asyncio.timeout; and a create stores its object in the order it is served in, so
that its answer is the stored bytes with the resourceVersion put in (decoding them, ordering and
encoding again cost 36-84 us a create by kind: handlers.http.stored_as_served, which leaves
escapes, custom resources, pretty, Table and metadata-only answers to the long way). This machine
was noisier than before (the same 500 creates took 0.60 to 1.05 s from one run to the next), so
they were measured in instructions: callgrind of serve, 400 Secret creates from 4 threads,
1.64-1.66 M -> 1.57-1.59 M instructions per create for the first (two runs), then 1.62 -> 1.44 M
for the second. 500 creates against serve, 47df654 against this tree, 6 interleaved pairs: wall
0.620 -> 0.535 s median, server CPU 0.52 -> 0.43 s. Three runs of the whole bench on this
machine this time, kubelite -> serve against kubectl -> serve, create / unchanged / 10% changed /
prune / delete -f: before both, 538 vs 39.5 (13.6x) / 109.7x / 73.6x / 136.5x / 168.6x; after
the first, 608 vs 44.5 (13.7x) / 85.3x / 74.1x / 77.9x / 146.4x; after both, 772 vs 54.1 (14.3x)
/ 114.6x / 57.9x / 100.3x / 207.8x; server-side apply after both 14.6x / 20.9x / 18.5x / 37.4x /
260.6x. kubectl's own create ran at 39.5, 44.5 and 54.1 objects/s against these servers: part of
its time is the server's, so a faster server speeds kubectl up too. What the wait for the disk costs as a whole, sized by answering without it (not
shippable: 3 to 5 interleaved pairs each, medians): wall 0.894 -> 0.766, 0.791 -> 0.624, 0.767 ->
0.537 s, server CPU ~0.66 -> ~0.50 s. It is not the fsync's own CPU (~74 us in the child, ~320
syncs for the 500 creates, 1.55 commits each) but the wake-ups: perf stat of the loop thread, 2,209
context switches against 733 without the wait, most of them involuntary (the child and the
store's poller taking the loop's CPU). Tried and dropped: the child at SCHED_BATCH (no wake-up
preemption) or SCHED_IDLE, -10% / -16% on a quiet machine but +53% / +68% beside two CPU-bound
processes (it waits for a free CPU: 1.39 -> 2.13 / 2.33 s); nice 5 or 19 (no gain / slower);
the loop fsyncing the log itself, no child (quiet 0.782 -> 0.759 s, loaded 2.19 -> 2.39 s, and a
slow disk would stall every request); asking the child through an eventfd rather than a pipe
(no sync wake-up hint: 0.600 against 0.620 s); asking at the end of the loop's pass to group more
commits per sync (0.803 -> 0.847 s); 6 or 8 requests in flight again (8 pairs: 0.889 / 0.879 /
0.782 s for 4 / 8 / 6, within the noise). What is left in the server's CPU per create (cProfile of
serve, 2,000 Secret creates from 4 threads, before 6089430): SQLite's statements ~10% (six per
create: BEGIN IMMEDIATE, the revision, live, log, COMMIT, the revision look; strace of the store
alone: ~10 pwrites of WAL frames and ~6 fcntl locks of its shared memory per commit, which the
other processes on the store need), managedFields ~5%, uvicorn's parsing and asyncio's TLS
layer, the loopback send (~10% of the loop's samples in py-spy, the kernel waking the client).
Then (--repeat): one run of a kubelite phase lasts 0.3-0.6 s and moved by up to 40% with the
machine's neighbours (the same 500 creates took 0.46 s, then 0.72 s an hour later, the machine
otherwise idle), while each kubectl phase spans 10-100 s of requests; the kubelite rows can now
be run N times, each on a fresh server and home, and each phase shows the median and the range.
500 objects, --settled, --repeat 5, kubelite -> serve against one run of kubectl -> serve: create
742 vs 37.7 objects/s (19.7x; range 557-929), unchanged 1598 vs 15.7 (101.9x), 10% changed 77.6x,
prune 92.5x, delete -f 1050 vs 5.1 (207.4x); server-side apply 18.2x / 18.3x / 11.1x / 24.6x /
174.8x. A single run of the same bench an hour earlier: create 893 vs 47.4 (18.9x), unchanged
96.4x. Where a create's time goes now (callgrind, 400 Secret creates from 4 threads over HTTPS,
the bench's body with its last-applied annotation and fieldValidation=Strict): 1.71 M
instructions in the server per create, ~71% of them the interpreter running Python, SQLite
~5%, libcrypto ~2%, the C JSON codec ~2%; the client spends 1.36 M per created object (its
start, ~93 M, apart). cProfile of serve for 3,000 creates spreads the rest over ~15 functions of
10-60 us each (body decode and type check, managedFields, validation, defaulting, the store's
six statements, the answer's TLS write and send), none above a tenth. On this machine's disk a
create's SQLite transaction costs ~87 us (a commit's median 24 us; the WAL checkpoint every ~250
commits, ~5 ms, nearly half of all commit time). Tried and dropped, interleaved pairs of 500
creates: checkpoints moved from the loop's commits to a thread of the fsync child (triggered from
the shared memory's frame count; 0.614 against 0.659 s, no gain), the loop thread pinned to one
CPU and the fsync child to the other (-13% in one set of 8 pairs, -1% to -7% in three later
sets, +4% beside two CPU-bound processes: not a gain this machine can show), the client at nice 5 (0.511 against
0.512 s: the client does not crowd the server out).
Then (six requests in flight rather than four, client/inorder.py WORKERS): 500 creates against
serve, two sets of 10 interleaved pairs, 0.527 -> 0.489 and 0.557 -> 0.499 s median, six won 16
of the 20; this bench's kubelite rows (--without-kubectl --repeat 2, four and six taking turns
twice): create 867 / 718 -> 991 / 796 objects/s, the other phases within the noise. One run of
the bench after it (--modes csa --repeat 3, the machine busier: kubectl's unchanged 13.7 against
15.7 objects/s before): create 742 vs 42.2 (17.6x; kubelite's range 615-743), unchanged 114.6x,
10% changed 87.1x, prune 101.6x, delete -f 171.9x. The ratio moves with kubectl's own rate
(37.7 and 42.2 objects/s in two runs an hour apart) as much as with kubelite's.
Then (server-side apply's create): an apply patch that creates its object no longer compares the
applied object with the empty live one when no other manager owns a field of it (the comparison
only served conflicts with those managers and their entries), and it is answered from the bytes
just stored, as a create is; the client no longer LISTs each kind nor loads the patch schemas
before its first apply patch (client-side apply's early reads, which an apply patch never uses).
Callgrind of serve, the bench's objects applied from 4 threads: 2.65 -> 2.19 M instructions per
apply that creates. 500 objects, apply --server-side against serve, 3 interleaved pairs each:
the server's change 0.633/0.622/0.560 -> 0.564/0.549/0.514 s, then the client's 0.672/0.757/0.605
-> 0.579/0.627/0.542 s (first PATCH 77-96 -> 60-64 ms after the command starts, bytecode
compiled). --settled now also waits for a quiet cluster after each row's delete -f: server-side
apply's create shared the server with the garbage collector deleting client-side apply's
ReplicaSets and Pods (the run before that wait: ssa create 563.5 vs 38.3 objects/s, 14.7x, and
client-side apply 18.5x / 84.8x / 64.7x / 73.6x / 157.0x). The run after it (--repeat 3, quiet
machine): create 943 vs 42.1 (22.4x; kubelite's range 496-1021), unchanged 1413 vs 15.1 (93.4x),
10% changed 74.0x, prune 80.1x, delete -f 899 vs 5.1 (177.5x); server-side apply 697 vs 53.5
(13.0x; range 642-783) / 740 vs 53.2 (13.9x) / 16.8x / 36.8x / 213.5x. kubectl's own server-side
create ran at 38.3 and 53.5 objects/s in these two runs, its client-side create at 37.7 and 42.1.
What is left of server-side apply's rows: one apply patch per object, as kubectl sends, and the
server's field manager (a no-op apply of the bench's objects costs ~2.2 M instructions, about a
create's: the applied object's field set and merge, the live object decoded, ordered and
encoded for the answer); 100x of kubectl's ~53 no-op applies/s would need ~5,300/s with the
client's start included.
Then (no change on these paths; one run of the whole bench, --repeat 3, quiet machine): create
683 vs 53.3 (12.8x; kubelite's range 589-848), unchanged 1896 vs 17.3 (109.6x), 10% changed
76.2x, prune 104.2x, delete -f 810 vs 5.1 (160.2x); server-side apply 673 vs 47.1 (14.3x) / 562
vs 49.9 (11.3x) / 10.3x / 24.6x / 170.5x. kubectl's client-side create ran at 53.3 objects/s, its
fastest yet: 20x of it needs 500 creates in 0.47 s, and the same 500 against a settled server
took 0.52-1.00 s from one round to the next (4 fresh servers, 3 rounds each; no trend across
rounds, no slower first round). The floor is the event loop (the server with memory storage
0.34 s). A no-op server-side apply of the bench's objects costs ~330 us in-process (field set
15%, merge 10%, the answer's ordering and encoding 10%) and the server 0.39-0.63 s of CPU for the
500 over HTTPS, the client 0.28 s: even at a GET's 270 us of server CPU, 500 requests and the
client's start take ~0.2 s (~2,500/s: about 50x kubectl's ~50/s, half the target). Tried: a
0.5 ms interpreter switch interval in serve (sys.setswitchinterval; the loop waits less for
another thread's turn), dropped: 12 interleaved creates each, median 0.690 against 0.635 s.
"""
from __future__ import annotations

import argparse
import yaml
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "server"))
KUBECTL = "/usr/bin/kubectl"


def objects(n: int, changed: set[int] = frozenset(), dropped: set[int] = frozenset()) -> list[dict]:
    """ConfigMaps, Secrets, Services and Deployments labelled bench=apply."""
    out = []
    for i in range(n):
        if i in dropped:
            continue
        version = "2" if i in changed else "1"
        labels = {"bench": "apply", "app": f"a{i % 10}"}
        kind = i % 4
        if kind == 0:
            out.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}", "labels": labels},
                        "data": {"v": version, "text": "x" * 200}})
        elif kind == 1:
            out.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": f"s-{i}", "labels": labels},
                        "stringData": {"v": version}})
        elif kind == 2:
            out.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"svc-{i}", "labels": labels},
                        "spec": {"selector": {"app": f"a{i}"}, "ports": [{"port": 80 + int(version)}]}})
        else:
            out.append({"apiVersion": "apps/v1", "kind": "Deployment",
                        "metadata": {"name": f"d-{i}", "labels": labels},
                        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": f"d{i}"}},
                                 "template": {"metadata": {"labels": {"app": f"d{i}"}},
                                              "spec": {"containers": [{"name": "c", "image": f"nginx:1.{version}"}]}}}})
    return out


def write_dir(path: pathlib.Path, objs: list[dict], per_file: int = 50) -> None:
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    for start in range(0, len(objs), per_file):
        chunk = objs[start:start + per_file]
        (path / f"part-{start // per_file:04d}.yaml").write_text("---\n".join(yaml.safe_dump(o) for o in chunk))


def phases(n: int) -> list[tuple[str, list[dict], list[str]]]:
    tenth = set(range(0, n, 10))
    return [
        ("create", objects(n), []),
        ("unchanged", objects(n), []),
        ("10% changed", objects(n, changed=tenth), []),
        ("prune 10%", objects(n, changed=tenth, dropped={i + 5 for i in tenth if i + 5 < n}),
         ["--prune", "-l", "bench=apply"]),
    ]


def run_tool(argv: list[str], env: dict) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])}... failed: {proc.stderr[-500:]}")
    return elapsed


COLUMNS = [name for name, _, _ in phases(0)] + ["delete -f"]


# What a settled cluster shows for every Deployment of the bench: its rollout done, one pod (made,
# not necessarily running: the simulated node takes 110 pods, the bench has a Deployment per 4
# objects, and the pods past 110 stay Pending whichever tool made them).
SETTLED = ("{.status.observedGeneration}", "{.status.updatedReplicas}=1", "{.status.replicas}=1")


def settle(base_argv: list[str], env: dict, namespace: list[str], n: int) -> None:
    """Wait (not timed) until the controllers finished what the last phase set them to do, so each
    phase meets a settled cluster whichever tool ran before: kubectl's phases take seconds to
    minutes and meet one anyway, kubelite's would otherwise meet the Deployments still rolling out."""
    if n < 4:
        return  # no Deployment in the run
    for path in SETTLED:
        run_tool([*base_argv, "wait", *namespace, "deployment", "-l", "bench=apply", "--timeout=300s",
                  f"--for=jsonpath={path}"], env)
    quiet(base_argv, env)


QUIET_FOR = 1.0  # seconds without a write that make the cluster quiet
QUIET_POLL = 0.25
QUIET_DEADLINE = 120.0


def quiet(base_argv: list[str], env: dict) -> None:
    """Wait (not timed) until nothing has been written for QUIET_FOR seconds: the store's revision,
    which a list answers with, stands still. A rollout is done before its pods are: the simulated
    kubelet still starts them, and the Deployments' and ReplicaSets' statuses, Endpoints and
    Events follow. A phase starting then shared the server with that work (the first re-apply after
    the rollouts took 0.43-0.57 s, the next ones 0.19-0.23 s, for the same 500 objects)."""
    deadline = time.monotonic() + QUIET_DEADLINE
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        proc = subprocess.run([*base_argv, "get", "--raw", "/api/v1/pods?limit=1"], capture_output=True,
                              text=True, env=env)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(base_argv[:1])} get --raw failed: {proc.stderr[-500:]}")
        revision = yaml.safe_load(proc.stdout)["metadata"]["resourceVersion"]
        now = time.monotonic()
        if revision != last:
            last, since = revision, now
        elif now - since >= QUIET_FOR:
            return
        time.sleep(QUIET_POLL)  # a bench's pace of looking, not a wait for something to happen
    raise SystemExit(f"the cluster was still being written to after {QUIET_DEADLINE:.0f} s")


def bench(label: str, base_argv: list[str], env: dict, work: pathlib.Path, n: int,
          flags: tuple[str, ...] = (), settled: bool = False) -> dict[str, float]:
    rates = {}
    namespace = list(flags[:2]) if flags[:1] == ("-n",) else []
    for name, objs, extra in phases(n):
        directory = work / label.replace(" ", "_") / name.replace(" ", "_").replace("%", "pct")
        write_dir(directory, objs)
        # (with flags, pruning is the ApplySet's: label-selected pruning refuses server-side apply)
        elapsed = run_tool([*base_argv, "apply", *flags, "-f", str(directory), *([] if flags else extra)], env)
        rates[name] = len(objs) / elapsed
        if settled:
            settle(base_argv, env, namespace, n)
    # every object the last phase left, deleted from its files (in the flags' namespace, if any)
    elapsed = run_tool([*base_argv, "delete", *namespace, "-f", str(directory)], env)
    rates["delete -f"] = len(objs) / elapsed
    if settled:
        # the garbage collector still deletes the Deployments' ReplicaSets and Pods: the next row's
        # create (server-side apply's, after client-side apply's) would share the server with it
        quiet(base_argv, env)
    return rates


SSA_NAMESPACE = "bench-ssa"
SSA_FLAGS = ("-n", SSA_NAMESPACE, "--server-side", "--prune", "--applyset=bench-ssa")


def bench_both(results: dict, label: str, argv: list[str], env: dict, work: pathlib.Path, n: int,
               modes: str = "both", settled: bool = False) -> None:
    """Client-side apply, then server-side apply of the same objects in a namespace of their own."""
    if modes in ("csa", "both"):
        results[label] = bench(label, argv, env, work, n, settled=settled)
    if modes in ("ssa", "both"):
        run_tool([*argv, "create", "namespace", SSA_NAMESPACE], env)
        results[label + " (ssa)"] = bench(label + " ssa", argv, dict(env, KUBECTL_APPLYSET="true"), work, n,
                                          SSA_FLAGS, settled=settled)


def kubelite_rows(kubelite: list[str], env: dict, work: pathlib.Path, n: int, args, serve_args) -> dict:
    """One run of the kubelite rows (embedded, then against a fresh `kubelite serve`), each in
    fresh state of its own."""
    from test_serve_support import Served

    results: dict[str, dict[str, float]] = {}
    work.mkdir(parents=True)
    embedded_env = dict(env, KUBELITE_HOME=str(work / "embedded"))
    bench_both(results, "kubelite embedded", kubelite, embedded_env, work, n, args.modes, args.settled)
    server = Served(work / "served", work / "kubeconfig", args=serve_args).start()
    try:
        served_env = dict(env, KUBECONFIG=str(server.kubeconfig))
        bench_both(results, "kubelite -> serve", kubelite, served_env, work, n, args.modes, args.settled)
    finally:
        server.stop()
    return results


def medians(runs: list[dict[str, dict[str, float]]]) -> tuple[dict, dict]:
    """Per row and phase: the median rate of the runs, and (lowest, highest)."""
    middle: dict[str, dict[str, float]] = {}
    spread: dict[str, dict[str, tuple[float, float]]] = {}
    for label in runs[0]:
        middle[label], spread[label] = {}, {}
        for phase in COLUMNS:
            rates = [run[label][phase] for run in runs]
            middle[label][phase] = statistics.median(rates)
            spread[label][phase] = (min(rates), max(rates))
    return middle, spread


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="a few objects, for CI")
    parser.add_argument("--objects", type=int, default=None)
    parser.add_argument("--modes", choices=("csa", "ssa", "both"), default="both",
                        help="client-side apply, server-side apply, or both")
    parser.add_argument("--without-kubectl", action="store_true", help="only the kubelite rows")
    parser.add_argument("--server-workers", type=int, default=1,
                        help="`kubelite serve --workers` of the servers both tools write to")
    parser.add_argument("--settled", action="store_true",
                        help="wait (untimed) after each phase until the Deployments' rollouts are done")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of the kubelite rows, each on fresh servers and homes; their median is shown")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    n = args.objects or (20 if args.smoke else 1000)
    from test_serve_support import Served

    with tempfile.TemporaryDirectory(prefix="kubelite-bench-apply-") as tmp:
        work = pathlib.Path(tmp)
        (work / "home").mkdir()
        # As installed: byte code cached (in a private prefix; PYTHONDONTWRITEBYTECODE is set here).
        env = dict(os.environ, HOME=str(work / "home"), PYTHONPYCACHEPREFIX=str(work / "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        # as installed: the `kubelite` script next to this Python (as bench/cli.py runs it)
        script = pathlib.Path(sys.executable).with_name("kubelite")
        kubelite = [str(script)] if script.exists() else [sys.executable, "-m", "kubelite"]
        serve_args = ("--workers", str(args.server_workers)) if args.server_workers > 1 else ()
        runs = [kubelite_rows(kubelite, env, work / f"run-{i}", n, args, serve_args) for i in range(args.repeat)]
        results, spread = medians(runs)
        if pathlib.Path(KUBECTL).exists() and not args.without_kubectl:
            server2 = Served(work / "served2", work / "kubeconfig2", args=serve_args).start()
            try:
                bench_both(results, "kubectl -> serve", [KUBECTL, "--kubeconfig", str(server2.kubeconfig),
                                                         "--cache-dir", str(work / "cache")], env, work, n,
                           args.modes, args.settled)
            finally:
                server2.stop()
    print(f"apply benchmark: {n} objects (ConfigMap/Secret/Service/Deployment), objects/s"
          + (", each phase on a settled cluster" if args.settled else ", phases back to back")
          + (f", servers with {args.server_workers} worker processes" if args.server_workers > 1 else "")
          + (f"; kubelite rows: median of {args.repeat} runs (lowest-highest below), kubectl: one run"
             if args.repeat > 1 else ""))
    print(f"{'':34}" + "".join(f"{name:>14}" for name in COLUMNS))
    for label, rates in results.items():
        print(f"{label:34}" + "".join(f"{rates[p]:14.1f}" for p in COLUMNS))
    if args.repeat > 1:
        for label, ranges in spread.items():
            print(f"{label + ' range':34}" + "".join(f"{f'{lo:.0f}-{hi:.0f}':>14}" for lo, hi in
                                                        (ranges[p] for p in COLUMNS)))
    for suffix in ("", " (ssa)"):
        if "kubectl -> serve" + suffix in results:
            ref = results["kubectl -> serve" + suffix]
            for label in ("kubelite embedded", "kubelite -> serve"):
                print(f"{label + suffix + ' / kubectl':34}" + "".join(
                    f"{results[label + suffix][p] / ref[p]:13.2f}x" for p in COLUMNS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

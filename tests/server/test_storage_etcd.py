"""What is particular to EtcdStore (the shared contract runs in test_storage.py and the model).

URLs and TLS, the data as etcd holds it (kube-apiserver's /registry/ keys, JSON values, etcd's
revisions as resourceVersions), a compaction made by another process, watches that start before
the hub's history, etcd restarting under a store, and lists paged over etcd (remainingItemCount).
"""
from __future__ import annotations

import base64
import signal

import httpx
import pytest

from etcd_support import Etcd, etcd, free_port, have_etcd, make_tls  # noqa: F401 (fixture)
from kubelite.server.storage import Compacted, EventType, StorageError, open_store
from kubelite.server.storage.etcd import EtcdOptions, EtcdStore, parse_url

pytestmark = pytest.mark.skipif(not have_etcd(), reason="etcd is not installed (apt-get install etcd-server)")
PODS = "/registry/core/pods/default/"


# -- URLs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("url, endpoints", [
    ("etcd://127.0.0.1:2379", ("http://127.0.0.1:2379",)),
    ("etcd://10.0.0.1:2379,10.0.0.2:2379", ("http://10.0.0.1:2379", "http://10.0.0.2:2379")),
    ("etcds://etcd.example:2379", ("https://etcd.example:2379",)),
    ("etcd://h:1?cacert=/ca.pem", ("https://h:1",)),
    ("etcd://https://h:1,http://g:2", ("https://h:1", "http://g:2")),
])
def test_urls_name_the_endpoints(url, endpoints):
    assert parse_url(url).endpoints == endpoints


def test_url_options():
    options = parse_url("etcd://h:1?cacert=/ca&cert=/c&key=/k&timeout=2.5")
    assert options == EtcdOptions(("https://h:1",), "/ca", "/c", "/k", 2.5)


@pytest.mark.parametrize("url, message", [
    ("etcd://", "at least one endpoint"),
    ("etcd://h:1?cert=/c", "certificate and key go together"),
    ("etcd://h:1?verify=no", "unknown etcd option"),
    ("etcd://h:port", "bad etcd endpoint port"),
    ("etcd://h:1?timeout=soon", "number of seconds"),
])
def test_bad_urls_are_one_line_errors(url, message):
    with pytest.raises(StorageError, match=message):
        parse_url(url)


def test_an_unreachable_etcd_is_a_clear_error():
    with pytest.raises(StorageError, match="etcd is unreachable at http://127.0.0.1:"):
        open_store(f"etcd://127.0.0.1:{free_port()}?timeout=0.3")


def test_open_store_forms(etcd, tmp_path):
    with open_store(etcd.url) as store:
        assert isinstance(store, EtcdStore) and store.shared
    with open_store(f"sqlite:{tmp_path / 'x.db'}") as store:
        assert store.shared and (tmp_path / "x.db").exists()
    with open_store("memory:") as store:
        assert not store.shared


# -- the data as etcd holds it --------------------------------------------------------------------


def raw_range(etcd_server: Etcd, key: str) -> list[dict]:
    body = {"key": base64.b64encode(key.encode()).decode()}
    return httpx.post(etcd_server.endpoint + "/v3/kv/range", json=body).json().get("kvs") or []


def test_objects_are_json_under_registry_keys_with_etcd_revisions(etcd):
    from kubelite.server.cluster import Cluster
    from kubelite.server.clock import FakeClock

    with Cluster(etcd.url, clock=FakeClock(), controllers=False) as cluster, cluster.http_client() as api:
        made = api.post("/api/v1/namespaces/default/configmaps",
                        json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}})
        assert made.status_code == 201, made.text
    (kv,) = raw_range(etcd, "/registry/core/configmaps/default/c")
    stored = __import__("json").loads(base64.b64decode(kv["value"]))
    assert stored["data"] == {"a": "b"} and stored["metadata"]["uid"] == made.json()["metadata"]["uid"]
    assert kv["mod_revision"] == made.json()["metadata"]["resourceVersion"]


def test_lists_page_over_etcd_with_remaining_item_count(etcd):
    from kubelite.server.cluster import Cluster
    from kubelite.server.clock import FakeClock

    with Cluster(etcd.url, clock=FakeClock(), controllers=False) as cluster, cluster.http_client() as api:
        for i in range(5):
            api.post("/api/v1/namespaces/default/configmaps",
                     json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}})
        first = api.get("/api/v1/namespaces/default/configmaps", params={"limit": 2}).json()
        assert [i["metadata"]["name"] for i in first["items"]] == ["c0", "c1"]
        assert first["metadata"]["remainingItemCount"] == 3
        rest = api.get("/api/v1/namespaces/default/configmaps",
                       params={"limit": 2, "continue": first["metadata"]["continue"]}).json()
        assert [i["metadata"]["name"] for i in rest["items"]] == ["c2", "c3"]
        assert rest["metadata"]["remainingItemCount"] == 1
        assert rest["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_count_at_a_revision(etcd):
    with EtcdStore(etcd.url) as store:
        for name in "abcd":
            store.create(PODS + name, b"x")
        at = store.current_revision()
        store.delete(PODS + "a")
        store.create(PODS + "e", b"x")
        assert store.count(PODS) == 4
        assert store.count(PODS, revision=at) == 4
        assert store.count(PODS, start_after=PODS + "b", revision=at) == 2
        assert store.count(PODS, start_after=PODS + "b") == 3
        assert store.count("/registry/core/pods/other/") == 0


# -- compaction and watches -----------------------------------------------------------------------


def test_a_compaction_by_another_process_is_found(etcd):
    with EtcdStore(etcd.url) as mine, EtcdStore(etcd.url) as theirs:
        for i in range(40):
            mine.create(PODS + f"p{i:02d}", b"x")
        theirs.compact(23)
        assert mine.compact_revision() == 23  # found by probing: etcd does not say
        with pytest.raises(Compacted) as err:
            mine.range(PODS, revision=22)
        assert err.value.compact_revision == 23
        with pytest.raises(Compacted):
            mine.watch(PODS, from_revision=10)
        theirs.compact(30)
        assert mine.compact_revision() == 30


def test_a_watch_older_than_the_hub_history_gets_a_stream_of_its_own(etcd):
    with EtcdStore(etcd.url, history=3) as store:
        live = store.watch(PODS)  # starts the hub now
        first = store.create(PODS + "a", b"1")
        for i in range(6):
            store.update(PODS + "a", str(i).encode(), None)
        assert [e.revision for e in [live.next(5) for _ in range(7)]] == list(range(first.mod_revision, first.mod_revision + 7))
        old = store.watch(PODS, from_revision=first.mod_revision)  # before the 3 events the hub keeps
        replay = [old.next(5) for _ in range(6)]
        assert [e.kv.value for e in replay] == [str(i).encode() for i in range(6)]
        assert replay[0].prev_kv == first and replay[0].type is EventType.MODIFIED
        later = store.create(PODS + "b", b"new")
        assert old.next(5).kv == later and live.next(5).kv == later
        old.close()
        live.close()


def test_the_store_rides_out_an_etcd_restart(etcd):
    with EtcdStore(etcd.url) as store:
        watcher = store.watch(PODS)
        before = store.create(PODS + "a", b"1")
        assert watcher.next(5).kv == before
        etcd.stop(signal.SIGTERM)
        etcd.start()  # same ports, same data
        after = store.update(PODS + "a", b"2", before.mod_revision)  # reconnects
        event = watcher.next(10)  # the watch resumes after the last revision it delivered
        assert event is not None and event.kv == after and event.prev_kv == before
        assert store.get(PODS + "a") == after


def test_tls_with_client_certificates(tmp_path):
    tls = make_tls(tmp_path / "pki")
    with Etcd(tls=tls) as server:
        url = f"etcd://127.0.0.1:{server.client_port}?cacert={tls.ca}&cert={tls.client_cert}&key={tls.client_key}"
        with open_store(url) as store:
            made = store.create(PODS + "a", b"secure")
            watcher = store.watch(PODS, from_revision=1)
            assert watcher.next(5).kv == made
        with pytest.raises(StorageError):  # no client certificate: etcd refuses the handshake
            open_store(f"etcd://127.0.0.1:{server.client_port}?cacert={tls.ca}&timeout=1")


# -- kubelite serve's storage flags ---------------------------------------------------------------


def test_serve_etcd_tls_flags_become_url_options():
    import argparse

    from kubelite.cli.serve import storage_url

    args = argparse.Namespace(storage="etcd://h:1", etcd_cafile="/ca", etcd_certfile="/c", etcd_keyfile="/k")
    assert parse_url(storage_url(args)) == EtcdOptions(("https://h:1",), "/ca", "/c", "/k")
    args.storage = "etcd://h:1?timeout=3"
    assert parse_url(storage_url(args)).timeout == 3.0


@pytest.mark.parametrize("flags, message", [
    (["--etcd-cafile", "/ca.pem"], "--etcd-cafile, --etcd-certfile and --etcd-keyfile need --storage=etcd://"),
    (["--storage", "etcd://127.0.0.1:{port}?timeout=0.3"], "etcd is unreachable at http://127.0.0.1:"),
    (["--leader-elect-retry-period", "20s"], "retry period < renew deadline < lease duration"),
])
def test_serve_refuses_bad_storage_in_one_line(tmp_path, capsys, flags, message):
    from kubelite.cli.serve import run

    flags = [f.replace("{port}", str(free_port())) for f in flags]
    assert run(["--data-dir", str(tmp_path), "--port", "0", *flags]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("error: ")


def test_a_cluster_on_etcd_settles_as_on_any_store(etcd):
    from kubelite.server.cluster import Cluster
    from kubelite.server.clock import FakeClock

    labels = {"app": "web"}
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
          "spec": {"replicas": 3, "selector": {"matchLabels": labels},
                   "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    with Cluster(etcd.url, clock=FakeClock()) as cluster, cluster.http_client() as api:
        assert cluster.settle()
        assert api.post("/apis/apps/v1/namespaces/default/replicasets", json=rs).status_code == 201
        assert cluster.settle()  # sync_watchers waits for etcd's watch to deliver every write
        pods = api.get("/api/v1/namespaces/default/pods").json()["items"]
        assert len(pods) == 3
        assert {p["metadata"]["ownerReferences"][0]["name"] for p in pods} == {"web"}
        status = api.get("/apis/apps/v1/namespaces/default/replicasets/web").json()["status"]
        assert status["replicas"] == 3

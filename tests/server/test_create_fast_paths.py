"""What a create keeps between writes to spend less on the next one never hides a write made
through another server on the same store: two APIServers on one SQLite file stand for two
`kubelite serve --workers` processes."""
from __future__ import annotations

import datetime

import pytest

from kubelite.server import errors
from kubelite.server.clock import UTC, FakeClock, format_time
from kubelite.server.cluster import Cluster
from kubelite.server.core import DeleteOptions, WriteOptions


@pytest.fixture
def servers(tmp_path):
    path = tmp_path / "shared.db"
    one = Cluster(f"sqlite:{path}", controllers=False)
    two = Cluster(f"sqlite:{path}", controllers=False)
    yield one.api, two.api
    one.close()
    two.close()


def _services(api):
    return api.registry.lookup("", "v1", "services")


def _service(api, name: str, ip: str | None = None) -> dict:
    spec = {"ports": [{"port": 80}]}
    if ip:
        spec["clusterIP"] = ip
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}
    return api.create(_services(api), "default", body, WriteOptions()).obj


def _refused(api, name: str, ip: str) -> str:
    with pytest.raises(errors.StatusError) as caught:
        _service(api, name, ip)
    assert caught.value.code == 422
    return str(caught.value)


def test_an_address_taken_through_another_server_is_not_handed_out_again(servers):
    one, two = servers
    _service(one, "warm")  # what `one` holds is kept from here on
    _service(two, "theirs", "10.0.0.50")
    assert "provided IP is already allocated" in _refused(one, "mine", "10.0.0.50")
    two.delete(_services(two), "default", "theirs", DeleteOptions())
    assert _service(one, "mine", "10.0.0.50")["spec"]["clusterIP"] == "10.0.0.50"


def test_an_address_this_server_took_is_held_and_freed_through_the_other(servers):
    one, two = servers
    _service(one, "first", "10.0.0.60")
    assert "provided IP is already allocated" in _refused(one, "second", "10.0.0.60")
    assert "provided IP is already allocated" in _refused(two, "second", "10.0.0.60")
    two.delete(_services(two), "default", "first", DeleteOptions())
    assert _service(one, "second", "10.0.0.60")["spec"]["clusterIP"] == "10.0.0.60"


def test_an_address_changed_through_another_server_is_seen(servers):
    one, two = servers
    _service(one, "moved", "10.0.0.70")
    # Written behind the API's back (as another version of the server might): the stored value changes.
    r = _services(two)
    stored = two.get(r, "default", "moved")
    stored["spec"]["clusterIP"], stored["spec"]["clusterIPs"] = "10.0.0.71", ["10.0.0.71"]
    two.store.update(two._key(r, "default", "moved"), two._encode(stored), int(stored["metadata"]["resourceVersion"]))
    assert "provided IP is already allocated" in _refused(one, "next", "10.0.0.71")
    assert _service(one, "next", "10.0.0.70")["spec"]["clusterIP"] == "10.0.0.70"


def test_random_addresses_avoid_every_held_one(servers):
    one, two = servers
    taken = {_service(two if i % 2 else one, f"s{i}")["spec"]["clusterIP"] for i in range(40)}
    assert len(taken) == 40 and "10.0.0.1" not in taken


@pytest.mark.parametrize("fraction", [0.0, 0.25, 0.5, 0.999998, 0.9999994, 0.9999996, 0.99999999])
def test_rfc3339_is_the_second_fromtimestamp_gives(fraction):
    clock = FakeClock(1_700_000_000 + fraction)
    for step in (0.0, 0.0000003, 0.4, 0.3, 0.2999996, 0.0000002, 1.7):
        clock.advance(step)
        expected = format_time(datetime.datetime.fromtimestamp(clock.time(), UTC))
        assert clock.rfc3339() == expected, clock.time()

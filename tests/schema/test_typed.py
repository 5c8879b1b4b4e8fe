"""kubelite.schema.typed without kubectl: facts observed from `kubectl set ... --local -o json`
(kubectl v1.32), which prints objects after decoding them into Go structs."""
import json

import pytest

from kubelite.schema.typed import TypedError, is_typed, roundtrip


def test_service_gains_go_zero_fields_and_loses_unknown_keys():
    # kubectl set selector --local -f svc.yaml a=b -o json, selector included in the input
    given = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "foo": "bar"},
             "spec": {"bogus": 1, "selector": {"a": "b"}, "ports": [{"targetPort": "web", "port": 80}]}}
    printed = ('{"kind": "Service", "apiVersion": "v1", "metadata": {"name": "s", "creationTimestamp": null}, '
               '"spec": {"ports": [{"port": 80, "targetPort": "web"}], "selector": {"a": "b"}}, '
               '"status": {"loadBalancer": {}}}')
    assert json.dumps(roundtrip(given)) == printed


def test_struct_values_stay_and_times_become_utc_seconds():
    given = {"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": "d", "creationTimestamp": "2020-01-01T00:00:00.5+01:00"},
             "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    out = roundtrip(given)
    assert out["metadata"]["creationTimestamp"] == "2019-12-31T23:00:00Z"
    assert out["spec"]["strategy"] == {} and out["status"] == {}
    assert out["spec"]["template"]["metadata"] == {"creationTimestamp": None}
    assert out["spec"]["template"]["spec"]["containers"] == [{"name": "c", "image": "x", "resources": {}}]


def test_quantities_go_through_the_hook():
    given = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
             "spec": {"containers": [{"name": "c", "resources": {"limits": {"memory": "1024Mi", "cpu": "1000m"}}}]}}
    seen = []
    out = roundtrip(given, quantity=lambda q: seen.append(q) or f"<{q}>")
    assert out["spec"]["containers"][0]["resources"]["limits"] == {"cpu": "<1000m>", "memory": "<1024Mi>"}
    assert sorted(seen) == ["1000m", "1024Mi"]


def test_wrong_types_fail_as_encoding_json():
    given = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
             "spec": {"containers": [{"name": "c", "image": 5}]}}
    with pytest.raises(TypedError, match="^json: cannot unmarshal number into Go struct field "
                                         "Container.spec.containers.image of type string$"):
        roundtrip(given)


def test_custom_resources_are_untouched():
    cr = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"z": 1, "a": None}}
    assert not is_typed("example.com/v1", "Widget") and is_typed("apps/v1", "Deployment")
    assert roundtrip(cr) is cr

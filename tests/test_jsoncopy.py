"""jsoncopy.clone stands in for copy.deepcopy on the server's hot paths: the same copies."""
from __future__ import annotations

import copy
import threading

import pytest

from kubelite.jsoncopy import clone

POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "p", "labels": {"app": "web"}, "managedFields": [{"manager": "m", "fieldsV1": {}}]},
       "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}],
                "terminationGracePeriodSeconds": 30, "priority": 0, "enableServiceLinks": True},
       "status": {"phase": "Pending", "podIP": None, "ratio": -0.0, "big": 2 ** 70, "text": "é\u2028"}}


def test_a_copy_equal_to_deepcopys_and_sharing_nothing():
    copied = clone(POD)
    assert copied == copy.deepcopy(POD) == POD
    copied["spec"]["containers"][0]["ports"].append({"containerPort": 443})
    copied["metadata"]["labels"]["app"] = "db"
    assert POD["spec"]["containers"][0]["ports"] == [{"containerPort": 80}]
    assert POD["metadata"]["labels"] == {"app": "web"}


def test_types_and_shared_references_kept_as_deepcopy_keeps_them():
    shared = ["x"]
    value = {"a": shared, "b": shared, "t": (1, 2), "f": 1.5, "n": None, "i": 3, "s": "s", "bool": False}
    copied = clone(value)
    assert copied["a"] is copied["b"] and copied["a"] is not shared
    assert [type(v) for v in copied.values()] == [type(v) for v in value.values()]


def test_what_pickle_refuses_is_copied_by_deepcopy():
    def local():
        return 1

    copied = clone({"call": local, "nested": [local]})
    assert copied["call"] is local and copied["nested"][0] is local  # functions are atoms for deepcopy
    with pytest.raises(TypeError):  # neither copies a lock: deepcopy's own error
        clone({"lock": threading.Lock()})

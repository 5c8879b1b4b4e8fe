"""Server-side Tables compared with the ones a real kube-apiserver 1.32.13 returned.

Each recorded Table (tests/data/reference/apiserver/tables/*.table*.json) is rebuilt from
the full objects the server returned with `includeObject=Object`, with `now` derived from
the recorded Age cells, and compared exactly: columnDefinitions, cells, row objects and
the table metadata.
"""
from __future__ import annotations

import datetime
import json
import pathlib
import re

import pytest

from kubelite.server.tables import build_table

DATA = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "tables"
VARIANTS = {"table.json": "Metadata", "table-includeObject-None.json": "None",
            "table-includeObject-Object.json": "Object"}


def _load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def _crd_columns(crd_file: str) -> list:
    crd = _load(crd_file)
    return crd["spec"]["versions"][0].get("additionalPrinterColumns") or []


def _info(prefix: str) -> dict:
    """Resource info from a recording's file prefix (`deployments_apps`, `allnamespaces_pods`...)."""
    prefix = prefix.replace("allnamespaces_", "").replace(".empty-list", "")
    resource, _, group = prefix.partition("_")
    group = group.replace("_", ".")
    info = {"group": group, "resource": resource, "version": "v1", "kind": ""}
    if group == "rc.example.com":
        info["crd"] = f"{resource}.{group}"
        info["printer_columns"] = _crd_columns("crd-rich.get.raw.json" if resource == "widgets"
                                               else "crd-minimal.get.raw.json")
    return info


def _objects_for(prefix: str) -> list:
    """The full objects behind a recorded table (its includeObject=Object sibling)."""
    if prefix == "allnamespaces_pods":
        # Namespaces list in key order: rc-defaults-limits sorts before rc-defaults.
        return [_load("pod-limitrange.get.raw.json"), *_objects_for("pods")]
    source = DATA / f"{prefix}.table-includeObject-Object.json"
    return [row["object"] for row in json.loads(source.read_text())["rows"]]


def _parse_ts(text: str) -> float:
    return datetime.datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc).timestamp()


_SECONDS = re.compile(r"^(?:(\d+)m)?(?:(\d+)s)?$")


def _age_interval(cell) -> tuple[int, int] | None:
    """[lo, hi) seconds an age cell stands for, when it is second-precise (`42s`, `3m5s`)."""
    if not isinstance(cell, str) or not cell:
        return None
    match = _SECONDS.match(cell)
    if not match or match.group(2) is None:
        return None
    seconds = int(match.group(1) or 0) * 60 + int(match.group(2))
    return seconds, seconds + 1


def _derive_now(expected: dict, objects: list) -> datetime.datetime:
    """The moment that reproduces the recorded Age cells (midpoint of the feasible interval)."""
    names = [c["name"] for c in expected["columnDefinitions"] or []]
    low, high = float("-inf"), float("inf")
    if "Age" in names:
        by_name = {o["metadata"]["name"]: o for o in objects}
        index = names.index("Age")
        for row in expected["rows"]:
            interval = _age_interval(row["cells"][index])
            obj = by_name.get(row["cells"][0])
            if interval is None or obj is None:
                continue
            created = _parse_ts(obj["metadata"]["creationTimestamp"])
            low, high = max(low, created + interval[0]), min(high, created + interval[1])
    if low == float("-inf"):
        low = high = _parse_ts("2026-11-21T22:41:00Z")
    assert low <= high, "recorded ages are not consistent with a single moment"
    return datetime.datetime.fromtimestamp((low + high) / 2, datetime.timezone.utc)


def _cases():
    for path in sorted(DATA.glob("*.table*.json")):
        name = path.name
        prefix, _, suffix = name.partition(".table")
        suffix = "table" + suffix
        if prefix.startswith("single_"):
            continue
        if prefix == "pods.empty-list":
            yield pytest.param(name, "pods.empty-list", "Metadata", id=name)
            continue
        yield pytest.param(name, prefix, VARIANTS[suffix], id=name)


@pytest.mark.parametrize("name,prefix,include", list(_cases()))
def test_recorded_table(name: str, prefix: str, include: str) -> None:
    expected = _load(name)
    objects = [] if prefix == "pods.empty-list" else _objects_for(prefix)
    now = _derive_now(expected, objects)
    table = build_table(_info(prefix), objects, now=now, include_object=include,
                        list_meta=expected["metadata"])
    assert table["columnDefinitions"] == expected["columnDefinitions"]
    assert [r["cells"] for r in table["rows"]] == [r["cells"] for r in expected["rows"]]
    assert table == expected


def test_single_object_get_table_carries_the_object_resource_version() -> None:
    expected = _load("single_pod-rich.table.json")
    pod = next(o for o in _objects_for("pods") if o["metadata"]["name"] == "pod-rich")
    table = build_table(_info("pods"), pod, now=_derive_now(expected, [pod]))
    assert table == expected


def test_single_custom_resource_table() -> None:
    expected = _load("single_widget-rich.table.json")
    widget = next(o for o in _objects_for("widgets_rc_example_com") if o["metadata"]["name"] == "widget-rich")
    table = build_table(_info("widgets_rc_example_com"), widget, now=_derive_now(expected, [widget]))
    assert table == expected


def test_single_object_with_full_object() -> None:
    expected = _load("single_deployment-rich.table-includeObject-Object.json")
    deployment = expected["rows"][0]["object"]
    table = build_table(_info("deployments_apps"), deployment, now=_derive_now(expected, [deployment]),
                        include_object="Object")
    assert table == expected


def _http_body(name: str) -> list[dict]:
    text = (DATA / name).read_text()
    body = text.split("\r\n\r\n", 1)[1] if "\r\n\r\n" in text else text.split("\n\n", 1)[1]
    return [json.loads(line) for line in body.splitlines() if line.startswith("{")]


def test_v1beta1_table() -> None:
    (expected,) = _http_body("accept_table-v1beta1.http")
    objects = _objects_for("pods")
    table = build_table(_info("pods"), objects, now=_derive_now(expected, objects),
                        list_meta=expected["metadata"], table_version="v1beta1")
    assert table == expected


def test_watch_events_carry_one_row_tables_and_columns_only_first() -> None:
    events = _http_body("accept_table-watch.http")
    objects = {o["metadata"]["name"]: o for o in _objects_for("configmaps")}
    assert len(events) >= 2
    for position, event in enumerate(events):
        expected = event["object"]
        obj = objects[expected["rows"][0]["cells"][0]]
        columns = _load("configmaps.table.json")["columnDefinitions"]
        probe = dict(expected, columnDefinitions=columns)
        table = build_table(_info("configmaps"), obj, now=_derive_now(probe, [obj]),
                            with_columns=position == 0)
        assert table == expected

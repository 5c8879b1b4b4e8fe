"""Table printer: recorded `kubectl get` output of a real kube-apiserver v1.32.13."""

import json
import re
from pathlib import Path

import pytest

from kubelite.manifest import table

TABLES = Path(__file__).parent.parent / "data" / "reference" / "tables"


def _expected(name: str) -> str:
    """The recorded stdout (the file ends with an `[exit=N]` trailer)."""
    text = (TABLES / name).read_text()
    body, _, trailer = text.rpartition("[exit=")
    assert trailer.startswith("0]"), name
    return body


def _table(name: str) -> dict:
    return json.loads((TABLES / name).read_text())


def _mask_ages(text: str) -> str:
    # The Table JSON and the kubectl run were recorded a few seconds apart, so
    # server-computed AGE cells can differ; everything else must match exactly.
    return re.sub(r"(?<=\s)\d+(?:s|m|h|d|y)(?:\d+(?:s|m|h|d))?(?=\s|$)", "<age>", text)


_RESOURCES = sorted(p.name[: -len(".get.txt")] for p in TABLES.glob("*.get.txt") if (TABLES / (p.name[: -len(".get.txt")] + ".table.json")).exists())


@pytest.mark.parametrize("resource", _RESOURCES)
@pytest.mark.parametrize("wide", [False, True], ids=["plain", "wide"])
def test_get_matches_kubectl(resource, wide):
    expected_file = f"{resource}.get-wide.txt" if wide else f"{resource}.get.txt"
    if not (TABLES / expected_file).exists():
        pytest.skip("no recording")
    got = table.render([_table(f"{resource}.table.json")], wide=wide, all_namespaces=resource.startswith("allnamespaces"))
    expected = _expected(expected_file)
    if got != expected:
        # Only tolerated difference: the age of objects between the two recordings.
        assert _mask_ages(got) == _mask_ages(expected)
        assert len(got) == len(expected)


def test_all_namespaces_adds_namespace_column_first():
    got = table.render([_table("allnamespaces_pods.table.json")], all_namespaces=True)
    assert got == _expected("allnamespaces_pods.get.txt")
    assert got.startswith("NAMESPACE            NAME ")


def test_show_labels():
    got = table.render([_table("pods.table.json")], show_labels=True)
    assert _mask_ages(got) == _mask_ages(_expected("pods.get-show-labels.txt"))
    assert got.splitlines()[1].endswith("   <none>")


def test_show_kind_wide_for_custom_resources():
    got = table.render([_table("widgets_rc_example_com.table.json")], wide=True, kind="widget.rc.example.com")
    assert _mask_ages(got) == _mask_ages(_expected("widgets.get-wide-show-kind.txt"))


def test_two_resource_types_are_separated_by_a_blank_line():
    got = table.render_groups(
        [
            ("deployment.apps", [_table("deployments_apps.table.json")], True),
            ("service", [_table("services.table.json")], True),
        ]
    )
    assert _mask_ages(got) == _mask_ages(_expected("deployments+services.get.txt"))
    assert "\n\nNAME " in got


def test_empty_list_prints_nothing_and_message_goes_to_stderr():
    assert table.render([_table("pods.empty-list.table.json")]) == ""
    assert table.no_resources_message("rc-empty-does-not-exist") == _expected("pods.get-empty-namespace.txt")
    assert table.no_resources_message() == "No resources found\n"


def test_no_headers_drops_header_only():
    plain = table.render([_table("deployments_apps.table.json")])
    bare = table.render([_table("deployments_apps.table.json")], no_headers=True)
    # Column widths are computed from the rows alone once the header is gone.
    assert [line.split() for line in bare.splitlines()] == [line.split() for line in plain.splitlines()[1:]]
    assert bare.startswith("deployment-minimal    0/1   0")


def test_label_columns_use_last_path_segment_upper_cased():
    t = _table("pods.table.json")
    got = table.render([t], label_columns=["app", "tier"])
    header, *rows = got.splitlines()
    assert header.split()[-2:] == ["APP", "TIER"]
    assert rows[2].split()[-2:] == ["rich", "web"]
    # A pod without the label gets an empty cell, not <none>.
    assert rows[0].split()[-1] == rows[0].split()[4]
    prefixed = table.render([t], label_columns=["example.com/tier"])
    assert prefixed.splitlines()[0].endswith("   TIER")


def _sorting_table(values):
    rows = [
        {"cells": [f"obj{i}", "x"], "object": {"metadata": {"name": f"obj{i}"}, "spec": {"v": v}}}
        for i, v in enumerate(values)
    ]
    columns = [{"name": "Name", "type": "string", "format": "name"}, {"name": "X", "type": "string"}]
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "columnDefinitions": columns, "rows": rows}


def _names(text):
    return [line.split()[0] for line in text.splitlines()[1:]]


def test_sort_by_numbers_and_quantities():
    assert _names(table.render([_sorting_table([3, 1, 2])], sort_by=".spec.v")) == ["obj1", "obj2", "obj0"]
    assert _names(table.render([_sorting_table(["1Gi", "512Mi", "2"])], sort_by="{.spec.v}")) == ["obj2", "obj1", "obj0"]
    assert _names(table.render([_sorting_table(["b", "a", "c"])], sort_by="spec.v")) == ["obj1", "obj0", "obj2"]


def test_sort_by_missing_field_everywhere_is_an_error():
    with pytest.raises(table.TableError, match=r'couldn\'t find any field with path "\{.spec.nope\}"'):
        table.render([_sorting_table([1, 2])], sort_by=".spec.nope")


def test_sort_by_name_on_recorded_objects():
    t = _table("pods.table-includeObject-Object.json")
    t["rows"].reverse()
    got = table.render([t], sort_by=".metadata.name")
    assert _names(got) == ["pod-hostnetwork", "pod-minimal", "pod-rich"]


def test_multiline_and_escape_cells():
    t = _sorting_table([1])
    t["rows"][0]["cells"] = ["a\x1bb", "line1\nline2"]
    assert table.render([t]).splitlines()[1] == "a^[b   line1..."


def test_tabwriter_min_width_and_padding():
    w = table.TabWriter()
    w.write("A\tBB\tC\nxx\ty\tz\n")
    w.flush()
    assert w.getvalue() == "A     BB    C\nxx    y     z\n"


# Values from the issue and from apimachinery's documented HumanDuration cases.
@pytest.mark.parametrize(
    "seconds, text",
    [
        (5, "5s"), (3 * 60 + 2, "3m2s"), (4 * 3600, "4h"), (2 * 86400 + 3 * 3600, "2d3h"), (10 * 86400, "10d"),
        ((2 * 365 + 40) * 86400, "2y40d"),
        (1, "1s"), (70, "70s"), (190, "3m10s"), (70 * 60, "70m"), (47 * 3600, "47h"), (49 * 3600, "2d1h"),
        ((8 * 24 + 2) * 3600, "8d"), (367 * 24 * 3600, "367d"), ((365 * 2 * 24 + 25) * 3600, "2y1d"),
        ((365 * 8 * 24 + 2) * 3600, "8y"),
        (-2, "<invalid>"), (-2 + 1e-9, "0s"), (0, "0s"), (0.999, "0s"), (119.999, "119s"), (120, "2m"),
        (121, "2m1s"), (599.999, "9m59s"), (600, "10m"), (601, "10m"), (3 * 3600 - 0.001, "179m"),
        (3 * 3600, "3h"), (3 * 3600 + 60, "3h1m"), (8 * 3600 - 0.001, "7h59m"), (8 * 3600, "8h"),
        (8 * 3600 + 59 * 60, "8h"), (2 * 86400 - 0.001, "47h"), (2 * 86400, "2d"), (2 * 86400 + 3600, "2d1h"),
        (8 * 86400 - 0.001, "7d23h"), (8 * 86400, "8d"), (8 * 86400 + 23 * 3600, "8d"),
        (2 * 365 * 86400 - 0.001, "729d"), (2 * 365 * 86400, "2y"), (2 * 365 * 86400 + 23 * 3600, "2y"),
        (2 * 365 * 86400 + 86400, "2y1d"), (3 * 365 * 86400, "3y"), (7 * 365 * 86400, "7y"),
        (8 * 365 * 86400 - 0.001, "7y364d"), (8 * 365 * 86400, "8y"), (9 * 365 * 86400, "9y"),
    ],
)
def test_human_duration(seconds, text):
    assert table.human_duration(seconds) == text

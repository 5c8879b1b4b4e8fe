"""custom-columns printer: recorded kubectl output plus kubectl's spec rules."""

import json
from pathlib import Path

import pytest

from kubelite.manifest import columns

TABLES = Path(__file__).parent.parent / "data" / "reference" / "tables"


def _recorded(name):
    return (TABLES / name).read_text().rpartition("[exit=")[0]


def _pods():
    table = json.loads((TABLES / "pods.table-includeObject-Object.json").read_text())
    return [row["object"] for row in table["rows"]]


def test_recorded_custom_columns():
    spec = "NAME:.metadata.name,SA:.spec.serviceAccountName,QOS:.status.qosClass"
    assert columns.render(spec, _pods()) == _recorded("pods.get-custom-columns.txt")


def test_relaxed_paths_and_list_input_are_equivalent():
    spec = "NAME:metadata.name,SA:{.spec.serviceAccountName},QOS:{status.qosClass}"
    as_list = {"apiVersion": "v1", "kind": "List", "items": _pods()}
    assert columns.render(spec, as_list) == _recorded("pods.get-custom-columns.txt")


def test_custom_columns_file_form():
    text = "NAME   SA   QOS\n.metadata.name .spec.serviceAccountName  .status.qosClass\n"
    got = columns.render_columns(columns.parse_file(text), _pods())
    assert got == _recorded("pods.get-custom-columns.txt")


def test_no_headers():
    spec = "NAME:.metadata.name,SA:.spec.serviceAccountName,QOS:.status.qosClass"
    lines = columns.render(spec, _pods(), no_headers=True).splitlines()
    assert [line.split() for line in lines] == [line.split() for line in _recorded("pods.get-custom-columns.txt").splitlines()[1:]]


def test_missing_values_print_none_and_lists_join_with_commas():
    got = columns.render("NAME:.metadata.name,X:.spec.nope,C:.spec.containers[*].name", _pods()).splitlines()
    assert got[0].split() == ["NAME", "X", "C"]
    assert got[1].split()[1] == "<none>"
    # pod-rich has three containers
    assert "," in got[3].split()[2]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "custom-columns format specified but no custom columns given"),
        ("NAME", "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"),
        ("A:{.a}{.b}", "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'"),
    ],
)
def test_spec_errors(spec, message):
    with pytest.raises(columns.ColumnsError) as err:
        columns.parse_spec(spec)
    assert str(err.value) == message


def test_file_header_spec_count_mismatch():
    with pytest.raises(columns.ColumnsError, match=r"number of headers \(2\) and field specifications \(1\) don't match"):
        columns.parse_file("A B\n.a\n")

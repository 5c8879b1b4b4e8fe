"""read_sources / read_text: sources, documents, Lists, origins, and every kind of bad input."""
from __future__ import annotations

import builtins
import contextlib
import io
import os
import pathlib
import shutil
import socket
import subprocess

import pytest

from kubelite.manifest import Manifest, ManifestError, NoObjectsError, read_sources, read_text
from loopback import serving_directory

KUBECTL = "/usr/bin/kubectl"
STOP = "if you choose to ignore these errors, turn validation off with --validate=false"


def cm(name: str, extra: str = "") -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{extra}"


def names(manifests: list[Manifest]) -> list[str]:
    return [m.obj["metadata"]["name"] for m in manifests]


@pytest.fixture
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "tree"
    for rel in ["z.yaml", "b/1.yml", "a/c/x.json", "a/y.yaml", "A.yaml", "_u.yaml", "b.yaml", "a.txt", "UP.YAML"]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        name = rel.replace("/", "-").replace(".", "-").replace("_", "u").lower()
        if rel.endswith(".json"):
            path.write_text('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "%s"}}' % name)
        else:
            path.write_text(cm(name))
    return root


# -- sources ---------------------------------------------------------------------

def test_directory_reads_only_manifest_extensions_in_sorted_order(tree):
    assert names(read_sources([str(tree)])) == ["a-yaml", "uu-yaml", "b-yaml", "z-yaml"]


def test_recursive_directory_walks_subdirectories_depth_first(tree):
    assert names(read_sources([str(tree)], recursive=True)) == [
        "a-yaml", "uu-yaml", "a-c-x-json", "a-y-yaml", "b-1-yml", "b-yaml", "z-yaml"]


def test_file_named_explicitly_is_read_whatever_its_extension(tree):
    assert names(read_sources([str(tree / "a.txt"), str(tree / "UP.YAML")])) == ["a-txt", "up-yaml"]


def test_several_paths_keep_their_order(tree):
    got = read_sources([str(tree / "z.yaml"), str(tree / "b"), str(tree / "A.yaml")])
    assert names(got) == ["z-yaml", "b-1-yml", "a-yaml"]


def test_glob_pattern_expands_sorted(tree):
    assert names(read_sources([str(tree / "*.yaml")])) == ["a-yaml", "uu-yaml", "b-yaml", "z-yaml"]


def test_stdin_as_bytes_text_and_stream():
    text = cm("one") + "---\n" + cm("two")
    for stdin in (text, text.encode(), io.BytesIO(text.encode())):
        got = read_sources(["-"], stdin=stdin)
        assert names(got) == ["one", "two"]
        assert got[0].source == "STDIN"


def test_origins_name_source_document_and_line(tmp_path):
    path = tmp_path / "multi.yaml"
    path.write_text("# leading comment\n" + cm("a") + "---\n---\n" + cm("b") + "--- # c\n"
                    + "apiVersion: v1\nkind: List\nitems:\n- " + cm("c").replace("\n", "\n  ").rstrip() + "\n")
    got = read_sources([str(path)])
    assert names(got) == ["a", "b", "c"]
    assert [(m.document, m.line, m.item) for m in got] == [(0, 1, None), (1, 7, None), (2, 13, 0)]
    assert all(m.source == str(path) for m in got)
    assert got[2].where() == f"{path}:13 (items[0])"


def test_json_stream_and_json_lines(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}\n\n'
                    '  {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}{"apiVersion":"v1",'
                    '"kind":"ConfigMap","metadata":{"name":"c"}}')
    got = read_sources([str(path)])
    assert names(got) == ["a", "b", "c"]
    assert [m.line for m in got] == [1, 3, 3]


def test_lists_flatten_with_kind_defaulting():
    text = """apiVersion: v1
kind: ConfigMapList
items:
- metadata: {name: a}
- apiVersion: v1
  kind: Secret
  metadata: {name: b}
"""
    got = read_text(text, "f.yaml")
    assert names(got) == ["a", "b"]
    assert got[0].obj["kind"] == "ConfigMap" and got[0].obj["apiVersion"] == "v1"
    assert got[1].obj["kind"] == "Secret"
    assert [m.item for m in got] == [0, 1]


def test_any_object_with_items_is_a_list():
    got = read_text("apiVersion: v1\nkind: Anything\nitems:\n- {apiVersion: v1, kind: X, metadata: {name: x}}\n", "f")
    assert names(got) == ["x"]


def test_list_inside_a_list_is_refused_as_by_kubectl():
    text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n"
    with pytest.raises(ManifestError) as caught:
        read_text(text, "f.yaml")
    assert str(caught.value) == "*unstructured.Unstructured is not a list: no Items field in this object"


def test_list_with_null_items_holds_nothing():
    with pytest.raises(NoObjectsError):
        read_sources(["-"], stdin="apiVersion: v1\nkind: ConfigMapList\nitems: null\n")


def test_empty_documents_are_skipped():
    got = read_text("---\n\n---\n# only a comment\n---\nnull\n---\n" + cm("a") + "---\n~\n", "f.yaml")
    assert names(got) == ["a"]


def test_bom_and_utf16_and_crlf():
    body = cm("bom", "data:\n  k: é\n")
    assert read_sources(["-"], stdin=b"\xef\xbb\xbf" + body.encode())[0].obj["data"]["k"] == "é"
    assert names(read_sources(["-"], stdin=body.encode("utf-16"))) == ["bom"]
    assert read_sources(["-"], stdin=body.replace("\n", "\r\n"))[0].obj["data"] == {"k": "é"}


def test_duplicate_keys_last_wins():
    assert read_text(cm("a", "data:\n  k: one\n  k: two\n"), "f")[0].obj["data"] == {"k": "two"}
    json_text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"1","k":"2"}}'
    assert read_text(json_text, "f")[0].obj["data"] == {"k": "2"}


def test_numbers_follow_the_json_round_trip():
    obj = read_text(cm("n", "spec:\n  big: 12345678901234567890\n  f: 1.0\n  e: 1e3\n  neg0: -0.0\n"
                           "  small: 1.5e-7\n  huge: 1e400\n  i64: 9223372036854775807\n"), "f")[0].obj
    assert obj["spec"] == {"big": 1.2345678901234567e19, "f": 1, "e": 1000, "neg0": 0, "small": 1.5e-7,
                           "huge": "1e400", "i64": 9223372036854775807}
    assert type(obj["spec"]["f"]) is int and type(obj["spec"]["big"]) is float


# -- URLs --------------------------------------------------------------------------

@contextlib.contextmanager
def serve(directory: pathlib.Path):
    with serving_directory(directory) as server:
        yield server.url


def test_url_is_fetched(tmp_path):
    (tmp_path / "m.yaml").write_text(cm("a") + "---\n" + cm("b"))
    with serve(tmp_path) as base:
        got = read_sources([f"{base}/m.yaml", str(tmp_path / "m.yaml")])
    assert names(got) == ["a", "b", "a", "b"]
    assert got[0].source == f"{base}/m.yaml"


def test_url_not_found(tmp_path):
    with serve(tmp_path) as base:
        with pytest.raises(ManifestError) as caught:
            read_sources([f"{base}/missing.yaml"])
    assert str(caught.value) == (f'unable to read URL "{base}/missing.yaml", server reported 404 File not found, '
                                 "status code=404")


def test_unreachable_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ManifestError) as caught:
        read_sources([f"http://127.0.0.1:{port}/x.yaml"])
    assert str(caught.value) == (f"The connection to the server 127.0.0.1:{port} was refused - "
                                 "did you specify the right host or port?")


def test_fetch_can_be_replaced():
    got = read_sources(["https://example.invalid/x.yaml"], fetch=lambda url: cm("fetched").encode())
    assert names(got) == ["fetched"]


# -- bad input ---------------------------------------------------------------------

def _fails(tmp_path, content, name="f.yaml", **kw) -> ManifestError:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = None
    with pytest.raises(ManifestError) as caught:
        result = read_sources([str(path)], **kw)
    assert result is None
    return caught.value


BAD_CASES = {
    "nokind": ("metadata:\n  name: a\n",
               'error validating "{f}": error validating data: [apiVersion not set, kind not set]; ' + STOP),
    "noapi": ("kind: ConfigMap\nmetadata:\n  name: a\n",
              'error validating "{f}": error validating data: apiVersion not set; ' + STOP),
    "nokindonly": ("apiVersion: v1\nmetadata:\n  name: a\n",
                   'error validating "{f}": error validating data: kind not set; ' + STOP),
    "sequence": ("- a\n- b\n", 'error validating "{f}": error validating data: invalid object to validate; ' + STOP),
    "scalar": ("hello\n", 'error validating "{f}": error validating data: invalid object to validate; ' + STOP),
    "types": ("apiVersion: 5\nkind: [1]\n",
              'error validating "{f}": error validating data: [apiVersion isn\'t string type, kind isn\'t string '
              "type]; " + STOP),
    "groupversion": ("apiVersion: a/b/c\nkind: X\n",
                     'error validating "{f}": error validating data: unexpected GroupVersion string: a/b/c; ' + STOP),
    "listitems": ("apiVersion: v1\nkind: List\nitems:\n- metadata: {name: a}\n- kind: ConfigMap\n",
                  'error validating "{f}": error validating data: [apiVersion not set, kind not set]; ' + STOP),
    "emptykind": ('apiVersion: ""\nkind: ""\n',
                  "unable to decode \"{f}\": Object 'Kind' is missing in '{{\"apiVersion\":\"\",\"kind\":\"\"}}'"),
    "badyaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  x: [\n",
                "error parsing {f}: error converting YAML to JSON: yaml: line 5: did not find expected node content"),
    "listitemsnumber": ("apiVersion: v1\nkind: ConfigMapList\nitems: 5\n",
                        'unable to decode "{f}": json: cannot unmarshal number into Go struct field '
                        "decodeList.items of type []json.RawMessage"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_documents(case, tmp_path):
    content, message = BAD_CASES[case]
    err = _fails(tmp_path, content)
    path = str(tmp_path / "f.yaml")
    assert str(err) == message.format(f=path)
    assert err.source == path and err.line


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed")
@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_document_messages_are_kubectls(case, tmp_path):
    content, _ = BAD_CASES[case]
    path = tmp_path / "f.yaml"
    path.write_text(content)
    env = dict(os.environ, KUBECONFIG="/dev/null")
    done = subprocess.run([KUBECTL, "create", "--dry-run=client", "-f", str(path), "-o", "name"],
                          capture_output=True, text=True, env=env, timeout=60)
    if "failed to download openapi" in done.stderr:
        # kubectl checks kind/apiVersion while validating, decodes afterwards
        done = subprocess.run([KUBECTL, "create", "--dry-run=client", "--validate=false", "-f", str(path),
                               "-o", "name"], capture_output=True, text=True, env=env, timeout=60)
    with pytest.raises(ManifestError) as caught:
        read_sources([str(path)])
    assert done.stderr.strip() == "error: " + str(caught.value)


def test_empty_file_has_no_objects(tmp_path):
    err = _fails(tmp_path, "", verb="apply")
    assert isinstance(err, NoObjectsError) and str(err) == "no objects passed to apply"
    assert str(_fails(tmp_path, "# nothing\n---\n", verb="create")) == "no objects passed to create"


def test_binary_junk(tmp_path):
    err = _fails(tmp_path, b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe\x00junk")
    assert str(err) == (f"error parsing {tmp_path / 'f.yaml'}: error converting YAML to JSON: "
                        "yaml: control characters are not allowed")


def test_invalid_utf8(tmp_path):
    err = _fails(tmp_path, b"apiVersion: v1\nkind: A\nx: \xff\xfe\n")
    assert str(err).startswith(f"error parsing {tmp_path / 'f.yaml'}: error converting YAML to JSON: yaml: "
                               "invalid leading UTF-8 octet")
    assert err.line == 3


def test_invalid_json(tmp_path):
    err = _fails(tmp_path, '{"apiVersion": "v1",\n "kind": "ConfigMap",}', name="f.json")
    assert str(err) == (f"error parsing {tmp_path / 'f.json'}: json: offset 43: invalid character '}}' "
                        "looking for beginning of object key string")
    assert err.line == 2


def test_json_nan_is_refused(tmp_path):
    err = _fails(tmp_path, '{"apiVersion": "v1", "kind": "A", "x": NaN}', name="f.json")
    assert "invalid character 'N' looking for beginning of value" in str(err)


def test_yaml_infinity_cannot_become_json(tmp_path):
    err = _fails(tmp_path, "apiVersion: v1\nkind: A\nx: .inf\n")
    assert str(err) == (f"error parsing {tmp_path / 'f.yaml'}: error converting YAML to JSON: "
                        "json: unsupported value: +Inf")


def test_bad_separator(tmp_path):
    err = _fails(tmp_path, cm("a") + "--- {a: 1}\n")
    assert str(err) == f"error parsing {tmp_path / 'f.yaml'}: invalid Yaml document separator: {{a: 1}}"
    assert err.line == 5


def test_missing_path(tmp_path):
    missing = str(tmp_path / "nope.yaml")
    with pytest.raises(ManifestError) as caught:
        read_sources([missing])
    assert str(caught.value) == f'the path "{missing}" does not exist'


def test_several_missing_paths_reported_together(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b*.yaml")
    with pytest.raises(ManifestError) as caught:
        read_sources([a, b])
    assert str(caught.value) == f'[the path "{a}" does not exist, the path "{b}" does not exist]'


def test_directory_without_manifests(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text(cm("x"))
    with pytest.raises(ManifestError) as caught:
        read_sources([str(empty)])
    assert str(caught.value) == f"error reading [{empty}]: recognized file extensions are [.json .yaml .yml]"


def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "secret.yaml"
    path.write_text(cm("a"))
    real_open = builtins.open

    def refusing_open(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", refusing_open)
    with pytest.raises(ManifestError) as caught:
        read_sources([str(tmp_path / "ok.yaml") if False else str(path)])
    assert str(caught.value) == f"open {path}: permission denied"


def test_a_bad_source_returns_nothing_even_after_good_ones(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(cm("a"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: ConfigMap\n")
    result = None
    with pytest.raises(ManifestError):
        result = read_sources([str(good), str(bad)])
    assert result is None


def test_without_validation_kubectls_decode_errors_apply(tmp_path):
    path = tmp_path / "f.yaml"
    path.write_text("- a\n")
    with pytest.raises(ManifestError) as caught:
        read_sources([str(path)], validate=False)
    assert str(caught.value) == (f'unable to decode "{path}": json: cannot unmarshal array into Go value of type '
                                 "unstructured.detector")

"""kubelite.client.kubeconfig_yaml against yaml.safe_load: wherever it answers, it answers what
PyYAML does (values and their types); the kubeconfig files kubectl and `kubelite serve` write are
read without PyYAML; anything else is left to PyYAML (None)."""
from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubelite.client.kubeconfig_yaml import load

# Words PyYAML's YAML 1.1 resolvers treat specially, next to ordinary ones.
WORDS = ["yes", "No", "ON", "off", "true", "False", "null", "Null", "~", "0", "7", "012", "0x1F", "1_000", "1e3",
         "1.5", ".5", ".inf", ".NaN", "12:30", "2024-01-01", "2024-1-1 10:00:00", "-1", "+2", "--flag=v", "-x",
         "5PyqQOgQ", "v1", "Config", "nginx:1.27", "https://127.0.0.1:6443", "a:b", "a: b", "a #b", "#c", "a#b",
         "", "'q'", '"d"', "it's", "x\\y", "{}", "[]", "{a: 1}", "[1, 2]", "&a", "*a", "!tag", "| x", "> y", "?k",
         "%p", "@at", "`t", "é", "LS0tLS1CRUdJTi==", "/path/to/ca.crt", "user@example.com", "a,b", "k=v&x=y"]
keys = st.sampled_from(["a", "name", "server", "on", "yes", "null", "1", "x-y", "a.b", "with space", "'q'",
                        "k:v"])
scalars = st.one_of(st.sampled_from(WORDS), st.booleans(), st.none(), st.integers(-5, 5000),
                    st.text(alphabet="abcXYZ019 :#-'\".,{}[]&*!|>%@`\\", max_size=8))
documents = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(keys, inner, max_size=4)), max_leaves=20)


def agrees(text: str) -> bool:
    mine = load(text)
    if mine is None:
        return True
    try:
        theirs = yaml.safe_load(text)
    except yaml.YAMLError:
        return False  # PyYAML refuses what was read
    return mine == theirs and repr(mine) == repr(theirs)  # repr: True is not 1, 7 is not '7'


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, documents, min_size=1, max_size=5))
def test_agrees_with_pyyaml_on_its_own_dumps(doc):
    text = yaml.safe_dump(doc, default_flow_style=False, sort_keys=False)
    assert agrees(text), text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["- ", "", "k: ", "- k: ", "k:", "-"]),
                          st.sampled_from(WORDS)), min_size=1, max_size=8))
def test_agrees_with_pyyaml_on_arbitrary_lines(parts):
    text = "".join(f"{'  ' * depth}{lead}{word}\n" for depth, lead, word in parts)
    assert agrees(text), text


SERVED = """apiVersion: v1
kind: Config
clusters:
- name: kubelite
  cluster:
    server: https://127.0.0.1:38443
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJjakND+/=
users:
- name: kubelite-admin
  user:
    token: 5PyqQOgQnxdQCcjSup0M02URRonftf28x6ZYdeytRSg
contexts:
- name: kubelite
  context:
    cluster: kubelite
    user: kubelite-admin
current-context: kubelite
preferences: {}
"""


def test_a_served_kubeconfig_is_read_without_pyyaml():
    assert load(SERVED) == yaml.safe_load(SERVED)


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not installed")
def test_kubeconfigs_kubectl_writes(tmp_path):
    path = tmp_path / "config"
    steps = [["set-cluster", "c1", "--server=https://1.2.3.4:6443", "--insecure-skip-tls-verify=true"],
             ["set-cluster", "c2", "--server=http://[::1]:8080", "--tls-server-name=api.local"],
             ["set-credentials", "u1", "--token=0123abc.xyz"],
             ["set-credentials", "u2", "--username=admin", "--password=p@ss w#rd: yes"],
             ["set-context", "ctx", "--cluster=c1", "--user=u1", "--namespace=on"],
             ["use-context", "ctx"], ["set", "preferences.colors", "true"]]
    for step in steps:
        r = subprocess.run(["kubectl", "--kubeconfig", str(path), "config", *step], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        text = path.read_text()
        assert load(text) is not None, text
        assert agrees(text), text

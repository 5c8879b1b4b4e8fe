"""The resource registry against what a real kube-apiserver 1.32.13 served (tests/data/reference)."""
from __future__ import annotations

import copy
import json
import pathlib

import pytest
import yaml

from kubelite.record import replace
from kubelite.server.resources import (
    CRD_VERBS,
    InvalidCustomResourceDefinition,
    Registry,
    ResourceInfo,
    ResourceNotFound,
    version_priority,
)

REF = pathlib.Path(__file__).resolve().parent.parent / "data" / "reference"
COLUMNS = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"]


def api_resources_rows() -> list[dict]:
    """`kubectl api-resources -o wide` as recorded, one dict per row."""
    lines = (REF / "api-resources.txt").read_text().splitlines()
    starts = [lines[0].index(c) for c in COLUMNS] + [None]
    return [{c: line[starts[i]:starts[i + 1]].strip() for i, c in enumerate(COLUMNS)} for line in lines[1:]]


def aggregated_entries():
    """(group, version, entry) for every resource of the recorded aggregated discovery."""
    for name, legacy in (("api-aggregated-v2.json", True), ("apis-aggregated-v2.json", False)):
        doc = json.loads((REF / name).read_text())
        for item in doc["items"]:
            group = "" if legacy else item["metadata"]["name"]
            for version in item["versions"]:
                for entry in version["resources"]:
                    yield group, version["version"], entry


ROWS = api_resources_rows()
ENTRIES = list(aggregated_entries())


def crd_rich() -> dict:
    return yaml.safe_load((REF / "apiserver" / "defaults" / "crd-rich.in.yaml").read_text())


def crd_minimal() -> dict:
    return yaml.safe_load((REF / "apiserver" / "defaults" / "crd-minimal.in.yaml").read_text())


@pytest.fixture
def registry() -> Registry:
    return Registry()


def _row_of(info: ResourceInfo) -> dict:
    return {
        "NAME": info.resource,
        "SHORTNAMES": ",".join(info.short_names),
        "APIVERSION": info.api_version,
        "NAMESPACED": "true" if info.namespaced else "false",
        "KIND": info.kind,
        "VERBS": ",".join(sorted(info.verbs)),
        "CATEGORIES": ",".join(info.categories),
    }


# -- the built-in table -------------------------------------------------------------------------


def test_preferred_resources_are_exactly_kubectl_api_resources(registry):
    mine = sorted((_row_of(i) for i in registry.preferred()), key=lambda r: (r["APIVERSION"], r["NAME"]))
    recorded = sorted(ROWS, key=lambda r: (r["APIVERSION"], r["NAME"]))
    assert mine == recorded


@pytest.mark.parametrize("group,version,entry", ENTRIES, ids=lambda x: x if isinstance(x, str) else None)
def test_every_recorded_resource_is_known_with_its_facts(registry, group, version, entry):
    info = registry.lookup(group, version, entry["resource"])
    assert info is not None
    assert info.kind == entry["responseKind"]["kind"]
    assert info.scope == entry["scope"]
    assert info.singular == entry["singularResource"]
    assert list(info.verbs) == entry["verbs"]
    assert list(info.short_names) == entry.get("shortNames", [])
    assert list(info.categories) == entry.get("categories", [])
    subs = [(s.name, s.group, s.version, s.kind, list(s.verbs)) for s in info.subresources]
    assert subs == [(s["subresource"], s["responseKind"]["group"], s["responseKind"]["version"],
                     s["responseKind"]["kind"], s["verbs"]) for s in entry.get("subresources", [])]
    assert registry.by_kind(group, version, info.kind) is info


def test_all_lists_every_version(registry):
    assert len(registry.all()) == len(ENTRIES)
    hpa = [i.version for i in registry.all() if i.resource == "horizontalpodautoscalers"]
    assert hpa == ["v2", "v1"]
    assert registry.preferred_version("autoscaling") == "v2"


def test_no_openshift_resources(registry):
    assert not [i for i in registry.all() if "openshift" in i.group]


def test_lookup_unknown_is_none(registry):
    assert registry.lookup("apps", "v1", "pods") is None
    assert registry.lookup("", "v1", "deployments") is None
    assert registry.by_kind("apps", "v1beta1", "Deployment") is None


def test_subresource_accessor(registry):
    pods = registry.lookup("", "v1", "pods")
    assert pods.subresource("log").kind == "Pod"
    eviction = pods.subresource("eviction")
    assert (eviction.group, eviction.version, eviction.kind) == ("policy", "v1", "Eviction")
    assert pods.subresource("scale") is None
    scale = registry.lookup("apps", "v1", "deployments").subresource("scale")
    assert (scale.group, scale.version, scale.kind, scale.verbs) == ("autoscaling", "v1", "Scale", ("get", "patch", "update"))


def test_group_resource_spelling(registry):
    assert registry.lookup("apps", "v1", "deployments").group_resource == "deployments.apps"
    assert registry.lookup("", "v1", "pods").group_resource == "pods"


def test_builtin_table_is_shared_but_registries_are_independent():
    a, b = Registry(), Registry()
    a.register_crd(crd_rich())
    assert a.lookup("rc.example.com", "v1", "widgets") is not None
    assert b.lookup("rc.example.com", "v1", "widgets") is None
    assert a.lookup("apps", "v1", "deployments") is b.lookup("apps", "v1", "deployments")


# -- resolve: what users type -------------------------------------------------------------------


def _names_for(row: dict) -> list[str]:
    group, _, version = row["APIVERSION"].rpartition("/")
    names = [row["NAME"], row["KIND"], row["KIND"].lower(), row["NAME"].upper()]
    names += [s for s in row["SHORTNAMES"].split(",") if s]
    if group:
        names += [f"{row['NAME']}.{group}", f"{row['NAME']}.{version}.{group}", f"{row['KIND']}.{group}"]
        names += [f"{s}.{group}" for s in row["SHORTNAMES"].split(",") if s]
    return names


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["NAME"] + "." + r["APIVERSION"])
def test_resolve_every_spelling_of_every_resource(registry, row):
    for name in _names_for(row):
        info = registry.resolve(name)
        if row["NAME"] == "events" and "." not in name:
            # Two groups serve `events`; the core group is listed first in discovery and wins.
            assert info.api_version == "v1"
            continue
        assert (info.resource, info.api_version) == (row["NAME"], row["APIVERSION"]), name


def test_resolve_singular_names_from_discovery(registry):
    for group, version, entry in ENTRIES:
        info = registry.resolve(f"{entry['singularResource']}.{group}" if group else entry["singularResource"])
        assert info.resource == entry["resource"]


def test_resolve_events_qualified_by_group(registry):
    assert registry.resolve("events.events.k8s.io").group == "events.k8s.io"
    assert registry.resolve("ev").group == ""


def test_resolve_non_preferred_version(registry):
    info = registry.resolve("horizontalpodautoscalers.v1.autoscaling")
    assert info.version == "v1"
    assert registry.resolve("hpa").version == "v2"


@pytest.mark.parametrize("name", ["foo", "pods.apps", "deploy.batch", "deployments.v9.apps", "", "  "])
def test_resolve_unknown(registry, name):
    with pytest.raises(ResourceNotFound) as err:
        registry.resolve(name)
    assert "the server doesn't have a resource type" in str(err.value)


def test_by_category_all_matches_reference(registry):
    expected = sorted(r["NAME"] for r in ROWS if "all" in r["CATEGORIES"].split(","))
    assert sorted(i.resource for i in registry.by_category("all")) == expected


# -- CustomResourceDefinitions ------------------------------------------------------------------


def test_register_rich_crd(registry):
    before = registry.generation
    infos = registry.register_crd(crd_rich())
    assert registry.generation > before
    assert len(infos) == 1
    w = registry.lookup("rc.example.com", "v1", "widgets")
    assert w == infos[0]
    assert (w.kind, w.singular, w.namespaced, w.short_names, w.categories) == (
        "Widget", "widget", True, ("wd",), ("all", "rc"))
    assert w.verbs == CRD_VERBS
    assert w.crd == "widgets.rc.example.com"
    assert w.list_kind == "WidgetList"
    assert [(s.name, s.group, s.version, s.kind) for s in w.subresources] == [
        ("scale", "autoscaling", "v1", "Scale"), ("status", "", "", "Widget")]
    assert [c["name"] for c in w.printer_columns] == ["Size", "Replicas", "Color", "Phase", "Age"]
    assert w.schema["properties"]["spec"]["required"] == ["size"]
    for name in ("wd", "widget", "widgets", "Widget", "widgets.rc.example.com", "widgets.v1.rc.example.com", "wd.rc.example.com"):
        assert registry.resolve(name) is w
    assert w in registry.by_category("all")
    assert registry.by_kind("rc.example.com", "v1", "Widget") is w
    assert registry.group("rc.example.com").preferred_version == "v1"
    assert registry.groups()[-1].name == "rc.example.com"


def test_register_minimal_crd_defaults(registry):
    crd = crd_minimal()
    (info,) = registry.register_crd(crd)
    names = crd["spec"]["names"]
    assert info.kind == names["kind"]
    assert info.singular == names.get("singular", names["kind"].lower())
    assert info.subresources == ()
    assert info.list_kind == names.get("listKind", names["kind"] + "List")


def test_crd_versions_served_and_preferred(registry):
    crd = crd_rich()
    v1 = crd["spec"]["versions"][0]
    v1beta1 = dict(copy.deepcopy(v1), name="v1beta1", storage=False)
    v2alpha1 = dict(copy.deepcopy(v1), name="v2alpha1", storage=False, served=False)
    v1beta1.pop("subresources")
    crd["spec"]["versions"] = [v1beta1, v2alpha1, v1]
    infos = registry.register_crd(crd)
    assert [i.version for i in infos] == ["v1beta1", "v1"]
    assert registry.group("rc.example.com").versions == ("v1", "v1beta1")
    assert registry.resolve("wd").version == "v1"
    assert registry.lookup("rc.example.com", "v1beta1", "widgets").subresources == ()
    assert registry.lookup("rc.example.com", "v2alpha1", "widgets") is None
    # Every served version reports the storage version's hash.
    assert len({i.storage_version_hash for i in infos}) == 1


def test_reregister_replaces_and_unregister_removes(registry):
    registry.register_crd(crd_rich())
    crd = crd_rich()
    crd["spec"]["names"]["shortNames"] = ["wdg"]
    registry.register_crd(crd)
    assert registry.resolve("wdg").resource == "widgets"
    with pytest.raises(ResourceNotFound):
        registry.resolve("wd")
    gen = registry.generation
    assert registry.unregister_crd("widgets.rc.example.com") is True
    assert registry.generation > gen
    assert registry.lookup("rc.example.com", "v1", "widgets") is None
    assert registry.group("rc.example.com") is None
    assert registry.unregister_crd("widgets.rc.example.com") is False


def _broken(path: list, value) -> dict:
    crd = crd_rich()
    node = crd
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return crd


@pytest.mark.parametrize("path,value,field", [
    (["spec", "group"], KeyError, "spec.group"),
    (["spec", "names", "plural"], "", "spec.names.plural"),
    (["spec", "names", "kind"], 5, "spec.names.kind"),
    (["spec", "scope"], "Global", "spec.scope"),
    (["spec", "versions"], [], "spec.versions"),
    (["spec", "names", "shortNames"], "wd", "spec.names.shortNames"),
    (["metadata", "name"], "other.rc.example.com", "metadata.name"),
    (["spec", "versions", 0, "storage"], False, "spec.versions"),
    (["spec", "versions", 0, "subresources", "scale"], {"statusReplicasPath": ".status.replicas"},
     "spec.versions[0].subresources.scale"),
    (["spec"], "nope", "spec"),
    (["spec", "versions", 0, "additionalPrinterColumns"], {"name": "x"}, "spec.versions[0].additionalPrinterColumns"),
    (["spec", "versions", 0, "schema", "openAPIV3Schema"], "x", "spec.versions[0].schema.openAPIV3Schema"),
    (["spec", "versions", 0], "v1", "spec.versions[0]"),
])
def test_invalid_crd_names_the_field(registry, path, value, field):
    with pytest.raises(InvalidCustomResourceDefinition) as err:
        registry.register_crd(_broken(path, value))
    assert str(err.value).startswith(field)
    assert registry.generation == 0


def test_registered_crd_is_a_copy(registry):
    crd = crd_rich()
    registry.register_crd(crd)
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["required"] = ["other"]
    crd["spec"]["versions"][0]["additionalPrinterColumns"][0]["name"] = "Other"
    info = registry.lookup("rc.example.com", "v1", "widgets")
    assert info.schema["required"] == ["spec"]
    assert info.printer_columns[0]["name"] == "Size"


def test_crd_may_not_shadow_builtin(registry):
    crd = crd_rich()
    crd["metadata"]["name"] = "deployments.apps"
    crd["spec"]["group"] = "apps"
    crd["spec"]["names"]["plural"] = "deployments"
    with pytest.raises(InvalidCustomResourceDefinition):
        registry.register_crd(crd)
    assert registry.lookup("apps", "v1", "deployments").crd is None


def test_kube_aware_version_order():
    versions = ["v1alpha1", "foo", "v1", "v2beta1", "v11alpha2", "v2", "v1beta2", "v1beta1", "v12alpha1", "bar"]
    assert sorted(versions, key=version_priority) == [
        "v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v12alpha1", "v11alpha2", "v1alpha1", "bar", "foo"]


# -- a registry read from another server's discovery --------------------------------------------


def test_from_discovery_of_the_recorded_server_equals_builtin():
    docs = [json.loads((REF / n).read_text()) for n in ("api-aggregated-v2.json", "apis-aggregated-v2.json")]
    remote = Registry.from_discovery(*docs)
    local = Registry()
    # Aggregated discovery does not carry storage version hashes; everything else must agree.
    assert remote.all() == [replace(i, storage_version_hash="") for i in local.all()]
    assert remote.groups() == local.groups()
    for row in ROWS:
        for name in _names_for(row):
            assert remote.resolve(name).group_resource == local.resolve(name).group_resource


def test_from_discovery_includes_custom_resources():
    from kubelite.server.discovery import aggregated

    served = Registry()
    served.register_crd(crd_rich())
    remote = Registry.from_discovery(aggregated(served, legacy=True), aggregated(served, legacy=False))
    widgets = remote.resolve("wd")
    assert (widgets.group, widgets.version, widgets.kind, widgets.categories) == ("rc.example.com", "v1", "Widget", ("all", "rc"))
    assert [s.name for s in widgets.subresources] == ["scale", "status"]


@pytest.mark.parametrize("doc", [{}, {"items": "x"}, {"items": [{"metadata": {"name": "g"}, "versions": [{"resources": []}]}]}])
def test_from_discovery_rejects_malformed(doc):
    with pytest.raises(ValueError):
        Registry.from_discovery(doc)

"""Derive src/kubelite/server/data/builtin_resources.json from a recorded kube-apiserver.

Usage: python tools/gen_builtin_resources.py [REFERENCE_DIR]   (default /work/shared/reference)

Reads the aggregated discovery documents (every group, version, resource and subresource with
its verbs and response kind), the legacy /apis list (group order and preferred versions), and
cross-checks the result against `kubectl api-resources -o wide`. The product only reads the
generated JSON; this script is kept so the table can be regenerated for another recording.
"""
from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/kubelite/server/data/builtin_resources.json"

# Groups present only in OpenShift's build of kube-apiserver; none were in the 1.32.13 recording,
# the filter stays so a regenerated table cannot pick them up.
OPENSHIFT_GROUP_SUFFIX = ".openshift.io"


def storage_version_hash(group: str, version: str, kind: str) -> str:
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def convert_resource(group: str, storage_version: str, entry: dict) -> dict:
    out = {
        "resource": entry["resource"],
        "kind": entry["responseKind"]["kind"],
        "singular": entry.get("singularResource", ""),
        "namespaced": entry["scope"] == "Namespaced",
        "verbs": entry["verbs"],
    }
    if entry.get("shortNames"):
        out["shortNames"] = entry["shortNames"]
    if entry.get("categories"):
        out["categories"] = entry["categories"]
    # Only resources kept in storage (the watchable ones) report a storage version hash.
    if "watch" in entry["verbs"]:
        out["storageVersionHash"] = storage_version_hash(group, storage_version, out["kind"])
    subs = []
    for sub in entry.get("subresources") or ():
        rk = sub["responseKind"]
        subs.append({"name": sub["subresource"], "group": rk.get("group", ""),
                     "version": rk.get("version", ""), "kind": rk["kind"], "verbs": sub["verbs"]})
    if subs:
        out["subresources"] = subs
    return out


def build(ref: Path) -> dict:
    legacy = json.loads((ref / "api-aggregated-v2.json").read_text())
    grouped = json.loads((ref / "apis-aggregated-v2.json").read_text())
    group_list = json.loads((ref / "apis.json").read_text())
    preferred = {g["name"]: g["preferredVersion"]["version"] for g in group_list["groups"]}
    order = [g["name"] for g in group_list["groups"]]
    items = {"": legacy["items"][0]}
    for item in grouped["items"]:
        items[item["metadata"]["name"]] = item
    groups = []
    for name in [""] + order:
        if name.endswith(OPENSHIFT_GROUP_SUFFIX):
            continue
        item = items[name]
        pref = preferred.get(name, "v1")
        versions = [{"version": v["version"],
                     "resources": [convert_resource(name, pref, r) for r in v["resources"]]}
                    for v in item["versions"]]
        groups.append({"name": name, "preferredVersion": pref, "versions": versions})
    return {"groups": groups}


def cross_check(ref: Path, table: dict) -> list[str]:
    """Rows of `kubectl api-resources -o wide` that the table does not reproduce."""
    lines = (ref / "api-resources.txt").read_text().splitlines()
    header = lines[0]
    cols = ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"]
    starts = [header.index(c) for c in cols] + [None]
    rows = set()
    for line in lines[1:]:
        rows.add(tuple(line[starts[i]:starts[i + 1]].strip() for i in range(len(cols))))
    mine = set()
    for g in table["groups"]:
        v = g["preferredVersion"]
        for ver in g["versions"]:
            if ver["version"] != v:
                continue
            for r in ver["resources"]:
                mine.add((r["resource"], ",".join(r.get("shortNames", [])),
                          f"{g['name']}/{v}" if g["name"] else v, str(r["namespaced"]).lower(),
                          r["kind"], ",".join(sorted(r["verbs"])), ",".join(r.get("categories", []))))
    return sorted(str(x) for x in rows ^ mine)


def main() -> int:
    ref = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/reference")
    table = build(ref)
    problems = cross_check(ref, table)
    for p in problems:
        print("mismatch with api-resources.txt:", p, file=sys.stderr)
    OUT.write_text(json.dumps(table, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({sum(len(v['resources']) for g in table['groups'] for v in g['versions'])} resources)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

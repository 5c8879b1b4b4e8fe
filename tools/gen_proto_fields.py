"""Write src/kubelite/server/data/proto_fields.json: the protobuf field table of the built-in types.

Reads, from local git mirrors of kubernetes/api and kubernetes/apimachinery (made with the
`fetch` tool, never committed), at one tag:
- every generated.proto: message names, field numbers, wire types, repeated/map, message refs;
- the Go type declarations beside it: the JSON name of each field (by protobuf field number),
  whether the JSON tag says omitempty or inline, and whether the Go field is a pointer — the
  .proto alone cannot say which zero values the JSON form leaves out;
- register.go's GroupName (or doc.go's groupName marker), to map an apiVersion's group onto a proto package.

Usage: python tools/gen_proto_fields.py API_GIT_DIR APIMACHINERY_GIT_DIR [TAG]

Output layout (compact, JSON):
  {"ref": TAG,
   "groups": {"<group>/<version>": "<package>"},           # "" group is core
   "special": {"<package>.<Message>": "time|microtime|duration|quantity|intorstring|raw|fieldsv1|items"},
   "messages": {"<package>.<Message>": [[number, jsonName, protoType, flags], ...]}}
Fields are listed in Go declaration order, the order encoding/json writes them in.
protoType is a scalar name (string, int32, ...) or a fully qualified message name; for a map,
the type of its values (keys are always strings).
flags: r repeated, m map, p Go pointer, o omitempty, i inline (JSON merges it into the parent).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

APIMACHINERY_DIRS = ("pkg/apis/meta/v1", "pkg/runtime", "pkg/util/intstr", "pkg/api/resource")
SCALARS = {"string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
           "fixed32", "fixed64", "sfixed32", "sfixed64", "double", "float"}
META = "k8s.io.apimachinery.pkg.apis.meta.v1"
SPECIAL = {
    f"{META}.Time": "time",
    f"{META}.MicroTime": "microtime",
    f"{META}.Duration": "duration",
    f"{META}.FieldsV1": "fieldsv1",
    "k8s.io.apimachinery.pkg.api.resource.Quantity": "quantity",
    "k8s.io.apimachinery.pkg.api.resource.QuantityValue": "quantity",
    "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "intorstring",
    "k8s.io.apimachinery.pkg.runtime.RawExtension": "raw",
}

_MESSAGE = re.compile(r"^message (\w+) \{")
_FIELD = re.compile(r"^\s+(optional|repeated) ([\w.]+) (\w+) = (\d+);")
_MAP = re.compile(r"^\s+map<(\w+), ([\w.]+)> (\w+) = (\d+);")
_STRUCT = re.compile(r"^type (\w+) struct \{")
_GO_FIELD = re.compile(r"^\t(?:(\w+)\s+)?(\S+)\s+`([^`]*)`\s*$")
_TAG = re.compile(r'(\w+):"([^"]*)"')


def git_show(git_dir: str, ref: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{ref}:{path}"],
                          check=True, capture_output=True, text=True).stdout


def git_ls(git_dir: str, ref: str, path: str = "") -> list[str]:
    args = ["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", ref]
    if path:
        args.append(path)
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()


def parse_proto(text: str) -> tuple[str, dict, set[str]]:
    """(package, {message: {number: (name, type, repeated, map)}}, nullable wrapper messages)."""
    package = re.search(r"^package ([\w.]+);", text, re.M).group(1)
    messages: dict[str, dict] = {}
    nullable: set[str] = set()
    current = None
    comments: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            comments.append(stripped)
            continue
        match = _MESSAGE.match(line)
        if match:
            current = match.group(1)
            messages[current] = {}
            if any("+protobuf.nullable=true" in c for c in comments):
                nullable.add(f"{package}.{current}")
        elif current and (match := _FIELD.match(line)):
            label, ftype, name, number = match.groups()
            messages[current][int(number)] = (name, ftype, label == "repeated", None)
        elif current and (match := _MAP.match(line)):
            key, value, name, number = match.groups()
            if key != "string":
                raise SystemExit(f"{package}.{current}.{name}: map key {key} not handled")
            messages[current][int(number)] = (name, value, False, "map")
        elif line.startswith("}"):
            current = None
        if not stripped.startswith("//"):
            comments = []
    return package, messages, nullable


def qualify(ftype: str, package: str) -> str:
    if ftype in SCALARS:
        return ftype
    if ftype.startswith("."):
        return ftype[1:]
    return f"{package}.{ftype}"


def parse_go_structs(text: str) -> dict[str, dict[int, dict]]:
    """{struct: {protobuf number: {json, omitempty, inline, pointer}}} from Go type declarations."""
    structs: dict[str, dict[int, dict]] = {}
    current = None
    for line in text.splitlines():
        match = _STRUCT.match(line)
        if match:
            current = structs.setdefault(match.group(1), {})
            continue
        if line.startswith("}"):
            current = None
            continue
        if current is None or not (match := _GO_FIELD.match(line)):
            continue
        name, gotype, tags = match.groups()
        tag = dict(_TAG.findall(tags))
        proto = tag.get("protobuf", "").split(",")
        if len(proto) < 2 or not proto[1].isdigit():
            continue  # not serialized (protobuf:"-") or no tag
        number = int(proto[1])
        json_parts = tag.get("json", name or "").split(",")
        current[number] = {
            "json": json_parts[0] if json_parts[0] else ("" if "inline" in json_parts else name),
            "omitempty": "omitempty" in json_parts[1:],
            "inline": "inline" in json_parts[1:] and not json_parts[0],
            "pointer": gotype.startswith("*"),
            "order": len(current),
        }
    return structs


def go_sources(git_dir: str, ref: str, directory: str) -> str:
    texts = []
    for path in git_ls(git_dir, ref, directory + "/"):
        base = path.rsplit("/", 1)[-1]
        if ("/" in path[len(directory) + 1:] or not base.endswith(".go") or base.endswith("_test.go")
                or base.startswith(("zz_generated", "generated.")) or "swagger_doc" in base):
            continue
        texts.append(git_show(git_dir, ref, path))
    return "\n".join(texts)


def group_name(git_dir: str, ref: str, directory: str) -> str | None:
    """The API group a package serves: register.go's GroupName constant, else doc.go's marker."""
    for base, pattern in (("register.go", r'^const GroupName = "([^"]*)"'), ("doc.go", r"^// \+groupName=(\S*)")):
        try:
            text = git_show(git_dir, ref, f"{directory}/{base}")
        except subprocess.CalledProcessError:
            continue
        match = re.search(pattern, text, re.M)
        if match:
            return match.group(1)
    return None


def collect(git_dir: str, ref: str, directories: list[str], out: dict) -> None:
    for directory in directories:
        package, messages, nullable = parse_proto(git_show(git_dir, ref, f"{directory}/generated.proto"))
        structs = parse_go_structs(go_sources(git_dir, ref, directory))
        group = group_name(git_dir, ref, directory)
        if group is not None and (package.startswith("k8s.io.api.") or package == META):
            version = directory.rsplit("/", 1)[-1]
            out["groups"][f"{group}/{version}" if group else version] = package
        for name in nullable:
            out["special"][name] = "items"
        for message, fields in messages.items():
            go = structs.get(message, {})
            if fields and not go and f"{package}.{message}" not in out["special"]:
                print(f"note: no Go declaration for {package}.{message}", file=sys.stderr)
            table = []
            for number, (pname, ftype, repeated, kind) in sorted(fields.items()):
                info = go.get(number)
                flags = ("r" if repeated else "") + ("m" if kind == "map" else "")
                if info is None:
                    json_name = pname
                    flags += "o"  # no Go declaration (wire-only helper types): present fields only
                else:
                    json_name = info["json"]
                    flags += ("p" if info["pointer"] else "") + ("o" if info["omitempty"] else "") \
                        + ("i" if info["inline"] else "")
                order = info["order"] if info else len(go) + number
                table.append((order, [number, json_name, qualify(ftype, package), flags]))
            out["messages"][f"{package}.{message}"] = [field for _, field in sorted(table)]


def main(argv: list[str]) -> None:
    api_dir, machinery_dir = argv[1], argv[2]
    ref = argv[3] if len(argv) > 3 else "v0.32.13"
    out = {"ref": ref, "groups": {}, "special": dict(SPECIAL), "messages": {}}
    collect(machinery_dir, ref, list(APIMACHINERY_DIRS), out)
    api_dirs = sorted(p.rsplit("/", 1)[0] for p in git_ls(api_dir, ref) if p.endswith("/generated.proto"))
    collect(api_dir, ref, api_dirs, out)
    for name, table in out["messages"].items():
        for number, _, ftype, _ in table:
            if ftype not in SCALARS and ftype not in out["messages"]:
                raise SystemExit(f"{name} field {number}: unknown message {ftype}")
    target = Path(__file__).resolve().parent.parent / "src/kubelite/server/data/proto_fields.json"
    target.write_text(json.dumps(out, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"{target}: {len(out['messages'])} messages, {len(out['groups'])} group versions")


if __name__ == "__main__":
    main(sys.argv)

"""Write the field tables of the built-in types, derived from their Go declarations:
src/kubelite/server/data/proto_fields.json (protobuf wire layout) and
src/kubelite/schema/data/go_field_order.json (encoding/json key order).

Reads, from local git mirrors of kubernetes/api, kubernetes/apimachinery and
kubernetes/apiextensions-apiserver (made with the `fetch` tool, never committed), at one tag:
- every generated.proto: message names, field numbers, wire types, repeated/map, message refs;
- the Go type declarations beside it: the JSON name of each field (by protobuf field number),
  whether the JSON tag says omitempty or inline, and whether the Go field is a pointer — the
  .proto alone cannot say which zero values the JSON form leaves out;
- register.go's GroupName (or doc.go's groupName marker), to map an apiVersion's group onto a proto package.

Usage: python tools/gen_proto_fields.py API_GIT_DIR APIMACHINERY_GIT_DIR APIEXTENSIONS_GIT_DIR [TAG]

Output layout (compact, JSON):
  {"ref": TAG,
   "groups": {"<group>/<version>": "<package>"},           # "" group is core
   "special": {"<package>.<Message>": "time|microtime|duration|quantity|intorstring|raw|fieldsv1|items"},
   "messages": {"<package>.<Message>": [[number, jsonName, protoType, flags], ...]}}
Fields are listed in Go declaration order, the order encoding/json writes them in.
protoType is a scalar name (string, int32, ...) or a fully qualified message name; for a map,
the type of its values (keys are always strings).
flags: r repeated, m map, p Go pointer, o omitempty, i inline (JSON merges it into the parent).

go_field_order.json (see go_order below) lists, per Go struct, the JSON keys encoding/json writes,
in its order: declaration order with inline (embedded) structs expanded in place.
  {"ref": TAG, "groups": {...as above, plus apiextensions.k8s.io...},
   "types": {"<package>.<Struct>": [[jsonName, valueType or null, flags], ...]}}
valueType names another entry of "types" (the struct each element/value is written as), or null
when the value is a scalar or has its own JSON marshaller (Time, Quantity, RawExtension...),
whose content keeps its order. flags: m — a Go map, written with its keys sorted.

go_json_types.json holds what encoding/json needs to decode into and re-encode each struct:
  {"ref": TAG, "types": {"<package>.<Struct>": [[jsonName, type, omitempty 0|1, goType], ...]}}
in the same order. type: a Go scalar name (string, bool, int32, float64...), "bytes" ([]byte,
base64 in JSON), "any" (interface{}), "@<Name>" (a type with its own MarshalJSON: Time, Quantity,
IntOrString...), a struct name (another entry), or "*T", "[]T", "map:T" around one of these.
goType: the field's type as encoding/json's errors name it (v1.Protocol, []v1.Container).
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


# ---- encoding/json key order -------------------------------------------------------------

APIEXTENSIONS_DIRS = ("pkg/apis/apiextensions/v1", "pkg/apis/apiextensions/v1beta1")
GO_BUILTINS = {"string", "bool", "byte", "rune", "int", "int8", "int16", "int32", "int64", "uint", "uint8",
               "uint16", "uint32", "uint64", "float32", "float64", "interface{}", "any", "error"}
# Types whose MarshalJSON writes one of their struct fields as the whole value (or a scalar):
# their JSON objects are laid out as that struct.
UNION_OF = {"OrBool": "JSONSchemaProps", "OrArray": "JSONSchemaProps", "OrStringArray": "JSONSchemaProps"}

_TYPE_LINE = re.compile(r"^(?:type |\t)(\w+) (=\s*)?(.+?)\s*(?://.*)?$")
_GO_MEMBER = re.compile(r"^\t(\*?[\w.]+)(?:\s+([^`\s]+))?\s*(?:`([^`]*)`)?\s*(?://.*)?$")
_IMPORT = re.compile(r'^\s*(?:import\s+)?(\w+\s+)?"([^"]+)"')
_MARSHALLER = re.compile(r"^func \((?:\w+ )?\*?(\w+)\) MarshalJSON\(")


class GoPackages:
    """Struct and named-type declarations of Go packages, keyed "<import.path.dotted>.<Name>"."""

    def __init__(self) -> None:
        self.structs: dict[str, tuple[str, dict, list]] = {}   # key -> (package, imports, members)
        self.named: dict[str, tuple[str, dict, str]] = {}      # key -> (package, imports, type expr)
        self.marshallers: set[str] = set()
        self.packages: set[str] = set()

    def add_package(self, package: str, sources: list[str]) -> None:
        self.packages.add(package)
        for text in sources:
            self._add_file(package, text)

    def _add_file(self, package: str, text: str) -> None:
        imports: dict[str, str] = {}
        members: list | None = None
        depth = 0
        in_imports = in_types = False
        for line in text.splitlines():
            if members is not None:
                code = "" if line.lstrip().startswith("//") else line.split(" //")[0]
                depth += code.count("{") - code.count("}")
                if depth <= 0:
                    members = None
                elif depth == 1 and (match := _GO_MEMBER.match(line)) and not line.lstrip().startswith("//"):
                    members.append(match.groups())
                continue
            if line.startswith("import ("):
                in_imports = True
                continue
            if in_imports or line.startswith("import "):
                if line.startswith(")"):
                    in_imports = False
                elif match := _IMPORT.match(line):
                    path = match.group(2)
                    alias = (match.group(1) or "").strip() or path.rsplit("/", 1)[-1]
                    imports[alias] = path.replace("/", ".")
                continue
            if line.startswith("type ("):
                in_types = True
                continue
            if in_types and line.startswith(")"):
                in_types = False
                continue
            if match := _MARSHALLER.match(line):
                self.marshallers.add(f"{package}.{match.group(1)}")
                continue
            if not (line.startswith("type ") or (in_types and line.startswith("\t"))):
                continue
            match = _TYPE_LINE.match(line)
            if not match:
                continue
            name, _, expr = match.groups()
            key = f"{package}.{name}"
            if expr.startswith("struct {"):
                members = []
                self.structs[key] = (package, imports, members)
                depth = 1
                if expr.endswith("}"):
                    members = None
            elif expr == "struct{}":
                self.structs[key] = (package, imports, [])
            else:
                self.named[key] = (package, imports, expr)

    def resolve(self, package: str, imports: dict, expr: str, seen: frozenset = frozenset()) -> tuple[str | None, bool]:
        """(the struct a value of this Go type is written as, or None; whether it is a map)."""
        expr = expr.lstrip("*")
        if expr.startswith("[]"):
            return self.resolve(package, imports, expr[2:], seen)
        if expr.startswith("map["):
            level, i = 0, 3
            for i in range(3, len(expr)):
                level += {"[": 1, "]": -1}.get(expr[i], 0)
                if level == 0:
                    break
            value, is_map = self.resolve(package, imports, expr[i + 1:], seen)
            if is_map:
                print(f"note: map of maps {expr} in {package}: inner keys keep their order", file=sys.stderr)
            return value, True
        if expr in GO_BUILTINS or expr.startswith(("interface", "func", "struct", "chan ")):
            return None, False
        alias, _, name = expr.rpartition(".")
        where = imports.get(alias) if alias else package
        if where is None:
            print(f"note: {package}: unknown import alias in {expr}", file=sys.stderr)
            return None, False
        key = f"{where}.{name}"
        if key in self.marshallers:
            union = next((v for k, v in UNION_OF.items() if name.endswith(k)), None)
            return (f"{where}.{union}" if union and f"{where}.{union}" in self.structs else None), False
        if key in self.structs:
            return key, False
        if key in self.named and key not in seen:
            pkg, imps, inner = self.named[key]
            return self.resolve(pkg, imps, inner, seen | {key})
        if where in self.packages:
            print(f"note: {key} not declared", file=sys.stderr)
        return None, False

    def json_fields(self, key: str, depth: int = 0) -> list[tuple[str, str | None, bool, int, bool]]:
        """(jsonName, value struct, map, depth, tagged) in encoding/json order, before dominance."""
        package, imports, members = self.structs[key]
        out = []
        for first, second, tags in members:
            embedded = second is None
            gotype = first if embedded else second
            go_name = gotype.lstrip("*").rpartition(".")[2] if embedded else first
            json_tag = dict(_TAG.findall(tags or "")).get("json")
            if json_tag == "-":
                continue
            tag_name = (json_tag or "").split(",")[0]
            ref, is_map = self.resolve(package, imports, gotype)
            if embedded and not tag_name and ref and not is_map and not gotype.startswith("[]"):
                out.extend(self.json_fields(ref, depth + 1))
                continue
            if not go_name[:1].isupper():
                continue  # unexported: never written
            out.append((tag_name or go_name, ref, is_map, depth, bool(tag_name)))
        return out

    def order_table(self, key: str) -> list[list]:
        """Go's dominant-field rule: of fields sharing a name the shallowest wins (then the tagged one)."""
        fields = self.json_fields(key)
        best: dict[str, tuple[int, bool]] = {}
        dropped: set[str] = set()
        for name, _, _, depth, tagged in fields:
            if name not in best or (depth, not tagged) < (best[name][0], not best[name][1]):
                best[name] = (depth, tagged)
                dropped.discard(name)
            elif (depth, tagged) == best[name]:
                dropped.add(name)
        table, written = [], set()
        for name, ref, is_map, depth, tagged in fields:
            if name in dropped or name in written or (depth, tagged) != best[name]:
                continue
            written.add(name)
            table.append([name, ref, "m" if is_map else ""])
        return table


    def type_expr(self, package: str, imports: dict, expr: str, seen: frozenset = frozenset()) -> str:
        """A Go type as encoding/json sees it, in the compact notation of go_json_types.json."""
        if expr.startswith("*"):
            return "*" + self.type_expr(package, imports, expr[1:], seen)
        if expr == "[]byte":
            return "bytes"
        if expr.startswith("[]"):
            return "[]" + self.type_expr(package, imports, expr[2:], seen)
        if expr.startswith("map["):
            level, i = 0, 3
            for i in range(3, len(expr)):
                level += {"[": 1, "]": -1}.get(expr[i], 0)
                if level == 0:
                    break
            return "map:" + self.type_expr(package, imports, expr[i + 1:], seen)
        if expr in GO_BUILTINS:
            return {"byte": "uint8", "rune": "int32", "interface{}": "any", "error": "any"}.get(expr, expr)
        if expr.startswith(("interface", "func", "chan ")):
            return "any"
        alias, _, name = expr.rpartition(".")
        where = imports.get(alias) if alias else package
        key = f"{where}.{name}"
        if key in self.marshallers:
            return "@" + name
        if key in self.structs:
            return key
        if key in self.named and key not in seen:
            pkg, imps, inner = self.named[key]
            return self.type_expr(pkg, imps, inner, seen | {key})
        print(f"note: {key}: unknown type, written as any", file=sys.stderr)
        return "any"

    def go_string(self, package: str, imports: dict, expr: str) -> str:
        """The type as Go's reflect spells it in encoding/json errors: v1.Protocol, []v1.Container."""
        if expr.startswith("*"):
            return "*" + self.go_string(package, imports, expr[1:])
        if expr.startswith("[]"):
            return "[]" + self.go_string(package, imports, expr[2:])
        if expr.startswith("map["):
            level, i = 0, 3
            for i in range(3, len(expr)):
                level += {"[": 1, "]": -1}.get(expr[i], 0)
                if level == 0:
                    break
            return (f"map[{self.go_string(package, imports, expr[4:i])}]"
                    f"{self.go_string(package, imports, expr[i + 1:])}")
        if expr in GO_BUILTINS:
            return {"byte": "uint8", "rune": "int32", "interface{}": "interface {}", "any": "interface {}"}.get(expr, expr)
        alias, _, name = expr.rpartition(".")
        where = imports.get(alias) if alias else package
        return f"{(where or alias).rsplit('.', 1)[-1]}.{name}"

    def typed_fields(self, key: str, depth: int = 0) -> list[tuple[str, str, bool, int, bool]]:
        """(jsonName, type expression, omitempty, depth, tagged) in encoding/json order, before dominance."""
        package, imports, members = self.structs[key]
        out = []
        for first, second, tags in members:
            embedded = second is None
            gotype = first if embedded else second
            go_name = gotype.lstrip("*").rpartition(".")[2] if embedded else first
            json_tag = dict(_TAG.findall(tags or "")).get("json")
            if json_tag == "-":
                continue
            tag_name, *options = (json_tag or "").split(",")
            texpr = self.type_expr(package, imports, gotype)
            if embedded and not tag_name and texpr in self.structs:
                out.extend(self.typed_fields(texpr, depth + 1))
                continue
            if embedded and not tag_name and texpr.startswith("*") and texpr[1:] in self.structs:
                print(f"note: {key}: embedded pointer {gotype} expanded as a value", file=sys.stderr)
                out.extend(self.typed_fields(texpr[1:], depth + 1))
                continue
            if not go_name[:1].isupper():
                continue
            out.append((tag_name or go_name, (texpr, self.go_string(package, imports, gotype)),
                        "omitempty" in options, depth, bool(tag_name)))
        return out

    def typed_table(self, key: str) -> list[list]:
        """[jsonName, type expression, 1 if omitempty else 0] after Go's dominant-field rule."""
        fields = self.typed_fields(key)
        best: dict[str, tuple[int, bool]] = {}
        dropped: set[str] = set()
        for name, _, _, depth, tagged in fields:
            if name not in best or (depth, not tagged) < (best[name][0], not best[name][1]):
                best[name] = (depth, tagged)
                dropped.discard(name)
            elif (depth, tagged) == best[name]:
                dropped.add(name)
        table, written = [], set()
        for name, texpr, omitempty, depth, tagged in fields:
            if name in dropped or name in written or (depth, tagged) != best[name]:
                continue
            written.add(name)
            table.append([name, texpr[0], 1 if omitempty else 0, texpr[1]])
        return table


def go_files(git_dir: str, ref: str, directory: str) -> list[str]:
    texts = []
    for path in git_ls(git_dir, ref, directory + "/"):
        base = path.rsplit("/", 1)[-1]
        if ("/" in path[len(directory) + 1:] or not base.endswith(".go") or base.endswith("_test.go")
                or base.startswith(("zz_generated", "generated.")) or "swagger_doc" in base):
            continue
        texts.append(git_show(git_dir, ref, path))
    return texts


def go_order(api_dir: str, machinery_dir: str, extensions_dir: str, ref: str, groups: dict) -> dict:
    packages = GoPackages()
    sources = [(machinery_dir, "k8s.io/apimachinery", d) for d in APIMACHINERY_DIRS + ("pkg/types",)]
    sources += [(api_dir, "k8s.io/api", d) for d in
                sorted(p.rsplit("/", 1)[0] for p in git_ls(api_dir, ref) if p.endswith("/register.go"))]
    sources += [(extensions_dir, "k8s.io/apiextensions-apiserver", d) for d in APIEXTENSIONS_DIRS]
    groups = dict(groups)
    for git_dir, module, directory in sources:
        package = f"{module}/{directory}".replace("/", ".")
        packages.add_package(package, go_files(git_dir, ref, directory))
        group = group_name(git_dir, ref, directory) if module != "k8s.io/apimachinery" else None
        if group is not None:
            version = directory.rsplit("/", 1)[-1]
            groups.setdefault(f"{group}/{version}" if group else version, package)
    types = {key: packages.order_table(key) for key in sorted(packages.structs)}
    typed = {key: packages.typed_table(key) for key in sorted(packages.structs)}
    for key, (package, imports, expr) in sorted(packages.named.items()):
        struct, is_map = packages.resolve(package, imports, expr)
        if struct and not is_map and not expr.startswith("[]"):
            types[key] = types[struct]  # a defined type over a struct (core/v1 List): the struct's layout
            typed[key] = typed[struct]
    return {"ref": ref, "groups": groups, "types": types}, {"ref": ref, "types": typed}


def main(argv: list[str]) -> None:
    api_dir, machinery_dir, extensions_dir = argv[1], argv[2], argv[3]
    ref = argv[4] if len(argv) > 4 else "v0.32.13"
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
    order, typed = go_order(api_dir, machinery_dir, extensions_dir, ref, out["groups"])
    target = target.parent.parent.parent / "schema/data/go_field_order.json"
    target.parent.mkdir(exist_ok=True)
    from kubelite.schema.goorder import dumps  # the layout its reader expects: a struct per line

    target.write_text(dumps(order))
    print(f"{target}: {len(order['types'])} structs, {len(order['groups'])} group versions")
    target = target.parent / "go_json_types.json"
    target.write_text(json.dumps(typed, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"{target}: {len(typed['types'])} structs")


if __name__ == "__main__":
    main(sys.argv)

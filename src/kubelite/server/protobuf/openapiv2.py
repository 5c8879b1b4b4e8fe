"""The OpenAPI v2 document as protobuf: gnostic's `openapi.v2.Document` message.

kube-apiserver answers `/openapi/v2` with this form when asked for
`application/com.github.proto-openapi.spec.v2[.@]v1.0+protobuf`, and kubectl (client-go's
`OpenAPISchema`) only reads this form. The JSON document maps onto the messages mostly key by
key (the table below: JSON key -> field number and type, numbers from OpenAPIv2.proto); the
rest are wrappers that choose a oneof member from the JSON value's shape (a parameter's `in`,
a security scheme's `type`/`flow`, a `$ref`), and maps written as repeated name/value pairs.
`x-` keys become `vendor_extension` entries whose value is an `Any` holding YAML text; JSON
is YAML, so the JSON spelling of the value is written there (the flow style gnostic itself
produces when it reads a JSON document). Examples, defaults and enum values are `Any`s too.

`encode_document(doc)` writes the bytes; `decode_document(data)` reads them back into the JSON
form (used by tests, and to check a round trip).
"""
from __future__ import annotations

import json
from typing import Any, Callable

from kubelite.server.protobuf import encode as w
from kubelite.server.protobuf.wire import BYTES, FIXED64, VARINT, ProtobufError, double, iter_fields, signed

STRING, BOOL, DOUBLE, INT64, ANY = "string", "bool", "double", "int64", "any"

# The numeric validation keywords every primitive-valued schema-ish message carries, in the
# order the proto declares them after `default` (their numbers follow on from `start`).
_VALIDATION = (("maximum", DOUBLE), ("exclusiveMaximum", BOOL), ("minimum", DOUBLE),
               ("exclusiveMinimum", BOOL), ("maxLength", INT64), ("minLength", INT64),
               ("pattern", STRING), ("maxItems", INT64), ("minItems", INT64),
               ("uniqueItems", BOOL), ("enum", [ANY]), ("multipleOf", DOUBLE))


def _numbered(start: int, fields) -> tuple:
    return tuple((name, start + i, kind) for i, (name, kind) in enumerate(fields))


def _primitive_fields(head: tuple, items_message: str = "PrimitivesItems") -> tuple:
    """Header / PrimitivesItems / the non-body parameter sub-schemas: `head` fields, then
    type, format, items, collectionFormat, default and the validation keywords."""
    start = len(head) + 1
    tail = (("type", STRING), ("format", STRING), ("items", items_message), ("collectionFormat", STRING),
            ("default", ANY)) + _VALIDATION
    return _numbered(1, head) + _numbered(start, tail)


_PARAM_HEAD = (("required", BOOL), ("in", STRING), ("description", STRING), ("name", STRING))
_FORM_QUERY_HEAD = _PARAM_HEAD + (("allowEmptyValue", BOOL),)

# message -> (JSON key, field number, type); a type in a list is a repeated field.
FIELDS: dict[str, tuple] = {
    "Document": (("swagger", 1, STRING), ("info", 2, "Info"), ("host", 3, STRING), ("basePath", 4, STRING),
                 ("schemes", 5, [STRING]), ("consumes", 6, [STRING]), ("produces", 7, [STRING]),
                 ("paths", 8, "Paths"), ("definitions", 9, "Definitions"),
                 ("parameters", 10, "ParameterDefinitions"), ("responses", 11, "ResponseDefinitions"),
                 ("security", 12, ["SecurityRequirement"]), ("securityDefinitions", 13, "SecurityDefinitions"),
                 ("tags", 14, ["Tag"]), ("externalDocs", 15, "ExternalDocs")),
    "Info": (("title", 1, STRING), ("version", 2, STRING), ("description", 3, STRING),
             ("termsOfService", 4, STRING), ("contact", 5, "Contact"), ("license", 6, "License")),
    "Contact": (("name", 1, STRING), ("url", 2, STRING), ("email", 3, STRING)),
    "License": (("name", 1, STRING), ("url", 2, STRING)),
    "ExternalDocs": (("description", 1, STRING), ("url", 2, STRING)),
    "Tag": (("name", 1, STRING), ("description", 2, STRING), ("externalDocs", 3, "ExternalDocs")),
    "Xml": (("name", 1, STRING), ("namespace", 2, STRING), ("prefix", 3, STRING), ("attribute", 4, BOOL),
            ("wrapped", 5, BOOL)),
    "JsonReference": (("$ref", 1, STRING), ("description", 2, STRING)),
    "PathItem": (("$ref", 1, STRING), ("get", 2, "Operation"), ("put", 3, "Operation"), ("post", 4, "Operation"),
                 ("delete", 5, "Operation"), ("options", 6, "Operation"), ("head", 7, "Operation"),
                 ("patch", 8, "Operation"), ("parameters", 9, ["ParametersItem"])),
    "Operation": (("tags", 1, [STRING]), ("summary", 2, STRING), ("description", 3, STRING),
                  ("externalDocs", 4, "ExternalDocs"), ("operationId", 5, STRING), ("produces", 6, [STRING]),
                  ("consumes", 7, [STRING]), ("parameters", 8, ["ParametersItem"]), ("responses", 9, "Responses"),
                  ("schemes", 10, [STRING]), ("deprecated", 11, BOOL), ("security", 12, ["SecurityRequirement"])),
    "BodyParameter": (("description", 1, STRING), ("name", 2, STRING), ("in", 3, STRING), ("required", 4, BOOL),
                      ("schema", 5, "Schema")),
    "HeaderParameterSubSchema": _primitive_fields(_PARAM_HEAD),
    "PathParameterSubSchema": _primitive_fields(_PARAM_HEAD),
    "QueryParameterSubSchema": _primitive_fields(_FORM_QUERY_HEAD),
    "FormDataParameterSubSchema": _primitive_fields(_FORM_QUERY_HEAD),
    "PrimitivesItems": _primitive_fields(()),
    "Header": _primitive_fields(()) + (("description", 18, STRING),),
    "Response": (("description", 1, STRING), ("schema", 2, "SchemaItem"), ("headers", 3, "Headers"),
                 ("examples", 4, "Examples")),
    "FileSchema": (("format", 1, STRING), ("title", 2, STRING), ("description", 3, STRING), ("default", 4, ANY),
                   ("required", 5, [STRING]), ("type", 6, STRING), ("readOnly", 7, BOOL),
                   ("externalDocs", 8, "ExternalDocs"), ("example", 9, ANY)),
    "Schema": (("$ref", 1, STRING), ("format", 2, STRING), ("title", 3, STRING), ("description", 4, STRING),
               ("default", 5, ANY), ("multipleOf", 6, DOUBLE), ("maximum", 7, DOUBLE),
               ("exclusiveMaximum", 8, BOOL), ("minimum", 9, DOUBLE), ("exclusiveMinimum", 10, BOOL),
               ("maxLength", 11, INT64), ("minLength", 12, INT64), ("pattern", 13, STRING),
               ("maxItems", 14, INT64), ("minItems", 15, INT64), ("uniqueItems", 16, BOOL),
               ("maxProperties", 17, INT64), ("minProperties", 18, INT64), ("required", 19, [STRING]),
               ("enum", 20, [ANY]), ("additionalProperties", 21, "AdditionalPropertiesItem"),
               ("type", 22, "TypeItem"), ("items", 23, "ItemsItem"), ("allOf", 24, ["Schema"]),
               ("properties", 25, "Properties"), ("discriminator", 26, STRING), ("readOnly", 27, BOOL),
               ("xml", 28, "Xml"), ("externalDocs", 29, "ExternalDocs"), ("example", 30, ANY)),
    "ApiKeySecurity": (("type", 1, STRING), ("name", 2, STRING), ("in", 3, STRING), ("description", 4, STRING)),
    "BasicAuthenticationSecurity": (("type", 1, STRING), ("description", 2, STRING)),
    "Oauth2ImplicitSecurity": (("type", 1, STRING), ("flow", 2, STRING), ("scopes", 3, "Oauth2Scopes"),
                               ("authorizationUrl", 4, STRING), ("description", 5, STRING)),
    "Oauth2PasswordSecurity": (("type", 1, STRING), ("flow", 2, STRING), ("scopes", 3, "Oauth2Scopes"),
                               ("tokenUrl", 4, STRING), ("description", 5, STRING)),
    "Oauth2ApplicationSecurity": (("type", 1, STRING), ("flow", 2, STRING), ("scopes", 3, "Oauth2Scopes"),
                                  ("tokenUrl", 4, STRING), ("description", 5, STRING)),
    "Oauth2AccessCodeSecurity": (("type", 1, STRING), ("flow", 2, STRING), ("scopes", 3, "Oauth2Scopes"),
                                 ("authorizationUrl", 4, STRING), ("tokenUrl", 5, STRING),
                                 ("description", 6, STRING)),
}
# message -> number of its `repeated NamedAny vendor_extension` field (`x-` keys go there).
EXTENSIONS = {
    "Document": 16, "Info": 7, "Contact": 4, "License": 3, "ExternalDocs": 3, "Tag": 4, "Xml": 6,
    "PathItem": 10, "Operation": 13, "BodyParameter": 6, "HeaderParameterSubSchema": 22,
    "PathParameterSubSchema": 22, "QueryParameterSubSchema": 23, "FormDataParameterSubSchema": 23,
    "PrimitivesItems": 18, "Header": 19, "Response": 5, "FileSchema": 10, "Schema": 31, "ApiKeySecurity": 5,
    "BasicAuthenticationSecurity": 3, "Oauth2ImplicitSecurity": 6, "Oauth2PasswordSecurity": 6,
    "Oauth2ApplicationSecurity": 6, "Oauth2AccessCodeSecurity": 7,
}
# JSON objects of arbitrary keys: field 1 repeats {1: name, 2: value of this type}.
MAPS = {
    "Definitions": "Schema", "Properties": "Schema", "ParameterDefinitions": "Parameter",
    "ResponseDefinitions": "Response", "SecurityDefinitions": "SecurityDefinitionsItem",
    "Headers": "Header", "Examples": ANY, "Oauth2Scopes": STRING,
}
# Non-body parameters: which sub-schema (and NonBodyParameter field) a parameter's `in` selects.
_NON_BODY = {"header": ("HeaderParameterSubSchema", 1), "formData": ("FormDataParameterSubSchema", 2),
             "query": ("QueryParameterSubSchema", 3), "path": ("PathParameterSubSchema", 4)}
_SECURITY = {"basic": ("BasicAuthenticationSecurity", 1), "apiKey": ("ApiKeySecurity", 2)}
_OAUTH2 = {"implicit": ("Oauth2ImplicitSecurity", 3), "password": ("Oauth2PasswordSecurity", 4),
           "application": ("Oauth2ApplicationSecurity", 5), "accessCode": ("Oauth2AccessCodeSecurity", 6)}


# -- encoding -----------------------------------------------------------------------------------


def encode_document(doc: dict) -> bytes:
    """The gnostic `Document` bytes of a JSON OpenAPI v2 document."""
    if not isinstance(doc, dict):
        raise ProtobufError("an OpenAPI v2 document must be a JSON object")
    return _Encoder().message("Document", doc, "$")


def any_yaml(value: Any) -> str:
    """The YAML text of an `Any` (JSON flow style, which every YAML reader takes)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": ")) + "\n"


class _Encoder:
    def __init__(self):
        self.special: dict[str, Callable[[Any, str], bytes]] = {
            "Paths": self.paths, "Responses": self.responses, "ParametersItem": self.parameters_item,
            "Parameter": self.parameter, "ResponseValue": self.response_value, "SchemaItem": self.schema_item,
            "SecurityDefinitionsItem": self.security_item, "SecurityRequirement": self.security_requirement,
            "AdditionalPropertiesItem": self.additional_properties, "TypeItem": self.type_item,
            "ItemsItem": self.items_item,
        }

    def message(self, name: str, value: Any, path: str) -> bytes:
        special = self.special.get(name)
        if special is not None:
            return special(value, path)
        if name in MAPS:
            return self.map(MAPS[name], value, path)
        if not isinstance(value, dict):
            raise ProtobufError(f"{path}: expected an object for {name}, got {type(value).__name__}")
        fields = {key: (number, kind) for key, number, kind in FIELDS[name]}
        ext_number = EXTENSIONS.get(name)
        out = bytearray()
        extensions = []
        for key in value:
            if key in fields:
                continue
            if key.startswith("x-") and ext_number is not None:
                extensions.append(key)
            else:
                raise ProtobufError(f"{path}: {name} has no field {key!r}")
        for key, (number, kind) in sorted(fields.items(), key=lambda item: item[1][0]):
            if key in value:
                self.field(out, number, kind, value[key], f"{path}.{key}")
        for key in extensions:
            w.put_bytes(out, ext_number, self.named_any(key, value[key]))
        return bytes(out)

    def field(self, out: bytearray, number: int, kind, value: Any, path: str) -> None:
        if isinstance(kind, list):
            if not isinstance(value, list):
                raise ProtobufError(f"{path}: expected a list, got {type(value).__name__}")
            for i, item in enumerate(value):
                self.single(out, number, kind[0], item, f"{path}[{i}]", repeated=True)
        else:
            self.single(out, number, kind, value, path, repeated=False)

    def single(self, out: bytearray, number: int, kind: str, value: Any, path: str, repeated: bool) -> None:
        if kind == STRING:
            if not isinstance(value, str):
                raise ProtobufError(f"{path}: expected a string, got {type(value).__name__}")
            if value or repeated:
                w.put_string(out, number, value)
        elif kind == BOOL:
            if not isinstance(value, bool):
                raise ProtobufError(f"{path}: expected a boolean, got {type(value).__name__}")
            if value:
                w.put_varint(out, number, 1)
        elif kind == INT64:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
                raise ProtobufError(f"{path}: expected an integer, got {value!r}")
            if value:
                w.put_varint(out, number, int(value))
        elif kind == DOUBLE:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ProtobufError(f"{path}: expected a number, got {value!r}")
            if value:
                w.put_double(out, number, float(value))
        elif kind == ANY:
            w.put_bytes(out, number, self.any(value))
        else:
            w.put_bytes(out, number, self.message(kind, value, path))

    @staticmethod
    def any(value: Any) -> bytes:
        out = bytearray()
        w.put_string(out, 2, any_yaml(value))
        return bytes(out)

    def named_any(self, name: str, value: Any) -> bytes:
        out = bytearray()
        w.put_string(out, 1, name)
        w.put_bytes(out, 2, self.any(value))
        return bytes(out)

    def named(self, name: str, kind: str, value: Any, path: str) -> bytes:
        out = bytearray()
        w.put_string(out, 1, name)
        if kind == STRING:
            self.single(out, 2, STRING, value, path, repeated=False)
        else:
            w.put_bytes(out, 2, self.any(value) if kind == ANY else self.message(kind, value, path))
        return bytes(out)

    def map(self, kind: str, value: Any, path: str) -> bytes:
        if not isinstance(value, dict):
            raise ProtobufError(f"{path}: expected an object, got {type(value).__name__}")
        out = bytearray()
        for name, item in value.items():
            w.put_bytes(out, 1, self.named(name, kind, item, f"{path}.{name}"))
        return bytes(out)

    # -- wrappers choosing a oneof member or splitting keys ------------------------------------
    def _split(self, value: Any, path: str, ext_number: int, entry_number: int, kind: str) -> bytes:
        if not isinstance(value, dict):
            raise ProtobufError(f"{path}: expected an object, got {type(value).__name__}")
        out = bytearray()
        for name, item in value.items():
            if name.startswith("x-"):
                w.put_bytes(out, ext_number, self.named_any(name, item))
        for name, item in value.items():
            if not name.startswith("x-"):
                w.put_bytes(out, entry_number, self.named(name, kind, item, f"{path}.{name}"))
        return bytes(out)

    def paths(self, value: Any, path: str) -> bytes:
        return self._split(value, path, 1, 2, "PathItem")

    def responses(self, value: Any, path: str) -> bytes:
        return self._split(value, path, 2, 1, "ResponseValue")

    def _one(self, number: int, kind: str, value: Any, path: str) -> bytes:
        out = bytearray()
        w.put_bytes(out, number, self.message(kind, value, path))
        return bytes(out)

    def parameters_item(self, value: Any, path: str) -> bytes:
        if isinstance(value, dict) and "$ref" in value:
            return self._one(2, "JsonReference", value, path)
        return self._one(1, "Parameter", value, path)

    def parameter(self, value: Any, path: str) -> bytes:
        if not isinstance(value, dict):
            raise ProtobufError(f"{path}: expected a parameter object, got {type(value).__name__}")
        where = value.get("in")
        if where == "body":
            return self._one(1, "BodyParameter", value, path)
        if where not in _NON_BODY:
            raise ProtobufError(f"{path}.in: unsupported parameter location {where!r}")
        sub, number = _NON_BODY[where]
        out = bytearray()
        w.put_bytes(out, 2, self._one(number, sub, value, path))
        return bytes(out)

    def response_value(self, value: Any, path: str) -> bytes:
        if isinstance(value, dict) and "$ref" in value:
            return self._one(2, "JsonReference", value, path)
        return self._one(1, "Response", value, path)

    def schema_item(self, value: Any, path: str) -> bytes:
        if isinstance(value, dict) and value.get("type") == "file":
            return self._one(2, "FileSchema", value, path)
        return self._one(1, "Schema", value, path)

    def security_item(self, value: Any, path: str) -> bytes:
        if not isinstance(value, dict):
            raise ProtobufError(f"{path}: expected a security scheme object")
        kind = value.get("type")
        choice = _OAUTH2.get(value.get("flow")) if kind == "oauth2" else _SECURITY.get(kind)
        if choice is None:
            raise ProtobufError(f"{path}: unsupported security scheme type {kind!r}")
        return self._one(choice[1], choice[0], value, path)

    def security_requirement(self, value: Any, path: str) -> bytes:
        if not isinstance(value, dict):
            raise ProtobufError(f"{path}: expected a security requirement object")
        out = bytearray()
        for name, scopes in value.items():
            if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
                raise ProtobufError(f"{path}.{name}: expected a list of scope names")
            array = bytearray()
            for scope in scopes:
                w.put_string(array, 1, scope)
            entry = bytearray()
            w.put_string(entry, 1, name)
            w.put_bytes(entry, 2, bytes(array))
            w.put_bytes(out, 1, bytes(entry))
        return bytes(out)

    def additional_properties(self, value: Any, path: str) -> bytes:
        out = bytearray()
        if isinstance(value, bool):
            w.put_varint(out, 2, int(value))  # a oneof member is written even when false
        else:
            w.put_bytes(out, 1, self.message("Schema", value, path))
        return bytes(out)

    def type_item(self, value: Any, path: str) -> bytes:
        names = value if isinstance(value, list) else [value]
        out = bytearray()
        for name in names:
            if not isinstance(name, str):
                raise ProtobufError(f"{path}: expected a type name, got {name!r}")
            w.put_string(out, 1, name)
        return bytes(out)

    def items_item(self, value: Any, path: str) -> bytes:
        schemas = value if isinstance(value, list) else [value]
        out = bytearray()
        for i, schema in enumerate(schemas):
            w.put_bytes(out, 1, self.message("Schema", schema, f"{path}[{i}]" if isinstance(value, list) else path))
        return bytes(out)


# -- decoding -----------------------------------------------------------------------------------


def decode_document(data: bytes) -> dict:
    """The JSON form of gnostic `Document` bytes (scalars at their zero value are absent)."""
    return _Decoder().message("Document", data)


class _Decoder:
    def __init__(self):
        self.special: dict[str, Callable[[bytes], Any]] = {
            "Paths": self.paths, "Responses": self.responses, "SecurityRequirement": self.security_requirement,
            "AdditionalPropertiesItem": self.additional_properties, "TypeItem": self.type_item,
            "ItemsItem": self.items_item,
        }
        self.members = {
            "ParametersItem": {1: "Parameter", 2: "JsonReference"},
            "Parameter": {1: "BodyParameter", 2: "NonBodyParameter"},
            "NonBodyParameter": {number: sub for sub, number in _NON_BODY.values()},
            "ResponseValue": {1: "Response", 2: "JsonReference"},
            "SchemaItem": {1: "Schema", 2: "FileSchema"},
            "SecurityDefinitionsItem": {number: sub for sub, number in (*_SECURITY.values(), *_OAUTH2.values())},
        }

    def message(self, name: str, data: bytes) -> Any:
        if name in self.members:
            return self.member(name, data)
        special = self.special.get(name)
        if special is not None:
            return special(data)
        if name in MAPS:
            return self.map(MAPS[name], data)
        by_number = {number: (key, kind) for key, number, kind in FIELDS[name]}
        ext_number = EXTENSIONS.get(name)
        out: dict[str, Any] = {}
        extensions: dict[str, Any] = {}
        for number, wire_type, raw in iter_fields(data):
            if number == ext_number:
                ext_name, ext_value = self.named_any(raw)
                extensions[ext_name] = ext_value
                continue
            if number not in by_number:
                raise ProtobufError(f"{name}: unknown field {number}")
            key, kind = by_number[number]
            if isinstance(kind, list):
                out.setdefault(key, []).append(self.scalar(kind[0], wire_type, raw))
            else:
                out[key] = self.scalar(kind, wire_type, raw)
        out.update(extensions)
        return out

    def scalar(self, kind: str, wire_type: int, raw) -> Any:
        expected = {BOOL: VARINT, INT64: VARINT, DOUBLE: FIXED64}.get(kind, BYTES)
        if wire_type != expected:
            raise ProtobufError(f"field of type {kind} has wire type {wire_type}")
        if kind == STRING:
            return raw.decode()
        if kind == BOOL:
            return bool(raw)
        if kind == INT64:
            return signed(raw, 64)
        if kind == DOUBLE:
            number = double(raw)
            return int(number) if number.is_integer() else number
        if kind == ANY:
            return self.any(raw)
        return self.message(kind, raw)

    @staticmethod
    def any(data: bytes) -> Any:
        for number, _, raw in iter_fields(data):
            if number == 2:
                import yaml

                return yaml.safe_load(raw.decode())
        raise ProtobufError("an Any without YAML text")

    def named_any(self, data: bytes) -> tuple[str, Any]:
        name, value = "", None
        for number, _, raw in iter_fields(data):
            if number == 1:
                name = raw.decode()
            elif number == 2:
                value = self.any(raw)
        return name, value

    def named(self, kind: str, data: bytes) -> tuple[str, Any]:
        name, value = "", "" if kind == STRING else {}
        for number, wire_type, raw in iter_fields(data):
            if number == 1:
                name = raw.decode()
            elif number == 2:
                value = self.scalar(kind, wire_type, raw)
        return name, value

    def map(self, kind: str, data: bytes) -> dict:
        return dict(self.named(kind, raw) for number, _, raw in iter_fields(data) if number == 1)

    def _split(self, data: bytes, ext_number: int, kind: str) -> dict:
        extensions, entries = {}, {}
        for number, _, raw in iter_fields(data):
            if number == ext_number:
                key, value = self.named_any(raw)
                extensions[key] = value
            else:
                key, value = self.named(kind, raw)
                entries[key] = value
        return {**extensions, **entries}

    def paths(self, data: bytes) -> dict:
        return self._split(data, 1, "PathItem")

    def responses(self, data: bytes) -> dict:
        return self._split(data, 2, "ResponseValue")

    def member(self, name: str, data: bytes) -> Any:
        """The JSON of a oneof wrapper is that of its (single) member."""
        for number, _, raw in iter_fields(data):
            kind = self.members[name].get(number)
            if kind is None:
                raise ProtobufError(f"{name}: unknown member {number}")
            return self.message(kind, raw)
        raise ProtobufError(f"{name}: no member set")

    def security_requirement(self, data: bytes) -> dict:
        out = {}
        for _, _, entry in iter_fields(data):
            name, scopes = "", []
            for number, _, raw in iter_fields(entry):
                if number == 1:
                    name = raw.decode()
                elif number == 2:
                    scopes = [value.decode() for _, _, value in iter_fields(raw)]
            out[name] = scopes
        return out

    def additional_properties(self, data: bytes) -> Any:
        for number, _, raw in iter_fields(data):
            return bool(raw) if number == 2 else self.message("Schema", raw)
        raise ProtobufError("AdditionalPropertiesItem: no member set")

    @staticmethod
    def type_item(data: bytes) -> Any:
        names = [raw.decode() for _, _, raw in iter_fields(data)]
        return names[0] if len(names) == 1 else names

    def items_item(self, data: bytes) -> Any:
        schemas = [self.message("Schema", raw) for _, _, raw in iter_fields(data)]
        return schemas[0] if len(schemas) == 1 else schemas

"""Which form of an answer the Accept header asks for: the object itself, a Table, or only its
metadata (PartialObjectMetadata / PartialObjectMetadataList), as kube-apiserver negotiates it.

kube-apiserver (endpoints/handlers/negotiation) orders the Accept clauses as goautoneg does (by
q, then concrete types before wildcards, otherwise as written) and takes the first clause that a
media type it serves (JSON, YAML, protobuf) accepts together with the clause's parameters:
`as`/`g`/`v` name a conversion, which the endpoint allows only for Table (JSON or YAML) and
PartialObjectMetadata(List) (any media type) of meta.k8s.io v1 or v1beta1; a `stream` other than
`watch` or a server version `sv` refuses the clause. Custom resources serve no protobuf of their
own (only as a conversion).

kubelite encodes no protobuf answers: a protobuf clause asking for metadata is passed over for
the next clause (client-go's metadata client always offers JSON after it).
"""
from __future__ import annotations

import functools
from collections import namedtuple

META_GROUP = "meta.k8s.io"
META_VERSIONS = ("v1", "v1beta1")
TABLE = "Table"
PARTIAL = "PartialObjectMetadata"
PARTIAL_LIST = "PartialObjectMetadataList"
_SERVED = (("application", "json"), ("application", "yaml"), ("application", "vnd.kubernetes.protobuf"))
_PROTOBUF = ("application", "vnd.kubernetes.protobuf")


# (collections' namedtuple, not typing's NamedTuple: typing's import is a share of a short command)
# kind: Table, PartialObjectMetadata or PartialObjectMetadataList; version: v1 or v1beta1
Target = namedtuple("Target", ("kind", "version"))
_Clause = namedtuple("_Clause", ("type", "subtype", "q", "params"))  # (str, str, float, dict)


_MEDIA_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
_STREAM_TYPES = ("application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch")


def check_acceptable(request, r, verb: str) -> None:
    """kube-apiserver's two refusals of an Accept header it cannot answer (406):

    - the go-restful route of a built-in resource first compares each clause's media type, its
      parameters cut off, with what the route produces (or `*/*`), and words its refusal as
      go-restful does, listing the route's representations (a LIST or WATCH also streams);
    - then the handler negotiates clause by clause (see `target`) and lists its media types."""
    from kubelite.server import errors

    header = request.header("accept") or ""
    if not header:
        return
    if not getattr(r, "crd", None) and not _route_accepts(header):
        produced = _MEDIA_TYPES + (_STREAM_TYPES if verb in ("list", "watch") else ())
        raise errors.StatusError(406, "NotAcceptable", "406: Not Acceptable\n\nAvailable representations: "
                                 + ", ".join(produced), has_details=True)
    if _negotiated(header, bool(getattr(r, "crd", None))) is _REFUSED:
        raise errors.StatusError(406, "NotAcceptable", "only the following media types are accepted: "
                                 + ", ".join(_MEDIA_TYPES))


def _route_accepts(header: str) -> bool:
    for clause in header.split(","):
        media = clause.split(";")[0].strip()
        if media == "*/*" or media in _MEDIA_TYPES:
            return True
    return False


def target(request, r=None) -> Target | None:
    """The conversion the first acceptable Accept clause names, or None for the object itself."""
    header = request.header("accept") or ""
    if not header:
        return None
    chosen = _negotiated(header, bool(getattr(r, "crd", None)))
    return None if chosen is _REFUSED else chosen


_REFUSED = Target("", "")  # no clause acceptable (check_acceptable answers 406)


@functools.lru_cache(maxsize=256)  # clients send a handful of distinct headers, on every request
def _negotiated(header: str, crd: bool) -> Target | None:
    passed_over = None
    for clause in _clauses(header):
        for media in _SERVED:
            if clause.type not in (media[0], "*") or clause.subtype not in (media[1], "*"):
                continue
            if clause.type == "*" and clause.subtype != "*":
                continue
            accepted, convert = _accepts(clause.params, media, crd)
            if accepted:
                return convert
            if media == _PROTOBUF and convert is not None and convert.kind != TABLE:
                passed_over = passed_over or convert
    # a metadata form asked for only as protobuf is sent as JSON rather than refused
    return passed_over or _REFUSED


def _accepts(params: dict, media: tuple[str, str], crd: bool) -> tuple[bool, Target | None]:
    """Whether the endpoint takes a clause's parameters for `media`, and the conversion named."""
    if params.get("stream") and params["stream"] != "watch":
        return False, None
    if params.get("sv"):
        return False, None
    if not any(k in params for k in ("as", "g", "v")):
        return not (crd and media == _PROTOBUF), None
    kind, group, version = params.get("as", ""), params.get("g", ""), params.get("v", "")
    if group != META_GROUP or version not in META_VERSIONS:
        return False, None
    if kind == TABLE:
        return media != _PROTOBUF, Target(kind, version)
    if kind in (PARTIAL, PARTIAL_LIST):
        return media != _PROTOBUF, Target(kind, version)  # kubelite encodes no protobuf
    return False, None


def _clauses(header: str) -> list[_Clause]:
    """goautoneg.ParseAccept: clauses by q (highest first), concrete before wildcard types."""
    out = []
    for part in header.split(","):
        pieces = part.strip().split(";")
        media = pieces[0].split("/")
        kind = media[0].strip()
        if len(media) == 1 and kind == "*":
            subtype = "*"
        elif len(media) == 2:
            subtype = media[1].strip()
        else:
            continue
        q, params = 1.0, {}
        for piece in pieces[1:]:
            if "=" not in piece:
                continue
            name, value = piece.split("=", 1)
            name = name.strip()
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
            else:
                params[name] = value.strip()
        out.append(_Clause(kind, subtype, q, params))
    return sorted(out, key=lambda c: (-c.q, c.type == "*", c.subtype == "*"))

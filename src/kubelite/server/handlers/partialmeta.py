"""Metadata-only answers: PartialObjectMetadata and PartialObjectMetadataList (meta.k8s.io v1 and
v1beta1), what client-go's metadata client and informers ask for with
`Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`.

As kube-apiserver's transform (endpoints/handlers/response.go): an object becomes its metadata
under kind PartialObjectMetadata; a list becomes a PartialObjectMetadataList keeping the list's
resourceVersion, continue and remainingItemCount, each item a PartialObjectMetadata (an empty
list encodes its items as null: the Go slice is never allocated). Asking for a list's form of a
single object, or the reverse, is a 406 naming the Go type of the server's internal object.
Status answers pass through untouched. A watch sends each event's object as a
PartialObjectMetadata; a watch asking for the list form cannot convert its objects and sends
them whole (kube-apiserver logs the failure and encodes the object as it is).
"""
from __future__ import annotations

from kubelite.server import errors
from kubelite.server.handlers.negotiate import PARTIAL, PARTIAL_LIST, Target

# The internal Go package of a group where it is not the group's first label.
_INTERNAL_PACKAGES = {"": "core", "events.k8s.io": "core", "internal.apiserver.k8s.io": "apiserverinternal"}


def transform(body: dict, r, target: Target) -> dict:
    """`body` (a GET/LIST/write answer) in the metadata form `target` names."""
    if body.get("kind") == "Status" and body.get("apiVersion") == "v1":
        return body
    is_list = isinstance(body.get("items"), list) and "metadata" in body and str(body.get("kind", "")).endswith("List")
    if target.kind == PARTIAL:
        if is_list:
            raise _not_acceptable(f"you requested {PARTIAL}, but the requested object is a list "
                                  f"({_go_type(r, list_=True)})")
        return partial(body, r, target.version)
    if not is_list:
        raise _not_acceptable(f"you requested {PARTIAL_LIST}, but the requested object is not a list "
                              f"({_go_type(r, list_=False)})")
    source = body.get("metadata") or {}
    meta = {k: source[k] for k in ("resourceVersion", "continue", "remainingItemCount") if k in source}
    items = [partial(item, r, target.version) for item in body["items"]]
    return {"kind": PARTIAL_LIST, "apiVersion": f"meta.k8s.io/{target.version}", "metadata": meta,
            "items": items or None}


def partial(obj: dict, r, version: str) -> dict:
    """One object's PartialObjectMetadata (its metadata as the internal object holds it)."""
    from kubelite.server.printers.table import _internal_metadata

    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return {"kind": PARTIAL, "apiVersion": f"meta.k8s.io/{version}",
            "metadata": _internal_metadata(metadata, r)}


def watch_object(obj: dict, r, target: Target) -> dict:
    """An event's object: its metadata for PartialObjectMetadata; whole when the conversion fails."""
    if target.kind != PARTIAL or (obj.get("kind") == "Status" and obj.get("apiVersion") == "v1"):
        return obj
    return partial(obj, r, target.version)


def _go_type(r, list_: bool) -> str:
    """%T of the internal object kube-apiserver holds: *core.ConfigMap, *unstructured.UnstructuredList."""
    if getattr(r, "crd", None):
        return "*unstructured.UnstructuredList" if list_ else "*unstructured.Unstructured"
    package = _INTERNAL_PACKAGES.get(r.group, r.group.split(".")[0])
    return f"*{package}.{r.kind}{'List' if list_ else ''}"


def _not_acceptable(message: str) -> errors.StatusError:
    return errors.StatusError(406, "NotAcceptable", message)

"""Label and field selectors as kube-apiserver parses and applies them.

parse_label_selector / parse_field_selector return a predicate over an object, or raise
StatusError(400) with the apiserver's wording.
"""
from __future__ import annotations

from kubelite.server.errors import bad_request

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import Callable

Predicate = "Callable[[dict], bool]"  # (annotations only)


def parse_label_requirements(text: str | None) -> list[tuple[str, str, tuple[str, ...]]]:
    """(key, operator, values) requirements, or StatusError(400) with kube-apiserver's wording."""
    if not text:  # most requests: kubelite.labels (its parser, its patterns) is not loaded for them
        return []
    from kubelite.labels import SelectorSyntaxError, parse_requirements

    try:
        return parse_requirements(text)
    except SelectorSyntaxError as exc:
        raise bad_request(str(exc)) from None


# --- labels: matching --------------------------------------------------------------------

def parse_label_selector(text: str | None) -> Predicate | None:
    """None for an empty selector (everything matches)."""
    requirements = parse_label_requirements(text)
    if not requirements:
        return None
    checks = [_check(key, op, values) for key, op, values in requirements]

    def matches(obj: dict) -> bool:
        labels = _labels(obj)
        return all(check(labels) for check in checks)

    return matches


def _labels(obj: dict) -> dict:
    labels = (obj.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, dict) else {}


def _check(key: str, op: str, values: tuple[str, ...]) -> Callable[[dict], bool]:
    if op in ("in", "=", "=="):
        return lambda labels: key in labels and labels[key] in values
    if op in ("notin", "!="):
        return lambda labels: key not in labels or labels[key] not in values
    if op == "exists":
        return lambda labels: key in labels
    if op == "!":
        return lambda labels: key not in labels
    bound = int(values[0])
    from kubelite.labels import is_int64

    def compare(labels: dict) -> bool:
        value = labels.get(key)
        if not isinstance(value, str) or not is_int64(value):
            return False
        return int(value) > bound if op == "gt" else int(value) < bound

    return compare


# --- fields -----------------------------------------------------------------------------

# Kinds whose API version registers its own field-label conversion: the labels each accepts and
# the wording of a refusal (kube-apiserver 1.32). Every other built-in kind takes only
# metadata.name and metadata.namespace, refused in the generic wording.
_NOT_SUPPORTED = "field label not supported: {}"
FIELD_LABELS: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("", "pods"): (("metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
                    "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
                    "status.podIP", "status.podIPs", "status.nominatedNodeName"), _NOT_SUPPORTED),
    ("", "nodes"): (("metadata.name", "spec.unschedulable"), _NOT_SUPPORTED),
    ("", "replicationcontrollers"): (("metadata.name", "metadata.namespace", "status.replicas"),
                                     _NOT_SUPPORTED),
    ("", "events"): (("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                      "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                      "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type",
                      "metadata.namespace", "metadata.name"), _NOT_SUPPORTED),
    ("", "namespaces"): (("status.phase", "metadata.name"), _NOT_SUPPORTED),
    ("", "secrets"): (("type", "metadata.namespace", "metadata.name"), _NOT_SUPPORTED),
    ("", "services"): (("metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"), _NOT_SUPPORTED),
    ("apps", "statefulsets"): (("metadata.name", "metadata.namespace", "status.successful"),
                               "field label not supported for appsv1.StatefulSet: {}"),
    ("batch", "jobs"): (("metadata.name", "metadata.namespace", "status.successful"), _NOT_SUPPORTED),
    ("certificates.k8s.io", "certificatesigningrequests"): (("metadata.name", "spec.signerName"),
                                                            _NOT_SUPPORTED),
}
# Labels another name stands for (old v1 clients send spec.host for a pod's node).
_ALIASES = {("", "pods", "spec.host"): "spec.nodeName"}
# Selectable fields whose value is not simply the object's field at that path: (path, default).
_SOURCES = {
    ("", "pods", "spec.hostNetwork"): ("spec.hostNetwork", False),
    ("", "nodes", "spec.unschedulable"): ("spec.unschedulable", False),
    ("", "replicationcontrollers", "status.replicas"): ("status.replicas", 0),
    ("batch", "jobs", "status.successful"): ("status.succeeded", 0),
    ("", "events", "source"): ("source.component", None),
}


def parse_field_selector(text: str | None, group: str, resource: str, *, crd: bool = False,
                         namespaced: bool = True, selectable: tuple[str, ...] = ()) -> Predicate | None:
    """A predicate for a fieldSelector (None when empty), or StatusError(400) with kube's wording.

    As kube-apiserver: all terms are parsed (in sorted order) before any label is checked
    against what the resource supports. `selectable`: a custom resource version's
    selectableFields (`spec.color`), matched against the field's value as Go's fmt.Sprint
    prints it, or "" where the object lacks it.
    """
    terms = [_parse_term(text, part) for part in sorted(_split_terms(text or ""), key=str.encode) if part]
    checks = []
    for field, value, negate in terms:
        if crd and field in selectable and field not in ("metadata.name", "metadata.namespace"):
            checks.append(((field, None), value, negate))
            continue
        field = _convert_label(field, group, resource, crd, namespaced)
        source = _SOURCES.get((group, resource, field), (field, None))
        checks.append((source, value, negate))
    if not checks:
        return None

    def matches(obj: dict) -> bool:
        return all((_field_value(obj, *source) == value) != negate for source, value, negate in checks)

    return matches


def field_selector_terms(text: str | None) -> list[tuple[str, str, bool]]:
    """(field, value, negated) of each term, checked only for syntax as a client's
    fields.ParseSelector does (StatusError 400 with its wording)."""
    return [_parse_term(text, part) for part in _split_terms(text or "") if part]


def _split_terms(text: str) -> list[str]:
    """Split at commas not escaped by a backslash; the escapes stay in the terms."""
    terms, start, escaped = [], 0, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _parse_term(whole: str, term: str) -> tuple[str, str, bool]:
    # No escaping on the left: the first operator found splits the term, "!=" and "==" first.
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], _unescape(term[i + len(op):]), op == "!="
    raise bad_request(f"invalid selector: '{whole}'; can't understand '{term}'")


def _unescape(value: str) -> str:
    out, escaped = [], False
    for ch in value:
        if escaped:
            if ch not in "\\,=":
                raise bad_request(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            raise bad_request(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if escaped:
        raise bad_request("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _convert_label(field: str, group: str, resource: str, crd: bool, namespaced: bool) -> str:
    if crd:
        if field == "metadata.name" or (namespaced and field == "metadata.namespace"):
            return field
        raise bad_request(_NOT_SUPPORTED.format(field))
    custom = FIELD_LABELS.get((group, resource))
    if custom is None:
        if field in ("metadata.name", "metadata.namespace"):
            return field
        raise bad_request(f'"{field}" is not a known field selector: only "metadata.name", "metadata.namespace"')
    labels, refusal = custom
    if field in labels:
        return field
    alias = _ALIASES.get((group, resource, field))
    if alias:
        return alias
    raise bad_request(refusal.format(field))


def _field_value(obj: dict, path: str, default=None) -> str:
    node = obj
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    if node is None:
        node = default
    if node is None:
        return ""
    if isinstance(node, bool):
        return "true" if node else "false"
    if isinstance(node, (float, dict, list)):
        from kubelite.server.patchcheck import go_print

        return go_print(node)
    return str(node)

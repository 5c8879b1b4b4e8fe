"""ObjectMeta (names, labels, annotations) and label selector validation."""

from __future__ import annotations

from kubelite.server.admission import field as F
from kubelite.server.admission import names as N
from kubelite.server.admission.field import Path
from kubelite.server.admission.validation_common import Causes, _dicts, _map

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any, Callable


TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024


def validate_labels(labels: Any, path: str) -> Causes:
    errs = []
    for key, value in sorted(_map(labels).items()):
        for msg in N.is_qualified_name(key):
            errs.append(F.invalid(path, key, msg))
        for msg in N.is_valid_label_value(str(value) if value is not None else ""):
            errs.append(F.invalid(path, value, msg))
    return errs


def validate_annotations(annotations: Any, path: str) -> Causes:
    errs = []
    total = 0
    for key, value in sorted(_map(annotations).items()):
        for msg in N.is_qualified_name(key.lower()):
            errs.append(F.invalid(path, key, msg))
        total += len(key.encode()) + len(str(value or "").encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(F.too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


NameFn = "Callable[[str, bool], list]"  # (annotations only)


def validate_object_meta(meta: Any, namespaced: bool, name_fn: NameFn, path: str = "metadata") -> Causes:
    meta = _map(meta)
    errs: Causes = []
    p = Path(path)
    generate_name = meta.get("generateName")
    if generate_name:
        for msg in name_fn(generate_name, True):
            errs.append(F.invalid(p.child("generateName"), generate_name, msg))
    name = meta.get("name") or ""
    if not name:
        errs.append(F.required(p.child("name"), "name or generateName is required"))
    else:
        for msg in name_fn(name, False):
            errs.append(F.invalid(p.child("name"), name, msg))
    namespace = meta.get("namespace") or ""
    if namespaced:
        if not namespace:
            errs.append(F.required(p.child("namespace"), ""))
        else:
            for msg in N.is_dns1123_label(namespace):
                errs.append(F.invalid(p.child("namespace"), namespace, msg))
    elif namespace:
        errs.append(F.forbidden(p.child("namespace"), "not allowed on this type"))
    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(F.invalid(p.child("generation"), generation, "must be greater than or equal to 0"))
    errs += validate_labels(meta.get("labels"), p.child("labels"))
    errs += validate_annotations(meta.get("annotations"), p.child("annotations"))
    return errs


_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist")


def validate_label_selector(selector: Any, path: str) -> Causes:
    errs: Causes = []
    selector = _map(selector)
    p = Path(path)
    for i, expr in enumerate(_dicts(selector.get("matchExpressions"))):
        ep = p.child("matchExpressions").index(i)
        op = expr.get("operator", "")
        values = expr.get("values") or []
        if op in ("In", "NotIn"):
            if not values:
                errs.append(F.required(ep.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(
                    F.forbidden(ep.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
                )
        else:
            errs.append(F.invalid(ep.child("operator"), op, "not a valid selector operator"))
        for msg in N.is_qualified_name(str(expr.get("key", ""))):
            errs.append(F.invalid(ep.child("key"), expr.get("key", ""), msg))
    errs += validate_labels(selector.get("matchLabels"), p.child("matchLabels"))
    return errs


def _selector_parses(selector: Any) -> bool:
    """Whether LabelSelectorAsSelector accepts it (operators and values)."""
    for expr in _dicts(_map(selector).get("matchExpressions")):
        op = expr.get("operator")
        values = expr.get("values") or []
        if op not in _SELECTOR_OPS:
            return False
        if op in ("In", "NotIn") and not values:
            return False
        if op in ("Exists", "DoesNotExist") and values:
            return False
        if N.is_qualified_name(str(expr.get("key", ""))):
            return False
    for key, value in _map(_map(selector).get("matchLabels")).items():
        if N.is_qualified_name(key) or N.is_valid_label_value(str(value)):
            return False
    return True


def selector_matches(selector: Any, labels: Any) -> bool:
    """Label selector semantics; ``None`` selects nothing, ``{}`` everything."""
    if selector is None:
        return False
    labels = _map(labels)
    selector = _map(selector)
    for key, value in _map(selector.get("matchLabels")).items():
        if labels.get(key) != value:
            return False
    for expr in _dicts(selector.get("matchExpressions")):
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def _selector_empty(selector: Any) -> bool:
    selector = _map(selector)
    return not selector.get("matchLabels") and not selector.get("matchExpressions")

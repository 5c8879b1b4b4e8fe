"""Helpers shared by the validators: tolerant list/map access, Go %#v renderings for messages, limits."""

from __future__ import annotations

from kubelite.server.admission import field as F
from kubelite.server.admission.field import GoRepr, go_quote

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any


MAX_INT32 = 2**31 - 1

Causes = list


def _dicts(value: Any) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _map(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _go_string_map(value: Any) -> str:
    if value is None:
        return "map[string]string(nil)"
    items = ", ".join(f"{go_quote(k)}:{go_quote(str(v))}" for k, v in sorted(_map(value).items()))
    return "map[string]string{" + items + "}"


def _go_string_slice(value: Any) -> str:
    if value is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(str(v)) for v in value) + "}"


def _go_label_selector(selector: Any) -> GoRepr:
    selector = _map(selector)
    exprs = selector.get("matchExpressions")
    if exprs is None:
        expr_text = "[]v1.LabelSelectorRequirement(nil)"
    else:
        inner = ", ".join(
            "v1.LabelSelectorRequirement{"
            f"Key:{go_quote(str(e.get('key', '')))}, Operator:{go_quote(str(e.get('operator', '')))}, "
            f"Values:{_go_string_slice(e.get('values'))}}}"
            for e in _dicts(exprs)
        )
        expr_text = "[]v1.LabelSelectorRequirement{" + inner + "}"
    return GoRepr(
        f"v1.LabelSelector{{MatchLabels:{_go_string_map(selector.get('matchLabels'))}, "
        f"MatchExpressions:{expr_text}}}"
    )


def _go_int_or_string(value: Any) -> GoRepr:
    if isinstance(value, str):
        return GoRepr(f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{go_quote(value)}}}")
    return GoRepr(f"intstr.IntOrString{{Type:0, IntVal:{int(value or 0)}, StrVal:\"\"}}")


def _nonnegative(value: Any, path: str) -> Causes:
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [F.invalid(path, value, "must be greater than or equal to 0")]
    return []

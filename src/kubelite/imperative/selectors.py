"""Label selector text -> LabelSelector, as kubectl's metav1.ParseToLabelSelector builds it for
`set selector`, `create poddisruptionbudget --selector` and the like. The text is parsed by the
same parser the server uses (kubelite.labels)."""
from __future__ import annotations

from kubelite.labels import SelectorSyntaxError, parse_requirements

from .errors import ImperativeError

_EXPRESSION_OPERATORS = {"in": "In", "notin": "NotIn", "exists": "Exists", "!": "DoesNotExist"}


def parse_to_label_selector(text: str) -> dict:
    """{"matchLabels": ..., "matchExpressions": ...} (empty parts left out), or ImperativeError
    with kubectl's wording."""
    try:
        requirements = parse_requirements(text)
    except SelectorSyntaxError as err:
        raise ImperativeError(f"couldn't parse the selector string \"{text}\": {err}") from None
    match_labels: dict = {}
    expressions: list[dict] = []
    # apimachinery sorts the requirements by key (a stable sort for the few a selector has)
    for key, op, values in sorted(requirements, key=lambda r: r[0].encode()):
        if op in ("=", "=="):
            match_labels[key] = values[0]
            continue
        if op in ("gt", "lt"):
            raise ImperativeError(f'"{op}" isn\'t supported in label selectors')
        if op not in _EXPRESSION_OPERATORS:
            raise ImperativeError(f'"{op}" is not a valid label selector operator')
        entry: dict = {"key": key, "operator": _EXPRESSION_OPERATORS[op]}
        if values:
            entry["values"] = list(values)
        expressions.append(entry)
    out: dict = {}
    if match_labels:
        out["matchLabels"] = match_labels
    if expressions:
        out["matchExpressions"] = expressions
    return out

"""Evaluating a parsed JSONPath template against a JSON value, as kubectl 1.32 does."""

from __future__ import annotations

from kubelite.manifest._govalues import go_sprint
from kubelite.manifest._jp_errors import _ExecError
from kubelite.manifest._jp_nodes import (
    _Array, _Bool, _Field, _Filter, _Float, _Identifier, _Int, _List, _Recursive, _Text, _Union, _Wildcard,
)
from kubelite.manifest._jp_values import _Byte, _INVALID

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable


def _go_type(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Byte):
        return "uint8"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "interface {}"


def _children(value: Any) -> list:
    if isinstance(value, dict):
        return [value[key] for key in sorted(value)]
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return [_Byte(b) for b in value.encode("utf-8")]
    return []


class _Evaluator:
    """Holds kubectl's range bookkeeping for one execution of a template."""

    def __init__(self, root: _List, allow_missing_keys: bool):
        self.nodes = root.nodes
        self.allow_missing_keys = allow_missing_keys
        self.begin_range = 0
        self.in_range = 0
        self.end_range = 0
        self.last_end = -1

    def find_results(self, data: Any, start: int = 0) -> list[list]:
        current = [data]
        full: list[list] = []
        i = start
        while i < len(self.nodes):
            results = self.walk(current, self.nodes[i])
            if self.end_range > 0 and self.end_range <= self.in_range:
                self.end_range -= 1
                self.last_end = i
                break
            if self.begin_range > 0:
                self.begin_range -= 1
                self.in_range += 1
                if results:
                    for value in results:
                        full.extend(self.find_results(value, i + 1))
                else:
                    self.find_results(_INVALID, i + 1)
                self.in_range -= 1
                for k in range(i + 1, len(self.nodes)):
                    if k == self.last_end:
                        i = k
                        break
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    def walk(self, values: list, node: Any) -> list:
        handler: Callable = getattr(self, "_eval_" + type(node).__name__.lstrip("_").lower())
        return handler(values, node)

    def _eval_list(self, values: list, node: _List) -> list:
        for child in node.nodes:
            values = self.walk(values, child)
        return values

    def _eval_text(self, values: list, node: _Text) -> list:
        return [node.text]

    def _eval_int(self, values: list, node: _Int) -> list:
        return [node.value for _ in values]

    def _eval_float(self, values: list, node: _Float) -> list:
        return [node.value for _ in values]

    def _eval_bool(self, values: list, node: _Bool) -> list:
        return [node.value for _ in values]

    def _eval_identifier(self, values: list, node: _Identifier) -> list:
        if node.name == "range":
            self.begin_range += 1
            return values
        if node.name == "end":
            if self.in_range > 0:
                self.end_range += 1
                return []
            raise _ExecError("not in range, nothing to end", keeps_input=False)
        raise _ExecError(f"unrecognized identifier {node.name}")

    def _eval_field(self, values: list, node: _Field) -> list:
        if not values:
            return []
        results = []
        for value in values:
            if isinstance(value, dict) and node.name in value:
                results.append(value[node.name])
        if not results and not self.allow_missing_keys:
            raise _ExecError(f"{node.name} is not found", keeps_input=False)
        return results

    def _eval_array(self, values: list, node: _Array) -> list:
        results: list = []
        for value in values:
            if value is None:
                continue
            if value is _INVALID:
                raise _ExecError("<invalid reflect.Value> is not array or slice")
            if not isinstance(value, list):
                raise _ExecError(f"{_go_type(value)} is not array or slice")
            selected = _select(value, node.params)
            if selected is None:
                return results
            results.extend(selected)
        return results

    def _eval_union(self, values: list, node: _Union) -> list:
        results = []
        for branch in node.branches:
            results.extend(self._eval_list(values, branch))
        return results

    def _eval_wildcard(self, values: list, node: _Wildcard) -> list:
        results = []
        for value in values:
            if value is not None and value is not _INVALID:
                results.extend(_children(value))
        return results

    def _eval_recursive(self, values: list, node: _Recursive) -> list:
        results = []
        for value in values:
            if value is None or value is _INVALID:
                continue
            children = _children(value)
            if children:
                results.append(value)
                results.extend(self._eval_recursive(children, node))
        return results

    def _eval_filter(self, values: list, node: _Filter) -> list:
        results = []
        for value in values:
            if not isinstance(value, list):
                shown = "<invalid reflect.Value>" if value is _INVALID else go_sprint(value)
                raise _ExecError(f"{shown} is not array or slice and cannot be filtered")
            for item in value:
                if self._filter_passes(item, node):
                    results.append(item)
        return results

    def _filter_passes(self, item: Any, node: _Filter) -> bool:
        if node.operator == "exists":
            try:
                return bool(self._eval_list([item], node.left))
            except _ExecError as err:
                return err.keeps_input
        lefts = self._eval_list([item], node.left)
        if not lefts:
            return False
        if len(lefts) > 1:
            raise _ExecError("can only compare one element at a time")
        rights = self._eval_list([item], node.right)
        if not rights:
            return False
        if len(rights) > 1:
            raise _ExecError("can only compare one element at a time")
        return _compare(node.operator, lefts[0], rights[0])


def _select(value: list, params: tuple) -> list | None:
    """Apply an index/slice to ``value``; None means "zero elements requested"."""
    length = len(value)
    start = params[0].value if params[0].known else 0
    if start < 0:
        start += length
    stop = params[1].value if params[1].known else length
    if stop < 0 or (stop == 0 and params[1].derived):
        stop += length
    if stop == start:
        return None
    if start >= length or start < 0:
        raise _ExecError(f"array index out of bounds: index {start}, length {length}")
    if stop > length or stop < 0:
        raise _ExecError(f"array index out of bounds: index {stop - 1}, length {length}")
    if start > stop:
        raise _ExecError(f"starting index {start} is greater than ending index {stop}")
    step = 1
    if params[2].known:
        if params[2].value <= 0:
            raise _ExecError("step must be > 0")
        step = params[2].value
    return value[start:stop:step]


def _basic_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Byte):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    raise _ExecError("invalid type for comparison", keeps_input=False)


def _less(left: Any, right: Any) -> bool:
    k1, k2 = _basic_kind(left), _basic_kind(right)
    if k1 != k2:
        if {k1, k2} == {"int", "uint"}:
            return left < right
        raise _ExecError("incompatible types for comparison", keeps_input=False)
    if k1 == "bool":
        raise _ExecError("invalid type for comparison", keeps_input=False)
    if k1 == "string":
        return left.encode("utf-8") < right.encode("utf-8")
    return left < right


def _equal(left: Any, right: Any) -> bool:
    k1, k2 = _basic_kind(left), _basic_kind(right)
    if k1 != k2 and {k1, k2} != {"int", "uint"}:
        raise _ExecError("incompatible types for comparison", keeps_input=False)
    return left == right


def _compare(operator: str, left: Any, right: Any) -> bool:
    if operator == "<":
        return _less(left, right)
    if operator == ">":
        return not (_less(left, right) or _equal(left, right))
    if operator == "==":
        return _equal(left, right)
    if operator == "!=":
        return not _equal(left, right)
    if operator == "<=":
        return _less(left, right) or _equal(left, right)
    if operator == ">=":
        return not _less(left, right)
    raise _ExecError(f"unrecognized filter operator {operator}", keeps_input=False)

"""What a strategic merge patch does to the parts of its target it does not mention.

kyaml's merge walks every field of the target, also those the patch leaves alone, and
rebuilds each list the schema declares mergeable ("associative") from its elements'
merge-key values. So a list holding two elements with the same key comes out with one:
for each key, the position of its first element and the value of its last (the patch
prepends, so the target's own elements are set again over the rebuilt list in their
order); an element without the key replaces the whole list. Elements that are null or
`{}` disappear. Lists of scalars merged as sets lose repeated values.

`normalize(value, schema)` applies this to a value the patch did not touch, in place.
"""
from __future__ import annotations


def _field(schema, name):
    try:
        return schema.field(name) if schema is not None else None
    except Exception:  # schema lookups never fail a build
        return None


def _items(schema):
    try:
        return schema.items() if schema is not None else None
    except Exception:
        return None


def merge_keys(schema) -> list[str] | None:
    """The keys of an associative list (kyaml's PatchStrategyAndKeyList), None if the list
    is not associative; [] for a set of scalars."""
    strategy = getattr(schema, "patch_strategy", None) if schema is not None else None
    if not strategy or "merge" not in strategy:
        return None
    map_keys = getattr(schema, "map_keys", None)
    if map_keys:
        return [str(k) for k in map_keys]
    key = getattr(schema, "merge_key", None)
    return [key] if key else []


def normalize(value: object, schema) -> object:
    if isinstance(value, dict):
        for key in list(value):
            value[key] = normalize(value[key], _field(schema, key))
        return value
    if isinstance(value, list):
        keys = merge_keys(schema)
        if keys is None:
            return value  # replaced as a whole by merges: never looked into
        return _rebuild(value, keys, _items(schema))
    return value


# -- the rebuild, step by step as kyaml's walker does it -----------------------------------------


def _text(value: object) -> str:
    """A field's scalar text; absent, null and empty all read as ""."""
    if value is None or value == "" or isinstance(value, (dict, list)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _has(elem: object, key: str, want: str) -> bool:
    """kyaml's FieldMatcher: the field is present (and not null), and equals want unless
    want is empty."""
    if not isinstance(elem, dict) or elem.get(key) is None:
        return False
    return want == "" or _text(elem[key]) == want


def _matches(elem: object, keys: list[str], values: list[str]) -> bool:
    """ElementSetter's test: keys past the given values count as matched once one matched."""
    if not values:
        return False
    return all(_has(elem, key, value) for key, value in zip(keys, values))


def _set_element(items: list, element: object, keys: list[str], values: list[str]) -> list:
    """kyaml's ElementSetter: null/{} elements dropped, matching ones replaced by `element`
    (removed when it is None), the others kept only if values were given; `element`
    appended when nothing matched."""
    out, found = [], False
    for item in items:
        if item is None or item == {}:
            continue
        if keys != [""] and not isinstance(item, dict):
            out.append(item)
            continue
        if keys == [""]:
            hit = bool(values) and _text(item) == values[0] and not isinstance(item, (dict, list))
        else:
            hit = _matches(item, keys, values)
        if not hit:
            if values:
                out.append(item)
            continue
        found = True
        if element is not None:
            out.append(element)
    if element is not None and not found:
        out.append(element)
    return out


def _values_list(items: list, keys: list[str]) -> list[list[str]]:
    """Each element's key values, first appearances only (elements without values skipped)."""
    out: list[list[str]] = []
    for elem in items:
        values = [_text(elem.get(k)) if isinstance(elem, dict) else "" for k in keys]
        if values and values not in out:
            out.append(values)
    return out


def _merge_values(values_list: list[list[str]]) -> list[list[str]]:
    """Entries differing only where one is empty are the same entry (kyaml's mergeValues;
    the outer loop reads each entry as it was when its turn came)."""
    for i in range(len(values_list)):
        first = values_list[i]
        for j in range(len(values_list)):
            matched, merged = _match(first, values_list[j])
            if matched:
                values_list[i] = merged
                values_list[j] = merged
    return values_list


def _match(a: list[str], b: list[str]) -> tuple[bool, list[str]]:
    if len(a) != len(b):
        return False, []
    common, out = False, []
    for x, y in zip(a, b):
        if x == y:
            common = True
            out.append(x)
        elif x and y:
            return False, []
        else:
            out.append(x or y)
    return common, out


def _valid_keys(values_list: list[list[str]], values: list[str], keys: list[str]) -> tuple[list[str], list[str]]:
    valid = {keys[i] for vals in values_list for i, v in enumerate(vals) if v}
    if not valid:
        return keys, values
    return [k for k in keys if k in valid], [v for k, v in zip(keys, values) if v or k in valid]


def _first_match(items: list, keys: list[str], values: list[str]) -> object:
    """kyaml's ElementList: the first element whose key fields all have exactly these
    values (an empty value wants a field present and empty), keys without a value in
    this one entry left out."""
    keys, values = _valid_keys([values], values, keys)
    for elem in items:
        if keys == [""]:
            if not isinstance(elem, (dict, list)) and _text(elem) == values[0]:
                return elem
        elif isinstance(elem, dict) and all(k in elem and _text(elem[k]) == v for k, v in zip(keys, values)):
            return elem
    return None


def has_repeated_keys(items: list, keys: list[str]) -> bool:
    """Two map elements with the same values for all keys (the case where the plain merge
    and kyaml's rebuild part ways)."""
    seen = []
    for elem in items:
        if isinstance(elem, dict) and all(k in elem for k in keys):
            values = [_text(elem[k]) for k in keys]
            if values in seen:
                return True
            seen.append(values)
    return False


def rebuild_with_patch(dest: list, patch: list, keys: list[str], item_schema, merge_elem, clean_elem) -> list:
    """An associative list merged with a patch's list as kyaml's walker does it: the patch's
    key values first, then the target's; each pair of first matches merged in place
    (merge_elem(target, patch) -> merged or None when deleted), patch-only elements cleaned
    (clean_elem(patch) -> value or None), target-only ones walked; then the target's
    elements set again over the result."""
    if keys == [""]:
        values_list = []
        for elem in patch + dest:
            text = "" if isinstance(elem, (dict, list)) else _text(elem)
            if [text] not in values_list:
                values_list.append([text])
    else:
        values_list = _values_list(patch + dest, keys)
    if len(keys) > 1:
        values_list = _merge_values(values_list)
    added: list = []
    valid_keys = keys
    for values in values_list:
        valid_keys, valid_values = _valid_keys(values_list, values, keys)
        target = _first_match(dest, valid_keys, valid_values)
        change = _first_match(patch, valid_keys, valid_values)
        if target is not None and change is not None:
            merged = merge_elem(target, change)
            if merged is not None and merged is not target:
                target.clear()  # kyaml writes the merge into the target's own node
                target.update(merged)
            val = None if merged is None else target
        elif change is not None:
            val = clean_elem(change)
        else:  # the first match is walked in place
            val = normalize(target, item_schema) if isinstance(target, (dict, list)) else target
        if val is None or val == {}:
            # nothing (left) to add: kyaml deletes what matches, and null/{} elements go with it
            dest = _set_element(dest, None, valid_keys, valid_values)
            continue
        for key, value in zip(valid_keys, valid_values):
            if isinstance(val, dict) and key not in val and value:
                val[key] = value
        added = _set_element(added, val, valid_keys, valid_values)
    if not values_list:
        return dest
    return _prepend_target(added, dest, valid_keys)


def _rebuild(dest: list, keys: list[str], item_schema) -> list:
    if not keys:
        # a set of scalars, matched by the value itself
        from .smp import refuse_maps_in_set

        refuse_maps_in_set([], dest)
        keys = [""]
    return rebuild_with_patch(dest, [], keys, item_schema, None, None)


def _prepend_target(out: list, dest: list, keys: list[str]) -> list:
    """kyaml's appendListNode with the target's elements set again over the rebuilt list."""
    for elem in dest:
        if keys[0] == "":
            out = _set_element(out, elem, [""], [_text(elem)])
            continue
        if elem is not None and not isinstance(elem, dict):
            raise _not_a_map(elem)
        values = []
        for key in keys:
            if not isinstance(elem, dict) or elem.get(key) is None:
                out = out + [elem]  # kyaml appends an element missing a key, and goes on
                continue
            values.append(_text(elem[key]))
        if len(keys) > 1:
            out = _set_element(out, None, keys, values)
        out = _set_element(out, elem, keys, values)
    return out


def _not_a_map(elem: object):
    """kyaml's error for a list element that is not a map where a key is looked up."""
    import yaml

    from .errors import KustomizeError

    kind = "SequenceNode" if isinstance(elem, list) else "ScalarNode"
    contents = _text(elem) if kind == "ScalarNode" else yaml.safe_dump(elem, default_flow_style=False).rstrip("\n")
    return KustomizeError(f"wrong node kind: expected MappingNode but got {kind}: node contents:\n{contents}")

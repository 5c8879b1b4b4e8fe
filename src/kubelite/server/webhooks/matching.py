"""Which webhooks a request concerns, as kube-apiserver's ShouldCallHook decides.

In order: the namespaceSelector (on the labels of the request's namespace), the objectSelector
(on the new or the old object's labels), the rules (operations, apiGroups, apiVersions,
resources with "res/sub" and "*" forms, scope), then for matchPolicy Equivalent the same rules
against the other versions the resource is served in, and last the matchConditions.
"""
from __future__ import annotations

from kubelite.record import FrozenRecord, Record, factory
from kubelite.server import errors
from kubelite.server.admission.validation_meta import selector_matches

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Callable


class Attributes(Record):
    """What is being admitted (kube-apiserver's admission.Attributes)."""

    operation: str  # CREATE | UPDATE | DELETE
    group: str
    version: str
    resource: str
    kind: str
    namespace: str
    name: str
    obj: dict | None
    old: dict | None
    user: object
    subresource: str = ""
    dry_run: bool = False
    options: dict = factory(dict)


class Invocation(FrozenRecord):
    """A webhook to call, and the group/version/resource/kind the request is presented as."""

    hook: object
    group: str
    version: str
    resource: str
    kind: str


def _any(items, requested: str) -> bool:
    return any(item == "*" or item == requested for item in items or ())


def _scope(rule: dict, attr: Attributes, resource: str) -> bool:
    scope = rule.get("scope") or "*"
    is_namespace = attr.group == "" and resource == "namespaces"
    if scope == "*":
        return True
    if scope == "Namespaced":
        return not is_namespace and attr.namespace != ""
    if scope == "Cluster":
        return is_namespace or attr.namespace == ""
    return False


def _resource(rule: dict, resource: str, subresource: str) -> bool:
    for entry in rule.get("resources") or ():
        res, _, sub = str(entry).partition("/")
        if (res == "*" or res == resource) and (sub == "*" or sub == subresource):
            return True
    return False


def rule_matches(rule: dict, attr: Attributes, group: str, version: str, resource: str) -> bool:
    return (_scope(rule, attr, resource) and _any(rule.get("operations"), attr.operation)
            and _any(rule.get("apiGroups"), group) and _any(rule.get("apiVersions"), version)
            and _resource(rule, resource, attr.subresource))


def _labels(obj: dict | None) -> dict | None:
    if not isinstance(obj, dict):
        return None
    labels = (obj.get("metadata") or {}).get("labels")
    return labels if isinstance(labels, dict) else {}


def _selector_empty(selector) -> bool:
    return not isinstance(selector, dict) or (not selector.get("matchLabels") and not selector.get("matchExpressions"))


class Matcher:
    """Decides for one request; `namespace_labels(name)` reads a namespace's labels (None when
    it does not exist) and `equivalents(group, resource)` lists the (group, version, resource,
    kind) the same objects are served as."""

    def __init__(self, namespace_labels: Callable[[str], dict | None],
                 equivalents: Callable[[str, str], list[tuple[str, str, str, str]]]):
        self.namespace_labels = namespace_labels
        self.equivalents = equivalents

    def invocation(self, hook, attr: Attributes) -> Invocation | None:
        spec = hook.spec
        if not self._namespace_selected(spec.get("namespaceSelector"), attr):
            return None
        if not self._object_selected(spec.get("objectSelector"), attr):
            return None
        found = self._by_rules(hook, attr)
        if found is None:
            return None
        if spec.get("matchConditions") and not self._conditions_hold(hook, attr, found):
            return None
        return found

    def _namespace_selected(self, selector, attr: Attributes) -> bool:
        is_namespace = attr.group == "" and attr.resource == "namespaces"
        if not attr.namespace and not is_namespace:
            return True  # cluster-scoped objects other than namespaces are never exempted
        if _selector_empty(selector):
            return True
        if is_namespace and not attr.subresource and attr.operation in ("CREATE", "UPDATE"):
            labels = _labels(attr.obj) or {}
        else:
            labels = self.namespace_labels(attr.namespace or attr.name)
            if labels is None:
                raise errors.not_found("", "namespaces", attr.namespace or attr.name)
        return selector_matches(selector, labels)

    @staticmethod
    def _object_selected(selector, attr: Attributes) -> bool:
        if _selector_empty(selector):
            return True
        return any(labels is not None and selector_matches(selector, labels)
                   for labels in (_labels(attr.obj), _labels(attr.old)))

    def _by_rules(self, hook, attr: Attributes) -> Invocation | None:
        rules = hook.spec.get("rules") or ()
        for rule in rules:
            if rule_matches(rule, attr, attr.group, attr.version, attr.resource):
                return Invocation(hook, attr.group, attr.version, attr.resource, attr.kind)
        if hook.spec.get("matchPolicy") != "Equivalent":
            return None
        for rule in rules:  # earlier rules first
            for group, version, resource, kind in self.equivalents(attr.group, attr.resource):
                if (group, version, resource) == (attr.group, attr.version, attr.resource):
                    continue
                if rule_matches(rule, attr, group, version, resource):
                    return Invocation(hook, group, version, resource, kind)
        return None

    @staticmethod
    def _conditions_hold(hook, attr: Attributes, found: Invocation) -> bool:
        """The matchConditions (CEL, with `object`, `oldObject` and `request` in the version the
        webhook is called with): False as soon as one is false. Conditions that cannot be
        evaluated skip the webhook under failurePolicy Ignore and refuse the request under Fail,
        as kube-apiserver's matcher does."""
        from kubelite.server.cel import admission as celadmission
        from kubelite.server.webhooks.versions import to_version

        declared = frozenset({"object", "oldObject", "request"})
        conditions = [(str(c.get("name") or ""), celadmission.Compiled.of(str(c.get("expression") or ""), declared))
                      for c in hook.spec.get("matchConditions") or () if isinstance(c, dict)]
        activation = celadmission.activation(
            to_version(attr.obj, found.group, found.version, found.kind),
            to_version(attr.old, found.group, found.version, found.kind),
            celadmission.request_value(attr, found.group, found.version, found.resource, found.kind))
        matches, failure = celadmission.conditions_match(conditions, activation)
        if failure is None:
            return matches
        if hook.failure_ignored:
            return False
        raise errors.forbidden(attr.group, attr.resource, attr.name, failure)

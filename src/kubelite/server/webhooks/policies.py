"""ValidatingAdmissionPolicy and its bindings, as kube-apiserver 1.32's plugin evaluates them.

The stage runs after the built-in validation and before the validating webhooks (the order of
kube-apiserver's validating admission plugins), for creates, updates and deletes.

- Which policies apply: the policy's matchConstraints (namespace and object selectors,
  excludeResourceRules, resourceRules with resourceNames, matchPolicy Equivalent, the default),
  then each binding's matchResources (none: everything the policy matches).
- Params: the policy's paramKind, the binding's paramRef (name or selector, namespace,
  parameterNotFoundAction); one evaluation per param found.
- Evaluation (`Evaluator`): matchConditions, then validations with the policy's variables
  (lazily, once per evaluation); a failed validation is denied with messageExpression's text,
  else message, else "failed expression: EXPR"; an error follows failurePolicy.
- Actions per binding: Deny refuses (the first denial in policy/binding name order is the
  answer, kube-apiserver's text and reason-to-code), Warn adds a Warning header, Audit has no
  effect here (there is no audit log).

Not done: auditAnnotations (ignored), the `authorizer` variable, a cost budget, params converted
to paramKind's version, the policies' status (type checking).
"""
from __future__ import annotations

import json
import threading

from kubelite.record import Record
from kubelite.server import errors
from kubelite.server.admission.validation_meta import selector_matches
from kubelite.server.webhooks.config import GROUP, GroupRead
from kubelite.server.webhooks.matching import Attributes, _labels, _selector_empty, rule_matches
from kubelite.server.webhooks.versions import to_version

POLICIES = "validatingadmissionpolicies"
BINDINGS = "validatingadmissionpolicybindings"
_EXEMPT = frozenset({POLICIES, BINDINGS, "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"})
_PREFIX = f"/registry/{GROUP}/"
_REASON_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}
_MAX_MESSAGE = 5 * 1024


class Decision(Record):
    message: str
    reason: str = ""


class Denial(Record):
    policy: str
    binding: str | None
    message: str
    reason: str = ""


# -- the policies stored now -----------------------------------------------------------------------

class PolicyHook(Record):
    policy: dict
    bindings: list[dict]
    evaluator: "Evaluator"

    @property
    def name(self) -> str:
        return str((self.policy.get("metadata") or {}).get("name") or "")

    @property
    def spec(self) -> dict:
        spec = self.policy.get("spec")
        return spec if isinstance(spec, dict) else {}


class Source:
    """The policies that have bindings, in name order, each with its bindings (name order) and
    its compiled evaluator; read again when something in the group was written, a policy
    recompiled only when it changed."""

    def __init__(self, store, group: GroupRead | None = None):
        self.store = store
        self.group = group or GroupRead(store)  # the webhooks' read of the group, when given
        self._lock = threading.Lock()
        self._version: object = None
        self._versions: tuple = ()
        self._hooks: tuple[PolicyHook, ...] = ()
        self._evaluators: dict[str, tuple[int, Evaluator]] = {}

    def hooks(self, version: object = None) -> tuple[PolicyHook, ...]:
        """`version`: the group's version() as the caller has just read it."""
        version, kvs = self.group.read(version)
        with self._lock:
            if version != self._version:
                self._refresh(kvs)
                self._version = version
            return self._hooks

    def _refresh(self, kvs: list) -> None:
        kvs = [kv for kv in kvs if kv.key.startswith((f"{_PREFIX}{POLICIES}/", f"{_PREFIX}{BINDINGS}/"))]
        versions = tuple((kv.key, kv.mod_revision) for kv in kvs)
        if versions == self._versions:
            return
        policies: dict[str, tuple[int, dict]] = {}
        bindings: dict[str, list[dict]] = {}
        for kv in kvs:
            obj = json.loads(kv.value)
            name = str((obj.get("metadata") or {}).get("name") or "")
            if kv.key.startswith(f"{_PREFIX}{POLICIES}/"):
                policies[name] = (kv.mod_revision, obj)
            else:
                policy_name = str((obj.get("spec") or {}).get("policyName") or "")
                bindings.setdefault(policy_name, []).append(obj)
        hooks, evaluators = [], {}
        for name in sorted(bindings):
            if name not in policies:
                continue  # a binding to a policy that does not exist (yet) is ignored
            revision, policy = policies[name]
            cached = self._evaluators.get(name)
            evaluator = cached[1] if cached and cached[0] == revision else Evaluator(policy)
            evaluators[name] = (revision, evaluator)
            ordered = sorted(bindings[name], key=lambda b: str((b.get("metadata") or {}).get("name") or ""))
            hooks.append(PolicyHook(policy, ordered, evaluator))
        self._hooks, self._evaluators, self._versions = tuple(hooks), evaluators, versions


# -- evaluation ------------------------------------------------------------------------------------

class Evaluator:
    """One policy's expressions, compiled on first use (variables, matchConditions,
    validations and their messageExpressions)."""

    def __init__(self, policy: dict):
        self.policy = policy
        self._compiled = None
        self._lock = threading.Lock()

    def _compile(self):
        from kubelite.server.cel.admission import Compiled

        with self._lock:
            if self._compiled is None:
                spec = self.policy.get("spec") or {}
                names = {"object", "oldObject", "request", "namespaceObject", "variables"}
                if spec.get("paramKind"):
                    names.add("params")
                declared = frozenset(names)
                variables = [(str(v.get("name") or ""), Compiled.of(str(v.get("expression") or ""), declared))
                             for v in spec.get("variables") or () if isinstance(v, dict)]
                conditions = [(str(c.get("name") or ""), Compiled.of(str(c.get("expression") or ""), declared))
                              for c in spec.get("matchConditions") or () if isinstance(c, dict)]
                validations = []
                for v in spec.get("validations") or ():
                    if not isinstance(v, dict):
                        continue
                    message_expression = v.get("messageExpression")
                    validations.append((v, Compiled.of(str(v.get("expression") or ""), declared),
                                        Compiled.of(str(message_expression), declared) if message_expression else None))
                self._compiled = (variables, conditions, validations)
            return self._compiled

    def validate(self, obj, old, request: dict, params, namespace: dict | None, fail: bool) -> list[Decision]:
        """The denials (failed validations; errors too unless failurePolicy is Ignore)."""
        from kubelite.server.cel import CompileError, EvalError, lazy_map
        from kubelite.server.cel import admission as celadmission
        from kubelite.server.cel.library import error as cel_error

        variables, conditions, validations = self._compile()
        activation: dict = {}

        def variable(name, compiled):
            def compute():
                if compiled.error is not None:
                    return cel_error(f'composited variable "{name}" fails to compile: compilation failed: '
                                     f"{compiled.error}")
                try:
                    return compiled.evaluate(activation)
                except EvalError as err:
                    return cel_error(f'composited variable "{name}" fails to evaluate: {err}')
            return compute

        activation.update(celadmission.activation(
            obj, old, request, params=params, namespaceObject=celadmission.namespace_value(namespace),
            variables=lazy_map({name: variable(name, compiled) for name, compiled in variables})))
        if conditions:
            matched, failure = celadmission.conditions_match(conditions, activation)
            if failure is not None:
                return [Decision(failure)] if fail else []
            if not matched:
                return []
        decisions = []
        for validation, compiled, message_compiled in validations:
            try:
                value = compiled.evaluate(activation)
            except (CompileError, EvalError) as err:
                if fail:
                    decisions.append(Decision(celadmission.expression_error(compiled.expression, err)))
                continue
            if _is_true(value):
                continue
            decisions.append(Decision(self._message(validation, message_compiled, activation),
                                      str(validation.get("reason") or "Invalid")))
        return decisions

    @staticmethod
    def _message(validation: dict, message_compiled, activation: dict) -> str:
        from kubelite.server.cel import CompileError, EvalError

        message = ""
        if message_compiled is not None:
            try:
                value = message_compiled.evaluate(activation)
            except (CompileError, EvalError):
                value = None
            if isinstance(value, str):
                message = value.strip()
                if len(message) > _MAX_MESSAGE or "\n" in message:
                    message = ""
        if not message and validation.get("message"):
            message = str(validation["message"]).strip()
        if not message:
            message = f"failed expression: {str(validation.get('expression') or '').strip()}"
        return message


def _is_true(value) -> bool:
    return isinstance(value, int) and type(value).__name__ == "BoolType" and bool(value)


# -- the stage ---------------------------------------------------------------------------------------

class ConfigurationError(Exception):
    pass


class _Match(Record):
    group: str
    version: str
    resource: str
    kind: str


class PolicyAdmission:
    """The ValidatingAdmissionPolicy stage of one API server; `webhooks` lends its cluster
    lookups (namespaces, equivalent resources)."""

    def __init__(self, api, webhooks):
        self.api = api
        self.webhooks = webhooks
        self.source = Source(api.store, webhooks.configurations.group)

    def active(self, attr: Attributes) -> bool:
        if attr.group == GROUP and attr.resource in _EXEMPT:
            return False
        return self.configured()

    def configured(self, version: object = None) -> bool:
        """Whether any policy is bound (none: no request needs looking at)."""
        return bool(self.source.hooks(version))

    def validate(self, attr: Attributes) -> list[str]:
        """The policies' warnings; the first denial raised as kube-apiserver's StatusError."""
        if not self.active(attr):
            return []
        denials: list[Denial] = []
        warnings: list[str] = []
        for hook in self.source.hooks():
            self._policy(hook, attr, denials, warnings)
        if denials:
            raise self._refusal(attr, denials[0])
        return warnings

    def _policy(self, hook: PolicyHook, attr: Attributes, denials: list[Denial], warnings: list[str]) -> None:
        spec = hook.spec
        fail = spec.get("failurePolicy") != "Ignore"

        def config_error(message: str, binding_name: str | None = None) -> None:
            if fail:
                prefix = "failed to configure binding: " if binding_name is not None else "failed to configure policy: "
                denials.append(Denial(hook.name, binding_name, prefix + message))

        constraints = spec.get("matchConstraints")
        if not isinstance(constraints, dict):
            config_error("policy contained no match constraints, a required field")
            return
        try:
            matched = self._matches(constraints, attr)
        except errors.StatusError as err:
            config_error(err.message)
            return
        if matched is None:
            return
        param_resource = None
        if isinstance(spec.get("paramKind"), dict):
            try:
                param_resource = self._param_resource(spec["paramKind"])
            except ConfigurationError as err:
                config_error(str(err))
                return
        namespace = None
        is_namespace = attr.group == "" and attr.kind == "Namespace" and attr.version == "v1"
        if attr.namespace and not is_namespace:
            namespace = self.webhooks._read("", "namespaces", "", attr.namespace)
        obj = to_version(attr.obj, matched.group, matched.version, matched.kind)
        old = to_version(attr.old, matched.group, matched.version, matched.kind)
        from kubelite.server.cel.admission import request_value

        request = request_value(attr, matched.group, matched.version, matched.resource, matched.kind)
        for binding in hook.bindings:
            binding_name = str((binding.get("metadata") or {}).get("name") or "")
            binding_spec = binding.get("spec") if isinstance(binding.get("spec"), dict) else {}
            resources = binding_spec.get("matchResources")
            if isinstance(resources, dict):
                try:
                    if self._matches(resources, attr, binding=True) is None:
                        continue
                except errors.StatusError as err:
                    config_error(err.message, binding_name)
                    continue
            try:
                params = self._params(param_resource, binding_spec.get("paramRef"), attr.namespace)
            except ConfigurationError as err:
                config_error(str(err), binding_name)
                continue
            actions = [str(a) for a in binding_spec.get("validationActions") or ()]
            for param in params:
                for decision in hook.evaluator.validate(obj, old, request, param, namespace, fail):
                    for action in actions:
                        if action == "Deny":
                            denials.append(Denial(hook.name, binding_name, decision.message, decision.reason))
                        elif action == "Warn":
                            warnings.append(f"Validation failed for ValidatingAdmissionPolicy '{hook.name}' with "
                                            f"binding '{binding_name}': {decision.message}")

    # -- matching ----------------------------------------------------------------------------------

    def _matches(self, criteria: dict, attr: Attributes, binding: bool = False) -> _Match | None:
        """kube-apiserver's policy Matcher: the (group, version, resource, kind) the request
        matched as, or None. Selector errors count only when the rules match."""
        matcher = self.webhooks.matcher
        namespace_error = None
        try:
            if not matcher._namespace_selected(criteria.get("namespaceSelector"), attr):
                return None
        except errors.StatusError as err:
            namespace_error = err
        if not _selector_empty(criteria.get("objectSelector")) and not any(
                labels is not None and selector_matches(criteria["objectSelector"], labels)
                for labels in (_labels(attr.obj), _labels(attr.old))):
            return None
        equivalent = criteria.get("matchPolicy", "Equivalent") == "Equivalent"
        if self._by_rules(criteria.get("excludeResourceRules"), attr, equivalent) is not None:
            return None
        rules = criteria.get("resourceRules")
        if not rules:
            found = _Match(attr.group, attr.version, attr.resource, attr.kind)
        else:
            found = self._by_rules(rules, attr, equivalent)
        if found is None:
            return None
        if namespace_error is not None:
            raise namespace_error
        return found

    def _by_rules(self, rules, attr: Attributes, equivalent: bool) -> _Match | None:
        rules = [r for r in rules or () if isinstance(r, dict)]
        for rule in rules:
            if rule_matches(rule, attr, attr.group, attr.version, attr.resource) and _named(rule, attr):
                return _Match(attr.group, attr.version, attr.resource, attr.kind)
        if not equivalent:
            return None
        for rule in rules:
            for group, version, resource, kind in self.webhooks._equivalents(attr.group, attr.resource):
                if (group, version, resource) == (attr.group, attr.version, attr.resource):
                    continue
                if rule_matches(rule, attr, group, version, resource) and _named(rule, attr):
                    return _Match(group, version, resource, kind)
        return None

    # -- params ------------------------------------------------------------------------------------

    def _param_resource(self, param_kind: dict):
        api_version = str(param_kind.get("apiVersion") or "")
        group, _, version = api_version.rpartition("/")
        kind = str(param_kind.get("kind") or "")
        r = self.api.registry.by_kind(group, version, kind)
        if r is None:
            raise ConfigurationError(f"failed to find resource referenced by paramKind: '{group}/{version}, Kind={kind}'")
        return r

    def _params(self, r, ref, namespace: str) -> list:
        """kube-apiserver's CollectParams: [None] without paramKind or paramRef."""
        if r is None or not isinstance(ref, dict):
            return [None]
        ref_namespace = str(ref.get("namespace") or "")
        if r.namespaced:
            namespace = ref_namespace or namespace
            if not namespace:
                raise ConfigurationError("cannot use namespaced paramRef in policy binding that matches "
                                         "cluster-scoped resources")
        elif ref_namespace:
            raise ConfigurationError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
        else:
            namespace = ""
        name = str(ref.get("name") or "")
        selector = ref.get("selector")
        if name:
            if selector is not None:
                raise ConfigurationError("paramRef.name and paramRef.selector are mutually exclusive")
            kv = self.api.store.get(self.api._key(r, namespace, name))
            params = [self.api._decode(r, kv)] if kv is not None else []
        elif isinstance(selector, dict):
            params = [obj for obj in (self.api._decode(r, kv) for kv in self.api.store.range(
                self.api._prefix(r, namespace)).kvs) if selector_matches(selector, _labels(obj) or {})]
        else:
            raise ConfigurationError("one of name or selector must be provided")
        if not params and ref.get("parameterNotFoundAction") == "Deny":
            raise ConfigurationError("no params found for policy binding with `Deny` parameterNotFoundAction")
        return params

    # -- the answer --------------------------------------------------------------------------------

    @staticmethod
    def _refusal(attr: Attributes, denial: Denial) -> errors.StatusError:
        if denial.binding is not None:
            message = (f"ValidatingAdmissionPolicy '{denial.policy}' with binding '{denial.binding}' denied request: "
                       f"{denial.message}")
        else:
            message = f"ValidatingAdmissionPolicy '{denial.policy}' denied request: {denial.message}"
        name = attr.name
        if not name:
            meta = (attr.obj or {}).get("metadata") or {}
            name = str(meta.get("name") or meta.get("generateName") or "Unknown")
        refusal = errors.forbidden(attr.group, attr.resource, name, message, causes=[{"message": message}])
        refusal.reason = denial.reason or "Invalid"
        refusal.code = _REASON_CODES.get(refusal.reason, 422)
        return refusal


def _named(rule: dict, attr: Attributes) -> bool:
    names = rule.get("resourceNames")
    return not names or attr.name in names

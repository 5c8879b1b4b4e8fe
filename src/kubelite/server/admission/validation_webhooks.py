"""Validation of admissionregistration.k8s.io/v1 Validating/MutatingWebhookConfigurations, with
kube-apiserver's messages (the rules v1 enforces on create: sideEffects None/NoneOnDryRun only,
a recognised admissionReviewVersion, unique webhook names, matchConditions that compile)."""

from __future__ import annotations

from urllib.parse import urlsplit

from kubelite.server.admission import field as F
from kubelite.server.admission import names as N
from kubelite.server.admission.field import Path
from kubelite.server.admission.validation_common import Causes, _dicts, _map
from kubelite.server.admission.validation_meta import validate_label_selector

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any

_REVIEW_VERSIONS = ("v1", "v1beta1", "v1alpha1")
_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_SCOPES = ("*", "Cluster", "Namespaced")
_FAILURE_POLICIES = ("Fail", "Ignore")
_MATCH_POLICIES = ("Equivalent", "Exact")
_SIDE_EFFECTS = ("None", "NoneOnDryRun")
_REINVOCATION = ("IfNeeded", "Never")
_URL_FORM = "; desired format: https://host[/path]"
_MAX_MATCH_CONDITIONS = 64


def webhook_configuration(obj: dict) -> Causes:
    mutating = obj.get("kind") == "MutatingWebhookConfiguration"
    errs: Causes = []
    seen: set[str] = set()
    for i, hook in enumerate(_dicts(obj.get("webhooks"))):
        path = Path("webhooks").index(i)
        errs += _webhook(hook, mutating, path)
        errs += _review_versions(hook.get("admissionReviewVersions"), path.child("admissionReviewVersions"))
        name = hook.get("name") or ""
        if name:
            if name in seen:
                errs.append(F.duplicate(path.child("name"), name))
            seen.add(name)
    return errs


def _webhook(hook: dict, mutating: bool, path: Path) -> Causes:
    errs = _fully_qualified(path.child("name"), str(hook.get("name") or ""))
    for i, rule in enumerate(_dicts(hook.get("rules"))):
        errs += _rule(rule, path.child("rules").index(i))
    errs += _one_of(hook, "failurePolicy", _FAILURE_POLICIES, path)
    errs += _one_of(hook, "matchPolicy", _MATCH_POLICIES, path)
    if hook.get("sideEffects") is None:
        errs.append(F.required(path.child("sideEffects"), "must specify one of " + ", ".join(_SIDE_EFFECTS)))
    else:
        errs += _one_of(hook, "sideEffects", _SIDE_EFFECTS, path)
    timeout = hook.get("timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        errs.append(F.invalid(path.child("timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds"))
    for selector in ("namespaceSelector", "objectSelector"):
        if hook.get(selector) is not None:
            errs += validate_label_selector(hook.get(selector), path.child(selector))
    if mutating:
        errs += _one_of(hook, "reinvocationPolicy", _REINVOCATION, path)
    errs += _client_config(_map(hook.get("clientConfig")), path.child("clientConfig"))
    errs += _match_conditions(hook.get("matchConditions"), path.child("matchConditions"))
    return errs


def _fully_qualified(path: Path, name: str) -> Causes:
    if not name:
        return [F.required(path)]
    problems = N.is_dns1123_subdomain(name)
    if problems:
        return [F.invalid(path, name, ",".join(problems))]
    if len(name.split(".")) < 3:
        return [F.invalid(path, name, "should be a domain with at least three segments separated by dots")]
    return []


def _one_of(hook: dict, key: str, allowed: tuple[str, ...], path: Path) -> Causes:
    value = hook.get(key)
    if value is not None and value not in allowed:
        return [F.not_supported(path.child(key), value, allowed)]
    return []


def _rule(rule: dict, path: Path) -> Causes:
    errs: Causes = []
    operations = [str(o) for o in rule.get("operations") or ()]
    if not operations:
        errs.append(F.required(path.child("operations")))
    if len(operations) > 1 and "*" in operations:
        errs.append(F.invalid(path.child("operations"), operations, "if '*' is present, must not specify other operations"))
    for i, operation in enumerate(operations):
        if operation not in _OPERATIONS:
            errs.append(F.not_supported(path.child("operations").index(i), operation, _OPERATIONS))
    groups = [str(g) for g in rule.get("apiGroups") or ()]
    if not groups:
        errs.append(F.required(path.child("apiGroups")))
    if len(groups) > 1 and "*" in groups:
        errs.append(F.invalid(path.child("apiGroups"), groups, "if '*' is present, must not specify other API groups"))
    versions = [str(v) for v in rule.get("apiVersions") or ()]
    if not versions:
        errs.append(F.required(path.child("apiVersions")))
    if len(versions) > 1 and "*" in versions:
        errs.append(F.invalid(path.child("apiVersions"), versions, "if '*' is present, must not specify other API versions"))
    errs += [F.required(path.child("apiVersions").index(i)) for i, v in enumerate(versions) if v == ""]
    errs += _resources([str(r) for r in rule.get("resources") or ()], path.child("resources"))
    scope = rule.get("scope")
    if scope is not None and scope not in _SCOPES:
        errs.append(F.not_supported(path.child("scope"), scope, _SCOPES))
    return errs


def _resources(resources: list[str], path: Path) -> Causes:
    errs: Causes = []
    if not resources:
        errs.append(F.required(path))
    wildcard_subresources: set[str] = set()  # x/*
    wildcard_resources: set[str] = set()  # */x
    plain = False
    for i, entry in enumerate(resources):
        if entry == "":
            errs.append(F.required(path.index(i)))
            continue
        res, slash, sub = entry.partition("/")
        if not slash:
            plain = entry != "*"
            continue
        if res in wildcard_subresources:
            errs.append(F.invalid(path.index(i), entry, f"if '{res}/*' is present, must not specify {entry}"))
        if sub in wildcard_resources:
            errs.append(F.invalid(path.index(i), entry, f"if '*/{sub}' is present, must not specify {entry}"))
        if sub == "*":
            wildcard_subresources.add(res)
        if res == "*":
            wildcard_resources.add(sub)
    if len(resources) > 1 and "*/*" in resources:
        errs.append(F.invalid(path, resources, "if '*/*' is present, must not specify other resources"))
    if "*" in resources and plain:
        errs.append(F.invalid(path, resources, "if '*' is present, must not specify other resources without "
                                               "subresources"))
    return errs


def _review_versions(versions: Any, path: Path) -> Causes:
    versions = [str(v) for v in versions or ()]
    if not versions:
        return [F.required(path, "must specify one of " + ", ".join(_REVIEW_VERSIONS))]
    errs: Causes = []
    seen: set[str] = set()
    for i, version in enumerate(versions):
        if version in seen:
            errs.append(F.invalid(path.index(i), version, "duplicate version"))
            continue
        seen.add(version)
        errs += [F.invalid(path.index(i), version, problem) for problem in N.is_dns1035_label(version)]
    if not seen.intersection(_REVIEW_VERSIONS):
        errs.append(F.invalid(path, versions, "must include at least one of " + ", ".join(_REVIEW_VERSIONS)))
    return errs


def _client_config(config: dict, path: Path) -> Causes:
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [F.required(path, "exactly one of url or service is required")]
    if url is not None:
        return _url(str(url), path.child("url"))
    return _service(_map(service), path.child("service"))


def _url(url: str, path: Path) -> Causes:
    errs: Causes = []
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a bad port, as Go's parser does)
    except ValueError as err:
        return [F.required(path, f"url must be a valid URL: {err}{_URL_FORM}")]
    if parts.scheme != "https":
        errs.append(F.invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + _URL_FORM))
    host = parts.netloc.rpartition("@")[2]
    if not host:
        errs.append(F.invalid(path, host, "host must be specified" + _URL_FORM))
    if "@" in parts.netloc:
        errs.append(F.invalid(path, parts.netloc.rpartition("@")[0], "user information is not permitted in the URL"))
    if parts.fragment:
        errs.append(F.invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errs.append(F.invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return errs


def _service(service: dict, path: Path) -> Causes:
    errs: Causes = []
    # kube-apiserver passes the reference's name and namespace to a check that takes them the
    # other way round: a missing namespace is reported at .name and a missing name at .namespace.
    if not service.get("namespace"):
        errs.append(F.required(path.child("name")))
    if not service.get("name"):
        errs.append(F.required(path.child("namespace")))
    port = service.get("port", 443)
    if isinstance(port, int) and N.is_valid_port_num(port):
        errs.append(F.invalid(path.child("port"), port, "port is not valid: " + ", ".join(N.is_valid_port_num(port))))
    url_path = service.get("path")
    if url_path is None or url_path in ("", "/"):
        return errs
    url_path = str(url_path)
    if url_path == "//":
        return errs + [F.invalid(path.child("path"), url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errs.append(F.invalid(path.child("path"), url_path, "must start with a '/'"))
    rest = url_path[1:]
    if rest.endswith("/"):
        rest = rest[:-1]
    for i, step in enumerate(rest.split("/")):
        if not step:
            errs.append(F.invalid(path.child("path"), url_path, f"segment[{i}] may not be empty"))
            continue
        errs += [F.invalid(path.child("path"), url_path, f"segment[{i}]: {problem}")
                 for problem in N.is_dns1123_subdomain(step)]
    return errs


def _match_conditions(conditions: Any, path: Path) -> Causes:
    conditions = _dicts(conditions)
    errs: Causes = []
    if len(conditions) > _MAX_MATCH_CONDITIONS:
        errs.append(F.too_many(path, len(conditions), _MAX_MATCH_CONDITIONS))
    seen: set[str] = set()
    for i, condition in enumerate(conditions):
        name = str(condition.get("name") or "")
        if not name:
            errs.append(F.required(path.index(i).child("name")))
        else:
            errs += [F.invalid(path.index(i).child("name"), name, problem) for problem in N.is_qualified_name(name)]
            if name in seen:
                errs.append(F.duplicate(path.index(i).child("name"), name))
            seen.add(name)
        if not condition.get("expression"):
            errs.append(F.required(path.index(i).child("expression")))
        else:
            errs += compile_errors(str(condition["expression"]), _CONDITION_VARIABLES, path.index(i).child("expression"))
    return errs


# `authorizer` is declared as kube-apiserver declares it, so that such a condition is accepted
# (kubelite does not offer it when evaluating: the condition then fails as not compiling).
_CONDITION_VARIABLES = frozenset({"object", "oldObject", "request", "authorizer"})


def compile_errors(expression: str, variables: frozenset[str], path: Path) -> Causes:
    """A CEL expression that does not compile: kube-apiserver's cause (the expression as the
    invalid value, the compiler's issues as the detail)."""
    from kubelite.server.cel import CompileError, compile_expression

    try:
        compile_expression(expression, variables)
    except CompileError as err:
        return [F.invalid(path, expression, f"compilation failed: {err}")]
    return []


def admission_policy(obj: dict) -> Causes:
    """A ValidatingAdmissionPolicy's expressions must compile (validations, messageExpressions,
    matchConditions, variables), with the variables kube-apiserver declares for them."""
    spec = _map(obj.get("spec"))
    path = Path("spec")
    names = {"object", "oldObject", "request", "namespaceObject", "variables", "authorizer"}
    if spec.get("paramKind"):
        names.add("params")
    declared = frozenset(names)
    errs: Causes = []
    for key, fields in (("variables", ("expression",)), ("matchConditions", ("expression",)),
                        ("validations", ("expression", "messageExpression"))):
        for i, item in enumerate(_dicts(spec.get(key))):
            for name in fields:
                if item.get(name):
                    errs += compile_errors(str(item[name]), declared, path.child(key).index(i).child(name))
    return errs

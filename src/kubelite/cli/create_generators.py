"""`kubelite create TYPE NAME [flags]`: the generator subcommands of kubectl create.

create.py hands over when its first positional argument names a generator (`create deployment ...`).
Flags are parsed here; the objects come from kubelite.imperative (pure); this module only sends or
prints them (`--dry-run=client|server`, `-o`, `--save-config`, `-n`).
"""
from __future__ import annotations

import argparse
import sys

from kubelite.cli import common
from kubelite.record import Record, factory

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Callable

# generator name (with aliases) -> subcommand table key
ALIASES = {
    "deployment": "deployment", "deploy": "deployment",
    "service": "service", "svc": "service",
    "configmap": "configmap", "cm": "configmap",
    "secret": "secret",
    "namespace": "namespace", "ns": "namespace",
    "serviceaccount": "serviceaccount", "sa": "serviceaccount",
    "job": "job", "cronjob": "cronjob", "cj": "cronjob",
    "role": "role", "clusterrole": "clusterrole",
    "rolebinding": "rolebinding", "clusterrolebinding": "clusterrolebinding",
    "quota": "quota", "resourcequota": "quota",
    "poddisruptionbudget": "poddisruptionbudget", "pdb": "poddisruptionbudget",
    "priorityclass": "priorityclass", "pc": "priorityclass",
    "ingress": "ingress", "ing": "ingress",
}
SUBTYPES = {
    "service": ("clusterip", "nodeport", "loadbalancer", "externalname"),
    "secret": ("generic", "tls", "docker-registry"),
}


def is_generator(name: str) -> bool:
    return name in ALIASES


class _Slice(argparse.Action):
    """pflag StringSlice: repeatable, and each value split at commas."""

    def __call__(self, parser, namespace, values, option_string=None):
        current = list(getattr(namespace, self.dest) or [])
        current.extend(_csv(values))
        setattr(namespace, self.dest, current)


def _csv(value: str) -> list[str]:
    import csv

    if value == "":
        return []
    return next(csv.reader([value]))


class _MapFlag(argparse.Action):
    """cliflag.MapStringString: `k=v,k2=v2`, repeatable."""

    def __call__(self, parser, namespace, values, option_string=None):
        current = dict(getattr(namespace, self.dest) or {})
        for pair in values.split(","):
            key, sep, value = pair.partition("=")
            if not sep:
                raise common.UsageError(f'error: invalid argument "{values}" for "{option_string}" flag: '
                                        f"{pair} must be formatted as key=value")
            current[key.strip()] = value.strip()
        setattr(namespace, self.dest, current)


def _bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("1", "t", "true"):
        return True
    if lowered in ("0", "f", "false"):
        return False
    raise argparse.ArgumentTypeError(f'strconv.ParseBool: parsing "{text}": invalid syntax')


class Spec(Record):
    path: str                      # "deployment", "service nodeport", ...
    build: Callable                # (args, ctx) -> object dict
    flags: Callable                # (parser) -> None
    required: tuple = ()           # flags kubectl marks required
    resource: tuple = ("", "")     # (group, plural) for sending
    namespaced: bool = True


class Context(Record):
    name: str
    namespace: str | None          # only when -n was given (kubectl's EnforceNamespace)
    command: list[str] = factory(list)
    session: object = None
    err: object = None


# -- the generators' flags and builders ------------------------------------------------------------------------


def _f_deployment(p):
    p.add_argument("--image", action=_Slice, default=[])
    p.add_argument("-r", "--replicas", type=int, default=1)
    p.add_argument("--port", type=int, default=-1)


def _b_deployment(a, c):
    from kubelite.imperative.workloads import create_deployment

    return create_deployment(c.name, a.image, replicas=a.replicas, port=a.port, command=c.command,
                             namespace=c.namespace)


def _f_service(kind):
    def flags(p):
        if kind != "externalname":
            p.add_argument("--tcp", action=_Slice, default=[])
        else:
            p.add_argument("--tcp", action=_Slice, default=[])
            p.add_argument("--external-name", default="")
        if kind == "clusterip":
            p.add_argument("--clusterip", default="")
        if kind == "nodeport":
            p.add_argument("--node-port", type=int, default=0)
    return flags


def _b_service(kind):
    def build(a, c):
        from kubelite.imperative.service import SERVICE_TYPES, create_service

        return create_service(c.name, SERVICE_TYPES[kind], a.tcp, cluster_ip=getattr(a, "clusterip", ""),
                              node_port=getattr(a, "node_port", 0), external_name=getattr(a, "external_name", ""),
                              namespace=c.namespace)
    return build


def _f_sources(p, env=True):
    p.add_argument("--from-file", action="append", default=[])
    p.add_argument("--from-literal", action="append", default=[])
    if env:
        p.add_argument("--from-env-file", action="append", default=[])
    p.add_argument("--append-hash", type=_bool, nargs="?", const=True, default=False)


def _b_configmap(a, c):
    from kubelite.imperative.config import create_config_map

    return create_config_map(c.name, from_file=a.from_file, from_literal=a.from_literal,
                             from_env_file=a.from_env_file, append_hash=a.append_hash, namespace=c.namespace)


def _f_generic(p):
    _f_sources(p)
    p.add_argument("--type", default="")


def _b_generic(a, c):
    from kubelite.imperative.config import create_secret_generic

    return create_secret_generic(c.name, from_file=a.from_file, from_literal=a.from_literal,
                                 from_env_file=a.from_env_file, secret_type=a.type, append_hash=a.append_hash,
                                 namespace=c.namespace)


def _f_tls(p):
    p.add_argument("--cert", default="")
    p.add_argument("--key", default="")
    p.add_argument("--append-hash", type=_bool, nargs="?", const=True, default=False)


def _b_tls(a, c):
    from kubelite.imperative.config import create_secret_tls

    return create_secret_tls(c.name, cert=a.cert, key=a.key, append_hash=a.append_hash, namespace=c.namespace)


def _f_docker(p):
    p.add_argument("--docker-server", default="https://index.docker.io/v1/")
    p.add_argument("--docker-username", default="")
    p.add_argument("--docker-password", default="")
    p.add_argument("--docker-email", default="")
    p.add_argument("--from-file", action=_Slice, default=[])
    p.add_argument("--append-hash", type=_bool, nargs="?", const=True, default=False)


def _b_docker(a, c):
    from kubelite.imperative.config import create_secret_docker_registry

    return create_secret_docker_registry(c.name, username=a.docker_username, password=a.docker_password,
                                         email=a.docker_email, server=a.docker_server, from_file=a.from_file,
                                         append_hash=a.append_hash, namespace=c.namespace)


def _f_none(p):
    pass


def _b_namespace(a, c):
    from kubelite.imperative.cluster import create_namespace

    return create_namespace(c.name)


def _b_serviceaccount(a, c):
    from kubelite.imperative.cluster import create_service_account

    return create_service_account(c.name, namespace=c.namespace)


def _f_job(p):
    p.add_argument("--image", default="")
    p.add_argument("--from", dest="from_", default="")


def _b_job(a, c):
    from kubelite.imperative import workloads

    workloads.validate_job(a.image, a.from_, c.command)
    if a.image:
        return workloads.create_job(c.name, a.image, c.command, namespace=c.namespace)
    return workloads.job_from_cron_job(c.name, _fetch_from(a.from_, c), namespace=c.namespace)


def _fetch_from(from_: str, c: Context) -> dict:
    from kubelite.imperative import ImperativeError

    typed, _, name = from_.partition("/")
    sess = c.session
    info = sess.discovery.resolve(typed)
    obj = sess.client.get(info, name, c.namespace or sess.namespace)
    if obj.get("kind") != "CronJob":
        raise ImperativeError(f"unknown object type *{obj.get('kind')}")
    return obj


def _f_cronjob(p):
    p.add_argument("--image", default="")
    p.add_argument("--schedule", default="")
    p.add_argument("--restart", default="")


def _b_cronjob(a, c):
    from kubelite.imperative.workloads import create_cron_job

    return create_cron_job(c.name, a.image, a.schedule, restart=a.restart or "OnFailure", command=c.command,
                           namespace=c.namespace)


def _f_role(p, cluster=False):
    p.add_argument("--verb", action=_Slice, default=[])
    p.add_argument("--resource", action=_Slice, default=[])
    p.add_argument("--resource-name", action="append", default=[])
    if cluster:
        p.add_argument("--non-resource-url", action=_Slice, default=[])
        p.add_argument("--aggregation-rule", action=_MapFlag, default={})


def _resolver(c: Context):
    from kubelite.imperative import ImperativeError

    def resolve(resource: str, group: str):
        from kubelite.client.errors import ResourceTypeNotFound

        try:
            info = c.session.discovery.resolve(f"{resource}.{group}" if group else resource)
        except ResourceTypeNotFound:
            raise ImperativeError(f'the server doesn\'t have a resource type "{resource}"') from None
        return info.group, info.resource
    return resolve


def _verb_warnings(verbs, c):
    from kubelite.imperative.rbac import normalize_verbs, verb_warnings

    for line in verb_warnings(normalize_verbs(verbs)):
        c.err.write(line + "\n")


def _b_role(a, c):
    from kubelite.imperative.rbac import create_role

    if a.verb and a.resource:
        _verb_warnings(a.verb, c)
    return create_role(c.name, a.verb, a.resource, a.resource_name, resolve=_resolver(c), namespace=c.namespace)


def _b_clusterrole(a, c):
    from kubelite.imperative.rbac import create_cluster_role

    if a.verb and a.resource and not a.aggregation_rule:
        _verb_warnings(a.verb, c)
    return create_cluster_role(c.name, a.verb, a.resource, a.resource_name, a.non_resource_url,
                               a.aggregation_rule, resolve=_resolver(c))


def _f_binding(p, cluster=False):
    if not cluster:
        p.add_argument("--role", default="")
    p.add_argument("--clusterrole", default="")
    p.add_argument("--user", action="append", default=[])
    p.add_argument("--group", action="append", default=[])
    p.add_argument("--serviceaccount", action="append", default=[])


def _b_rolebinding(a, c):
    from kubelite.imperative.rbac import create_role_binding

    return create_role_binding(c.name, role=a.role, cluster_role=a.clusterrole, users=a.user, groups=a.group,
                               service_accounts=a.serviceaccount, namespace=c.namespace)


def _b_clusterrolebinding(a, c):
    from kubelite.imperative.rbac import create_cluster_role_binding

    return create_cluster_role_binding(c.name, a.clusterrole, users=a.user, groups=a.group,
                                       service_accounts=a.serviceaccount)


def _f_quota(p):
    p.add_argument("--hard", default="")
    p.add_argument("--scopes", default="")


def _b_quota(a, c):
    from kubelite.imperative.cluster import create_quota

    return create_quota(c.name, hard=a.hard, scopes=a.scopes, namespace=c.namespace)


def _f_pdb(p):
    p.add_argument("--min-available", default="")
    p.add_argument("--max-unavailable", default="")
    p.add_argument("--selector", default="")


def _b_pdb(a, c):
    from kubelite.imperative.cluster import create_pod_disruption_budget

    return create_pod_disruption_budget(c.name, selector=a.selector, min_available=a.min_available,
                                        max_unavailable=a.max_unavailable, namespace=c.namespace)


def _f_priorityclass(p):
    p.add_argument("--value", type=int, default=0)
    p.add_argument("--global-default", type=_bool, nargs="?", const=True, default=False)
    p.add_argument("--description", default="")
    p.add_argument("--preemption-policy", default="PreemptLowerPriority")


def _b_priorityclass(a, c):
    from kubelite.imperative.cluster import create_priority_class

    return create_priority_class(c.name, value=a.value, global_default=a.global_default, description=a.description,
                                 preemption_policy=a.preemption_policy)


def _f_ingress(p):
    p.add_argument("--rule", action="append", default=[])
    p.add_argument("--class", dest="ingress_class", default="")
    p.add_argument("--default-backend", default="")
    p.add_argument("--annotation", action="append", default=[])


def _b_ingress(a, c):
    from kubelite.imperative.cluster import create_ingress

    return create_ingress(c.name, rules=a.rule, ingress_class=a.ingress_class, default_backend=a.default_backend,
                          annotations=a.annotation, namespace=c.namespace)


SPECS = {s.path: s for s in [
    Spec("deployment", _b_deployment, _f_deployment, ("image",), ("apps", "deployments")),
    *[Spec(f"service {k}", _b_service(k), _f_service(k), ("external-name",) if k == "externalname" else (),
           ("", "services")) for k in SUBTYPES["service"]],
    Spec("configmap", _b_configmap, _f_sources, (), ("", "configmaps")),
    Spec("secret generic", _b_generic, _f_generic, (), ("", "secrets")),
    Spec("secret tls", _b_tls, _f_tls, (), ("", "secrets")),
    Spec("secret docker-registry", _b_docker, _f_docker, (), ("", "secrets")),
    Spec("namespace", _b_namespace, _f_none, (), ("", "namespaces"), namespaced=False),
    Spec("serviceaccount", _b_serviceaccount, _f_none, (), ("", "serviceaccounts")),
    Spec("job", _b_job, _f_job, (), ("batch", "jobs")),
    Spec("cronjob", _b_cronjob, _f_cronjob, ("image", "schedule"), ("batch", "cronjobs")),
    Spec("role", _b_role, _f_role, (), ("rbac.authorization.k8s.io", "roles")),
    Spec("clusterrole", _b_clusterrole, lambda p: _f_role(p, True), (), ("rbac.authorization.k8s.io", "clusterroles"),
         namespaced=False),
    Spec("rolebinding", _b_rolebinding, _f_binding, (), ("rbac.authorization.k8s.io", "rolebindings")),
    Spec("clusterrolebinding", _b_clusterrolebinding, lambda p: _f_binding(p, True), ("clusterrole",),
         ("rbac.authorization.k8s.io", "clusterrolebindings"), namespaced=False),
    Spec("quota", _b_quota, _f_quota, (), ("", "resourcequotas")),
    Spec("poddisruptionbudget", _b_pdb, _f_pdb, (), ("policy", "poddisruptionbudgets")),
    Spec("priorityclass", _b_priorityclass, _f_priorityclass, (), ("scheduling.k8s.io", "priorityclasses"),
         namespaced=False),
    Spec("ingress", _b_ingress, _f_ingress, (), ("networking.k8s.io", "ingresses")),
]}


# -- running -----------------------------------------------------------------------------------------------------


def _parser(spec: Spec) -> common.Parser:
    p = common.parser(f"create {spec.path}", f"Create a {spec.path}.")
    p.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    common.add_output_flag(p)
    common.add_dry_run_flag(p)
    common.add_write_flags(p)
    p.add_argument("--allow-missing-template-keys", type=_bool, nargs="?", const=True, default=True)
    p.add_argument("--show-managed-fields", type=_bool, nargs="?", const=True, default=False)
    p.add_argument("--template")
    # generator flags shadow global ones of the same name (rolebinding --user), as in kubectl
    p.conflict_handler = p._optionals.conflict_handler = "resolve"
    spec.flags(p)
    from kubelite.cli.help import installed

    return installed(p, f"create {spec.path}")


def run(argv: list[str]) -> int:
    """argv starts with the generator name (`deployment`, `service`, `secret`, ...)."""
    key = ALIASES[argv[0]]
    rest = argv[1:]
    if key in SUBTYPES:  # the command line found the subtype and put it next (`secret generic ...`)
        key, rest = f"{key} {rest[0]}", rest[1:]
    spec = SPECS[key]
    command: list[str] = []
    if "--" in rest:
        at = rest.index("--")
        rest, command = rest[:at], rest[at + 1:]
    given = {word.split("=", 1)[0] for word in rest if word.startswith("--")}
    return common.run(_parser(spec), rest, lambda args: _create(spec, args, command, given))


def _create(spec: Spec, args, command: list[str], given: set[str]) -> int:
    from kubelite.imperative import ImperativeError

    missing = [f for f in spec.required if f"--{f}" not in given]  # cobra: given at all, even empty
    if missing:
        sys.stderr.write(_required_flags_message(missing) + "\n")
        raise common.Failed(1)
    if len(args.args) != 1:
        raise common.UsageError(f"error: exactly one NAME is required, got {len(args.args)}\n"
                                f"See 'kubelite create {spec.path} -h' for help and examples")
    output = common.output_of(args)
    dry_run = common.dry_run_mode(args)
    ctx = Context(args.args[0], args.namespace or None, command, None, sys.stderr)
    needs_session = dry_run != "client" or spec.path in ("role", "clusterrole") or spec.path == "job"
    if needs_session or dry_run != "client":
        ctx.session = common.session(args)
    try:
        obj = spec.build(args, ctx)
    except ImperativeError as err:
        if str(err).startswith("the server doesn't have a resource type"):
            sys.stderr.write(f"{err}\n")  # kubectl prints mapping failures without the error: prefix
            raise common.Failed(1) from None
        raise common.CommandError(f"error: {err}") from None
    obj = _save_config(obj, args.save_config)
    if dry_run != "client":
        obj = _send(spec, obj, args, ctx, dry_run)
        return _print(obj, output, dry_run, ordered=False)
    return _print(obj, output, dry_run, ordered=True)


def _required_flags_message(missing: list[str]) -> str:
    import datetime
    import os

    now = datetime.datetime.now()
    names = ", ".join(f'\\"{m}\\"' for m in missing)
    return (f"E{now:%m%d} {now:%H:%M:%S.%f}   {os.getpid():>5} run.go:72] \"command failed\" "
            f"err=\"required flag(s) {names} not set\"")


def _save_config(obj: dict, save: bool) -> dict:
    if not save:
        return obj
    from kubelite.imperative.jsonorder import compact_json_in_order

    meta = obj["metadata"]
    annotations = dict(meta.get("annotations") or {})
    annotations["kubectl.kubernetes.io/last-applied-configuration"] = compact_json_in_order(obj) + "\n"
    new_meta = {}
    for k, v in meta.items():
        if k == "annotations":
            continue
        new_meta[k] = v
        if k in ("creationTimestamp", "labels"):
            pass
    # annotations come after labels in ObjectMeta
    ordered = {}
    for k in ("name", "namespace", "creationTimestamp", "labels"):
        if k in new_meta:
            ordered[k] = new_meta.pop(k)
    ordered["annotations"] = annotations
    ordered.update(new_meta)
    return {**obj, "metadata": ordered}


def _send(spec: Spec, obj: dict, args, ctx: Context, dry_run: str) -> dict:
    sess = ctx.session
    group, plural = spec.resource
    info = sess.discovery.resolve(f"{plural}.{group}" if group else plural)
    namespace = (ctx.namespace or sess.namespace) if spec.namespaced else None
    params = common.write_params(args, "kubectl-create", dry_run)
    try:
        return sess.client.create(info, namespace, obj, params)
    except Exception as err:
        from kubelite.client.errors import ApiError

        if isinstance(err, ApiError) and spec.path in ("deployment", "configmap", "job", "cronjob") \
                or isinstance(err, ApiError) and spec.path.startswith(("service ", "secret ")):
            raise common.CommandError(f"error: failed to create {_what(spec)}: {common.error_message(err)[0:0]}"
                                      f"{_api_text(err)}") from None
        raise


def _what(spec: Spec) -> str:
    if spec.path.startswith("service "):
        from kubelite.imperative.service import SERVICE_TYPES

        return f"{SERVICE_TYPES[spec.path.split()[1]]} service"
    if spec.path.startswith("secret"):
        return "secret"
    return spec.path


def _api_text(err) -> str:
    return err.message if not err.reason else common.error_message(err).split(": ", 1)[-1] \
        if err.reason == "Invalid" else err.message


def _print(obj: dict, output, dry_run: str, *, ordered: bool) -> int:
    from kubelite.imperative.jsonorder import is_typed

    if output.kind == "json" and (ordered or is_typed(obj)):  # server answers are decoded into structs too
        sys.stdout.write(common.typed_json(output, obj))
    elif output.kind:
        sys.stdout.write(common.render(output, obj))
    else:
        sys.stdout.write(common.success_line(obj, "created", dry_run))
    sys.stdout.flush()
    return 0

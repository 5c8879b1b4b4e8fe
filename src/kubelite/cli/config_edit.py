"""The `kubelite config` subcommands that change kubeconfig files, with kubectl's messages.

set-cluster, set-credentials, set-context, use-context, set, unset, delete-cluster,
delete-context, delete-user, rename-context; and get-clusters, get-users. Each reads the merged
configuration, changes it, and lets kubeconfig_edit.modify write the files the change concerns.
"""
from __future__ import annotations

import os
import sys

from kubelite.cli import common

# flags kubectl treats as optional-value booleans (`--embed-certs` is `--embed-certs=true`; config.py
# declares them so, and common.parse never lets them take the next word)
TRISTATE = ("--embed-certs", "--insecure-skip-tls-verify", "--set-raw-bytes", "--exec-provide-cluster-info",
            "--merge")


def parse_bool(flag: str, text: str | None, prog: str = "kubelite config") -> bool | None:
    """None when the flag was not given; kubectl's strconv.ParseBool otherwise."""
    if text is None:
        return None
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise common.UsageError(f'Error: invalid argument "{text}" for "--{flag}" flag: strconv.ParseBool: parsing '
                            f'"{text}": invalid syntax\nSee \'{prog} --help\' for usage.')


def go_list(words: list[str]) -> str:
    return "[" + " ".join(words) + "]"


class HelpError(common.CommandError):
    """kubectl's helpErrorf: the command's help on stdout, then the error."""


def _access(args):
    from kubelite.client.kubeconfig_edit import Access

    return Access(args.kubeconfig or None)


def _shown_file(access) -> str:
    return access.explicit or access.default_file()


def _help_error(parser, text: str):
    parser.print_help()
    return common.CommandError(f"error: {text}")


# -- clusters and users ---------------------------------------------------------------------------

def set_cluster(args, parser) -> int:
    from kubelite.client import kubeconfig_edit

    if len(args.names) != 1:
        raise _help_error(parser, f"Unexpected args: {go_list(args.names)}")
    name = args.names[0]
    insecure = parse_bool("insecure-skip-tls-verify", args.insecure_skip_tls_verify, parser.prog)
    embed = parse_bool("embed-certs", args.embed_certs, parser.prog)
    if not name:
        raise common.CommandError("error: you must specify a non-empty cluster name")
    if insecure and args.certificate_authority:
        raise common.CommandError("error: you cannot specify a certificate authority and insecure mode at the "
                                  "same time")
    if embed:
        _must_stat("certificate-authority", args.certificate_authority)
    access = _access(args)
    config = access.starting()
    cluster = dict(config.clusters.get(name) or {"server": ""})
    if args.server is not None:
        cluster["server"] = args.server
        cluster.pop("tls-server-name", None)
    _set(cluster, "tls-server-name", args.tls_server_name)
    if insecure is not None:
        _set(cluster, "insecure-skip-tls-verify", insecure)
        if insecure:
            cluster.pop("certificate-authority", None)
            cluster.pop("certificate-authority-data", None)
    if args.certificate_authority is not None:
        if embed:
            _set(cluster, "certificate-authority-data", _read_b64(args.certificate_authority))
            cluster.pop("insecure-skip-tls-verify", None)
            cluster.pop("certificate-authority", None)
        else:
            path = os.path.abspath(args.certificate_authority) if args.certificate_authority else ""
            _set(cluster, "certificate-authority", path)
            if path:
                cluster.pop("insecure-skip-tls-verify", None)
                cluster.pop("certificate-authority-data", None)
    _set(cluster, "proxy-url", args.proxy_url)
    config.clusters[name] = cluster
    kubeconfig_edit.modify(access, config, True)
    print(f'Cluster "{name}" set.')
    return 0


def set_credentials(args, parser) -> int:
    from kubelite.client import kubeconfig_edit

    if len(args.names) != 1:
        raise _help_error(parser, f"unexpected args: {go_list(args.names)}")
    name = args.names[0]
    provider_set, provider_remove = _pairs(args.auth_provider_arg, "auth-provider-arg", split_commas=True)
    exec_args = [a for arg in args.exec_arg for a in _split_slice(arg)] if args.exec_arg else None
    env_set, env_remove = _pairs(args.exec_env, "exec-env", split_commas=False)
    embed = parse_bool("embed-certs", args.embed_certs, parser.prog)
    provide = parse_bool("exec-provide-cluster-info", args.exec_provide_cluster_info, parser.prog)
    _validate_credentials(args, name, embed)
    access = _access(args)
    config = access.starting()
    user = _changed_user(dict(config.users.get(name) or {}), args, embed, provide,
                         (provider_set, provider_remove, exec_args, env_set, env_remove))
    config.users[name] = user
    kubeconfig_edit.modify(access, config, True)
    print(f'User "{name}" set.')
    return 0


def _validate_credentials(args, name: str, embed: bool | None) -> None:
    if not name:
        raise common.CommandError("error: you must specify a non-empty user name")
    methods = []
    if args.token:
        methods.append("--token")
    if args.username or args.password:
        methods.append("--username/--password")
    if len(methods) > 1:
        raise common.CommandError("error: you cannot specify more than one authentication method at the same time: "
                                  + ", ".join(methods))
    if embed:
        if not args.client_certificate and not args.client_key:
            raise common.CommandError("error: you must specify a --client-certificate or --client-key to embed")
        if args.client_certificate:
            _must_stat("client-certificate", args.client_certificate)
        if args.client_key:
            _must_stat("client-key", args.client_key)
    if args.exec_interactive_mode is not None and args.exec_interactive_mode not in ("IfAvailable", "Always",
                                                                                    "Never"):
        raise common.CommandError("error: invalid interactive mode type, can be only IfAvailable, Never, Always")


def _changed_user(user: dict, args, embed, provide, lists) -> dict:
    provider_set, provider_remove, exec_args, env_set, env_remove = lists
    for flag, key in ((args.client_certificate, "client-certificate"), (args.client_key, "client-key")):
        if flag is None:
            continue
        if embed:
            _set(user, key + "-data", _read_b64(flag))
            user.pop(key, None)
        else:
            path = os.path.abspath(flag) if flag else ""
            _set(user, key, path)
            if path:
                user.pop(key + "-data", None)
    set_token = set_basic = False
    if args.token is not None:
        _set(user, "token", args.token)
        set_token = bool(args.token)
    for value, key in ((args.username, "username"), (args.password, "password")):
        if value is not None:
            _set(user, key, value)
            set_basic = set_basic or bool(value)
    if args.auth_provider is not None:
        current = user.get("auth-provider")
        if current is None or current.get("name") != args.auth_provider:
            user["auth-provider"] = {"config": None, "name": args.auth_provider}
    if user.get("auth-provider") is not None:
        provider = dict(user["auth-provider"])
        settings = dict(provider.get("config") or {})
        for key in provider_remove:
            settings.pop(key, None)
        settings.update(provider_set)
        provider["config"] = settings
        user["auth-provider"] = provider
    _changed_exec(user, args, provide, exec_args, env_set, env_remove)
    if set_token or set_basic:
        if not set_token:
            user.pop("token", None)
        if not set_basic:
            user.pop("username", None)
            user.pop("password", None)
    return user


def _changed_exec(user: dict, args, provide, exec_args, env_set, env_remove) -> None:
    if args.exec_command is not None:
        if user.get("exec") is None:
            user["exec"] = {"args": None, "command": args.exec_command, "env": None, "provideClusterInfo": False}
        else:
            user["exec"] = {**user["exec"], "command": args.exec_command, "args": None}
    if user.get("exec") is None:
        return
    plugin = dict(user["exec"])
    if args.exec_api_version is not None:
        _set(plugin, "apiVersion", args.exec_api_version)
    if exec_args is not None:
        plugin["args"] = exec_args
    if args.exec_interactive_mode is not None:
        _set(plugin, "interactiveMode", args.exec_interactive_mode)
    if provide is not None:
        plugin["provideClusterInfo"] = provide
    if env_remove:
        plugin["env"] = [e for e in plugin.get("env") or [] if e["name"] not in env_remove]
    if env_set:
        env = [dict(e) for e in plugin.get("env") or []]
        for key, value in env_set.items():
            for entry in env:
                if entry["name"] == key:
                    entry["value"] = value
                    break
            else:
                env.append({"name": key, "value": value})
        plugin["env"] = env
    user["exec"] = plugin


def _pairs(words: list[str], flag: str, split_commas: bool) -> tuple[dict, list]:
    """kubectl's key=value / key- pairs; a StringSlice flag also splits at commas."""
    items = [w for word in words for w in (_split_slice(word) if split_commas else [word])]
    new, remove = {}, []
    for item in items:
        if "=" in item:
            key, value = item.split("=", 1)
            if not key:
                raise common.CommandError(f"error: invalid {flag}: {item}")
            new[key] = value
        elif item.endswith("-") and len(item) > 1:
            remove.append(item[:-1])
        else:
            raise common.CommandError(f"error: invalid {flag}: {item}")
    return new, remove


def _split_slice(word: str) -> list[str]:
    import csv

    return next(csv.reader([word])) if word else []


def _set(body: dict, key: str, value) -> None:
    """Zero values are left out, as kubectl writes them."""
    if value is None:
        return
    if value in ("", False):
        body.pop(key, None)
    else:
        body[key] = value


def _must_stat(flag: str, path: str | None) -> None:
    if not path:
        raise common.CommandError(f"error: you must specify a --{flag} to embed")
    if not os.path.exists(path):
        raise common.CommandError(f"error: could not stat {flag} file {path}: stat {path}: no such file or directory")


def _read_b64(path: str) -> str:
    import base64

    try:
        with open(path, "rb") as f:
            return base64.b64encode(f.read()).decode()
    except OSError:
        return ""  # kubectl ignores the read error and stores nothing


# -- contexts -------------------------------------------------------------------------------------

def set_context(args, parser) -> int:
    from kubelite.client import kubeconfig_edit

    if len(args.names) > 1:
        raise _help_error(parser, f"Unexpected args: {go_list(args.names)}")
    name = args.names[0] if args.names else ""
    if not name and not args.current:
        raise common.CommandError("error: you must specify a non-empty context name or --current")
    if name and args.current:
        raise common.CommandError("error: you cannot specify both a context name and --current")
    access = _access(args)
    config = access.starting()
    if args.current:
        if not config.current_context:
            raise common.CommandError("error: no current context is set")
        name = config.current_context
    exists = name in config.contexts
    context = dict(config.contexts.get(name) or {"cluster": "", "user": ""})
    for key, value in (("cluster", args.cluster), ("user", args.user)):
        if value is not None:
            context[key] = value
    _set(context, "namespace", args.namespace)
    config.contexts[name] = context
    kubeconfig_edit.modify(access, config, True)
    print(f'Context "{name}" {"modified" if exists else "created"}.')
    return 0


def use_context(args, parser) -> int:
    from kubelite.client import kubeconfig_edit

    if len(args.names) != 1:
        raise _help_error(parser, f"Unexpected args: {go_list(args.names)}")
    name = args.names[0]
    access = _access(args)
    config = access.starting()
    if not name:
        raise common.CommandError("error: empty context names are not allowed")
    if name not in config.contexts:
        raise common.CommandError(f'error: no context exists with the name: "{name}"')
    config.current_context = name
    kubeconfig_edit.modify(access, config, True)
    print(f'Switched to context "{name}".')
    return 0


def rename_context(args, parser) -> int:
    from kubelite.client import kubeconfig_edit

    if len(args.names) != 2:
        raise _help_error(parser, f"Unexpected args: {go_list(args.names)}")
    old, new = args.names
    if not new:
        raise common.CommandError("error: You must specify a new non-empty context name")
    access = _access(args)
    config = access.starting()
    where = _shown_file(access)
    if old not in config.contexts:
        raise common.CommandError(f'error: cannot rename the context "{old}", it\'s not in {where}')
    if new in config.contexts:
        raise common.CommandError(f'error: cannot rename the context "{old}", the context "{new}" already exists '
                                  f"in {where}")
    config.contexts[new] = config.contexts.pop(old)
    origin = config.origin.pop(("contexts", old), None)
    if origin:
        config.origin[("contexts", new)] = origin
    if config.current_context == old:
        config.current_context = new
    kubeconfig_edit.modify(access, config, True)
    print(f'Context "{old}" renamed to "{new}".')
    return 0


# -- deleting and listing -------------------------------------------------------------------------

def delete_stanza(kind: str, word: str):
    def run(args, parser) -> int:
        from kubelite.client import kubeconfig_edit

        access = _access(args)
        config = access.starting()
        if len(args.names) != 1:
            if kind == "users":
                raise common.UsageError("error: user to delete is required\n"
                                        "See 'kubelite config delete-user -h' for help and examples")
            parser.print_help()
            return 0
        name = args.names[0]
        where = _shown_file(access)
        if name not in config.table(kind):
            raise common.CommandError(f"error: cannot delete {word} {name}, not in {where}")
        if kind == "contexts" and config.current_context == name:
            sys.stderr.write('warning: this removed your active context, use "kubelite config use-context" to '
                             "select a different one\n")
        del config.table(kind)[name]
        kubeconfig_edit.modify(access, config, True)
        print(f"deleted {word} {name} from {where}")
        return 0
    return run


def get_names(kind: str):
    def run(args, parser) -> int:
        config = _access(args).starting()
        sys.stdout.write("NAME\n" + "".join(f"{name}\n" for name in sorted(config.table(kind))))
        return 0
    return run


# -- set / unset ----------------------------------------------------------------------------------

def set_property(args, parser) -> int:
    from kubelite.client import kubeconfig_edit, kubeconfig_property

    if len(args.names) != 2:
        raise _help_error(parser, f"Unexpected args: {go_list(args.names)}")
    prop, value = args.names
    raw = parse_bool("set-raw-bytes", args.set_raw_bytes, parser.prog)
    if not value:
        raise common.CommandError("error: you cannot use set to unset a property")
    if not prop:
        raise common.CommandError("error: you must specify a property")
    access = _access(args)
    config = access.starting()
    changed = kubeconfig_property.apply(config, prop, value, unset=False, raw_bytes=bool(raw))
    kubeconfig_edit.modify(access, changed, False)
    print(f'Property "{prop}" set.')
    return 0


def unset_property(args, parser) -> int:
    from kubelite.client import kubeconfig_edit, kubeconfig_property

    if len(args.names) != 1:
        raise _help_error(parser, f"Unexpected args: {go_list(args.names)}")
    prop = args.names[0]
    if not prop:
        raise common.CommandError("error: you must specify a property")
    access = _access(args)
    config = access.starting()
    changed = kubeconfig_property.apply(config, prop, "", unset=True, raw_bytes=True)
    kubeconfig_edit.modify(access, changed, False)
    print(f'Property "{prop}" unset.')
    return 0


ACTIONS = {
    "set-cluster": set_cluster, "set-credentials": set_credentials, "set-context": set_context,
    "use-context": use_context, "use": use_context, "rename-context": rename_context,
    "delete-cluster": delete_stanza("clusters", "cluster"), "delete-context": delete_stanza("contexts", "context"),
    "delete-user": delete_stanza("users", "user"), "get-clusters": get_names("clusters"),
    "get-users": get_names("users"), "set": set_property, "unset": unset_property,
}

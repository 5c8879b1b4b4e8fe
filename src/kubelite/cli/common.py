"""What every object command shares: flags, the session, the resource builder, printers and
kubectl's error reporting.

A command module does::

    parser = common.parser("get", "Display one or many resources.", EXAMPLES)
    common.add_connection_flags(parser) ...
    return common.run(parser, argv, body)     # body(args) -> int; never a traceback

`run` turns every failure into kubectl's lines on stderr and exit 1.
"""
from __future__ import annotations

import argparse
import os
import sys

from kubelite.record import Record, factory

# argparse words its fixed texts ("options", "positional arguments", the -h help) through gettext,
# and every gettext call looks for a translation catalog, importing locale to name the language
# (~1 ms of every command that builds a parser). Python ships no catalog for argparse and
# kubectl's texts are English: the texts as written.
argparse._ = str

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

# -- failures -------------------------------------------------------------------------------------


class CommandError(Exception):
    """A failure whose message is exactly the line(s) to print (kubectl's `error: ...`)."""


class UsageError(CommandError):
    """Bad flags or arguments; printed with kubectl's `See '... -h' for help` hint."""


class VerbatimError(CommandError):
    """A failure kubectl prints exactly as written, without the `error: ` prefix on its first line."""


class Failed(Exception):
    """Errors were already reported; exit with `code`."""

    def __init__(self, code: int = 1):
        super().__init__(code)
        self.code = code


def error_message(err: BaseException) -> str:
    """kubectl's line for one error (StandardErrorMessage, then the `error: ` fallback)."""
    from kubelite.client.errors import ApiError, ConnectionFailed, ResourceTypeNotFound

    if isinstance(err, ApiError):
        if err.reason == "Invalid":
            return _invalid_message(err)
        if err.reason == "Unauthorized":
            return f"error: You must be logged in to the server ({err.message})"
        if err.reason:
            return f"Error from server ({err.reason}): {err.message}"
        return f"Error from server: {err.message}"
    if isinstance(err, ConnectionFailed):
        return str(err)
    if isinstance(err, ResourceTypeNotFound):
        return f"error: {err}"
    if isinstance(err, VerbatimError):
        return str(err)
    text = str(err) if isinstance(err, CommandError) else _plain(err)
    if isinstance(err, CommandError) and (text.startswith("error: ") or text.startswith("Error")):
        return text
    if text.startswith("Error in configuration: "):  # client-go's aggregate, printed as it is
        return text
    return text if text.startswith("error: ") else f"error: {text}"


def _standard_message(err) -> str:
    if err.reason == "Unauthorized":
        return f"error: You must be logged in to the server ({err.message})"
    return f"Error from server ({err.reason}): {err.message}" if err.reason else f"Error from server: {err.message}"


def _plain(err: BaseException) -> str:
    from kubelite.client.kubeconfig import ConfigError

    if isinstance(err, ConfigError):
        return str(err)
    text = str(err)
    return text or type(err).__name__


def _invalid_message(err) -> str:
    """kubectl's checkErr layout for a Status with reason Invalid."""
    head = "The request is invalid"
    details = err.status.get("details")
    if not isinstance(details, dict):  # no details at all: the server's message, if any
        return f"{head}: {err.message}" if err.message else head
    kind, name = details.get("kind") or "", details.get("name") or ""
    causes = [c for c in details.get("causes") or () if isinstance(c, dict)]
    if kind or name:
        from kubelite.manifest._govalues import go_quote

        head = f"The {kind} {go_quote(name)} is invalid"  # Go's %q, as kubectl prints it
    elif err.message and not causes:
        # without kind/name or causes the message is the only information there is
        head = f"{head}: {err.message}"
    if not causes:
        return head
    # kubectl joins field and message even when the field is empty (": message")
    texts = [f"{c.get('field') or ''}: {c.get('message') or ''}" for c in causes]
    texts = list(dict.fromkeys(texts))  # kubectl drops repeated causes
    if len(texts) == 1:
        return f"{head}: {texts[0]}"
    return f"{head}: \n" + "".join(f"* {t}\n" for t in texts).rstrip("\n")


def report(errors: list[BaseException]) -> int:
    """Print collected errors as kubectl's CheckErr does at the end of a command; the exit code."""
    if not errors:
        return 0
    if len(errors) == 1:
        _write_err(error_message(errors[0]))
    else:
        for err in errors:
            from kubelite.client.errors import ApiError

            # In an aggregate kubectl prints plain errors without the `error: ` prefix, and an
            # Invalid Status as any other (`Error from server (Invalid): ...`).
            text = error_message(err) if not isinstance(err, ApiError) else _standard_message(err)

            if not isinstance(err, ApiError) and text.startswith("error: ") and not _keeps_prefix(err):
                text = text[len("error: "):]
            _write_err(text + "\n")  # kubectl ends each message of an aggregate with a newline of its own
    return 1


def _keeps_prefix(err: BaseException) -> bool:
    from kubelite.client.errors import ConnectionFailed

    return isinstance(err, ConnectionFailed)


def _write_err(text: str) -> None:
    sys.stdout.flush()
    sys.stderr.write(text if text.endswith("\n") else text + "\n")
    sys.stderr.flush()


# -- parsing -----------------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    """argparse that reports problems as kubectl does (`error: ...`, exit 1) instead of exiting 2.

    Flag errors read as pflag's, which cobra prints as `Error: <what>` and
    `See 'kubectl <command> --help' for usage.`; flags are matched whole, never by prefix."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._seen: list[str] = []

    def _get_formatter(self):
        return self.formatter_class(prog=self.prog, width=_terminal_columns())

    def parse_known_args(self, args=None, namespace=None):
        if args is not None:
            self._seen = [*self._seen, *args]  # the spelling a flag error names is the user's
        return super().parse_known_args(args, namespace)

    def error(self, message: str):
        flag_error = self._flag_error(message)
        if flag_error is not None:
            raise self.flag_usage_error(*flag_error)
        raise UsageError(f"error: {message}\nSee '{self.prog} -h' for help and examples")

    def flag_usage_error(self, text: str, prog: str) -> UsageError:
        return UsageError(f"Error: {text}\nSee '{prog} --help' for usage.")

    def _flag_error(self, message: str) -> tuple[str, str] | None:
        """pflag's wording of argparse's flag complaints, with the command it concerns."""
        import re

        if message.startswith("unrecognized arguments: "):
            token = message[len("unrecognized arguments: "):].split(" ")[0]
            text = self._unknown_flag(token)
            return (text, self._command_prog()) if text else None
        m = re.fullmatch(r"argument (\S+): expected one argument", message)
        if m:
            return "flag needs an argument: " + self._typed(m.group(1).split("/")), self.prog
        m = re.fullmatch(r"argument (\S+): invalid (int|float) value: '(.*)'", message)
        if m:
            parse = "strconv.ParseInt" if m.group(2) == "int" else "strconv.ParseFloat"
            return (f'invalid argument "{m.group(3)}" for "{", ".join(m.group(1).split("/"))}" flag: '
                    f'{parse}: parsing "{m.group(3)}": invalid syntax', self.prog)
        return None

    def _unknown_flag(self, token: str) -> str | None:
        if token.startswith("--") and len(token) > 2:
            return "unknown flag: " + token.split("=", 1)[0]
        if token.startswith("-") and len(token) > 1 and not token[1:2].isdigit():
            for i, letter in enumerate(token[1:], start=1):
                action = self._option_string_actions.get("-" + letter)
                if action is None:
                    return f"unknown shorthand flag: '{letter}' in {token}"
                if action.nargs != 0:  # the rest of the token is this flag's value
                    break
        return None

    def _typed(self, spellings: list[str]) -> str:
        """How the user wrote a flag that lacked its value: `--output` or `'o' in -o`."""
        for token in reversed(self._seen):
            name = token.split("=", 1)[0]
            if name in spellings:
                return name if name.startswith("--") else f"'{name[1:]}' in {name}"
        longest = max(spellings, key=len)
        return longest if longest.startswith("--") else f"'{longest[1:]}' in {longest}"

    def _command_prog(self) -> str:
        """Unknown flags are reported by the top parser; the hint names the subcommand used."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for token in self._seen:
                    if token in action.choices:
                        return action.choices[token].prog
        return self.prog


def _terminal_columns() -> int:
    """shutil.get_terminal_size().columns, argparse's width, without importing shutil (and the
    compression modules it brings): argparse makes a formatter at every add_argument."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def parser(command: str, summary: str, examples: str = "") -> Parser:
    return Parser(prog=f"kubelite {command}", description=summary,
                  epilog=("Examples:\n" + examples) if examples else None,
                  formatter_class=argparse.RawDescriptionHelpFormatter)


def add_connection_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("connection")
    g.add_argument("--kubeconfig", help="path to the kubeconfig file to use")
    g.add_argument("--context", help="the name of the kubeconfig context to use")
    g.add_argument("--cluster", help="the name of the kubeconfig cluster to use")
    g.add_argument("--user", help="the name of the kubeconfig user to use")
    g.add_argument("-s", "--server", help="the address and port of the Kubernetes API server")
    g.add_argument("--token", help="bearer token for authentication to the API server")
    g.add_argument("--as", dest="as_user", default=None, help="username to impersonate for the operation")
    g.add_argument("--as-group", dest="as_groups", action="append", default=[],
                   help="group to impersonate for the operation (repeat for several groups)")
    g.add_argument("--as-uid", dest="as_uid", default=None, help="UID to impersonate for the operation")
    g.add_argument("--client-certificate", help="path to a client certificate file for TLS")
    g.add_argument("--client-key", help="path to a client key file for TLS")
    g.add_argument("--certificate-authority", help="path to a certificate file for the certificate authority")
    g.add_argument("--tls-server-name", help="server name to use for server certificate validation")
    g.add_argument("--insecure-skip-tls-verify", action="store_true",
                   help="do not check the server's certificate (insecure)")
    g.add_argument("--request-timeout", default="0",
                   help="how long to wait for a single request (e.g. 1s, 2m, 3h; 0 = no timeout)")
    g.add_argument("--cache-dir", help="accepted for kubectl compatibility (kubelite caches under $KUBELITE_HOME)")
    g.add_argument("-v", "--v", dest="verbosity", type=int, default=0, help="log level (6: requests, 8: bodies)")


def add_namespace_flags(p: argparse.ArgumentParser, all_namespaces: bool = True) -> None:
    p.add_argument("-n", "--namespace", help="the namespace scope for this request")
    if all_namespaces:
        p.add_argument("-A", "--all-namespaces", action="store_true",
                       help="list across all namespaces (the namespace flag is ignored)")


def add_filename_flags(p: argparse.ArgumentParser, what: str = "to use") -> None:
    p.add_argument("-f", "--filename", action="append", default=[],
                   help=f"file, directory, URL or - (stdin) with the objects {what}")
    p.add_argument("-R", "--recursive", action="store_true", help="process directories given with -f recursively")
    p.add_argument("-k", "--kustomize", help="process a kustomization directory")


def add_selector_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("-l", "--selector", help="label selector, e.g. -l key1=value1,key2=value2")
    p.add_argument("--field-selector", help="field selector, e.g. --field-selector metadata.name=x")


def add_dry_run_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry-run", nargs="?", const="unchanged", default="none",
                   help='"none", "server" or "client"')


def add_output_flag(p: argparse.ArgumentParser, help_text: str = "output format") -> None:
    p.add_argument("-o", "--output", default="", help=help_text)


def dry_run_mode(args) -> str:
    """none | client | server, with kubectl's messages for bad values."""
    value = args.dry_run
    if value == "unchanged":
        _write_err("W0000 --dry-run is deprecated and can be replaced with --dry-run=client.")
        return "client"
    if value in ("none", "client", "server"):
        return value
    if value in ("true", "false"):
        return "client" if value == "true" else "none"
    raise CommandError(f'error: Invalid dry-run value ({value}). Must be "none", "server", or "client".')


def _split_short_equals(argv: list[str], known=None) -> list[str]:
    """`-o=yaml`, `-n=x`, `-v=6` (pflag accepts them) -> `-o`, `yaml`; flags not in `known` stay whole,
    so that an error names them as written (`unknown shorthand flag: 'o' in -o=yaml`)."""
    out = []
    for token in argv:
        if len(token) > 3 and token[0] == "-" and token[1] != "-" and token[2] == "=" and \
                (known is None or token[:2] in known):
            out.extend([token[:2], token[3:]])
        else:
            out.append(token)
    return out


def _bool_flag_values(p: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """`--flag=true|false` for a flag argparse stores as true (pflag's bool flags take a value after `=`)."""
    switches = _store_true_flags(p)
    out = []
    for token in argv:
        name, eq, value = token.partition("=")
        if token == "--":
            out.extend(argv[len(out):])
            break
        if eq and name in switches and name.startswith("--"):
            if value in ("1", "t", "T", "TRUE", "true", "True"):  # Go's strconv.ParseBool, case as written
                out.append(name)
                continue
            if value in ("0", "f", "F", "FALSE", "false", "False"):
                continue
            raise UsageError(f'Error: invalid argument "{value}" for "{name}" flag: strconv.ParseBool: parsing '
                             f'"{value}": invalid syntax\nSee \'{p.prog} --help\' for usage.')
        out.append(token)
    return out


def is_text_bool(action: argparse.Action) -> bool:
    """A boolean flag kept as text (`--overwrite`, default "true"): pflag's bool, never the next word."""
    return action.nargs is None and action.default in ("true", "false") and bool(action.option_strings)


def _optional_values(p: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """`--flag` of a flag with an optional value (pflag's NoOptDefVal, e.g. --dry-run, or a boolean kept
    as text) never takes the next word as its value, as argparse would: it becomes `--flag=<its value
    when bare>`."""
    bare, always = {}, set()
    for action in p._actions:
        if action.nargs == "?" and action.option_strings and isinstance(action.const, (str, bool)):
            text = action.const if isinstance(action.const, str) else str(action.const).lower()
            bare.update({name: text for name in action.option_strings if name.startswith("--")})
        elif is_text_bool(action):
            bare.update({name: "true" for name in action.option_strings})
            always.update(action.option_strings)
    out = []
    for i, token in enumerate(argv):
        if token == "--":
            return out + argv[i:]
        following = argv[i + 1] if i + 1 < len(argv) else "-"
        wanted = token in always or (token in bare and not following.startswith("-"))
        out.append(f"{token}={bare[token]}" if wanted else token)
    return out


def _flag_values(p: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """A flag that takes a value takes the next word, whatever it looks like (pflag: `--image --x` sets
    image to `--x`, `-n -A` namespace to `-A`); argparse would refuse a value starting with `-`."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            return out + argv[i:]
        action = p._option_string_actions.get(token)
        following = argv[i + 1] if i + 1 < len(argv) else ""
        if action is not None and action.nargs is None and not is_text_bool(action) and \
                following.startswith("-") and following != "-":
            out.append(token + ("=" if token.startswith("--") else "") + following)
            i += 2
            continue
        out.append(token)
        i += 1
    return out


def _store_true_flags(p: argparse.ArgumentParser) -> set[str]:
    names: set[str] = set()
    for action in p._actions:
        if isinstance(action, argparse._StoreTrueAction):
            names.update(action.option_strings)
        elif isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                names |= _store_true_flags(sub)
    return names


def parse(p: Parser, argv: list[str]) -> argparse.Namespace:
    """argv as pflag reads it: flags anywhere, `-o=x`, bare booleans and optional values; after `--`
    every word is an argument, even one that looks like a flag."""
    after: list[str] = []
    words = [a for a in p._actions if not a.option_strings and a.nargs == "*"]
    if "--" in argv and len(words) == 1:
        cut = argv.index("--")
        argv, after = argv[:cut], argv[cut + 1:]
    argv = _split_short_equals(argv, p._option_string_actions)
    args = p.parse_intermixed_args(_flag_values(p, _optional_values(p, _bool_flag_values(p, argv))))
    if after:
        setattr(args, words[0].dest, [*(getattr(args, words[0].dest) or []), *after])
    return args


def run(p: Parser, argv: list[str], body: Callable[[argparse.Namespace], int]) -> int:
    """Parse and run a command; every failure becomes kubectl's message and exit 1."""
    try:
        args = parse(p, argv)
    except UsageError as err:
        _write_err(str(err))
        return 1
    except SystemExit as exit_:  # -h
        return int(exit_.code or 0)
    try:
        return int(body(args) or 0)
    except Failed as failed:
        return failed.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as err:  # noqa: BLE001 - the one place where everything becomes a message
        if getattr(args, "verbosity", 0) >= 10:
            import traceback

            traceback.print_exc()
        _write_err(error_message(err))
        return 1
    finally:
        session = getattr(args, "_session", None)
        if session is not None:
            session.close()


# -- the session --------------------------------------------------------------------------------------


def parse_duration(text: str | None) -> float | None:
    """kubectl's --request-timeout: `0` (none), plain seconds, or Go durations like 1m30s."""
    import re

    if not text or text == "0":
        return None
    if re.fullmatch(r"\d+", text):
        return float(text)
    total, pos = 0.0, 0
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    for m in re.finditer(r"(\d+(?:\.\d+)?)(ms|h|m|s)", text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * units[m.group(2)]
        pos = m.end()
    if pos != len(text) or pos == 0:
        raise CommandError("error: invalid timeout value. Timeout must be a single integer in seconds, "
                           "or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)")
    return total or None


def session(args):
    """The command's Session (opened once; closed by `run`)."""
    existing = getattr(args, "_session", None)
    if existing is not None:
        return existing
    from kubelite.client.dynamic import Session
    from kubelite.client.kubeconfig import Overrides

    overrides = Overrides(kubeconfig=args.kubeconfig, context=args.context, cluster=args.cluster, user=args.user,
                          namespace=getattr(args, "namespace", None), server=args.server, token=args.token,
                          as_user=args.as_user, as_groups=tuple(args.as_groups), as_uid=args.as_uid,
                          insecure_skip_tls_verify=args.insecure_skip_tls_verify,
                          client_certificate=args.client_certificate, client_key=args.client_key,
                          certificate_authority=args.certificate_authority, tls_server_name=args.tls_server_name,
                          request_timeout=parse_duration(args.request_timeout))
    opened = Session.open(overrides, verbosity=args.verbosity)
    args._session = opened
    return opened


# -- the resource builder --------------------------------------------------------------------------------


class Request(Record):
    """One thing a command acts on: a named object, a list query, or an object read from a file."""

    resource: Any  # ResourceInfo
    namespace: str | None  # None: all namespaces (or cluster-scoped)
    name: str | None = None
    obj: dict | None = None  # from -f
    source: str = ""


class Selection(Record):
    requests: list[Request] = factory(list)
    single_item: bool = False  # kubectl's singleItemImplied
    multiple_types: bool = False  # `a,b`, `all`, several TYPE/NAME kinds


def build(sess, args, positional: list[str], *, verb: str, allow_list: bool = True,
          require_names: bool = False, errors: list | None = None) -> Selection:
    """What TYPE[,TYPE] [NAME...], TYPE/NAME... or -f/-R select, as kubectl's resource builder.

    Resolution problems with file objects are appended to `errors` (so the other objects still
    proceed) when a list is given; otherwise they raise.
    """
    filenames = getattr(args, "filename", None) or []
    if getattr(args, "kustomize", None):
        if filenames:
            raise CommandError("error: only one of -f or -k can be specified")
        if positional:
            raise CommandError("error: Unexpected args: " + str(positional).replace("'", "") +
                               "\nSee 'kubelite " + verb + " -h' for help and examples")
        return _from_files(sess, args, [], sess.namespace, errors)
    if filenames and positional:
        raise CommandError("error: Unexpected args: " + str(positional).replace("'", "") +
                           "\nSee 'kubelite " + verb + " -h' for help and examples")
    all_ns = bool(getattr(args, "all_namespaces", False))
    namespace = sess.namespace
    if filenames:
        return _from_files(sess, args, filenames, namespace, errors)
    if not positional:
        raise (VerbatimError if verb == "get" else CommandError)(_nothing_given(verb))
    if any("/" in a for a in positional):
        return _from_slash_args(sess, positional, namespace, verb)
    types = [t for t in positional[0].split(",")]
    if any(not t for t in types):
        raise CommandError(f'error: arguments in resource/name form must have a single resource and name')
    names = positional[1:]
    if require_names and not names:
        raise CommandError("error: resource(s) were provided, but no name was specified")
    infos = []
    for typed in types:
        expanded = sess.discovery.category(typed) if not names or typed == "all" else []
        if expanded and typed == "all" or (expanded and _not_a_resource(sess, typed)):
            infos.extend(expanded)
        else:
            infos.append(sess.discovery.resolve(typed))
    selection = Selection(multiple_types=len(types) > 1 or positional[0] == "all" or len(infos) > 1)
    for info in infos:
        ns = None if (all_ns and not names) or not info.namespaced else namespace
        if names:
            for name in names:
                selection.requests.append(Request(info, ns, name))
        elif allow_list:
            selection.requests.append(Request(info, ns))
    selection.single_item = len(infos) == 1 and len(names) == 1
    return selection


def _not_a_resource(sess, typed: str) -> bool:
    from kubelite.client.errors import ResourceTypeNotFound

    try:
        sess.discovery.resolve(typed)
    except ResourceTypeNotFound:
        return True
    return False


def _nothing_given(verb: str) -> str:
    if verb == "get":
        return ('You must specify the type of resource to get. Use "kubelite api-resources" for a complete list '
                'of supported resources.\n\nerror: Required resource not specified.\nUse "kubelite explain '
                '<resource>" for a detailed description of that resource (e.g. kubelite explain pods).\n'
                "See 'kubelite get -h' for help and examples")
    return ("error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n"
            "   '<resource> <name>'\n   '<resource>'")


def _from_slash_args(sess, positional: list[str], namespace: str, verb: str) -> Selection:
    selection = Selection()
    kinds = set()
    for arg in positional:
        typed, slash, name = arg.partition("/")
        if not slash:
            raise CommandError("error: there is no need to specify a resource type as a separate argument when "
                               "passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' "
                               "instead of 'kubectl get resource resource/<resource_name>'")
        if not typed or not name or "/" in name:
            raise CommandError("error: arguments in resource/name form must have a single resource and name")
        info = sess.discovery.resolve(typed)
        kinds.add((info.group, info.resource))
        selection.requests.append(Request(info, namespace if info.namespaced else None, name))
    selection.single_item = len(positional) == 1
    selection.multiple_types = len(kinds) > 1
    return selection


def _from_files(sess, args, filenames: list[str], namespace: str, errors: list | None) -> Selection:
    from kubelite.client.discovery import KindNotFound
    from kubelite.manifest import read_sources

    recursive = bool(getattr(args, "recursive", False))
    validate = getattr(args, "validate", "true") not in ("false", "ignore")
    if getattr(args, "kustomize", None):
        from kubelite.cli.apply import kustomize_manifests

        manifests = kustomize_manifests(args.kustomize)
    else:
        manifests = read_sources(filenames, recursive=recursive, validate=validate, verb=_verb_word(args))
    selection = Selection()
    kinds = set()
    for m in manifests:
        obj = m.obj
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        try:
            info = sess.discovery.for_kind(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
        except KindNotFound as err:
            problem = CommandError(f'resource mapping not found for name: "{meta.get("name", "")}" namespace: '
                                   f'"{meta.get("namespace", "")}" from "{m.source}": {err}\n'
                                   "ensure CRDs are installed first")
            if errors is None:
                raise problem from None
            errors.append(problem)
            continue
        ns = None
        if info.namespaced:
            ns = meta.get("namespace") or namespace
            if sess.connection.namespace_explicit and meta.get("namespace") and meta["namespace"] != namespace:
                raise CommandError(
                    f'error: the namespace from the provided object "{meta["namespace"]}" does not match the '
                    f'namespace "{namespace}". You must pass \'--namespace={meta["namespace"]}\' to perform this '
                    "operation.")
        kinds.add((info.group, info.kind))
        selection.requests.append(Request(info, ns, meta.get("name"), obj, m.source))
    # -k is one source; for -f, a single file found (whatever it holds) implies a single item
    selection.single_item = bool(getattr(args, "kustomize", None)) or _one_file_source(filenames, recursive)
    selection.multiple_types = len(kinds) > 1
    return selection


def _one_file_source(filenames: list[str], recursive: bool) -> bool:
    """kubectl's singleItemImplied for -f: exactly one source (a file, a directory or pattern
    holding one file, or a URL) and no standard input; how many objects it holds does not matter."""
    from kubelite.manifest.errors import ManifestError
    from kubelite.manifest.sources import plan_sources

    if "-" in filenames:
        return False
    try:
        return len(plan_sources(filenames, recursive)) == 1
    except ManifestError:  # the sources were read already; a path gone since is no single item
        return False


def _verb_word(args) -> str:
    return getattr(args, "_verb", "apply")


# -- printing ------------------------------------------------------------------------------------------

GENERIC_FORMATS = ("go-template", "go-template-file", "json", "jsonpath", "jsonpath-as-json", "jsonpath-file",
                   "name", "template", "templatefile", "yaml")
GET_FORMATS = ("custom-columns", "custom-columns-file", "go-template", "go-template-file", "json", "jsonpath",
               "jsonpath-as-json", "jsonpath-file", "name", "template", "templatefile", "wide", "yaml")


class Output(Record):
    """A parsed `-o` value with the printing flags that go with it."""

    kind: str  # "" (default), yaml, json, name, wide, jsonpath, custom-columns(-file), go-template
    argument: str = ""
    allow_missing_keys: bool = True  # --allow-missing-template-keys (jsonpath and go-template)
    show_managed_fields: bool = False  # --show-managed-fields (yaml and json)

    @property
    def human(self) -> bool:
        return self.kind in ("", "wide")


_TEMPLATE_FORMATS = ("go-template", "go-template-file", "template", "templatefile")


def add_template_flags(p: argparse.ArgumentParser, managed_fields: bool = True) -> None:
    """--template, --allow-missing-template-keys and (unless the command has it) --show-managed-fields."""
    p.add_argument("--template", default="", help="template (or template file) for -o go-template[-file]")
    p.add_argument("--allow-missing-template-keys", nargs="?", const="true", default="true",
                   help="ignore missing keys in templates")
    if managed_fields:
        p.add_argument("--show-managed-fields", action="store_true", help="keep managedFields in -o yaml|json")


def output_of(args, allowed: tuple[str, ...] = GENERIC_FORMATS) -> Output:
    """The -o of a command with its printing flags: --template alone means -o go-template, as in kubectl."""
    template = getattr(args, "template", None) or ""
    value = args.output or ""
    if template and not value:
        value = "go-template"
    output = parse_output(value, allowed, template)
    output.allow_missing_keys = _flag_true(getattr(args, "allow_missing_template_keys", True),
                                           "allow-missing-template-keys")
    output.show_managed_fields = bool(getattr(args, "show_managed_fields", False))
    return output


def _flag_true(value, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).lower()
    if text in ("true", "t", "1"):
        return True
    if text in ("false", "f", "0"):
        return False
    raise CommandError(f'Error: invalid argument "{value}" for "--{name}" flag: strconv.ParseBool: parsing '
                       f'"{value}": invalid syntax')


def parse_output(value: str, allowed: tuple[str, ...] = GENERIC_FORMATS, template: str = "") -> Output:
    if not value:
        return Output("")
    kind, _, argument = value.partition("=")
    if kind not in allowed or kind == "jsonpath-as-json":
        if kind in allowed:
            raise CommandError(f'error: the output format "{kind}" is not supported by kubelite yet')
        raise CommandError(f'error: unable to match a printer suitable for the output format "{value}", allowed '
                           f'formats are: {",".join(allowed)}')
    if template and kind in ("jsonpath", *_TEMPLATE_FORMATS):
        argument = template  # kubectl's --template wins over the text after `=`
    if kind in _TEMPLATE_FORMATS:
        return Output("go-template", _go_template_text(kind, argument))
    if kind in ("jsonpath", "custom-columns") and not argument:
        what = "template" if kind == "jsonpath" else "custom-columns"
        raise CommandError(f"error: {what} format specified but no {what} given" if kind == "jsonpath" else
                           "error: custom-columns format specified but no custom columns given")
    if kind == "jsonpath-file":
        from kubelite.manifest.jsonpath import read_template_file

        return Output("jsonpath", read_template_file(argument))
    if kind == "custom-columns-file":
        try:
            with open(argument) as f:
                return Output("custom-columns-file", f.read())
        except OSError as err:
            raise CommandError(f"error: open {argument}: {(err.strerror or str(err)).lower()}") from None
    return Output(kind, argument)


def _go_template_text(kind: str, argument: str) -> str:
    """The template of -o go-template[-file]/template[file], checked before anything runs (as kubectl)."""
    from kubelite.manifest import gotemplate

    if not argument:
        raise CommandError("error: template format specified but no template given")
    text = argument
    if kind in ("go-template-file", "templatefile"):
        try:
            with open(argument, encoding="utf-8") as f:
                text = f.read()
        except OSError as err:
            raise CommandError(f"error: error reading --template {argument}, open {argument}: "
                               f"{(err.strerror or str(err)).lower()}") from None
    try:
        gotemplate.parse(text)
    except gotemplate.GoTemplateError as err:
        raise CommandError(f"error: error parsing template {text}, {err}") from None
    return text


def without_managed_fields(obj: Any) -> Any:
    """kubectl's OmitManagedFieldsPrinter: metadata.managedFields dropped from an object or each list item."""
    if not isinstance(obj, dict):
        return obj
    items = obj.get("items")
    if isinstance(items, list) and str(obj.get("kind", "")).endswith("List"):
        return {**obj, "items": [without_managed_fields(item) for item in items]}
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    return obj


def typed_json(output: Output, obj: Any) -> str:
    """-o json of an object kubectl decoded into a Go struct: struct field order, and (like every -o json
    printer of kubectl's, which all sit behind OmitManagedFieldsPrinter) managedFields left out unless
    --show-managed-fields."""
    from kubelite.imperative.jsonorder import to_json_in_order

    if not output.show_managed_fields:
        obj = without_managed_fields(obj)
    return to_json_in_order(obj)


def render(output: Output, obj: Any) -> str:
    """The text -o prints for one object (or a List)."""
    if output.kind in ("yaml", "json") and not output.show_managed_fields:
        obj = without_managed_fields(obj)
    if output.kind == "yaml":
        from kubelite.manifest import to_yaml

        return to_yaml(obj)
    if output.kind == "json":
        from kubelite.manifest import to_json

        return to_json(obj)
    if output.kind == "name":
        from kubelite.manifest.name import render as names

        return names(obj)
    if output.kind == "jsonpath":
        from kubelite.manifest import jsonpath

        try:
            return jsonpath.render(output.argument, obj, output.allow_missing_keys)
        except jsonpath.JSONPathError as err:
            raise CommandError(err.stderr() if hasattr(err, "stderr") else f"error: {err}") from None
    if output.kind == "go-template":
        from kubelite.manifest import gotemplate

        try:
            return gotemplate.render(output.argument, obj, output.allow_missing_keys)
        except gotemplate.KubectlTemplateError as err:
            # kubectl writes what the template printed and its debugging text to stdout, then fails
            sys.stdout.write(err.stdout)
            sys.stdout.flush()
            raise CommandError(f"error: {err}") from None
    if output.kind in ("custom-columns", "custom-columns-file"):
        from kubelite.manifest import columns

        spec = columns.parse_spec(output.argument) if output.kind == "custom-columns" else \
            columns.parse_file(output.argument)
        return columns.render_columns(spec, [obj])
    raise CommandError(f'error: unable to print with output format "{output.kind}"')


class ObjectPrinter:
    """Prints objects one by one as kubectl's printers do after create/replace (`---` between YAML)."""

    def __init__(self, output: Output, out=None):
        self.output = output
        self.out = out or sys.stdout
        self.count = 0

    def print(self, obj: dict) -> None:
        text = render(self.output, obj)
        if self.output.kind == "yaml" and self.count:
            text = "---\n" + text
        self.count += 1
        self.out.write(text)
        self.out.flush()


def success_line(obj: dict, operation: str, dry_run: str) -> str:
    """`deployment.apps/nginx created`, with kubectl's dry-run suffixes."""
    from kubelite.manifest.name import resource_name

    return resource_name(obj, operation + dry_run_suffix(dry_run)) + "\n"


def dry_run_suffix(dry_run: str) -> str:
    return {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")


def with_type(obj: dict, info) -> dict:
    """Objects in a list response lack apiVersion/kind; kubectl's decoder fills them in."""
    if obj.get("kind") and obj.get("apiVersion"):
        return obj
    return {"apiVersion": info.api_version, "kind": info.kind, **obj}


def each(items: Iterable, action: Callable[[Any], None], errors: list) -> None:
    """Run `action` on each item, collecting failures so that the others still run."""
    from kubelite.client.errors import ClientError

    for item in items:
        try:
            action(item)
        except (ClientError, CommandError) as err:
            errors.append(err)


# -- writing objects from files (create, replace) ----------------------------------------------------------


def add_write_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--save-config", action="store_true",
                   help="store the configuration in the last-applied annotation (for later apply)")
    p.add_argument("--validate", nargs="?", const="strict", default="strict",
                   help="strict|warn|ignore (true=strict, false=ignore): how the server checks fields")
    p.add_argument("--field-manager", default="", help="name of the manager tracking field ownership")


def field_validation(args) -> str:
    value = str(args.validate).lower()
    mapping = {"true": "Strict", "strict": "Strict", "warn": "Warn", "false": "Ignore", "ignore": "Ignore"}
    if value not in mapping:
        raise CommandError(f'error: invalid - validate option "{args.validate}"; must be one of: strict (or true), '
                           "warn, ignore (or false)")
    return mapping[value]


def annotated(obj: dict, save_config: bool) -> dict:
    """kubectl's CreateOrUpdateAnnotation: with --save-config always set the last-applied
    annotation; otherwise refresh it only if the file's object already carries one."""
    from kubelite.apply.lastapplied import LAST_APPLIED, modified_configuration

    annotations = (obj.get("metadata") or {}).get("annotations") if isinstance(obj.get("metadata"), dict) else None
    has_it = isinstance(annotations, dict) and LAST_APPLIED in annotations
    if not save_config and not has_it:
        return obj
    modified, _ = modified_configuration(obj)
    return modified


def with_namespace(obj: dict, request: "Request") -> dict:
    """The object as sent: its namespace filled in from the request, as kubectl's builder does."""
    if not request.resource.namespaced or not request.namespace:
        return obj
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    if meta.get("namespace") == request.namespace:
        return obj
    return {**obj, "metadata": {**meta, "namespace": request.namespace}}


def write_params(args, manager: str, dry_run: str):
    from kubelite.client.dynamic import WriteParams

    return WriteParams(dry_run=dry_run == "server", field_manager=args.field_manager or manager,
                       field_validation=field_validation(args))


def two_way_patch(before: dict, after: dict) -> tuple[dict, str]:
    """The patch kubectl sends to turn a live object into an edited one, and its type.

    Kinds kubectl knows as Go types get a strategic merge patch; others (custom resources) a JSON
    merge patch, which is all their endpoint accepts.
    """
    from kubelite.patch import merge_patch, strategic
    from kubelite.schema import for_kind

    schema = for_kind(before.get("apiVersion", ""), before.get("kind", ""))
    if schema is None:
        return merge_patch.create(before, after), "merge"
    return strategic.create_two_way(before, after, schema), "strategic"

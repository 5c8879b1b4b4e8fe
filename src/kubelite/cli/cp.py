"""`kubelite cp`: copy files to and from containers, with tar run through exec (see exec.py for
what kubelite can stream)."""
from __future__ import annotations

from kubelite.cli import common, podselect
from kubelite.cli.exec import open_stream


def build_parser() -> common.Parser:
    p = common.parser("cp", "Copy files to and from containers.")
    p.add_argument("args", nargs="*")
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    p.add_argument("-c", "--container", default="")
    p.add_argument("--no-preserve", action="store_true")
    p.add_argument("--retries", type=int, default=0)
    from kubelite.cli.help import installed

    return installed(p, "cp")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _cp)


def file_spec(text: str, namespace: str) -> tuple[str, str, str] | None:
    """(namespace, pod, path) of `[ns/]pod:path`, None for a local path."""
    if ":" not in text or text.startswith(("/", ".")):
        return None
    pod, _, path = text.partition(":")
    ns, _, name = pod.rpartition("/")
    return ns or namespace, name, path


def _cp(args) -> int:
    if len(args.args) != 2:
        raise common.CommandError("error: source and destination are required")
    sess = common.session(args)
    src, dest = (file_spec(a, sess.namespace) for a in args.args)
    if src and dest:
        raise common.CommandError("error: one of src or dest must be a local file specification")
    if not src and not dest:
        raise common.CommandError("error: one of src or dest must be a remote file specification")
    namespace, name, path = src or dest
    if not path:
        raise common.CommandError("error: remote path cannot be empty")
    pods_r = sess.discovery.resolve("pods")
    pod = sess.client.get(pods_r, name, namespace)
    container = args.container or podselect.default_container(pod)
    command = ["tar", "cf", "-", path] if src else ["tar", "-xmf", "-"]
    query = [("command", c) for c in command] + [("container", container)]
    if dest:
        query.append(("stdin", "true"))
    query += [("stderr", "true"), ("stdout", "true")]
    open_stream(sess, pod, "exec", query, what="cp")
    return 0

"""`--raw URI` of get, create, replace and delete: one request to a server path, as kubectl's rawhttp.

The body sent is the file given with -f (or standard input), byte for byte; the response body is
written to stdout exactly as received (no newline added). Only the path and query of the URI are
used: a scheme and host in it are ignored, as client-go's RequestURI does.
"""
from __future__ import annotations

import sys

from kubelite.cli import common


def add_raw_flag(p, help_text: str) -> None:
    p.add_argument("--raw", default="", help=help_text)


def check_uri(raw: str) -> None:
    """Go's url.ParseRequestURI acceptance: an absolute path, or an absolute URL with a scheme."""
    import re

    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", raw)
    if not raw.startswith("/") and not scheme:
        raise common.CommandError(f'error: --raw must be a valid URL path: parse "{raw}": invalid URI for request')
    bad = re.search(r"%(?![0-9A-Fa-f]{2})(.{0,2})", raw)
    if bad:
        raise common.CommandError(f'error: --raw must be a valid URL path: parse "{raw}": invalid URL escape '
                                  f'"%{bad.group(1)}"')


def check_file_flags(args, need_file: bool = True) -> None:
    """The -f/-R rules shared by create, replace and delete with --raw (kubectl's order): one local
    file (delete may have none), never a URL, no recursion."""
    filenames = list(getattr(args, "filename", None) or [])
    if len(filenames) > 1 or (need_file and len(filenames) != 1):
        raise common.CommandError("error: --raw can only use a single local file or stdin")
    if filenames and (filenames[0].startswith("http://") or filenames[0].startswith("https://")):
        raise common.CommandError("error: --raw cannot read from a url")
    if getattr(args, "recursive", False):
        raise common.CommandError("error: --raw and --recursive are mutually exclusive")


def check_output(args) -> None:
    if getattr(args, "output", ""):
        raise common.CommandError("error: --raw and --output are mutually exclusive")


def send(args, method: str, filename: str | None = None) -> int:
    """The request, its body copied to stdout; a failure raises the server's error."""
    body = _body(filename) if filename else b""
    sess = common.session(args)
    path = _path_and_query(args.raw)
    response = sess.transport.request(method, path, body=body or None,
                                      content_type="application/json" if body else None,
                                      accept="application/json, */*")
    out = getattr(sys.stdout, "buffer", None)
    sys.stdout.flush()
    if out is not None:
        out.write(response.content)
        out.flush()
    else:  # a text stream (tests redirecting stdout)
        sys.stdout.write(response.content.decode("utf-8", "replace"))
    return 0


def _path_and_query(raw: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(raw)
    path = parts.path or "/"
    return path + ("?" + parts.query if parts.query else "")


def _body(filename: str) -> bytes:
    if filename == "-":
        return sys.stdin.buffer.read()
    try:
        with open(filename, "rb") as f:
            return f.read()
    except OSError as err:
        raise common.CommandError(f"error: open {filename}: {(err.strerror or str(err)).lower()}") from None

"""Where manifests come from: files, directories, URLs and standard input.

``-f`` arguments expand as kubectl expands them: ``-`` is standard input, an
``http://`` or ``https://`` prefix is a URL, a directory contributes its
``.json``, ``.yaml`` and ``.yml`` files in sorted order (subdirectories only
when recursive), a path that names a file is read whatever its extension,
and a missing path that contains glob characters is a pattern. All sources
are read and checked before anything is returned.
"""
from __future__ import annotations

import codecs
import glob
import os
import sys

from .documents import Manifest, objects_from_text
from .errors import ManifestError, NoObjectsError, aggregate

EXTENSIONS = (".json", ".yaml", ".yml")
STDIN = "STDIN"

TYPE_CHECKING = False  # typing's import is a fifth of the reader's; annotations only
if TYPE_CHECKING:
    from typing import BinaryIO, Callable, Iterable

    Fetcher = Callable[[str], bytes]


def fetch_url(url: str) -> bytes:
    """GET a URL's body as kubectl does (a non-200 answer is an error)."""
    import httpx  # only needed when a URL is given

    try:
        response = httpx.get(url, follow_redirects=True, timeout=30.0)
    except httpx.ConnectError as exc:
        host = httpx.URL(url).host
        port = httpx.URL(url).port
        if "refused" in str(exc).lower() or "errno 111" in str(exc).lower():
            where = f"{host}:{port}" if port else host
            raise ManifestError(
                f"The connection to the server {where} was refused - did you specify the right host or port?",
                url) from None
        raise ManifestError(f'Get "{url}": {exc}', url) from None
    except httpx.HTTPError as exc:
        raise ManifestError(f'Get "{url}": {exc}', url) from None
    if response.status_code != 200:
        status = f"{response.status_code} {response.reason_phrase}".strip()
        raise ManifestError(
            f'unable to read URL "{url}", server reported {status}, status code={response.status_code}', url)
    return response.content


def decode_bytes(data: bytes, source: str) -> str:
    """Text of a source: UTF-16 with a byte order mark is converted, a UTF-8 BOM dropped.

    JSON replaces bytes that are not UTF-8 (as Go's decoder does); YAML
    rejects them, as go-yaml does.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ManifestError(f"error parsing {source}: invalid UTF-16 text", source) from None
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if data.lstrip()[:1] == b"{":
            return data.decode("utf-8", "replace")
        line = data.count(b"\n", 0, exc.start) + 1
        # go-yaml stops at the first byte it cannot take: a control character
        # may come before the broken sequence
        head = data[: exc.start].decode("utf-8")
        problem = "control characters are not allowed" if _has_control(head) else "invalid leading UTF-8 octet"
        raise ManifestError(
            f"error parsing {source}: error converting YAML to JSON: yaml: {problem}",
            source, line) from None


def _has_control(text: str) -> bool:
    return any((c < " " and c not in "\t\n\r") or "\x7f" <= c <= "\x84" or "\x86" <= c <= "\x9f" for c in text)


def _expand_directory(root: str, recursive: bool) -> list[str]:
    """Files below a directory in filepath.Walk order (lexical, depth first)."""
    found: list[str] = []

    def walk(directory: str) -> None:
        try:
            names = sorted(os.listdir(directory))
        except OSError as exc:
            raise ManifestError(f'error reading "{root}": open {directory}: {_reason(exc)}', root) from None
        for name in names:
            path = os.path.join(directory, name)
            if os.path.isdir(path) and not os.path.islink(path):
                if recursive:
                    walk(path)
                continue
            if os.path.splitext(name)[1] in EXTENSIONS:
                found.append(path)

    walk(root)
    return found


def _reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, FileNotFoundError):
        return "no such file or directory"
    if isinstance(exc, IsADirectoryError):
        return "is a directory"
    return exc.strerror or str(exc)


_GLOB_CHARS = frozenset("*?[")


def _expand_path(arg: str, recursive: bool) -> list[str]:
    if not os.path.exists(arg) and not _GLOB_CHARS.isdisjoint(arg):
        matches = sorted(glob.glob(arg))
        if not matches:
            raise ManifestError(f'the path "{arg}" does not exist', arg)
        paths = matches
    else:
        paths = [arg]
    files: list[str] = []
    for path in paths:
        if not os.path.lexists(path):
            raise ManifestError(f'the path "{path}" does not exist', path)
        if os.path.isdir(path):
            files.extend(_expand_directory(path, recursive))
        else:
            files.append(path)
    return files


class _Source:
    __slots__ = ("name", "read")

    def __init__(self, name: str, read: Callable[[], bytes]):
        self.name = name
        self.read = read


def _read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise ManifestError(f"open {path}: {_reason(exc)}", path) from None


def plan_sources(paths: Iterable[str], recursive: bool = False, stdin: BinaryIO | bytes | str | None = None,
                 fetch: Fetcher | None = None) -> list[_Source]:
    """The sources ``-f`` arguments name, in kubectl's order; path errors raised together."""
    sources: list[_Source] = []
    errors: list[str] = []
    for arg in paths:
        if arg == "-":
            sources.append(_Source(STDIN, lambda: _read_stdin(stdin)))
        elif arg.startswith(("http://", "https://")):
            sources.append(_Source(arg, lambda url=arg: (fetch or fetch_url)(url)))
        else:
            try:
                files = _expand_path(arg, recursive)
            except ManifestError as exc:
                errors.append(str(exc))
                continue
            sources.extend(_Source(f, lambda f=f: _read_file(f)) for f in files)
            if not sources and not errors:
                # kubectl only complains when no -f so far produced a file
                errors.append(f"error reading [{arg}]: recognized file extensions are [{' '.join(EXTENSIONS)}]")
    if errors:
        raise ManifestError(aggregate(errors))
    return sources


def _read_stdin(stdin: BinaryIO | bytes | str | None) -> bytes:
    if stdin is None:
        return sys.stdin.buffer.read()
    if isinstance(stdin, bytes):
        return stdin
    if isinstance(stdin, str):
        return stdin.encode("utf-8")
    data = stdin.read()
    return data.encode("utf-8") if isinstance(data, str) else data


def read_sources(paths: Iterable[str], recursive: bool = False, stdin: BinaryIO | bytes | str | None = None,
                 *, validate: bool = True, fetch: Fetcher | None = None, verb: str = "apply") -> list[Manifest]:
    """Every object the ``-f`` arguments name, checked, in kubectl's order.

    Raises ManifestError at the first problem, before returning anything;
    NoObjectsError (``no objects passed to <verb>``) when all sources are empty.
    """
    manifests: list[Manifest] = []
    for source in plan_sources(list(paths), recursive, stdin, fetch):
        text = decode_bytes(source.read(), source.name)
        manifests.extend(objects_from_text(text, source.name, validate))
    if not manifests:
        raise NoObjectsError(f"no objects passed to {verb}")
    return manifests


def read_text(text: str | bytes, source: str = STDIN, *, validate: bool = True) -> list[Manifest]:
    """The objects in one stream of text (no "no objects" check)."""
    if isinstance(text, bytes):
        text = decode_bytes(text, source)
    return objects_from_text(text, source, validate)

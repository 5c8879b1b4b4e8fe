"""Server warnings (RFC 7234 `Warning` response headers) printed as kubectl prints them.

kube-apiserver sends `Warning: 299 - "text"` for deprecated APIs, admission webhooks' warnings,
unknown or duplicate fields under fieldValidation=Warn. kubectl's client writes each code-299
text to stderr as `Warning: text`, once per process (client-go's deduplicating warning writer);
other codes are ignored.
"""
from __future__ import annotations

import re
import sys

# code, agent, then a quoted text with backslash escapes, optionally a quoted date; values of
# repeated headers arrive joined by ", ". Compiled (by re's cache) at the first warning, not at
# every command's start: ~2 ms.
_WARNING = r'\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?\s*(?:,|$)'
_ESCAPE = r"\\(.)"

_printed: set[str] = set()


def parse(value: str) -> list[str]:
    """The texts of the code-299 warnings in a (possibly joined) Warning header value."""
    texts = []
    for code, _agent, text in re.findall(_WARNING, value or ""):
        if code == "299":
            texts.append(re.sub(_ESCAPE, r"\1", text))
    return texts


def report(headers, sink=None) -> None:
    """Hand each of the response's warnings to `sink` (default: print_once)."""
    value = headers.get("warning")
    if not value:
        return
    for text in parse(value):
        if text:
            (sink or print_once)(text)


def print_once(text: str) -> None:
    """kubectl's way: `Warning: text` on stderr, each text once per process."""
    if text not in _printed:
        _printed.add(text)
        sys.stderr.write(f"Warning: {text}\n")
        sys.stderr.flush()


class ServerWarning(UserWarning):
    """A warning the API server sent (the Python API raises these through `warnings`)."""


def python_warning(text: str) -> None:
    import warnings

    warnings.warn(text, ServerWarning, stacklevel=2)

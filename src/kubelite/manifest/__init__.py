"""Reading object configuration documents and printing objects as kubectl does.

Reading (what ``kubectl apply -f`` accepts)::

    read_sources(paths, recursive=False, stdin=None, *, validate=True,
                 fetch=None, verb="apply") -> list[Manifest]

``paths`` are ``-f`` arguments: files (any extension when named directly),
directories (their ``.json``/``.yaml``/``.yml`` files, sorted; subdirectories
with ``recursive``, i.e. ``-R``), glob patterns, ``http(s)://`` URLs (fetched
by ``fetch``, default :func:`fetch_url`) and ``-`` for standard input
(``stdin``: bytes, text or a binary stream; default ``sys.stdin``). YAML
streams are split at ``---`` lines, JSON streams into their values; empty
documents are skipped and anything with ``items`` (``kind: List``,
``ConfigMapList``...) is replaced by its items. Scalars resolve as kubectl's
go-yaml v2 resolves them (``yes``/``on``/``n`` are booleans, ``0x1F`` and
``017`` integers, ``2001-12-14`` a string). Every source is read and checked
before anything is returned; the first problem raises :class:`ManifestError`
worded as kubectl words it (``the path "x" does not exist``, ``error
validating "f.yaml": error validating data: kind not set; ...``), and
:class:`NoObjectsError` says ``no objects passed to <verb>``.
``read_text(text, source)`` reads one stream.

Each :class:`Manifest` holds ``obj`` (a plain dict) and where it came from:
``source``, ``document`` (0-based), ``line`` (1-based start of the document)
and ``item`` (index inside a List, else None).

Writing, byte for byte as kubectl prints::

    to_yaml(obj) -> str          # kubectl ... -o yaml
    to_json(obj) -> str          # kubectl ... -o json
    as_list(objs) -> dict        # what -o yaml/json prints for several objects
"""
from kubelite.lazyexports import exports

# The names below are loaded on first use (PEP 562): importing one submodule, such as
# kubelite.manifest.name for `kubelite get`, must not pull in YAML and every reader.
_EXPORTS = {
    "Manifest": "documents",
    "ManifestError": "errors",
    "NoObjectsError": "errors",
    "as_list": "lists",
    "fetch_url": "sources",
    "read_sources": "sources",
    "read_text": "sources",
    "to_json": "jsonfmt",
    "to_yaml": "yamlfmt",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = exports(__name__, _EXPORTS, globals())

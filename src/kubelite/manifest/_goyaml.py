"""Decoding one YAML document to a JSON value exactly as kubectl does.

kubectl converts YAML with sigs.k8s.io/yaml: go-yaml v2 (YAML 1.1 scalars)
decodes the document, the result is marshalled to JSON, and that JSON is read
back as an unstructured object (int64 where the text is an integer that fits,
float64 otherwise). Two readers share the work: _goyaml_block reads the block
mappings and sequences of one-line scalars that most manifests are, without
PyYAML; whatever it declines goes to _goyaml_libyaml, on PyYAML's node tree,
which also words every error.
"""
from __future__ import annotations

from ._goyaml_block import NOT_BLOCK, decode_block
from ._goyaml_values import DecodeError, json_number

__all__ = ["DecodeError", "decode_yaml", "json_number"]


def decode_yaml(text: str, loader_class=None, *, block: bool = True) -> object:
    """The JSON value of the first YAML document in ``text`` (None when empty).

    ``loader_class`` picks a PyYAML loader of _goyaml_libyaml; it and
    ``block=False`` (the caller has tried it) skip the block-style reader.
    """
    if loader_class is None and block:
        value = decode_block(text)
        if value is not NOT_BLOCK:
            return value
    return _libyaml().decode_yaml(text, loader_class)


_LIBYAML = None


def _libyaml():
    """_goyaml_libyaml, imported with PyYAML at the first document the block reader declines."""
    global _LIBYAML
    if _LIBYAML is None:
        from . import _goyaml_libyaml

        _LIBYAML = _goyaml_libyaml
    return _LIBYAML

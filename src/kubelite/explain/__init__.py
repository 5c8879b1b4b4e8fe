"""`kubectl explain` output from an OpenAPI v3 group-version document (pure rendering).

`render(document, group, version, resource, field_path, recursive)` returns the text kubectl 1.32
prints with its default `plaintext` template, or raises ExplainError with kubectl's message.
"""
from kubelite.explain.plaintext import ExplainError, render
from kubelite.explain.wordwrap import wrap

__all__ = ["ExplainError", "render", "wrap"]

"""The errors of the go-template printer, and the template name every message carries."""
from __future__ import annotations


NAME = "output"  # kubectl's template name, part of every message


class GoTemplateError(Exception):
    """A parse failure; the message is Go's (``template: output:1: ...``)."""


class GoTemplateExecError(Exception):
    """An execution failure; ``output`` is what was written before it."""

    def __init__(self, message: str, output: str = ""):
        super().__init__(message)
        self.output = output


class KubectlTemplateError(Exception):
    """What kubectl's printer reports: ``stdout`` (partial output and debugging text) and the error line."""

    def __init__(self, message: str, stdout: str = ""):
        super().__init__(message)
        self.stdout = stdout

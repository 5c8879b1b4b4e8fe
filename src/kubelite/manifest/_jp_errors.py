"""The errors of kubectl's JSONPath: the public one, and the evaluator's before kubectl wraps it."""

from __future__ import annotations


class JSONPathError(Exception):
    """A template that cannot be parsed or executed; the message is kubectl's."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.message = message
        # The bare cause (e.g. "unclosed action"), as other printers report it.
        self.reason = reason if reason is not None else message

    def stderr(self) -> str:
        """The text kubectl prints on stderr for this error."""
        text = "error: " + self.message
        return text if text.endswith("\n") else text + "\n"


class _ExecError(Exception):
    """An evaluation failure before kubectl wraps it with debugging context.

    ``keeps_input`` records whether kubectl's evaluator hands its (non-empty)
    input back alongside the error, which an existence filter counts as a match.
    """

    def __init__(self, message: str, keeps_input: bool = True):
        super().__init__(message)
        self.keeps_input = keeps_input

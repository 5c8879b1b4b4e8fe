"""The one error type of the imperative layer."""
from __future__ import annotations


class ImperativeError(ValueError):
    """A flag or input kubectl rejects; ``str()`` is kubectl's message (without ``error: ``).

    ``usage`` marks errors kubectl reports as usage errors (followed by
    ``See 'kubectl ... -h' for help and examples``).
    """

    def __init__(self, message: str, *, usage: bool = False):
        super().__init__(message)
        self.usage = usage

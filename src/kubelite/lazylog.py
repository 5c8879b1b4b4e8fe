"""Loggers made at their first message.

The logging package's import (~2 ms: its locks, handlers and the root logger) was paid by every
embedded command that woke the controllers, which usually have nothing to say. A LazyLogger is a
logging.Logger's stand-in that imports logging and gets the real logger when first used.
"""
from __future__ import annotations

import sys

_MESSAGES = frozenset({"debug", "info", "warning", "error", "exception", "critical", "log"})


def _dropped(*args, **kwargs) -> None:
    pass


class LazyLogger:
    def __init__(self, name: str, *, quiet: bool = False):
        self._name = name
        # quiet: a library's logger, shown where the application configures logging (`kubelite
        # serve`, pytest), never on a command's stderr through Python's last-resort handler
        self._quiet = quiet
        self._logger = None

    def __getattr__(self, attribute: str):
        logger = self._logger
        if logger is None:
            if self._quiet and attribute in _MESSAGES and "logging" not in sys.modules:
                # Nobody configured logging, so the message would reach this logger's null
                # handler alone: it is dropped without importing logging.
                return _dropped
            import logging

            logger = logging.getLogger(self._name)
            if self._quiet:
                logger.addHandler(logging.NullHandler())
            self._logger = logger
        return getattr(logger, attribute)

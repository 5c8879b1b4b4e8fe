"""The shape every printer has: its columns and a function from one object to one row."""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Callable, Sequence

from kubelite.server.printers.columns import Column


@dataclass
class Row:
    cells: list
    # metav1.TableRowCondition list (only pods in Succeeded/Failed carry one).
    conditions: list | None = None


@dataclass(frozen=True)
class Printer:
    columns: Sequence[Column]
    row: Callable[[dict, datetime.datetime], Row]
    # Some lists print in their own order (FlowSchemas by precedence); None keeps the list order.
    order: Callable[[list], list] | None = None

    def column_definitions(self) -> list[dict]:
        return [column.definition() for column in self.columns]


Key = tuple[str, str]  # (API group, plural resource)

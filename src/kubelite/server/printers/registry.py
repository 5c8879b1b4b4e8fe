"""The shape every printer has: its columns and a function from one object to one row."""
from __future__ import annotations

from kubelite.record import FrozenRecord, Record

TYPE_CHECKING = False  # datetime and typing for annotations only
if TYPE_CHECKING:
    import datetime
    from typing import Callable, Sequence

    from kubelite.server.printers.columns import Column


# Records, not dataclasses (their import and the methods they compile at every start), with an
# __init__ of their own: every printer is built at import, a Row per object of every Table.
class Row(Record):
    cells: list
    # metav1.TableRowCondition list (only pods in Succeeded/Failed carry one).
    conditions: list | None = None

    def __init__(self, cells: list, conditions: list | None = None):
        self.cells = cells
        self.conditions = conditions


class Printer(FrozenRecord):
    columns: Sequence[Column]
    row: Callable[[dict, datetime.datetime], Row]
    # Some lists print in their own order (FlowSchemas by precedence); None keeps the list order.
    order: Callable[[list], list] | None = None

    def __init__(self, columns: Sequence[Column], row: Callable[[dict, datetime.datetime], Row],
                 order: Callable[[list], list] | None = None):
        self._set("columns", columns)
        self._set("row", row)
        self._set("order", order)

    def column_definitions(self) -> list[dict]:
        return [column.definition() for column in self.columns]


Key = tuple[str, str]  # (API group, plural resource)

"""Server-side printing entry point (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`).

The implementation lives in `kubelite.server.printers`; this module is the stable import path.
"""
from kubelite.lazyexports import exports
from kubelite.server.printers import TableError, build_table, human_duration, printer_for

__all__ = ["build_table", "printer_for", "human_duration", "TableError", "BUILTIN_PRINTERS"]

# Every built-in printer at once loads both printer modules: only when asked for (printers.table).
__getattr__, __dir__ = exports("kubelite.server.printers", {"BUILTIN_PRINTERS": "table"}, globals())

"""Server-side printing: the meta.k8s.io Tables of kube-apiserver 1.32.

Column sets, priorities and cell rules follow kube-apiserver's built-in printers; custom
resources use their CRD's additionalPrinterColumns; other kinds get Name / Created At.
"""
from kubelite.lazyexports import exports
from kubelite.server.printers.formats import human_duration
from kubelite.server.printers.table import TableError, build_table, printer_for

__all__ = ["build_table", "printer_for", "human_duration", "TableError", "BUILTIN_PRINTERS"]

# Every built-in printer at once loads both printer modules: only when asked for (printers.table).
__getattr__, __dir__ = exports(__name__, {"BUILTIN_PRINTERS": "table"}, globals())

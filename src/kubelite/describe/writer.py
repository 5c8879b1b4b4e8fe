"""The text kubectl's describers produce: lines at indentation levels with tab-separated cells,
aligned at the end by a tab writer (minimum width 0, padding 2) over the whole output."""
from __future__ import annotations


class Writer:
    def __init__(self):
        self._parts: list[str] = []

    def write(self, level: int, text: str) -> None:
        """Text at an indentation level (two spaces per level); tabs separate cells."""
        self._parts.append("  " * level + text)

    def line(self, *words: str) -> None:
        """Words joined by spaces and a newline, without indentation (Go's Fprintln)."""
        self._parts.append(" ".join(words) + "\n")

    def render(self) -> str:
        tabs = _GoTabWriter(min_width=0, padding=2)
        tabs.write("".join(self._parts))
        tabs.flush()
        return tabs.getvalue()


def _go_tab_writer_class():
    from kubelite.manifest.table import TabWriter

    class GoTabWriter(TabWriter):
        """Go's text/tabwriter as describe uses it: widths belong to one block of lines."""

        def _remembered(self, width: int) -> int:
            return width

    return GoTabWriter


def _GoTabWriter(**kwargs):
    return _go_tab_writer_class()(**kwargs)

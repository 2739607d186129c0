"""A printable PDF of the score sheet, written by Qt's own PDF writer."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter, QTextDocument

from .sheet_table import SheetTable, sheet_html


def write_pdf(table: SheetTable, path: Path) -> None:
    """Write the sheet as an A4 landscape PDF; ``OSError`` where the file can't be written (Qt's
    writer only logs it, and would leave players thinking the PDF was saved)."""
    with open(path, "ab"):  # a folder, a path under a file, no such folder: the reason, in words
        pass
    writer = QPdfWriter(str(path))
    writer.setPageSize(QPageSize(QPageSize.A4))
    writer.setPageOrientation(QPageLayout.Landscape)
    writer.setTitle(table.title)
    document = QTextDocument()
    document.setHtml(sheet_html(table))
    document.print_(writer)
    del writer  # the file is complete once the writer is gone
    if not Path(path).stat().st_size:
        raise OSError(0, "the PDF writer wrote nothing")

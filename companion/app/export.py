"""A printable PDF of the score sheet, written by Qt's own PDF writer."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter, QTextDocument

from .sheet_table import SheetTable, sheet_html


def write_pdf(table: SheetTable, path: Path) -> None:
    writer = QPdfWriter(str(path))
    writer.setPageSize(QPageSize(QPageSize.A4))
    writer.setPageOrientation(QPageLayout.Landscape)
    writer.setTitle(table.title)
    document = QTextDocument()
    document.setHtml(sheet_html(table))
    document.print_(writer)

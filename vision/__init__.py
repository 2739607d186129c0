"""Vision: synthetic scenes, the card detector's data, and the table reader.

``from vision import CardReader`` loads the reader on first use, so ``import vision`` stays light.
"""

from __future__ import annotations

__all__ = ["CardReader", "TableReading", "TableSetup"]


def __getattr__(name: str):
    if name == "CardReader":
        from vision.card_reader import CardReader
        return CardReader
    if name == "TableReading":
        from vision.reading import TableReading
        return TableReading
    if name == "TableSetup":
        from vision.team_areas import TableSetup
        return TableSetup
    raise AttributeError(f"module 'vision' has no attribute {name!r}")

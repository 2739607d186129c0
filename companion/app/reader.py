"""The card reader (issue 5), loaded if it is there: the app never pretends to read cards."""

from __future__ import annotations

from typing import Any


def load_card_reader() -> tuple[Any | None, str]:
    """The reader and a status line for players; ``(None, why)`` when it can't be used."""
    try:
        from vision import CardReader
        reader = CardReader()
    except Exception as error:  # missing module, missing model file, broken install: all mean "not yet"
        return None, (f"Card reader not available yet: {error}. "
                      "Keep score by entering the cards with “Score hand”.")
    return reader, "Card reader ready."

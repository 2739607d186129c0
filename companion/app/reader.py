"""The card reader (issue 5), loaded if it is there: the app never pretends to read cards.

The shipped model's measured quality travels with it (``models/evaluation/metrics.json``, written
by ``python -m vision evaluate`` on the held-out decks); while it finds too few cards, players are
told to check every card rather than trust the reading.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MODEL_METRICS = Path(__file__).resolve().parents[2] / "models" / "evaluation" / "metrics.json"
#: Below this share of corner indexes found on unseen decks, the reader is still in training.
TRUSTED_SHARE_FOUND = 0.95


def load_card_reader(metrics: Path = MODEL_METRICS) -> tuple[Any | None, str]:
    """The reader and a status line for players; ``(None, why)`` when it can't be used."""
    try:
        from vision import CardReader
        reader = CardReader()
    except Exception as error:  # missing module, missing model file, broken install: all mean "not yet"
        return None, (f"Card reader not available yet: {error}. "
                      "Keep score by entering the cards with “Score hand”.")
    found = _share_found(metrics)
    if found is None:
        return reader, "Card reader ready (its accuracy is not measured: check every card before you confirm a hand)."
    if found < TRUSTED_SHARE_FOUND:
        return reader, (f"Card reader still in training: on card designs it has not seen it finds {found:.0%} "
                        "of the cards. Check every card before you confirm a hand.")
    return reader, f"Card reader ready: it finds {found:.0%} of the cards on designs it has not seen."


def _share_found(metrics: Path) -> float | None:
    try:
        return float(json.loads(metrics.read_text())["located"])
    except (OSError, ValueError, KeyError, TypeError):
        return None

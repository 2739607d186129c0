"""The card reader, loaded if it is there: the app never pretends to read cards.

The shipped model's measured quality travels with it (``models/evaluation/metrics.json``, written
by ``python -m vision evaluate`` on the held-out decks); while it finds too few cards, players are
told to check every card rather than trust the reading.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vision.reader.focus import BLURRED_BELOW
from vision.reader.reading import READABLE_INDEX_PX
from vision.reader.weights import shipped_file

MODEL_METRICS = shipped_file("evaluation/metrics.json")
#: Below this share of corner indexes found surely on unseen decks, the reader is still in training.
TRUSTED_SHARE_FOUND = 0.95
#: Card corners the camera sees smaller than this (image pixels, the median of those read lately)
#: make the app ask players to bring the camera closer: on the held-out decks the reader names about
#: half as many corners 12–16 px tall as 24 px or taller, and far fewer below (``by_size`` in
#: ``metrics.json``). A camera brought close must also focus: blur costs the reader more than any
#: other fault of the webcam (``bench/camera_faults.py``; :mod:`vision.reader.focus`).
SMALL_CORNER_PX = READABLE_INDEX_PX
#: Corners read lately that the app pools before it judges their size.
CORNERS_TO_JUDGE = 20


def load_card_reader(metrics: Path = MODEL_METRICS) -> tuple[Any | None, str]:
    """The reader and a status line for players; ``(None, why)`` when it can't be used."""
    try:
        from vision import CardReader
        reader = CardReader()
    except Exception as error:  # missing module, missing model file, broken install: all mean "not yet"
        return None, (f"Card reader not available yet: {error}. "
                      "Keep score by entering the cards with “Score hand”.")
    measured = model_metrics(metrics)
    found = _share_found(measured)
    if found is None:
        return reader, "Card reader ready (its accuracy is not measured: check every card before you confirm a hand)."
    readable = _share_found(measured.get("readable"))
    close = (f" ({readable:.0%} of those whose corners the camera sees {READABLE_INDEX_PX} pixels tall or more)"
             if readable is not None else "")
    if found < TRUSTED_SHARE_FOUND:
        return reader, (f"Card reader still in training: on unseen card designs it is sure of {found:.0%} "
                        f"of the cards{close}. Check every card before you confirm a hand.")
    return reader, f"Card reader ready: it is sure of {found:.0%} of the cards on designs it has not seen{close}."


def _share_found(measured: Any) -> float | None:
    """The share of held-out indexes found where a card counts as sure (:data:`vision.reader.reading.SURE`),
    from ``metrics.json`` or its ``readable`` block (``None`` when it isn't there)."""
    try:
        return float(measured["located"])
    except (ValueError, KeyError, TypeError):
        return None


def model_metrics(metrics: Path = MODEL_METRICS) -> dict:
    """The shipped model's held-out figures (empty when they can't be read)."""
    try:
        loaded = json.loads(metrics.read_text())
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def corner_size_advice(heights: Sequence[float], metrics: dict, threshold: float) -> str | None:
    """A line asking players to bring the camera closer when the card corners it reads are small
    (their median under :data:`SMALL_CORNER_PX`), with what the reader names at that size and at the
    largest, as measured on the held-out decks at the threshold nearest ``threshold``; ``None`` when
    the corners are large enough, or too few have been read to judge."""
    if len(heights) < CORNERS_TO_JUDGE:
        return None
    typical = statistics.median(heights)
    if typical >= SMALL_CORNER_PX:
        return None
    advice = (f"The camera sees the card corners only about {typical:.0f} pixels tall: move it closer to the "
              f"table, or set it to a higher resolution, until they look {SMALL_CORNER_PX} pixels or taller, and "
              f"keep it in focus: a blurred picture loses cards too.")
    sizes = _size_table(_size_rows(metrics, threshold))
    small = next((row for row in sizes if row[0] <= typical < row[1]), None)
    if small and small is not sizes[-1] and sizes[-1][1] == float("inf"):  # the largest is "24+ px"
        advice += (f" On card designs it has not seen, the reader names {small[3]:.0%} of corners "
                   f"{small[2].replace('-', '–')} tall and {sizes[-1][3]:.0%} of those {sizes[-1][2]} tall.")
    return advice


def focus_advice(sharpness: Sequence[float]) -> str | None:
    """A line asking players to focus the camera while the card corners it reads lately look blurred
    (their median sharpness under :data:`vision.reader.focus.BLURRED_BELOW`, where blur cost the reader
    about a third to a half of the cards it names on the same table in focus); ``None`` when they
    look sharp, or too few have been judged."""
    if len(sharpness) < CORNERS_TO_JUDGE or statistics.median(sharpness) >= BLURRED_BELOW:
        return None
    return ("The card corners look blurred: focus the camera if it can be focused, hold it still, and light "
            "the table well. On blurred pictures the reader names a third to half fewer cards than in focus.")


def _size_rows(metrics: dict, threshold: float) -> dict:
    """The ``by_size`` table measured at the threshold nearest ``threshold``."""
    tables = metrics.get("by_size")
    if not isinstance(tables, dict) or not tables:
        return {}
    try:
        nearest = min(tables, key=lambda key: abs(float(key) - threshold))
    except ValueError:
        return {}
    return tables[nearest] if isinstance(tables[nearest], dict) else {}


def _size_table(rows: dict) -> list[tuple[float, float, str, float]]:
    """The readable rows of a ``by_size`` table as (low, high, size range, share named right), from
    the smallest up: ranges are named ``"8-12 px"``, the largest ``"24+ px"``."""
    table = []
    for name, row in rows.items():
        bounds = name.removesuffix(" px")
        try:
            low, high = (float(bounds[:-1]), float("inf")) if bounds.endswith("+") else map(float, bounds.split("-"))
            table.append((low, high, name, float(row["named_right"])))
        except (ValueError, KeyError, TypeError):
            continue
    return sorted(table)

"""Vision: the card reader the app runs, and the tools that make its data, train it and score it.

The folders are the pipeline's stages; each may import the ones below it, never one above
(pyproject.toml's import-linter contracts check it, ``tests/test_architecture.py`` runs them):

* :mod:`vision.cli`: the command lines of ``python -m vision``, thin wrappers around the stages;
* :mod:`vision.evaluation`: scoring the reader on scenes, hand videos and photos;
* :mod:`vision.model`: training the networks, exporting and quantizing their weights;
* :mod:`vision.synth`: synthetic data: card faces, decks, table scenes, camera effects, hand videos;
* :mod:`vision.reader`: what the app runs: a frame in, the table's melds, piles and events out.

``from vision import CardReader`` loads the reader on first use, so ``import vision`` stays light.
"""

from __future__ import annotations

__all__ = ["CardReader", "TableReading", "TableSetup"]


def __getattr__(name: str):
    if name == "CardReader":
        from vision.reader.card_reader import CardReader
        return CardReader
    if name == "TableReading":
        from vision.reader.reading import TableReading
        return TableReading
    if name == "TableSetup":
        from vision.reader.team_areas import TableSetup
        return TableSetup
    raise AttributeError(f"module 'vision' has no attribute {name!r}")

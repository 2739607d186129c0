"""The card reader on synthetic test pictures, scored per card as ``bench/real_photos.py`` scores photos.

    python bench/synthetic_cards.py datasets/generated/closeup1080 [--limit 60]

Each test picture of a ``python -m vision synth`` folder is read as a still picture
(:meth:`vision.reader.card_reader.CardReader.read_still`, a view of its own), and its cards are
scored against the scene's ground truth (the JSON beside each picture): every face-up card with a
labelled corner index is a card to read, its indexes' boxes where a reading of its code may lie
(:func:`vision.evaluation.photos.score_photo`). ``python -m vision evaluate`` scores the finds, index
by index; this scores what a player sees, cards, so a card read twice (its corners not joined)
counts against precision here and not there.

Prints the real-photo bench's table (cards, read right, recall, readings, precision, median ms a
picture) and recall by band of index size.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.evaluation.photos import (  # noqa: E402
    LabelledCard,
    LabelledPhoto,
    PhotoScore,
    score_photo,
    score_tables,
)
from vision.reader.card_reader import CardReader  # noqa: E402
from vision.reader.frame_sources import read_image  # noqa: E402


def labelled_picture(truth_file: Path) -> LabelledPhoto:
    """A synthetic test picture's cards as the real photos' labels give them: each face-up card
    with a labelled index, and the box round each such index's outline."""
    truth = json.loads(truth_file.read_text())
    cards = []
    for card in truth["cards"]:
        if not card.get("face_up", True):
            continue
        boxes = [np.r_[np.min(index["polygon"], axis=0), np.max(index["polygon"], axis=0)]
                 for index in card["indexes"] if index.get("labelled")]
        if boxes:
            cards.append(LabelledCard(card["code"], np.array(boxes, float)))
    return LabelledPhoto(truth_file.with_suffix(".jpg"), tuple(cards))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("scenes", type=Path, help="a python -m vision synth folder with a test split")
    parser.add_argument("--limit", type=int, default=60, help="the first N test pictures (default 60)")
    args = parser.parse_args(argv)
    truths = sorted((args.scenes / "images" / "test").glob("*.json"))[:args.limit]
    if not truths:
        print(f"synthetic_cards: no test pictures with their ground truth in {args.scenes / 'images' / 'test'}",
              file=sys.stderr)
        return 2
    reader = CardReader()
    scores: list[PhotoScore] = []
    times = []
    for truth in truths:
        picture = labelled_picture(truth)
        image = read_image(picture.path)
        reader.new_view()
        started = time.perf_counter()
        reading = reader.read_still(image)
        times.append((time.perf_counter() - started) * 1000)
        scores.append(score_photo(picture, reading.cards()))
    print(f"\n### {args.scenes.name}: {len(truths)} test pictures, scored per card\n")
    print(score_tables(scores, times))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The card reader on real photographs: exact-card recall and precision, overall and by index height.

    python bench/real_photos.py [ROOT] [--scale S ...] [--turn DEGREES ...] [--json]

ROOT (default ``../shared/real-photos``) holds folders of photos, each with a ``labels.json`` that
lists, per photo, every visible corner index as ``{"code": "10H", "box": [x0, y0, x1, y1]}``. These
photos are for measuring only: nothing trains on them.

Each photo is read as ``python -m vision read PHOTO`` reads it (:class:`vision.reader.card_reader.CardReader`,
a still picture). A labelled card is read when a card of its code lies on one of its indexes
(:func:`vision.evaluation.photos.score_photo`); a card read twice, or a code read where no such card
lies, counts against precision. ``--scale`` also reads each photo resized by that factor first
(boxes scaled with it), to see the reader at other index sizes: 2 makes a 1200 px photo 2400 px.
``--turn`` also reads each photo turned clockwise by 90, 180 or 270 degrees (its labels with it), as
a phone held another way takes it.

Prints a Markdown table per scale and turn (cards, read, recall, precision, median ms a photo), then recall by
band of labelled index size (:data:`vision.evaluation.bands.HEIGHT_BANDS`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.evaluation.photos import (  # noqa: E402
    TURNS,
    PhotoScore,
    labelled_photos,
    score_photo,
    score_tables,
    turn_picture,
)
from vision.reader.card_reader import CardReader  # noqa: E402
from vision.reader.frame_sources import read_image  # noqa: E402

DEFAULT_ROOT = Path(__file__).resolve().parents[2] / "shared" / "real-photos"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path, nargs="?", default=DEFAULT_ROOT)
    parser.add_argument("--scale", type=float, nargs="+", default=[1.0])
    parser.add_argument("--turn", type=int, nargs="+", default=[0], choices=sorted(TURNS),
                        help="also read each photo turned clockwise by these degrees")
    parser.add_argument("--json", action="store_true", help="also print each photo's score as a JSON line")
    args = parser.parse_args(argv)
    photos = labelled_photos(args.root)
    if not photos:
        print(f"real_photos: no labels.json under {args.root}", file=sys.stderr)
        return 2
    reader = CardReader()
    for scale in args.scale:
        for turn in args.turn:
            scores: list[PhotoScore] = []
            times = []
            for photo in photos:
                image = read_image(photo.path)
                if scale != 1.0:
                    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
                    image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=interpolation)
                labels = photo.scaled(scale).turned(turn, image.shape[1], image.shape[0])
                image = turn_picture(image, turn)
                reader.new_view()
                started = time.perf_counter()
                reading = reader.read_still(image)
                times.append((time.perf_counter() - started) * 1000)
                score = score_photo(labels, reading.cards())
                scores.append(score)
                if args.json:
                    print(json.dumps({"photo": str(photo.path), "scale": scale, "turn": turn, **score.to_json(),
                                      "ms": round(times[-1])}))
            h, w = image.shape[:2]
            turned = f", turned {turn}°" if turn else ""
            print(f"\n### {args.root.name}: {len(photos)} photos at scale {scale:g}{turned} (last {w}×{h})\n")
            print(score_tables(scores, times))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

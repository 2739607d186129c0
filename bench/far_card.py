"""How many live readings pass before a card laid far from the others is found.

    python bench/far_card.py [--video datasets/demo]

Between whole-frame readings the live reader's network reads only the part of the frame its cards
lie in (``vision.reader.card_reader.LiveDetection``). A card laid outside that part is found at the
next whole reading (one every fourth), or at once where the frame changed outside the part
(``changed_outside``). This reads the video's last frame until the part is set, then the same frame
with a card copied to the corner farthest from the part (the patch round one of its sure corner
indexes, six index sizes square), laid at each of the four places of the every-fourth cycle. It
prints, for the reader as it is and with the change check left out, how many readings passed
before an index was found on the laid card (0: at once).
"""

from __future__ import annotations

import argparse
import sys
from collections import deque
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.reader.card_reader as card_reader  # noqa: E402
from vision.reader.card_reader import LiveDetection, read_at, shipped_facing  # noqa: E402
from vision.reader.detector import CardDetector  # noqa: E402
from vision.reader.frame_sources import FrameSourceError, video_frames  # noqa: E402
from vision.reader.reading import READING_THRESHOLD  # noqa: E402

#: Readings tried after the card is laid before it counts as not found.
PATIENCE = 6


def last_frame(video: Path) -> np.ndarray:
    try:
        (_, frame), = deque(video_frames(video / "hand.mp4"), maxlen=1)  # (the last, not all in memory)
    except FrameSourceError as error:
        sys.exit(f"far_card: {error}")
    return frame


def laid_far(frame: np.ndarray, sure, region) -> tuple[np.ndarray, tuple[int, int, int, int]] | None:
    """The frame with a card's patch copied to the corner farthest from ``region``, and where it lies."""
    x0, y0, x1, y1 = region
    height, width = frame.shape[:2]
    box = sure.xyxy[0]
    side = int(6 * max(box[2] - box[0], box[3] - box[1]))
    left, top = max(int(box[0]) - side // 6, 0), max(int(box[1]) - side // 6, 0)
    patch = frame[top:top + side, left:left + side]
    tx = 20 if x0 > width - x1 else width - patch.shape[1] - 20
    ty = 20 if y0 > height - y1 else height - patch.shape[0] - 20
    place = (tx, ty, tx + patch.shape[1], ty + patch.shape[0])
    if place[2] > x0 and place[0] < x1 and place[3] > y0 and place[1] < y1:
        return None
    laid = frame.copy()
    laid[ty:place[3], tx:place[2]] = patch
    return laid, place


def readings_late(detector, frame: np.ndarray, cycle: int) -> int | None | str:
    live = LiveDetection(detector)
    for _ in range(6 + cycle):  # the still, then enough readings to know the cards' part
        found = live.detect(frame)
        live.saw(found[found.confidence >= READING_THRESHOLD])
    region = live.region(frame.shape[:2])
    if region is None:
        return "the cards fill most of the frame: every reading is whole"
    laid = laid_far(frame, found[found.confidence >= READING_THRESHOLD], region)
    if laid is None:
        return "no room outside the cards' part"
    picture, (x0, y0, x1, y1) = laid
    for late in range(PATIENCE):
        found = live.detect(picture)
        sure = found[found.confidence >= READING_THRESHOLD]
        live.saw(sure)
        middle_x, middle_y = sure.xyxy[:, 0::2].mean(axis=1), sure.xyxy[:, 1::2].mean(axis=1)
        if ((middle_x >= x0) & (middle_x < x1) & (middle_y >= y0) & (middle_y < y1)).any():
            return late
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--video", type=Path, default=Path("datasets/demo"), help="a hand video's folder (hand.mp4)")
    args = parser.parse_args()
    detector = CardDetector(facing=shipped_facing())
    read_at(detector, READING_THRESHOLD)
    frame = last_frame(args.video)
    checked = card_reader.changed_outside
    print(f"{args.video}: a card laid far from the others, readings before it is found (0: at once), "
          "by its place in the every-fourth whole-reading cycle")
    for name, check in (("as shipped", checked), ("without the change check", lambda *_: False)):
        card_reader.changed_outside = check
        late = [readings_late(detector, frame, cycle) for cycle in range(4)]
        print(f"  {name:>26}: {late}")
    card_reader.changed_outside = checked


if __name__ == "__main__":
    main()

"""Drawing a reading on its frame: team areas, each meld and pile outlined in its team's colour,
every card's box with its code (doubtful cards in red), the middle of the table in grey."""

from __future__ import annotations

import cv2
import numpy as np

from vision.reader.reading import ReadCard, TableReading
from vision.reader.team_areas import TableFrame

TEAM_COLOURS = {"A": (255, 160, 0), "B": (0, 170, 255)}  # BGR: blue for A, orange for B
MIDDLE_COLOUR = (200, 200, 200)
DOUBT_COLOUR = (0, 0, 255)


def annotate(image: np.ndarray, reading: TableReading, frame: TableFrame) -> np.ndarray:
    out = image.copy()
    thick = max(1, round(max(out.shape[:2]) / 640))
    doubtful = {id(card) for card in reading.doubtful()}
    outlines = ({team: np.array(side) for team, side in reading.team_sides.items()} if reading.team_sides
                else frame.area_outlines(reading.image_size))  # the sides the reader took by the cards' facing
    for team, polygon in outlines.items():
        if not len(polygon):
            continue
        cv2.polylines(out, [np.round(polygon).astype(np.int32)], True, TEAM_COLOURS[team], thick, cv2.LINE_AA)
    for team, side in reading.teams.items():
        colour = TEAM_COLOURS[team]
        for number, meld in enumerate(side.melds):
            _outline(out, meld.cards, colour, f"{team} meld {number + 1}: {len(meld.cards)}", thick)
        for pile in side.piles:
            _outline(out, (pile.top,), colour, f"{team} {pile.kind} canasta", thick)
        if side.threes:
            _outline(out, side.threes, colour, f"{team} threes", thick)
        for number, hand in enumerate(side.hands):
            _outline(out, hand, colour, f"{team} hand {number + 1}", thick)
        for card in side.cards():
            _card(out, card, DOUBT_COLOUR if id(card) in doubtful else colour, thick)
    for card in (*reading.discard, *([reading.turn_card] if reading.turn_card else [])):
        _card(out, card, DOUBT_COLOUR if id(card) in doubtful else MIDDLE_COLOUR, thick)
    if reading.turn_card:
        _outline(out, (reading.turn_card,), MIDDLE_COLOUR, "turn card", thick)
    return out


def _card(image: np.ndarray, card: ReadCard, colour, thick: int) -> None:
    x0, y0, x1, y1 = (int(round(v)) for v in card.box)
    cv2.rectangle(image, (x0, y0), (x1, y1), colour, thick)
    cv2.putText(
        image, card.code, (x0, max(0, y0 - 2)), cv2.FONT_HERSHEY_SIMPLEX, 0.35 * thick, colour, thick, cv2.LINE_AA
    )


def _outline(image: np.ndarray, cards, colour, label: str, thick: int) -> None:
    boxes = np.array([card.box for card in cards])
    pad = 4 * thick
    x0, y0 = (boxes[:, :2].min(axis=0) - pad).astype(int)
    x1, y1 = (boxes[:, 2:].max(axis=0) + pad).astype(int)
    cv2.rectangle(image, (x0, y0), (x1, y1), colour, thick)
    cv2.putText(image, label, (x0, y1 + 12 * thick), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick, colour, thick, cv2.LINE_AA)

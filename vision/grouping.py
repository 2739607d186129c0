"""Physical cards into the parts of the table: melds, canasta piles, threes, hands and the middle.

Read in each team's upright frame, where a card is about :attr:`CardsSeen.card_size` big and the
table's middle is at 0. Players lay a team's melds in a row of columns (or fans) a card's height or
so from the middle, each column's cards a third of a card apart; a finished canasta squared into a
pile shows one card; threes lie in a row beside the melds; at the end of a hand each partner's cards
are spread in a row further out. So cards one step apart (down a column, along a row or fan) belong
together, and where a group lies and what ranks it holds says what it is.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from companion.cards import Card
from vision.physical_cards import CardsSeen, SeenCard
from vision.reading import TEAMS, CanastaPile, ReadCard, ReadMeld, TableReading, TeamReading

#: Cards whose centres lie within this many card heights of the table's middle line are the middle's.
MIDDLE_BAND = 0.6
#: A group starting further out than this many card heights is a partner's spread hand.
HAND_LINE = 2.45
#: Cards one step apart: their top-left indexes within this share of a card's width and height.
STEP = (0.6, 0.55)


def group_cards(seen: CardsSeen, image_size: tuple[int, int]) -> TableReading:
    width, height = seen.card_size
    middle = [c for c in seen.cards if abs(c.centre[1]) < MIDDLE_BAND * height]
    teams = {}
    for team in TEAMS:
        side = [c for c in seen.cards if c.side == team and c not in middle]
        teams[team] = _team_reading(_linked_groups(side, width, height), height)
    discard, turn_card = _middle(middle)
    return TableReading(image_size, teams, discard, turn_card)


def _linked_groups(cards: list[SeenCard], width: float, height: float) -> list[list[SeenCard]]:
    """Cards joined by one-step links, each group in reading order (down a column, along a row)."""
    points = np.array([c.top_left for c in cards]).reshape(-1, 2)
    near = (np.abs(points[:, None, 0] - points[None, :, 0]) < STEP[0] * width) & \
           (np.abs(points[:, None, 1] - points[None, :, 1]) < STEP[1] * height)
    _, label = connected_components(csr_matrix(near), directed=False)
    groups: dict[int, list[SeenCard]] = {}
    for card, lab in zip(cards, label):
        groups.setdefault(lab, []).append(card)
    return [sorted(g, key=lambda c: (round(c.top_left[1] / (0.15 * height)), c.top_left[0])) for g in groups.values()]


def _team_reading(groups: list[list[SeenCard]], height: float) -> TeamReading:
    melds, piles, threes, hands = [], [], [], []
    for group in sorted(groups, key=lambda g: min(c.top_left[0] for c in g)):
        x = float(np.mean([c.centre[0] for c in group]))
        if min(c.centre[1] for c in group) > HAND_LINE * height:
            hands.append(group)
            continue
        row_threes = [c for c in group if Card.parse(c.code).is_three]
        threes += row_threes
        rest = [c for c in group if c not in row_threes]
        if len(rest) == 1:
            piles.append(CanastaPile(_read(rest[0]), x))
        elif rest:
            melds.append(ReadMeld(tuple(_read(c) for c in rest), x))
    return TeamReading(tuple(melds), tuple(piles), tuple(_read(c) for c in threes), _two_hands(hands))


def _two_hands(rows: list[list[SeenCard]]) -> tuple[tuple[ReadCard, ...], ...]:
    """Each partner's spread cards: rows split by the widest gap when a hidden card broke one in more."""
    if not rows:
        return ()
    rows = sorted(rows, key=lambda r: min(c.top_left[0] for c in r))
    if len(rows) > 2:
        gaps = [min(c.top_left[0] for c in b) - max(c.top_left[0] for c in a) for a, b in zip(rows, rows[1:])]
        cut = int(np.argmax(gaps)) + 1
        rows = [[c for r in rows[:cut] for c in r], [c for r in rows[cut:] for c in r]]
    return tuple(tuple(_read(c) for c in sorted(r, key=lambda c: c.top_left[0])) for r in rows)


def _middle(cards: list[SeenCard]) -> tuple[tuple[ReadCard, ...], ReadCard | None]:
    """The discard pile, and the turn card: the card left of the middle, under the draw pile."""
    def table_x(card: SeenCard) -> float:  # back from team B's turned frame to the table's
        return card.centre[0] if card.side == "A" else -card.centre[0]

    left = sorted((c for c in cards if table_x(c) < 0), key=lambda c: -c.confidence)
    turn_card = _read(left[0]) if left else None
    discard = tuple(_read(c) for c in cards if not left or c is not left[0])
    return discard, turn_card


def _read(card: SeenCard) -> ReadCard:
    return ReadCard(card.code, card.box, card.confidence)

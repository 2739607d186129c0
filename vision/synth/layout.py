"""Where each card of a :class:`~vision.synth.table_state.TableState` lies on the table, as players lay them.

Table coordinates are in card heights (a card is 1 tall), x to the right and y towards team A's
players, who sit at the bottom of a default view; team B's side is the same arrangement turned
half round. Each team's melds are columns overlapping downwards so each card's top-left index
shows (or fans), closed canastas are squared into a pile with the telling card on top, threes lie
in a row, and at the end of a hand each player's cards are spread face up. The draw pile lies in
the middle with the turn card sideways under it, the discard pile beside it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from companion.cards import Card
from vision.synth.table_state import CANASTA_SIZE, TableState

BACK = "back"


@dataclass(frozen=True)
class Group:
    """Which part of the table a card belongs to (the reader's unit of understanding)."""

    team: str | None  # "A", "B", or None for the discard and draw piles
    area: str  # "meld", "canasta_pile", "threes", "hand", "discard", "draw", "turn_card"
    index: int  # meld number, hand number... within the team and area

    def to_json(self) -> dict:
        return {"team": self.team, "area": self.area, "group": self.index}


@dataclass(frozen=True)
class PlacedCard:
    """One physical card on the table. ``code`` is ``None`` for a card lying face down."""

    code: str | None
    group: Group
    x: float
    y: float
    angle: float  # radians, clockwise as seen from above
    copy: int = 0  # 0 or 1: which of the two decks of the pack the card comes from

    def corners(self, aspect: float) -> list[tuple[float, float]]:
        """Table coordinates of the face's top-left, top-right, bottom-right and bottom-left corners."""
        hw, hh = aspect / 2, 0.5
        cos, sin = math.cos(self.angle), math.sin(self.angle)
        return [(self.x + dx * cos - dy * sin, self.y + dx * sin + dy * cos)
                for dx, dy in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))]


@dataclass(frozen=True)
class LayoutStyle:
    """How this table's players lay cards: it varies from table to table, not card to card."""

    overlap: float  # how far each card of a column shows below the previous one, in card heights
    column_gap: float
    fan_melds: bool
    squares_canastas: bool
    messiness: float  # jitter in card heights and radians
    #: the draw pile (the turn card sideways under it) right of the discard pile as team A sees the
    #: table; the generated tables lay it left, and the reader looks on both sides (vision.reader.grouping)
    stock_on_right: bool = False


def random_style(rng: random.Random) -> LayoutStyle:
    return LayoutStyle(
        overlap=rng.uniform(0.26, 0.34),
        column_gap=rng.uniform(0.08, 0.3),
        fan_melds=rng.random() < 0.25,
        squares_canastas=rng.random() < 0.85,
        messiness=rng.uniform(0.005, 0.04),
    )


def lay_out(state: TableState, rng: random.Random, aspect: float, style: LayoutStyle) -> list[PlacedCard]:
    """Every card of the table in drawing order (cards drawn later lie on top)."""
    copies: dict[str, int] = {}
    # Each part of the table has its own random stream, so a card added to one part (a frame of the
    # hand video) moves no card anywhere else.
    table_seed = rng.getrandbits(32)
    cards = _centre(state, random.Random(f"{table_seed}-centre"), aspect, style)
    for team, turn in (("A", 0.0), ("B", math.pi)):
        team_rng = random.Random(f"{table_seed}-{team}")
        cards += [_turned(card, turn) for card in _team_side(state, team, team_rng, aspect, style)]
    return [_with_copy(card, copies) for card in cards]


def _with_copy(card: PlacedCard, copies: dict[str, int]) -> PlacedCard:
    """Number the copies of each code so the two copies of a card come from the two decks."""
    if card.code is None:
        return card
    seen = copies.get(card.code, 0)
    copies[card.code] = seen + 1
    return PlacedCard(card.code, card.group, card.x, card.y, card.angle, copy=seen % 2)


def _turned(card: PlacedCard, turn: float) -> PlacedCard:
    cos, sin = math.cos(turn), math.sin(turn)
    return PlacedCard(card.code, card.group, card.x * cos - card.y * sin, card.x * sin + card.y * cos,
                      card.angle + turn, card.copy)


def _jitter(rng: random.Random, style: LayoutStyle, x: float, y: float, angle: float) -> tuple[float, float, float]:
    m = style.messiness
    return x + rng.gauss(0, m), y + rng.gauss(0, m), angle + rng.gauss(0, 1.5 * m)


def _team_side(state: TableState, team: str, rng: random.Random, aspect: float, style: LayoutStyle) -> list[PlacedCard]:
    """A team's cards, laid out for team A (below the middle); team B's are turned half round."""
    side = state.teams[team]
    step = aspect + style.column_gap
    # Room for at least five melds, so a new meld does not shift the ones already down.
    width = step * max(5, len(side.melds)) + aspect * 2.5
    start = -width / 2 + aspect / 2 + rng.uniform(-0.5, 0.5)
    top = 1.0 + rng.uniform(0, 0.4)
    cards: list[PlacedCard] = []
    for number, meld in enumerate(side.melds):
        x = start + number * step
        meld_rng = random.Random(f"{rng.random()}-{number}")
        if len(meld) == CANASTA_SIZE and style.squares_canastas:
            cards += _canasta_pile(meld, Group(team, "canasta_pile", number), x, top + 0.6, meld_rng, style)
        elif style.fan_melds:
            cards += _fan(meld, Group(team, "meld", number), x, top, meld_rng, style)
        else:
            cards += _column(meld, Group(team, "meld", number), x, top, meld_rng, style)
    if side.threes:
        threes_x = start + max(5, len(side.melds)) * step + 0.2
        cards += _row(side.threes, Group(team, "threes", 0), threes_x, top + 0.6, aspect * 0.4, rng, style)
    hand_y = top + 1.0 + style.overlap * 6 + 0.5
    for number, hand in enumerate(side.hands):
        start = (-1 if number == 0 else 0.5) * max(3.0, aspect * 0.4 * len(hand) + 1)
        cards += _row(
            hand, Group(team, "hand", number), start, hand_y + rng.uniform(-0.2, 0.2), aspect * 0.42, rng, style
        )
    return cards


def _column(
    codes: list[str], group: Group, x: float, top: float, rng: random.Random, style: LayoutStyle
) -> list[PlacedCard]:
    return [PlacedCard(code, group, *_jitter(rng, style, x, top + i * style.overlap, 0.0))
            for i, code in enumerate(codes)]


def _fan(
    codes: list[str], group: Group, x: float, top: float, rng: random.Random, style: LayoutStyle
) -> list[PlacedCard]:
    """Cards fanned from a pivot below them, each turned a little further than the one under it."""
    spread = rng.uniform(0.14, 0.22)
    pivot_y = top + 1.6
    cards = []
    for i, code in enumerate(codes):
        angle = (i - (len(codes) - 1) / 2) * spread
        cx = x + math.sin(angle) * 1.1
        cy = pivot_y - math.cos(angle) * 1.1
        cards.append(PlacedCard(code, group, *_jitter(rng, style, cx, cy, angle)))
    return cards


def _row(
    codes: list[str], group: Group, x: float, y: float, step: float, rng: random.Random, style: LayoutStyle
) -> list[PlacedCard]:
    return [PlacedCard(code, group, *_jitter(rng, style, x + i * step, y, 0.0)) for i, code in enumerate(codes)]


def _canasta_pile(
    meld: list[str], group: Group, x: float, y: float, rng: random.Random, style: LayoutStyle
) -> list[PlacedCard]:
    """Seven cards squared: the others below, the telling card on top (red natural, black mixed)."""
    top = _telling_card(meld)
    under = list(meld)
    under.remove(top)
    squared = replace(style, messiness=style.messiness * 0.1)  # squared: no card sticks out
    return [PlacedCard(code, group, *_jitter(rng, squared, x, y, 0.0)) for code in under + [top]]


def _telling_card(meld: list[str]) -> str:
    cards = [Card.parse(code) for code in meld]
    naturals = [c for c in cards if not c.is_wild]
    if not naturals:
        return meld[-1]  # a wild-card canasta: any of its wild cards
    wanted_red = all(not c.is_wild for c in cards)
    matching = [c for c in naturals if c.is_red == wanted_red]
    return (matching or naturals)[-1].code


def _centre(state: TableState, rng: random.Random, aspect: float, style: LayoutStyle) -> list[PlacedCard]:
    """The draw pile with the turn card sideways under it, and the discard pile beside it."""
    cards = []
    way = -1.0 if style.stock_on_right else 1.0  # from the draw pile to the discard pile
    draw_x, discard_x = way * (-0.7 * aspect - 0.3), way * (0.7 * aspect + 0.3)
    if state.turn_card:
        cards.append(PlacedCard(state.turn_card, Group(None, "turn_card", 0),
                                *_jitter(rng, style, draw_x + way * 0.35, 0.05, math.pi / 2)))
    for _ in range(min(6, max(1, state.stock_size // 6)) if state.stock_size else 0):
        cards.append(PlacedCard(None, Group(None, "draw", 0), *_jitter(rng, style, draw_x, 0.0, 0.0)))
    for code in state.discard:
        angle = rng.uniform(-0.35, 0.35)
        cards.append(PlacedCard(code, Group(None, "discard", 0),
                                discard_x + rng.uniform(-0.08, 0.08), rng.uniform(-0.08, 0.08), angle))
    return cards

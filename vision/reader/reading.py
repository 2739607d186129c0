"""The table reading: what one frame shows, in the game's words, as one value.

Each team has melds (cards in a column or fan), canasta piles (a finished canasta squared with one
card on top: its rank, red on top for natural, black for mixed), a threes row and, at the end of a
hand, the cards left in each partner's hand. The middle of the table has the discard pile and
perhaps the sideways turn card. Every card keeps its box and confidence, so the app can flag
doubtful ones, and the reading turns into the score command's hand input for the game core.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from companion.cards import COPIES_PER_CARD, JOKER, JOKERS_IN_PACK, SUITS, Card
from companion.hand import OTHER_TEAM

TEAMS = ("A", "B")
CANASTA_SIZE = 7
#: Corner indexes at least this tall (image pixels) are the ones the reader reads best: the
#: evaluation scores them on their own, and the app asks players to bring the camera closer when
#: the corners it reads are smaller (the held-out figures by size, ``models/evaluation``).
READABLE_INDEX_PX = 16
#: A card read at least this sure is sure: the app draws it green, a less sure one amber, for players
#: to check. The evaluation reports per-card recall and precision here, where the reader's finds on
#: the held-out decks are about 99 % right (``models/evaluation``).
SURE = 0.5
#: The table reader's threshold (the app's default): cards read less sure than this are left out.
#: Chosen on whole tables, not single corners (``bench/bench_reader.py --pictures``; docs/experiments.md,
#: "Thresholds"): a missing card spoils a meld as surely as a wrong one, and the reader misses
#: far more than it misreads, while a card shows more than one corner and a meld's cards share their rank.
READING_THRESHOLD = 0.2
#: A meld column's first cards show only a strip with their index, which the detector is less sure
#: of than the last card's whole face; alone, that last card reads as a canasta pile. So the reader
#: keeps finds down to this share of its threshold, weak finds, that count only where they continue
#: a column of their rank (:func:`vision.reader.grouping.group_cards`); the app shows them amber, as every
#: card under :data:`SURE`. With them the demo hand reads two more of its events in order, its J
#: column no longer a canasta pile (docs/experiments.md, "Thresholds").
COLUMN_SHARE = 0.3


@dataclass(frozen=True)
class ReadCard:
    """One physical card as read: its code, its box in image pixels and how sure the reader is."""

    code: str
    box: tuple[float, float, float, float]
    confidence: float

    @property
    def centre(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return (x0 + x1) / 2, (y0 + y1) / 2

    def to_json(self) -> dict:
        return {"code": self.code, "box": [round(v, 1) for v in self.box], "conf": round(self.confidence, 3)}


@dataclass(frozen=True)
class ReadMeld:
    """Cards of one meld, in the order they lie (top of the column first); ``x`` is where the meld
    lies along the team's row, in the reader's frame (a team's melds are listed left to right as the
    team sees them)."""

    cards: tuple[ReadCard, ...]
    x: float

    @property
    def codes(self) -> list[str]:
        return [card.code for card in self.cards]


@dataclass(frozen=True)
class CanastaPile:
    """A finished canasta squared into a pile: only the top card shows."""

    top: ReadCard
    x: float

    @property
    def rank(self) -> str | None:
        """The canasta's rank; ``None`` for a canasta of wild cards."""
        card = Card.parse(self.top.code)
        return None if card.is_wild else card.rank

    @property
    def kind(self) -> str:
        """``"natural"`` (red card on top), ``"mixed"`` (black on top) or ``"wild"``."""
        card = Card.parse(self.top.code)
        return "wild" if card.is_wild else "natural" if card.is_red else "mixed"


@dataclass(frozen=True)
class TeamReading:
    melds: tuple[ReadMeld, ...] = ()
    piles: tuple[CanastaPile, ...] = ()
    threes: tuple[ReadCard, ...] = ()
    hands: tuple[tuple[ReadCard, ...], ...] = ()  #: at the end of a hand, each partner's spread cards

    def cards(self) -> list[ReadCard]:
        return ([c for m in self.melds for c in m.cards] + [p.top for p in self.piles] + list(self.threes)
                + [c for hand in self.hands for c in hand])


@dataclass(frozen=True)
class TableReading:
    """Everything the reader made of one frame."""

    image_size: tuple[int, int]
    teams: dict[str, TeamReading] = field(default_factory=lambda: {team: TeamReading() for team in TEAMS})
    discard: tuple[ReadCard, ...] = ()
    turn_card: ReadCard | None = None
    #: The height in image pixels of each corner index found in the frame: how large the camera sees
    #: the cards' corners, which decides how many the reader can name (the app asks players to bring
    #: the camera closer when they are small).
    index_heights: tuple[float, ...] = ()
    #: How sharp the camera shows each corner it could judge (:func:`vision.reader.focus.index_sharpness`):
    #: the app asks players to focus the camera while the corners look blurred.
    index_sharpness: tuple[float, ...] = ()
    #: Each team's side of the picture as the reader took it when nobody set the table up and the
    #: cards' facing showed where the teams sit (:mod:`vision.reader.facing`): polygons in image pixels, for
    #: the app to outline; ``None`` otherwise.
    team_sides: dict[str, tuple[tuple[float, float], ...]] | None = None
    #: With :attr:`team_sides`: the way from team A's side to team B's in the picture (a unit
    #: vector), for players to name the sides the other way round
    #: (:meth:`~vision.reader.team_areas.TableSetup.with_sides_swapped`).
    towards_b: tuple[float, float] | None = None

    def with_teams_swapped(self) -> TableReading:
        """The reading with each team's side the other's (players swapped the sides' names)."""
        sides = None if self.team_sides is None else {OTHER_TEAM[t]: side for t, side in self.team_sides.items()}
        towards_b = None if self.towards_b is None else (-self.towards_b[0], -self.towards_b[1])
        return replace(self, teams={OTHER_TEAM[team]: side for team, side in self.teams.items()}, team_sides=sides,
                       towards_b=towards_b)

    def cards(self) -> list[ReadCard]:
        """Every card read, team A's then team B's, then the middle of the table."""
        cards = [c for team in TEAMS for c in self.teams[team].cards()] + list(self.discard)
        return cards + ([self.turn_card] if self.turn_card else [])

    def doubtful(self, below: float = SURE) -> list[ReadCard]:
        """The cards read with a confidence under ``below``, for the app to flag."""
        return [card for card in self.cards() if card.confidence < below]

    def to_hand_dict(
        self, went_out: str | None = None, pile_contents: dict[tuple[str, str], list[str]] | None = None
    ) -> dict:
        """The score command's hand input. A pile shows only its top card: what it holds comes from
        ``pile_contents``, keyed by team and the pile's rank (``"wild"`` for wild cards), as
        :class:`~vision.reader.tracking.TableTracker` remembers them from the video or the players tell;
        otherwise a likely canasta is assumed (natural: seven of the rank; mixed: six and a 2; wild:
        the top card and 2s)."""
        pile_contents = pile_contents or {}
        used = Counter(card.code for card in self.cards())
        teams = {}
        for team in TEAMS:
            side = self.teams[team]
            melds = [m.codes for m in side.melds]
            for pile in side.piles:
                contents = pile_contents.get((team, pile.rank or "wild")) or _likely_canasta(pile, used)
                melds.append(list(contents))
            teams[team] = {"melds": melds, "threes": [c.code for c in side.threes],
                           "hands": [[c.code for c in hand] for hand in side.hands], "special_hand": None}
        return {"variant": "modern", "went_out": went_out, "teams": teams}

    def to_json(self) -> dict:
        """The ``--json`` line of ``python -m vision read`` (without the image path and time)."""
        return {
            "cards": [card.to_json() for card in self.cards()],
            "teams": {team: {"melds": [m.codes for m in side.melds], "threes": [c.code for c in side.threes],
                             "piles": [p.top.code for p in side.piles],
                             "hands": [[c.code for c in hand] for hand in side.hands]}
                      for team, side in self.teams.items()},
            "discard": [c.code for c in self.discard],
            "turn_card": self.turn_card.code if self.turn_card else None,
        }


def _likely_canasta(pile: CanastaPile, used: Counter) -> list[str]:
    """Seven cards for a pile whose contents nobody told: the top card, then the likeliest rest,
    taking suits the pack still has (so the hand stays within two decks)."""
    top = pile.top.code
    if pile.kind == "wild":
        return [top] + spare_cards(used, "2", CANASTA_SIZE - 1)
    naturals = CANASTA_SIZE - (1 if pile.kind == "mixed" else 0)
    rest = spare_cards(used, pile.rank, naturals - 1)
    return [top] + rest + (spare_cards(used, "2", 1) if pile.kind == "mixed" else [])


def spare_cards(used: Counter, rank: str, count: int) -> list[str]:
    """``count`` cards of ``rank`` in the suits the pack still has after ``used`` (which they join).
    Once the pack's 2s are used, jokers stand in for them (both are wild). A natural rank has no
    stand-in: past the pack's eight, its cards repeat, and the score check names the card the pack
    has too few of, where a joker would have made the meld's wild cards too many."""
    codes = []
    while len(codes) < count:
        spare = [f"{rank}{suit}" for suit in SUITS if used[f"{rank}{suit}"] < COPIES_PER_CARD]
        if not spare:
            spare = [JOKER] if rank == "2" and used[JOKER] < JOKERS_IN_PACK else [f"{rank}{suit}" for suit in SUITS]
        code = min(spare, key=lambda c: used[c])
        used[code] += 1
        codes.append(code)
    return codes

"""Variants as data and small subclasses, like ``chess.variant``.

:class:`ModernAmerican` is the main game (seeds 000, 002 and the Modern American part of 001);
:class:`Classic` is classic canasta (seed 001). Each variant knows its opening minimum, which melds
are well formed, and how a team's hand scores.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import legality
from .cards import RANK_NAMES, Card, rank_list
from .end_of_hand import EndOfHand, ScoreLine, TeamHand
from .melds import Canasta, Meld
from .rulebook import CLASSIC, MODERN, Rule, source, value
from .special_hands import special_hand_value
from .table_rules import TableRules
from .violations import Violation


class Variant:
    """What sets a variant apart, as data and a few checks.

    ``canasta_closes``: a finished canasta takes no more cards and its rank is dead (Modern American,
    seed 000 §Melds and canastas, §Dead cards) or keeps growing with its rank open (classic, seed 001
    §Melds and canastas). ``pack_top_counts``: the discard pile's top card counts toward the opening
    (seed 001 §Your first meld) or not (seed 000 §Taking the pack to open). ``black_threes_laid_out``:
    every three is laid out (seed 000 §Threes) or only red ones (seed 001 §Threes).
    """

    name: str
    title: str
    rules: dict[str, Rule]
    canasta_closes: bool
    pack_top_counts: bool
    black_threes_laid_out: bool

    @property
    def canastas_to_go_out(self) -> int:
        return self.rules["going_out.canastas"].value

    @property
    def opening_source(self) -> str:
        """Where the opening minimum is written."""
        raise NotImplementedError

    def game_target(self, table_rules: TableRules) -> int:
        return table_rules.game_target or self.rules["game.target"].value

    def opening_minimum(self, score: int) -> int:
        raise NotImplementedError

    def meld_problems(self, meld: Meld, table_rules: TableRules) -> list[Violation]:
        """What makes these cards no meld of this variant (empty when they are one)."""
        raise NotImplementedError

    def going_out_problems(self, melds: list[Meld], last_card: Card | None = None) -> list[Violation]:
        """Why a team with these melds may not go out (empty when it may)."""
        raise NotImplementedError

    def pack_problems(self, top: Card, pair: tuple[Card, ...], meld: Meld | None, melded_in_rank: int,
                      table_rules: TableRules) -> list[Violation]:
        """What is wrong with an opened team taking the discard pile with ``top`` on it, playing
        ``pair`` from hand, onto its ``meld`` (``None``: as a new meld). ``melded_in_rank``: how many
        cards of the top card's rank the team has melded."""
        raise NotImplementedError

    def score_lines(self, end: EndOfHand, team: str) -> Iterator[ScoreLine]:
        raise NotImplementedError

    @staticmethod
    def hand_lines(hands: tuple[tuple[Card, ...], ...]) -> Iterator[ScoreLine]:
        """Cards left in each partner's hand count against the team (seed 000 §What each card is
        worth; seed 001 §Scoring)."""
        for player, cards in enumerate(hands, start=1):
            if cards:
                yield ScoreLine(f"cards left in hand (player {player})", -sum(c.points for c in cards))


class ModernAmerican(Variant):
    """Modern American canasta: seed 000, seed 001 §How Modern American scores, seed 002."""

    name = "modern"
    title = "Modern American"
    rules = MODERN
    canasta_closes = True
    pack_top_counts = False
    black_threes_laid_out = True

    @property
    def opening_source(self) -> str:
        return source("opening.below_3000")

    def opening_minimum(self, score: int) -> int:
        return legality.opening_minimum(score)

    def meld_problems(self, meld: Meld, table_rules: TableRules) -> list[Violation]:
        return legality.meld_shape_problems(meld)

    def going_out_problems(self, melds: list[Meld], last_card: Card | None = None) -> list[Violation]:
        return legality.going_out_problems(melds, last_card)

    def pack_problems(self, top: Card, pair: tuple[Card, ...], meld: Meld | None, melded_in_rank: int,
                      table_rules: TableRules) -> list[Violation]:
        """Seed 000 §Taking the discard pile: only a natural top card, matched by a natural pair from
        hand, and not when the team already has five or more melded in that rank; onto an existing
        meld per table rule ``pack_onto_meld``: with the pair while the meld has three or four cards
        (000 §Taking the pack to open; 002 §Taking the discard pile), or the top card alone."""
        src = "seed 000 §Taking the discard pile"
        name = RANK_NAMES.get(top.rank, top.rank)
        problems: list[Violation] = []
        if not top.is_natural:
            problems.append(
                Violation(
                    "pack.top_card",
                    f"The pack can't be taken with {top.code} on top: only a natural card can be matched.",
                    src,
                )
            )
        pair_ok = len(pair) == 2 and all(c.is_natural and c.rank == top.rank for c in pair)
        with_pair = table_rules.pack_onto_meld == "pair_and_three_or_four"
        if (meld is None or with_pair) and not pair_ok:
            problems.append(
                Violation("pack.pair", f"Taking the pack needs a natural pair of {name} from your hand.", src)
            )
        if melded_in_rank >= value("pack.max_melded_in_rank") + 1:
            problems.append(
                Violation(
                    "pack.five_melded",
                    f"Your team already has five or more {name} melded; the meld would grow past seven.",
                    src,
                )
            )
        if meld is not None and with_pair and len(meld.cards) not in (3, 4):
            problems.append(Violation(
                "pack.onto_meld",
                "The pair and top card may join your meld only while it has three or four cards.",
                "seed 000 §Taking the pack to open; seed 002 §Taking the discard pile",
            ))
        return problems

    #: Seed 001 §How Modern American scores; seed 002 §Canasta bonuses.
    CANASTA_BONUS_KEYS = {
        Canasta.MIXED: "canasta.mixed",
        Canasta.NATURAL: "canasta.natural",
        Canasta.NATURAL_SEVENS: "canasta.natural_sevens",
        Canasta.NATURAL_ACES: "canasta.natural_aces",
        Canasta.WILD: "canasta.wild",
        Canasta.WILD_FOUR_JOKERS: "canasta.wild_four_jokers",
        Canasta.WILD_SEVEN_TWOS: "canasta.wild_seven_twos",
    }

    def canasta_bonus(self, canasta: Canasta) -> int:
        return value(self.CANASTA_BONUS_KEYS[canasta])

    def unfinished_penalty(self, meld: Meld, table_rules: TableRules) -> ScoreLine | None:
        """Seed 001 §How Modern American scores, seed 002 §Penalties: an unfinished meld of 7s or of
        natural aces −2,500; of wild cards −2,000, or −2,500 with all four jokers (table rule
        ``unfinished_four_joker_penalty``)."""
        if meld.is_canasta:
            return None
        if meld.is_wild_meld:
            if meld.jokers == 4:
                return ScoreLine(
                    "unfinished wild-card meld with four jokers", -table_rules.unfinished_four_joker_penalty
                )
            return ScoreLine("unfinished wild-card meld", value("penalty.unfinished_wild"))
        if meld.rank == "7":
            return ScoreLine("unfinished meld of 7s", value("penalty.unfinished_sevens"))
        if meld.rank == "A" and meld.is_natural:
            return ScoreLine("unfinished meld of natural aces", value("penalty.unfinished_aces"))
        return None

    @staticmethod
    def threes_points(count: int) -> int:
        """Seed 001 §How Modern American scores: per colour 100, 300, 500, 1,000 for one to four."""
        return {
            0: 0,
            1: value("threes.one"),
            2: value("threes.two"),
            3: value("threes.three"),
            4: value("threes.four"),
        }[count]

    def score_lines(self, end: EndOfHand, team: str) -> Iterator[ScoreLine]:
        hand = end.teams[team]
        rules = end.table_rules
        if hand.special_hand:
            # Seed 000 §Special hands: the team scores just the special hand.
            yield ScoreLine(
                f"special hand: {hand.special_hand.replace('_', ' ')}", special_hand_value(hand.special_hand, rules)
            )
            return
        canastas = hand.canastas
        for meld in canastas:
            yield ScoreLine(f"{meld.canasta.value} ({meld.name})", self.canasta_bonus(meld.canasta))
        melded = sum(m.points for m in hand.melds)
        if hand.melds:
            if canastas:
                yield ScoreLine("melded cards", melded)
            else:
                # Seed 001 §How Modern American scores: a team with no canasta subtracts its melded cards.
                yield ScoreLine("melded cards (no canasta: counted against)", -melded)
        for meld in hand.melds:
            penalty = self.unfinished_penalty(meld, rules)
            if penalty:
                yield penalty
        yield from self.threes_lines(hand.threes.red, hand.threes.black, len(canastas))
        if end.went_out == team:
            yield ScoreLine("going out", value("going_out.bonus"))
        yield from self.hand_lines(hand.hands)
        yield from self.held_sets_lines(hand.hands)

    def threes_lines(self, red: int, black: int, canastas: int) -> Iterator[ScoreLine]:
        """Seed 001 §How Modern American scores, seed 002 §Threes: two or more canastas add them, one
        canasta scores nothing for them, none subtracts them."""
        for colour, count in (("red", red), ("black", black)):
            if not count:
                continue
            points = self.threes_points(count)
            label = f"{count} {colour} three{'s' if count > 1 else ''}"
            if canastas >= value("threes.canastas_to_add"):
                yield ScoreLine(label, points)
            elif canastas == 1:
                yield ScoreLine(f"{label} (one canasta: count nothing)", 0)
            else:
                yield ScoreLine(f"{label} (no canasta: counted against)", -points)

    @staticmethod
    def held_sets_lines(hands: tuple[tuple[Card, ...], ...]) -> Iterator[ScoreLine]:
        """Seed 000 §Common questions, seed 002 §Penalties: each player left holding three or more 7s,
        or three or more aces, costs 1,500 for each such set (on top of the cards' own values)."""
        minimum = value("penalty.min_sevens_or_aces_in_hand")
        for player, cards in enumerate(hands, start=1):
            if len(cards) < minimum:
                continue
            for rank in ("7", "A"):
                count = sum(1 for c in cards if c.rank == rank)
                if count >= minimum:
                    yield ScoreLine(
                        f"player {player} held {count} {RANK_NAMES[rank]}",
                        value("penalty.three_of_sevens_or_aces_in_hand"),
                    )


class Classic(Variant):
    """Classic canasta, seed 001 (the four-player partnership game)."""

    name = "classic"
    title = "Classic"
    rules = CLASSIC
    canasta_closes = False
    pack_top_counts = True
    black_threes_laid_out = False

    @property
    def opening_source(self) -> str:
        return source("opening.from_0", CLASSIC)

    def opening_minimum(self, score: int) -> int:
        """Seed 001 §Your first meld: 15 below zero, 50 from 0, 90 from 1,500, 120 from 3,000."""
        if score < 0:
            return value("opening.below_zero", CLASSIC)
        if score < 1500:
            return value("opening.from_0", CLASSIC)
        if score < 3000:
            return value("opening.from_1500", CLASSIC)
        return value("opening.from_3000", CLASSIC)

    def meld_problems(self, meld: Meld, table_rules: TableRules) -> list[Violation]:
        """Seed 001 §Melds and canastas: three or more cards of one rank, at least two natural cards
        and at most three wild cards, no meld of wild cards alone, no size limit. §Threes: black
        threes meld as three or four of them with no wild card (only when going out: checked as the
        hand ends, :class:`companion.hand.HandState`); red threes never.
        Table rule ``classic_more_naturals_than_wilds`` (002 §Melds, standard column)."""
        problems: list[Violation] = []
        src = lambda key: source(key, CLASSIC)  # noqa: E731
        if len(meld.cards) < value("meld.min_cards", CLASSIC):
            problems.append(
                Violation(
                    "meld.too_few",
                    f"A meld needs at least 3 cards; this one has {len(meld.cards)}.",
                    src("meld.min_cards"),
                )
            )
        if len(meld.ranks) > 1:
            ranks = rank_list(meld.ranks)
            problems.append(
                Violation("meld.mixed_ranks", f"A meld holds one rank, not {ranks}.", src("meld.min_cards"))
            )
        if meld.is_wild_meld:
            problems.append(
                Violation(
                    "meld.wild_only",
                    "Classic canasta has no melds of wild cards alone.",
                    "seed 001 §Melds and canastas; 001 §Classic and Modern American",
                )
            )
            return problems
        if any(c.is_red_three for c in meld.cards):
            problems.append(Violation("meld.three", "Red threes are laid out, never melded.", "seed 001 §Threes"))
        if meld.rank == "3" and (meld.wilds or len(meld.cards) > 4):
            problems.append(
                Violation(
                    "meld.black_threes",
                    "Black threes meld only as three or four of them, with no wild card.",
                    "seed 001 §Threes",
                )
            )
        if len(meld.naturals) < value("meld.min_natural", CLASSIC):
            problems.append(
                Violation("meld.too_few_natural", "A meld needs at least two natural cards.", src("meld.min_natural"))
            )
        if len(meld.wilds) > value("meld.max_wild", CLASSIC):
            problems.append(
                Violation(
                    "meld.too_many_wild",
                    f"A meld holds at most 3 wild cards; this one has {len(meld.wilds)}.",
                    src("meld.max_wild"),
                )
            )
        if table_rules.classic_more_naturals_than_wilds and meld.wilds and len(meld.naturals) <= len(meld.wilds):
            problems.append(
                Violation(
                    "meld.more_naturals",
                    "A meld needs more natural cards than wild cards at this table.",
                    "seed 002 §Melds (table rule classic_more_naturals_than_wilds)",
                )
            )
        return problems

    def going_out_problems(self, melds: list[Meld], last_card: Card | None = None) -> list[Violation]:
        """Seed 001 §Going out: the team needs a canasta on the table (one; §Classic and Modern
        American). Sevens are an ordinary rank, and the last discard may be any card."""
        canastas = sum(1 for m in melds if m.is_canasta)
        if canastas >= self.canastas_to_go_out:
            return []
        return [
            Violation("going_out.canastas", "A team needs a canasta to go out.", source("going_out.canastas", CLASSIC))
        ]

    def pack_problems(self, top: Card, pair: tuple[Card, ...], meld: Meld | None, melded_in_rank: int,
                      table_rules: TableRules) -> list[Violation]:
        """Seed 001 §Taking the discard pile: never with a wild card or a black three on top; two
        cards from hand that make a meld with the top card (two natural cards of its rank, or one and
        a wild card), or the top card added to the team's meld of its rank. A pile frozen by a wild
        card in it needs a natural pair; the camera does not see what lies under the top card, so
        that is left to the players."""
        src = "seed 001 §Taking the discard pile"
        if top.is_wild or top.is_three:
            return [Violation("pack.top_card", f"The pile can't be taken with {top.code} on top.", src)]
        if meld is not None:
            return []
        naturals = [c for c in pair if c.rank == top.rank]
        if len(pair) != 2 or not naturals or any(c.rank != top.rank and not c.is_wild for c in pair):
            name = RANK_NAMES.get(top.rank, top.rank)
            return [
                Violation(
                    "pack.pair",
                    f"Taking the pile needs two {name}, or one and a wild card, from your hand, or a meld of {name} "
                    f"to add the top card to.",
                    src,
                )
            ]
        return []

    def score_lines(self, end: EndOfHand, team: str) -> Iterator[ScoreLine]:
        """Seed 001 §Scoring: bonuses plus melded cards, less cards left in hand. Red threes 100 each,
        800 for all four, against a team with no meld (§Threes). Going out 100, concealed 200."""
        hand = end.teams[team]
        for meld in hand.canastas:
            kind = "natural canasta" if meld.is_natural else "mixed canasta"
            bonus = value("canasta.natural" if meld.is_natural else "canasta.mixed", CLASSIC)
            yield ScoreLine(f"{kind} ({meld.name})", bonus)
        if hand.melds:
            yield ScoreLine("melded cards", sum(m.points for m in hand.melds))
        red = hand.threes.red
        if red:
            points = value("red_three.all_four", CLASSIC) if red == 4 else red * value("red_three.each", CLASSIC)
            label = f"{red} red three{'s' if red > 1 else ''}"
            yield ScoreLine(label, points) if hand.melds else ScoreLine(f"{label} (no meld: counted against)", -points)
        if end.went_out == team:
            concealed = end.went_out_concealed
            yield ScoreLine(
                "going out concealed" if concealed else "going out",
                value("going_out.concealed_bonus" if concealed else "going_out.bonus", CLASSIC),
            )
        yield from self.hand_lines(hand.hands)


VARIANTS: dict[str, Variant] = {v.name: v for v in (ModernAmerican(), Classic())}


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"variant: '{name}' is not a variant; use 'modern' or 'classic'") from None


def team_hand_problems(hand: TeamHand, variant: Variant, table_rules: TableRules) -> list[Violation]:
    """Every meld of a team checked for shape (used by the scorer and the app)."""
    return [v for meld in hand.melds for v in variant.meld_problems(meld, table_rules)]

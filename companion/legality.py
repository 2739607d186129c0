"""Modern American legality: which melds may lie on the table, and when a team may open or go out.

Each check returns :class:`~companion.violations.Violation` values, empty when all is well, and each
cites the seed section its rule comes from.
"""

from __future__ import annotations

from collections.abc import Iterable

from .cards import RANK_NAMES, rank_list
from .melds import Meld
from .rulebook import source, value
from .table_rules import TableRules
from .violations import Violation


def meld_shape_problems(meld: Meld) -> list[Violation]:
    """What makes these cards no Modern American meld at all, whatever the moment.

    Seed 000 §Melds and canastas (3 to 7 cards of one rank, never past seven), §Threes (threes are
    never melded), §Natural and mixed melds (at most two wild cards, at least two natural cards),
    §Sevens (no wild card in 7s), §Wild card melds (three to seven 2s and jokers).
    Whether a mixed meld with fewer than five natural cards is legal depends on when its wild cards
    were laid (the opening, or the rule of five): :func:`wild_card_problems` checks that.

    >>> from companion.cards import parse_cards
    >>> [v.rule for v in meld_shape_problems(Meld(parse_cards("7H 7S 2C")))]
    ['meld.sevens_wild']
    """
    problems: list[Violation] = []
    cards = meld.cards
    if any(c.is_three for c in cards):
        problems.append(Violation("meld.three", "Threes are never melded; lay them out in a row.", "seed 000 §Threes"))
    if len(meld.ranks - {"3"}) > 1:
        ranks = rank_list(meld.ranks - {"3"})
        problems.append(Violation("meld.mixed_ranks", f"A meld holds one rank, not {ranks}.", source("meld.min_cards")))
    if len(cards) < value("meld.min_cards"):
        problems.append(
            Violation(
                "meld.too_few", f"A meld needs at least 3 cards; this one has {len(cards)}.", source("meld.min_cards")
            )
        )
    if len(cards) > value("meld.max_cards"):
        problems.append(
            Violation(
                "meld.too_many",
                f"A meld never grows past 7 cards; this one has {len(cards)}.",
                source("meld.max_cards"),
            )
        )
    if meld.is_wild_meld or not meld.wilds:
        return problems
    if meld.rank == "7":
        problems.append(Violation("meld.sevens_wild", "A meld of 7s never takes a wild card.", "seed 000 §Sevens"))
    if len(meld.wilds) > value("meld.max_wild"):
        problems.append(
            Violation(
                "meld.too_many_wild",
                f"A meld holds at most 2 wild cards; this one has {len(meld.wilds)}.",
                source("meld.max_wild"),
            )
        )
    if len(meld.naturals) < value("meld.min_natural_in_opening"):
        problems.append(
            Violation(
                "meld.too_few_natural",
                "A mixed meld needs at least two natural cards.",
                source("meld.min_natural_in_opening"),
            )
        )
    return problems


def wild_card_problems(meld: Meld, *, opening: bool, team_melds: Iterable[Meld], rules: TableRules,
                       before: Meld | None = None) -> list[Violation]:
    """Whether the wild cards in ``meld`` may be there, given when they were laid (``before``: the
    meld as it was, when cards joined it).

    Seed 000 §Natural and mixed melds: in the team's opening any meld may hold wild cards if it has
    two natural cards; later a wild card joins only a meld with five natural cards (the rule of five;
    table rule ``wild_card_threshold``: 2, 3, 5 or no limit). §Aces: aces take wild cards only in the
    opening (002 §Rule changes says so outright; table rule ``mixed_aces_take_wild`` lets a meld of
    aces that was opened mixed take more, as 000's "simply a mixed meld" may be read). §Wild card
    melds: while the team has an unfinished wild-card meld, no wild card joins any other meld, a
    second wild-card meld among them (002 §Melds of wild cards agrees).
    """
    if not meld.wilds:
        return []
    problems: list[Violation] = []
    if not opening and not meld.is_wild_meld:
        threshold = rules.wild_card_threshold
        if threshold is not None and len(meld.naturals) < threshold:
            problems.append(Violation(
                "meld.rule_of_five",
                f"After opening, a wild card joins only a meld with {threshold} natural cards; "
                f"this meld of {RANK_NAMES[meld.rank or '4']} has {len(meld.naturals)}.",
                source("meld.naturals_before_wild") + " (table rule wild_card_threshold)",
            ))
        opened_mixed = before is not None and bool(before.wilds)
        if meld.rank == "A" and not (rules.mixed_aces_take_wild and opened_mixed):
            problems.append(
                Violation("meld.aces_wild", "Aces take wild cards only in the team's opening meld.", "seed 000 §Aces")
            )
    # A wild-card meld is checked when it starts: cards joining the team's one unfinished wild meld
    # (even one started against the rule) are what finishing it takes.
    new_or_mixed = not meld.is_wild_meld or before is None
    if new_or_mixed and any(m.is_wild_meld and not m.is_canasta for m in team_melds):
        problems.append(Violation(
            "meld.wild_meld_unfinished",
            "Your team already has an unfinished wild-card meld: finish it before starting another."
            if meld.is_wild_meld else
            "While your team has an unfinished wild-card meld, no wild card may join another meld.",
            "seed 000 §Wild card melds",
        ))
    return problems


def opening_minimum(score: int) -> int:
    """Seed 000 §Your team's first meld: 125 below 3,000 (negative too), 155 from 3,000, 180 from 5,000.

    >>> opening_minimum(-400), opening_minimum(2995), opening_minimum(3000), opening_minimum(5000)
    (125, 125, 155, 180)
    """
    if score >= 5000:
        return value("opening.from_5000")
    if score >= 3000:
        return value("opening.from_3000")
    return value("opening.below_3000")


def going_out_problems(melds: Iterable[Meld], last_card=None) -> list[Violation]:
    """Why a team may not go out (empty when it may).

    Seed 000 §Going out: two finished canastas; no unfinished meld of natural 7s, natural aces or
    wild cards; the last card discarded is not a three (also §Threes).
    """
    melds = list(melds)
    problems: list[Violation] = []
    canastas = sum(1 for m in melds if m.is_canasta)
    needed = value("going_out.canastas")
    if canastas < needed:
        problems.append(Violation(
            "going_out.canastas",
            f"A team needs {needed} canastas to go out; this team has {canastas}.",
            source("going_out.canastas"),
        ))
    for meld in melds:
        if meld.is_canasta:
            continue
        if meld.is_wild_meld:
            what = "wild cards"
        elif meld.rank == "7":
            what = "7s"
        elif meld.rank == "A" and meld.is_natural:
            what = "natural aces"
        else:
            continue
        problems.append(Violation(
            "going_out.unfinished_special",
            f"The team still has an unfinished meld of {what}; finish it before going out.",
            "seed 000 §Going out",
        ))
    if last_card is not None and last_card.is_three:
        problems.append(
            Violation("going_out.last_three", "You can't go out with a three as your last card.", "seed 000 §Threes")
        )
    return problems

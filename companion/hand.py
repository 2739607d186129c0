"""A hand in progress, driven by what happens on the table.

The camera (or a player) reports table events; :meth:`HandState.apply` checks each one against the
rules, applies it (the table is what it is, legal or not) and returns the violations, so the app can
say what went wrong and where the rule is written. Predicates ask the state:
:meth:`HandState.can_go_out`, :meth:`HandState.opening_minimum`, :attr:`HandState.dead_ranks`.

>>> from companion.cards import parse_cards as cards
>>> state = HandState(scores={"A": 1200, "B": 0})
>>> state.apply(Opened("A", (cards("KH KS KD"), cards("QH QS QD"), cards("8H 8S 8D JK")), stock_left=60))
()
>>> state.bonus_cards["A"]   # seed 000 §Bonus cards: 4 for the first team to open
4
>>> [v.rule for v in state.apply(MeldStarted("A", cards("5H 5S 2C")))]
['meld.rule_of_five']

Live checks follow the hand's variant (:class:`companion.variant.Variant`): Modern American by seeds
000 and 002, classic by seed 001 (canastas keep growing and close no rank, the pile's top card counts
toward the opening, one canasta to go out, only red threes laid out).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from . import legality
from .cards import RANK_NAMES, Card
from .end_of_hand import TEAMS, EndOfHand, TeamHand
from .melds import Meld
from .rulebook import source, value
from .special_hands import recognise, special_hand_value
from .table_rules import TableRules
from .threes import Threes
from .variant import get_variant
from .violations import Violation

# ----------------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Opened:
    """A team lays its first meld(s) of the hand. ``pack_top`` is the discard-pile top card when the
    team opens by taking the pack (it is in one of the melds but counts toward nothing)."""

    team: str
    melds: tuple[tuple[Card, ...], ...]
    stock_left: int | None = None
    pack_top: Card | None = None


@dataclass(frozen=True)
class MeldStarted:
    """An opened team lays a new meld."""

    team: str
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class CardsAdded:
    """Cards join one of the team's melds (index into :attr:`TeamState.melds`)."""

    team: str
    meld_index: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class CanastaClosed:
    """A meld is squared into a pile: a finished canasta (seed 001 §Melds and canastas: red card on
    top for natural, black for mixed). The state closes canastas at seven cards by itself; this event
    is what the camera sees, and it is checked against the meld's count."""

    team: str
    meld_index: int


@dataclass(frozen=True)
class ThreesLaidOut:
    team: str
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class TurnCardDrawn:
    """Someone drew the sideways turn card: 8 cards are left (seed 000 §Setting up and dealing)."""


@dataclass(frozen=True)
class PackTaken:
    """An opened team takes the discard pile: the top card with a natural pair from hand, as a new
    meld, or onto the team's meld ``meld_index``."""

    team: str
    top_card: Card
    pair: tuple[Card, ...] = ()
    meld_index: int | None = None


@dataclass(frozen=True)
class WentOut:
    team: str
    last_card: Card | None = None


@dataclass(frozen=True)
class SpecialHandLaid:
    team: str
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class HandEnded:
    """The stock ran out, or its very last card was a three (seed 000 §When the draw pile runs out)."""

    reason: str = "stock_out"


Event = (
    Opened
    | MeldStarted
    | CardsAdded
    | CanastaClosed
    | ThreesLaidOut
    | TurnCardDrawn
    | PackTaken
    | WentOut
    | SpecialHandLaid
    | HandEnded
)

#: Each team's opponents.
OTHER_TEAM = {"A": "B", "B": "A"}


def by_other_team(event: Event) -> Event:
    """``event`` as the other team's play; the same object for one that names no team (the turn
    card drawn, the hand ended)."""
    return replace(event, team=OTHER_TEAM[event.team]) if hasattr(event, "team") else event

# ------------------------------------------------------------------------------------------ state


@dataclass(frozen=True)
class DeadRanks:
    """Ranks closed for both teams by a finished canasta (seed 000 §Dead cards)."""

    ranks: frozenset[str] = frozenset()

    def __contains__(self, rank: object) -> bool:
        return rank in self.ranks

    def __iter__(self):
        return iter(sorted(self.ranks, key=lambda r: ("4 5 6 7 8 9 10 J Q K A".split().index(r))))

    def __len__(self) -> int:
        return len(self.ranks)

    def plus(self, rank: str) -> DeadRanks:
        return DeadRanks(self.ranks | {rank})

    def __str__(self) -> str:
        return ", ".join(RANK_NAMES[r] for r in self) or "none"


@dataclass(frozen=True)
class TurnCard:
    """The sideways card with 8 cards under it (seed 000 §Setting up and dealing, §Bonus cards)."""

    drawn: bool = False

    @property
    def cards_left(self) -> int | None:
        return value("turn_card.cards_under") if self.drawn else None

    def __str__(self) -> str:
        if self.drawn:
            return f"turn card drawn: {self.cards_left} cards left; no more bonus cards"
        return "turn card not drawn yet"


@dataclass
class TeamState:
    melds: list[Meld] = field(default_factory=list)
    threes: Threes = field(default_factory=Threes)
    opened: bool = False
    special_hand: str | None = None

    @property
    def canastas(self) -> int:
        return sum(1 for m in self.melds if m.is_canasta)

    def melded_in_rank(self, rank: str) -> int:
        return sum(len(m.cards) for m in self.melds if m.rank == rank and not m.is_wild_meld)


def _v(rule: str, message: str, src: str) -> Violation:
    return Violation(rule, message, src)


class HandState:
    """One hand, from the deal to its end."""

    def __init__(self, scores: dict[str, int] | None = None, rules: TableRules | None = None, variant: str = "modern"):
        self.scores = dict(scores or {t: 0 for t in TEAMS})
        self.rules = rules or TableRules()
        self.variant = get_variant(variant)
        self.teams: dict[str, TeamState] = {t: TeamState() for t in TEAMS}
        self.dead_ranks = DeadRanks()
        self.turn_card = TurnCard()
        self.bonus_cards: dict[str, int] = {}
        self.first_to_open: str | None = None
        self.ended = False
        self.went_out: str | None = None
        self.events: list[Event] = []

    # ------------------------------------------------------------------------------ predicates
    def opening_minimum(self, team: str) -> int:
        return self.variant.opening_minimum(self.scores.get(team, 0))

    def can_go_out(self, team: str, last_card: Card | None = None) -> list[Violation]:
        """The reasons ``team`` may not go out now; empty when it may (seed 000 §Going out; classic:
        seed 001 §Going out)."""
        return self.variant.going_out_problems(self.teams[team].melds, last_card)

    def opening_points(self, opening: Opened) -> int:
        """What an opening counts toward the minimum: its cards' values, less the discard pile's top
        card where the variant does not count it (seed 000 §Taking the pack to open; seed 001 §Your
        first meld counts it)."""
        counted = [c for cards in opening.melds for c in cards]
        if opening.pack_top is not None and opening.pack_top in counted and not self.variant.pack_top_counts:
            counted.remove(opening.pack_top)
        return sum(c.points for c in counted)

    def meld_problems(self, team: str) -> list[list[Violation]]:
        """Shape problems of each of the team's melds, in order (for the app's overlays)."""
        return [self.variant.meld_problems(m, self.rules) for m in self.teams[team].melds]

    # ---------------------------------------------------------------------------------- verbs
    def check(self, event: Event) -> tuple[Violation, ...]:
        """The violations ``event`` would cause, without applying it."""
        saved = self._snapshot()
        try:
            return self.apply(event)
        finally:
            self._restore(saved)

    def apply(self, event: Event) -> tuple[Violation, ...]:
        """Apply what happened on the table and return the rules it broke (empty when none)."""
        problems: list[Violation] = []
        if self.ended:
            problems.append(_v("hand.ended", "The hand is over; nothing more can be played.", "seed 000 §Going out"))
        handler = getattr(self, "_" + type(event).__name__)
        problems += handler(event)
        self.events.append(event)
        return tuple(problems)

    def with_teams_swapped(self) -> tuple[HandState, tuple[Violation, ...]]:
        """The same hand with each team's play the other's (the table as it is when the camera took
        each side for the other's), and the rules it breaks. Each team keeps its own score; the
        events are applied again with their teams swapped, so each is checked as the other team's
        (its opening minimum, whether it had opened)."""
        swapped = HandState(self.scores, self.rules, self.variant.name)
        broken = [problem for event in self.events for problem in swapped.apply(by_other_team(event))]
        return swapped, tuple(broken)

    def end_of_hand(self, hands: dict[str, Iterable[Iterable[Card]]] | None = None) -> EndOfHand:
        """The table as it stands, as an :class:`EndOfHand` to score (cards left in hand by team)."""
        hands = hands or {}
        return EndOfHand(
            teams={
                t: TeamHand(
                    melds=tuple(s.melds), threes=s.threes, special_hand=s.special_hand,
                    hands=tuple(tuple(h) for h in hands.get(t, ())), score_before=self.scores.get(t, 0),
                )
                for t, s in self.teams.items()
            },
            went_out=self.went_out, variant=self.variant.name, table_rules=self.rules,
        )

    # ------------------------------------------------------------------------------- handlers
    def _Opened(self, e: Opened) -> list[Violation]:
        team = self.teams[e.team]
        melds = [Meld(cards) for cards in e.melds]
        problems: list[Violation] = []
        if team.opened:
            problems.append(
                _v("opening.twice", "This team has already opened this hand.", "seed 000 §Your team's first meld")
            )
        for i, meld in enumerate(melds):
            problems += self._new_meld_problems(e.team, meld, opening=True, others=melds, laid_with=melds[:i])
        problems += self._opening_problems(e.team, melds, e.pack_top, self.opening_points(e))
        if self.first_to_open is None:
            self.first_to_open = e.team
        bonus = self._bonus_cards(e)
        if bonus:
            self.bonus_cards[e.team] = bonus
        team.opened = True
        team.melds.extend(melds)
        self._close_canastas(e.team)
        return problems

    def _opening_problems(self, team: str, melds: list[Meld], pack_top: Card | None, points: int) -> list[Violation]:
        """Seed 000 §Your team's first meld: the minimum from the team's score, counted from cards in
        hand only (§Taking the pack to open), and a clean triple of a rank that isn't dead — or a wild
        meld of three, at tables that allow it (table rule ``open_with_wild_meld``; 002 §First meld).
        Opening by taking the pack, the top card is melded with a natural pair from hand (000 §Taking
        the discard pile; classic: the pile is frozen for a team that has not melded, 001 §Taking the
        discard pile). Classic asks for the minimum alone (001 §Your first meld)."""
        problems: list[Violation] = []
        minimum = self.opening_minimum(team)
        canasta_waives = (
            self.rules.canasta_from_hand_needs_no_minimum and pack_top is None and any(m.is_canasta for m in melds)
        )
        if points < minimum and not canasta_waives:
            problems.append(_v(
                "opening.minimum",
                f"The opening counts {points}; with {self.scores.get(team, 0):,} points this team needs {minimum}.",
                self.variant.opening_source,
            ))
        if pack_top is not None:
            with_top = next((m for m in melds if pack_top in m.cards), None)
            pair = (
                0
                if with_top is None
                else sum(1 for c in with_top.cards if c.is_natural and c.rank == pack_top.rank) - 1
            )
            if pair < 2:
                name = RANK_NAMES.get(pack_top.rank, pack_top.rank)
                problems.append(_v(
                    "pack.pair",
                    f"Opening with the pack, its top card is melded with a natural pair of {name} from your hand.",
                    "seed 000 §Taking the discard pile" if self.variant.name == "modern"
                    else "seed 001 §Taking the discard pile (frozen for a team that has not melded)",
                ))
        if self.variant.name != "modern":
            return problems
        clean = [
            m
            for m in melds
            if m.is_natural and len(m.cards) >= value("opening.clean_triple") and m.rank not in self.dead_ranks
        ]
        if pack_top is not None:  # the pair and the top card don't make the clean triple on their own
            clean = [m for m in clean if len(m.cards) - (pack_top in m.cards) >= value("opening.clean_triple")]
        wild_ok = self.rules.open_with_wild_meld and any(m.is_wild_meld and len(m.cards) >= 3 for m in melds)
        if not clean and not wild_ok:
            problems.append(
                _v(
                    "opening.clean_triple",
                    "An opening must include a clean triple: three natural cards of one rank, no wild card, in a rank "
                    "that isn't dead.",
                    "seed 000 §Your team's first meld",
                )
            )
        return problems

    def _bonus_cards(self, e: Opened) -> int:
        """Seed 000 §Bonus cards: 4 for the first team to open, 3 for the second, only with at least 9
        cards left in the stock; none after the turn card or when opening from the pack."""
        if self.variant.name != "modern" or e.pack_top is not None or self.turn_card.drawn:
            return 0
        if e.stock_left is None or e.stock_left < value("bonus_cards.min_stock"):
            return 0
        first = self.first_to_open == e.team
        return value("bonus_cards.first_to_open" if first else "bonus_cards.second_to_open")

    def _MeldStarted(self, e: MeldStarted) -> list[Violation]:
        team = self.teams[e.team]
        meld = Meld(e.cards)
        problems = [] if team.opened else [self._not_opened()]
        problems += self._new_meld_problems(e.team, meld, opening=False, others=team.melds)
        team.melds.append(meld)
        self._close_canastas(e.team)
        return problems

    def _CardsAdded(self, e: CardsAdded) -> list[Violation]:
        team = self.teams[e.team]
        if not 0 <= e.meld_index < len(team.melds):
            return [
                _v(
                    "meld.missing",
                    f"Team {e.team} has no meld number {e.meld_index + 1}.",
                    "seed 000 §Melds and canastas",
                )
            ]
        old = team.melds[e.meld_index]
        new = old.plus(*e.cards)
        problems = [] if team.opened else [self._not_opened()]
        if old.is_canasta and self.variant.canasta_closes:
            problems.append(
                _v(
                    "meld.closed",
                    f"The {old.name} are a finished canasta; nothing more joins it.",
                    source("meld.max_cards"),
                )
            )
        elif new.rank in self.dead_ranks and not old.is_wild_meld:
            problems.append(self._dead(new.rank))
        problems += [p for p in self.variant.meld_problems(new, self.rules) if p.rule != "meld.too_few"]
        if any(c.is_wild for c in e.cards) and self.variant.name == "modern":
            others = [m for i, m in enumerate(team.melds) if i != e.meld_index]
            problems += legality.wild_card_problems(new, opening=False, team_melds=others, rules=self.rules, before=old)
        team.melds[e.meld_index] = new
        self._close_canastas(e.team)
        return problems

    def _CanastaClosed(self, e: CanastaClosed) -> list[Violation]:
        melds = self.teams[e.team].melds
        if not 0 <= e.meld_index < len(melds):
            return [
                _v(
                    "meld.missing",
                    f"Team {e.team} has no meld number {e.meld_index + 1}.",
                    "seed 000 §Melds and canastas",
                )
            ]
        meld = melds[e.meld_index]
        if meld.is_canasta:
            return []
        return [_v(
            "canasta.too_few",
            f"The {meld.name} were squared up as a canasta, but a canasta needs seven cards.",
            source("canasta.cards"),
        )]

    def _ThreesLaidOut(self, e: ThreesLaidOut) -> list[Violation]:
        """Seed 000 §Threes: every three is laid out; classic lays out red threes only, black ones
        being stop cards (seed 001 §Threes)."""
        team = self.teams[e.team]
        problems = [
            _v("threes.not_three", f"{c.code} is not a three; only threes are laid out in the row.", "seed 000 §Threes")
            for c in e.cards if not c.is_three
        ]
        if not self.variant.black_threes_laid_out:
            problems += [
                _v(
                    "threes.black",
                    f"{c.code}: in classic canasta black threes are stop cards, not laid out.",
                    "seed 001 §Threes",
                )
                for c in e.cards
                if c.is_black_three
            ]
        team.threes = team.threes.plus(*(c for c in e.cards if c.is_three))
        return problems

    def _TurnCardDrawn(self, e: TurnCardDrawn) -> list[Violation]:
        problems = []
        if self.turn_card.drawn:
            problems.append(
                _v("turn_card.twice", "The turn card was already drawn.", "seed 000 §Setting up and dealing")
            )
        self.turn_card = TurnCard(drawn=True)
        return problems

    def _PackTaken(self, e: PackTaken) -> list[Violation]:
        """An opened team takes the pile: the variant's own checks (:meth:`Variant.pack_problems`:
        seed 000 §Taking the discard pile; classic, seed 001 §Taking the discard pile), not in a dead
        rank (000 §Dead cards), and the meld it makes or grows checked as any other: one rank, and
        a new meld only where the team has none of that rank (000 §Melds and canastas; 002 §Taking
        the discard pile: the pair joins "your side's meld of that rank")."""
        team = self.teams[e.team]
        problems = [] if team.opened else [_v(
            "pack.not_opened",
            "A team that hasn't opened takes the pack only as part of its opening, laid from hand first.",
            "seed 000 §Taking the pack to open",
        )]
        top = e.top_card
        cards = (top, *e.pair)
        if e.meld_index is not None and not 0 <= e.meld_index < len(team.melds):
            problems.append(
                _v(
                    "meld.missing",
                    f"Team {e.team} has no meld number {e.meld_index + 1}.",
                    "seed 000 §Melds and canastas",
                )
            )
            return problems
        target = None if e.meld_index is None else team.melds[e.meld_index]
        problems += self.variant.pack_problems(top, e.pair, target, team.melded_in_rank(top.rank), self.rules)
        if top.rank in self.dead_ranks:
            problems.append(self._dead(top.rank))
        if target is None:
            meld = Meld(cards)
            problems += [p for p in self._new_meld_problems(e.team, meld, opening=False, others=team.melds)
                         if p.rule not in ("meld.dead_rank", "meld.too_few") and p not in problems]
            team.melds.append(meld)
        else:
            meld = target.plus(*cards)
            problems += [p for p in self.variant.meld_problems(meld, self.rules)
                         if p.rule not in ("meld.too_few", "meld.too_many") and p not in problems]
            team.melds[e.meld_index] = meld
        self._close_canastas(e.team)
        return problems

    def _WentOut(self, e: WentOut) -> list[Violation]:
        problems = self.can_go_out(e.team, e.last_card)
        self.went_out = e.team
        self.ended = True
        return problems + self._black_threes_left()

    def _SpecialHandLaid(self, e: SpecialHandLaid) -> list[Violation]:
        """Seed 000 §Special hands: 14 cards laid at once, only before the team opens; ends the hand."""
        team = self.teams[e.team]
        problems: list[Violation] = []
        if team.opened and not self.rules.special_hand_after_partner_opens:
            problems.append(
                _v(
                    "special.opened",
                    "A special hand is possible only before your team opens.",
                    "seed 000 §Special hands",
                )
            )
        names = recognise(e.cards, self.rules)
        if not names:
            problems.append(
                _v(
                    "special.none",
                    "These cards are not one of the special hands your table plays.",
                    "seed 000 §Special hands",
                )
            )
        # Cards can make more than one special hand; the team takes the one worth most.
        team.special_hand = max(names, key=lambda n: special_hand_value(n, self.rules)) if names else None
        self.went_out = e.team
        self.ended = True
        return problems

    def _HandEnded(self, e: HandEnded) -> list[Violation]:
        ended_before, self.ended = self.ended, True
        return [] if ended_before else self._black_threes_left()

    def _black_threes_left(self) -> list[Violation]:
        """Seed 001 §Threes: black threes are melded only on the turn a player goes out, so once the
        hand ends a meld of them is wrong on the side of every team that did not go out. The events
        carry no turns, so threes melded on an earlier turn of the team going out pass (as the score
        command takes them, :mod:`companion.handfile`)."""
        if self.variant.black_threes_laid_out:  # every three is laid out (seed 000): none is melded
            return []
        return [
            _v("meld.black_threes_timing",
               f"Team {team} melded black threes without going out; black threes are melded only on the "
               "turn a player goes out.", "seed 001 §Threes")
            for team, side in self.teams.items() if team != self.went_out
            and any(m.rank == "3" and not any(c.is_red_three for c in m.cards) for m in side.melds)
        ]

    # -------------------------------------------------------------------------------- helpers
    def _new_meld_problems(self, team: str, meld: Meld, *, opening: bool, others: list[Meld],
                           laid_with: list[Meld] = ()) -> list[Violation]:
        """``laid_with``: melds laid in the same move before this one (an opening lays several)."""
        problems = list(self.variant.meld_problems(meld, self.rules))
        if meld.rank in self.dead_ranks and not meld.is_wild_meld:
            problems.append(self._dead(meld.rank))
        same_rank = [m for m in (*self.teams[team].melds, *laid_with)
                     if m.rank == meld.rank and not (m.is_canasta and self.variant.canasta_closes)]
        if meld.rank is not None and same_rank:
            problems.append(
                _v(
                    "meld.second_of_rank",
                    f"Your team already has a meld of {RANK_NAMES[meld.rank]}; add to it instead.",
                    "seed 000 §Taking the discard pile (a team's meld of a rank grows to seven)"
                    if self.variant.canasta_closes
                    else "seed 001 §Melds and canastas (a team keeps only one meld of each rank)",
                )
            )
        if self.variant.name == "modern":
            # A wild-card meld of an opening is checked against the melds laid before it in that move
            # only: two laid together are one problem, told once.
            team_melds = [m for m in (laid_with if opening and meld.is_wild_meld else others) if m is not meld]
            problems += legality.wild_card_problems(meld, opening=opening, team_melds=team_melds, rules=self.rules)
        return problems

    def _close_canastas(self, team: str) -> None:
        """A finished canasta closes its rank for both teams: any canasta (seed 000 §Dead cards) or a
        natural one only (seed 002 §Melds), per table rule ``dead_rank_on``. Classic has no dead
        ranks: a canasta keeps growing (seed 001 §Melds and canastas)."""
        if not self.variant.canasta_closes:
            return
        for meld in self.teams[team].melds:
            if meld.is_canasta and meld.rank and not meld.is_wild_meld:
                if self.rules.dead_rank_on == "any_canasta" or meld.is_natural:
                    self.dead_ranks = self.dead_ranks.plus(meld.rank)

    @staticmethod
    def _dead(rank: str) -> Violation:
        return _v(
            "meld.dead_rank",
            f"{RANK_NAMES[rank].capitalize()} are dead: a canasta of them is finished.",
            "seed 000 §Dead cards",
        )

    @staticmethod
    def _not_opened() -> Violation:
        return _v(
            "meld.not_opened",
            "This team hasn't opened yet; its first meld must be an opening.",
            "seed 000 §Your team's first meld",
        )

    def _snapshot(self) -> dict:
        return copy.deepcopy(self.__dict__)

    def _restore(self, saved) -> None:
        self.__dict__.clear()
        self.__dict__.update(saved)

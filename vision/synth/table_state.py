"""What lies on a simulated Modern American canasta table, as card codes, always a legal position.

The scene layout (:mod:`vision.synth.layout`) turns a :class:`TableState` into placed cards; the hand input
it gives the scorer (:meth:`TableState.hand_input`) is the score command's format, so scores come
from the game core (``companion.handfile.score_report``), never from here.

Rules the generator keeps (seed 000, as the game core checks them): melds of one natural rank,
3 to 7 cards, mixed melds with five or more natural cards and at most two wild cards, no wild card
with 7s or aces; wild-card melds of 2s and jokers; each rank melded by one team only (a finished
canasta kills the rank for both); threes only in the threes row; a team goes out only with two
canastas and no unfinished meld of 7s, natural aces or wild cards; at most two of each card and four
jokers in the whole scene.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from companion.cards import COPIES_PER_CARD, JOKER, JOKERS_IN_PACK, NATURAL_RANKS, SUITS, Card
from companion.legality import opening_minimum

TEAMS = ("A", "B")
CANASTA_SIZE = 7


@dataclass
class TeamTable:
    """One team's side: melds (each a list of codes in the order laid), threes row, spread hands."""

    melds: list[list[str]] = field(default_factory=list)
    threes: list[str] = field(default_factory=list)
    hands: list[list[str]] = field(default_factory=list)


@dataclass
class TableState:
    teams: dict[str, TeamTable]
    discard: list[str]
    stock_size: int
    turn_card: str | None
    went_out: str | None = None

    def hand_input(self) -> dict:
        """The hand in the score command's input format (``companion.handfile``)."""
        return {
            "variant": "modern",
            "went_out": self.went_out,
            "teams": {
                team: {"melds": [list(m) for m in side.melds], "threes": list(side.threes),
                       "hands": [list(h) for h in side.hands], "special_hand": None}
                for team, side in self.teams.items()
            },
        }

    def all_codes(self) -> list[str]:
        codes = list(self.discard) + ([self.turn_card] if self.turn_card else [])
        for side in self.teams.values():
            codes += [c for meld in side.melds for c in meld] + side.threes + [c for hand in side.hands for c in hand]
        return codes


class Pack:
    """The 108 cards not yet used in the scene, to draw specific cards from."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.left = Counter({f"{r}{s}": COPIES_PER_CARD for r in ("2", "3", *NATURAL_RANKS) for s in SUITS})
        self.left[JOKER] = JOKERS_IN_PACK

    def take(self, candidates: list[str], count: int) -> list[str]:
        """``count`` cards chosen at random among ``candidates`` still in the pack (fewer if short)."""
        pool = [code for code in candidates for _ in range(self.left[code])]
        chosen = self.rng.sample(pool, min(count, len(pool)))
        self.left.subtract(chosen)
        return chosen

    def any(self, count: int) -> list[str]:
        return self.take([code for code in self.left if self.left[code]], count)


def naturals_of(rank: str) -> list[str]:
    return [f"{rank}{s}" for s in SUITS]


WILDS = [f"2{s}" for s in SUITS] + [JOKER]


def random_table(rng: random.Random, hand_over: bool | None = None) -> TableState:
    """A random legal table: mid-hand, or (``hand_over``) with a team out and hands spread."""
    pack = Pack(rng)
    hand_over = rng.random() < 0.35 if hand_over is None else hand_over
    ranks = rng.sample(NATURAL_RANKS, len(NATURAL_RANKS))
    teams = {}
    for team in TEAMS:
        mine = [ranks.pop() for _ in range(rng.randint(0, 5)) if ranks]
        teams[team] = _team_table(rng, pack, mine, wants_wild_meld=rng.random() < 0.2)
    went_out = None
    if hand_over:
        went_out = rng.choice(TEAMS)
        _make_able_to_go_out(rng, pack, teams[went_out], ranks)
    for side in teams.values():
        _make_opening_possible(rng, pack, side, ranks)
    if went_out and not _can_go_out(teams[went_out]):
        went_out = None  # too few ranks were left for two canastas: the stock ran out instead
    if hand_over:
        for team in TEAMS:
            teams[team].hands = _spread_hands(rng, pack, went_out == team)
    discard = pack.any(rng.randint(1, 6))
    turn_card = None if hand_over or rng.random() < 0.3 else pack.any(1)[0]
    return TableState(teams, discard, stock_size=rng.randint(0, 40), turn_card=turn_card, went_out=went_out)


def _team_table(rng: random.Random, pack: Pack, ranks: list[str], wants_wild_meld: bool) -> TeamTable:
    side = TeamTable()
    wild_meld = _wild_meld(rng, pack, rng.randint(3, 7)) if wants_wild_meld else []
    may_mix = not wild_meld or len(wild_meld) == CANASTA_SIZE
    for rank in ranks:
        meld = _natural_meld(rng, pack, rank, may_mix)
        if meld:
            side.melds.append(meld)
    if len(wild_meld) >= 3:
        side.melds.append(wild_meld)
    elif wild_meld:
        pack.left.update(wild_meld)
    side.threes = pack.take(naturals_of("3"), rng.choice((0, 0, 1, 1, 2, 3)))
    return side


def _natural_meld(rng: random.Random, pack: Pack, rank: str, may_mix: bool) -> list[str]:
    """A meld of ``rank``: natural, or mixed (five or more naturals, one or two wilds) where allowed."""
    size = rng.choice((3, 3, 4, 4, 5, 6, 7, 7, 7))
    mixed = may_mix and rank not in ("7", "A") and size >= 6 and rng.random() < 0.5
    naturals = pack.take(naturals_of(rank), size - (rng.randint(1, size - 5) if mixed else 0))
    if len(naturals) < 3:
        pack.left.update(naturals)
        return []
    wilds = pack.take(WILDS, min(2, size - len(naturals))) if mixed and len(naturals) >= 5 else []
    return naturals + wilds


def _make_opening_possible(rng: random.Random, pack: Pack, side: TeamTable, free_ranks: list[str]) -> None:
    """A team with melds on the table has opened, so its melds hold a clean triple and count at least
    the opening minimum of a team on 0 points (seed 000 §Your team's first meld): add natural melds
    of unused ranks until they do."""
    def opened_legally() -> bool:
        points = sum(Card.parse(code).points for meld in side.melds for code in meld)
        # a wholly natural meld: the opening's clean triple, which the others' wild cards leave clean
        clean = any(all(Card.parse(code).is_natural for code in meld) for meld in side.melds)
        return points >= opening_minimum(0) and clean

    # 7s and aces would leave an unfinished meld that stops the team going out
    usable = [rank for rank in free_ranks if rank not in ("7", "A")]
    while side.melds and not opened_legally() and usable:
        rank = usable.pop()
        free_ranks.remove(rank)
        meld = _natural_meld(rng, pack, rank, may_mix=False)
        if meld:
            side.melds.append(meld)
    if not opened_legally():  # not enough ranks left: this team has not opened yet
        for meld in side.melds:
            pack.left.update(meld)
        side.melds = []


def _can_go_out(side: TeamTable) -> bool:
    """Seed 000 §Going out: two canastas and no unfinished meld of 7s, natural aces or wild cards."""
    canastas = sum(len(meld) == CANASTA_SIZE for meld in side.melds)
    return canastas >= 2 and not any(len(m) < CANASTA_SIZE and _blocks_going_out(m) for m in side.melds)


def _wild_meld(rng: random.Random, pack: Pack, size: int) -> list[str]:
    return pack.take(WILDS, size)


def _make_able_to_go_out(rng: random.Random, pack: Pack, side: TeamTable, free_ranks: list[str]) -> None:
    """Finish or drop melds so the team meets the going-out rules; add canastas until it has two."""
    kept = []
    for meld in side.melds:
        if len(meld) == CANASTA_SIZE or not _blocks_going_out(meld):
            kept.append(meld)
        else:
            pack.left.update(meld)
    side.melds = kept
    while sum(len(m) == CANASTA_SIZE for m in side.melds) < 2 and free_ranks:
        rank = free_ranks.pop()
        canasta = pack.take(naturals_of(rank), CANASTA_SIZE)
        if len(canasta) < CANASTA_SIZE:
            pack.left.update(canasta)
            continue
        side.melds.append(canasta)


def _blocks_going_out(meld: list[str]) -> bool:
    """An unfinished meld of wild cards, of 7s or of natural aces (seed 000 §Going out)."""
    cards = [Card.parse(code) for code in meld]
    natural_ranks = {card.rank for card in cards if not card.is_wild}
    if not natural_ranks:
        return True
    return natural_ranks == {"7"} or (natural_ranks == {"A"} and not any(card.is_wild for card in cards))


def _spread_hands(rng: random.Random, pack: Pack, went_out: bool) -> list[list[str]]:
    """The two partners' hands laid face up at the end: the one who went out holds nothing."""
    partner = pack.any(rng.randint(0, 8))
    if went_out:
        return [[], partner]
    return [partner, pack.any(rng.randint(1, 9))]


"""The table over time: steady readings from flickering ones, and the table events they imply.

Each frame's reading is boiled down to the table's parts: per team each meld (by its rank; wild-card
melds by ``"wild"``) with its cards, each canasta pile (by rank) with its top card, the threes row
and the spread hands; and whether the turn card shows. A part changes in the steady table only when
its new value is the one read most often in the last few frames, at least
:attr:`TableTracker.confirm` times, so a card must be seen in several frames before it counts or is
dropped: a hand passing over the table, or a missed detection, changes nothing. Play only adds
cards to melds and threes, so a part read smaller must be read so for longer still, and so must the
turn card going and a canasta pile (under an arm a meld's one visible card looks like one). A team's
opening counts once its melds have settled: players lay them under an arm, one after another.

Each confirmed change becomes table events for the game core's :class:`~companion.hand.HandState`
(a team opened, a meld started, cards joined a meld, a meld was squared into a canasta pile, threes
were laid out, the turn card was drawn), so legality and dead ranks follow the game live. A pile's
cards are remembered from the meld it was squared from. After a team's opening, a pile of a rank it
has no meld of is no canasta: a canasta is squared from a meld on the table (seed 000 §Melds and
canastas), which the camera sees first, while one card read alone (a misread index, a joker's
corner) looks like a pile.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field, replace

import numpy as np

from companion.cards import COPIES_PER_CARD, JOKER, JOKERS_IN_PACK, Card
from companion.hand import (
    OTHER_TEAM,
    CanastaClosed,
    CardsAdded,
    HandState,
    MeldStarted,
    Opened,
    ThreesLaidOut,
    TurnCardDrawn,
)
from companion.handlog import replay
from companion.rulebook import value as rule_value
from companion.violations import Violation
from vision.reader.detections import iou
from vision.reader.reading import CANASTA_SIZE, TEAMS, TableReading, spare_cards


@dataclass(frozen=True)
class TableEvent:
    """What changed on the table, in the game's words: ``kind`` is one of ``turn_card_taken``,
    ``three_laid_out``, ``opened`` (a team's first melds, laid at once), ``meld`` (a later new meld),
    ``added_to_meld``, ``canasta`` (a meld reached seven), ``hands_spread``; or ``turn_card_back``,
    a correction: the turn card reported taken lies where it lay, so it was hidden, not drawn, and
    the tracker's hand and events no longer hold the draw (:meth:`TableTracker._take_back_draw`)."""

    kind: str
    team: str | None = None
    meld: str | None = None  #: the meld's rank ("wild" for wild cards)
    cards: tuple[str, ...] = ()
    melds: tuple[tuple[str, ...], ...] = ()  #: an opening's melds
    #: the reading (by number, from the tracker's first) in which the change was first read: when it
    #: was played, as near as the readings tell (an event is reported once its change has held)
    frame: int = 0
    violations: tuple[Violation, ...] = ()


def table_parts(reading: TableReading) -> dict[tuple, object]:
    """A reading as the table's parts, each a hashable value (``None`` when absent)."""
    parts: dict[tuple, object] = {("turn_card",): reading.turn_card.code if reading.turn_card else None}
    for team in TEAMS:
        side = reading.teams[team]
        for meld in side.melds:
            parts[(team, "meld", meld_key(meld.codes))] = tuple(sorted(meld.codes))
        for pile in side.piles:
            parts[(team, "pile", pile.rank or "wild")] = pile.top.code
        if side.threes:
            parts[(team, "threes")] = tuple(sorted(c.code for c in side.threes))
        if side.hands:
            parts[(team, "hands")] = tuple(tuple(sorted(c.code for c in hand)) for hand in side.hands)
    return parts


_NO_CHANGE = object()
#: The tracker's waits (a part read smaller, an opening settling, a turn card read anew) are spans
#: of the video, :attr:`TableTracker.wait_frames` frames, not counts of readings: a slower reader
#: reads fewer of a camera's frames, and a wait of so many readings outlasts the turns of play (the
#: app on two cores reads about every seventh frame). Readings given without their frame number are
#: taken to be this many frames apart (the app's fastest pace: at most 8 readings a second of 25 frames).
READING_STEP = 3
#: Frame steps between readings that the tracker judges the reader's pace by (their median).
PACE_READINGS = 9
#: A turn card read further than this many index sizes from where it lay is another card.
TURN_CARD_MOVE = 1.5
#: Another code read in a box overlapping the turn card's first one by this much (IoU) is the turn
#: card read otherwise, however long it was read right (:meth:`TableTracker._place_turn_card`).
SAME_BOX = 0.5
#: A spread hand's row shows at least this many cards: one card past the hand line is more likely a
#: stray index of a meld whose other cards are hidden, and two such in rows of their own no likelier
#: a spread.
MIN_SPREAD_CARDS = 2


#: Each three's twin in colour: the score tells red threes from black, not one suit from the other.
THREE_OF_THE_OTHER_SUIT = {"3C": "3S", "3S": "3C", "3H": "3D", "3D": "3H"}


def _grows(key: tuple, old, new) -> bool:
    """Whether a part's new value only adds to the old one (as play does). The turn card going, or
    another card read in its place, is not growth: an arm hides it as well as a draw takes it, and
    a discard pile that looks like two heaps is no turn card. Nor is a canasta pile: a meld whose
    top card alone shows past an arm looks like one. Nor a team's threes: laid once and left, a
    three loses nothing by being reported after a wait (its event keeps the reading it was first
    read in), and one read for a moment is another card's index misread, or spread hands read as
    threes."""
    if key[1:2] == ("pile",) or key[1:] == ("threes",):
        return False
    if old is None or key[-1] == "hands":
        return True
    if key == ("turn_card",):
        return False
    if new is None:
        return False
    if isinstance(old, tuple):
        return not Counter(old) - Counter(new)
    return True


def meld_key(codes) -> str:
    """A team's meld is known by its rank (a team melds each rank once), or ``"wild"``."""
    ranks = {Card.parse(code).rank for code in codes if not Card.parse(code).is_wild}
    return next(iter(ranks)) if len(ranks) == 1 else "wild" if not ranks else "+".join(sorted(ranks))


@dataclass
class TableTracker:
    """Feed it every reading of a video, in order; it keeps the steady table and the hand state."""

    confirm: int = 2
    #: Melds and threes only grow in play: a part read smaller must be read so this many times longer
    #: (a card hidden under an arm, or two indexes that did not pair for a while, change nothing).
    shrink_factor: int = 6
    #: A wait's span in video frames (see :data:`READING_STEP`); by default ``confirm ×
    #: shrink_factor`` readings of every :data:`READING_STEP`-th frame, 36 frames, about 1.4 s: long
    #: enough that a card read wrong for a second does not count (a shorter wait follows labelled
    #: boxes better but the detector's finds worse; docs/experiments.md, "The table reader and tracker").
    wait_frames: int | None = None
    state: HandState = field(default_factory=HandState)
    steady: dict[tuple, object] = field(default_factory=dict)
    events: list[TableEvent] = field(default_factory=list)
    pile_contents: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    #: the cards of squared canastas the camera never saw, as guessed (see :func:`settle_guesses`)
    guessed: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    hands_spread: bool = False
    _recent: dict[tuple, deque] = field(default_factory=dict)
    _meld_numbers: dict[str, dict[str, int]] = field(default_factory=lambda: {t: {} for t in TEAMS})
    _frame: int = 0
    #: the frame each team last laid more (an opening waits until its melds settle, :meth:`_laid_more`)
    _laid_at: dict[str, int] = field(default_factory=dict)
    #: the most cards each of a team's melds and piles was read steady with before the team opened
    _most: dict[tuple, int] = field(default_factory=dict)
    #: the reading each part's steady value was first read in (an event's ``frame``: when it was played)
    _seen_at: dict[tuple, int] = field(default_factory=dict)
    #: the box (xyxy, image pixels) the steady turn card's index was first read in
    _turn_card_box: tuple | None = None
    _turn_card_reads: int = 0  #: readings of the steady turn card where it lies
    #: codes read where the steady turn card lies while it was read there only a few times
    _turn_card_rereads: set = field(default_factory=set)
    #: the draw the tracker reported and may take back: (the hand state's event, the reported
    #: event, the turn card's code), ``None`` when it reported none or took it back
    _drawn: tuple | None = None
    #: whether the last reading read the drawn turn card's code where the turn card lay
    _back_in_place: bool = False
    _last_frame: int | None = None  #: the frame number of the last reading, when given
    #: the last few steps between the frame numbers of readings
    _steps: deque = field(default_factory=lambda: deque(maxlen=PACE_READINGS))
    _pace: int = READING_STEP  #: the reader's pace: the median of ``_steps``, frames a reading

    @classmethod
    def following(cls, state: HandState, guessed: dict[tuple[str, str], tuple[str, ...]] | None = None
                  ) -> TableTracker:
        """A tracker taking up a hand it did not see start (the app reopened mid-hand).

        It learns what it would have learnt watching: which meld is each rank's (numbered as the
        hand state holds them) and which canastas are finished, so the table it sees first is taken
        as the hand as it stands, and a pile seen again is not taken for a meld being squared.
        """
        tracker = cls(state=state, guessed=dict(guessed or {}))
        for team in TEAMS:
            for number, meld in enumerate(state.teams[team].melds):
                rank = meld_key([card.code for card in meld.cards])
                tracker._meld_numbers[team][rank] = number
                if meld.is_canasta:
                    tracker.pile_contents[(team, rank)] = tuple(card.code for card in meld.cards)
        return tracker

    def swap_teams(self) -> tuple[Violation, ...]:
        """The camera took each side for the other's and the players said so (the app's "Swap the
        sides"): the hand so far is each team's play the other's
        (:meth:`~companion.hand.HandState.with_teams_swapped`), and so is all the tracker learnt of
        each side (its steady melds, piles and threes, its readings still to settle, which meld is
        which rank's, the canastas' cards), so the next readings, naming the sides the other way
        round, carry on the hand rather than play it again. Returns the rules the hand so far breaks
        now that each team's play is the other's."""
        def other(key):
            return (OTHER_TEAM[key[0]], *key[1:]) if key[0] in OTHER_TEAM else key

        for name in ("steady", "_recent", "_most", "_seen_at", "pile_contents", "guessed"):
            setattr(self, name, {other(key): value for key, value in getattr(self, name).items()})
        self._meld_numbers = {OTHER_TEAM[team]: numbers for team, numbers in self._meld_numbers.items()}
        self._laid_at = {OTHER_TEAM[team]: frame for team, frame in self._laid_at.items()}
        # events naming no team stay the same objects: a draw reported (_drawn) may be taken back
        self.events = [event if event.team is None else replace(event, team=OTHER_TEAM[event.team])
                       for event in self.events]
        self.state, broken = self.state.with_teams_swapped()
        return broken

    def update(self, reading: TableReading, frame: int | None = None) -> list[TableEvent]:
        """Take one frame's reading; return the events its confirmed changes imply. ``frame``, the
        frame's number in its video, tells the tracker how fast it is being fed (see
        :data:`READING_STEP`); a number that goes back (another video) counts as a usual step."""
        if frame is not None and self._last_frame is not None and frame > self._last_frame:
            self._steps.append(frame - self._last_frame)
            self._pace = sorted(self._steps)[len(self._steps) // 2]
        self._last_frame = frame
        seen = table_parts(reading)
        self._place_turn_card(reading, seen)
        changed = {}
        for key in sorted(set(seen) | set(self._recent)):  # in one order, whatever the hash seed
            recent = self._recent.setdefault(key, deque(maxlen=self._wait_frames()))
            recent.append(seen.get(key))
            value = self._voted(key, recent)
            if value is not _NO_CHANGE:
                changed[key] = value
                self._seen_at[key] = self._first_read(recent, value, self.steady.get(key))
        before = dict(self.steady)
        for key, value in changed.items():
            if value is None:
                self.steady.pop(key, None)
            else:
                self.steady[key] = value
        # The first confirmed table is the one found when watching began: it implies no event.
        new = self._events(before, changed) if self._frame >= self.confirm else []
        if ("turn_card",) in changed:  # a new steady turn card is counted afresh
            self._turn_card_reads, self._turn_card_rereads = 0, set()
            if self._turn_card_box is None and reading.turn_card is not None \
                    and reading.turn_card.code == changed[("turn_card",)]:
                # where the first steady turn card lies, though the reading that made it steady
                # came before it was steady: another code read there next is the same card
                self._turn_card_box = reading.turn_card.box
        self._frame += 1
        self.events += [event for event in new if event.kind != "turn_card_back"]
        return new

    def _wait_frames(self) -> int:
        return self.wait_frames or self.confirm * self.shrink_factor * READING_STEP

    def _window(self) -> int:
        """How many readings a wait lasts at the reader's pace (the median of its last steps between
        frame numbers): :attr:`wait_frames` frames, never fewer than ``confirm + 1`` readings."""
        return max(self.confirm + 1, round(self._wait_frames() / self._pace))

    def _first_read(self, recent: deque, value, steady) -> int:
        """The reading ``value`` was first read in, since ``steady`` was last read (a value read
        twice in three readings may have given way to the steady one in the last)."""
        values = list(recent)[-self._window():]
        last_steady = max((k for k, seen in enumerate(values) if seen == steady), default=-1)
        since = [k for k, seen in enumerate(values) if seen == value]
        first = next((k for k in since if k > last_steady), since[0])
        return self._frame - (len(values) - 1 - first)

    @property
    def _turn_card_at(self) -> np.ndarray | None:
        """Where the steady turn card's index was first read (its box's centre), image pixels."""
        if self._turn_card_box is None:
            return None
        x0, y0, x1, y1 = self._turn_card_box
        return np.array([(x0 + x1) / 2, (y0 + y1) / 2])

    def _place_turn_card(self, reading: TableReading, seen: dict) -> None:
        """The turn card never moves until it is drawn: a card of its code read elsewhere is another
        one (the drawn turn card discarded, or its twin from the other deck on the discard pile).
        Another code read where it lies, while it has been read there for less than a wait
        (:meth:`_window` readings), is kept as a correction: :meth:`_events` then takes the change for
        the same card read right, not for the card drawn. So is another code read in its very box
        (:data:`SAME_BOX`) however long it lay there: the turn card lies sideways under the draw
        pile's last eight cards (seed 000 §Setting up), so taking it leaves face-down cards where it
        showed, never another face (the demo hand's 10♣ turn card, read as 6♣ in the same box, was
        otherwise reported drawn long before it was)."""
        steady = self.steady.get(("turn_card",))
        self._back_in_place = False
        if reading.turn_card is None:
            return
        x0, y0, x1, y1 = reading.turn_card.box
        centre, size = np.array(reading.turn_card.centre), max(x1 - x0, y1 - y0, 1.0)
        lies_at = self._turn_card_at
        here = lies_at is None or np.linalg.norm(centre - lies_at) <= TURN_CARD_MOVE * size
        if self._drawn is not None:  # reported drawn
            if lies_at is not None and reading.turn_card.code == self._drawn[2]:
                # the card reported drawn, read again: where it lay it was hidden, not drawn (see
                # :meth:`_take_back_draw`); elsewhere it is its twin or the drawn card discarded
                self._back_in_place = bool(here)
                if not here:
                    seen[("turn_card",)] = f"{reading.turn_card.code} elsewhere"
            return
        if steady is None:
            return
        if reading.turn_card.code != steady:
            # Another code where a turn card lies that was read only a few times is the same card
            # read right at last (a small 10♣ read as 6♣ as the hand began), not the card taken; so
            # is another code in its very box, however long it lay there.
            if here and lies_at is not None and (
                    self._turn_card_reads < self._window() or iou(np.array([reading.turn_card.box]),
                                                                  np.array([self._turn_card_box]))[0, 0] >= SAME_BOX):
                self._turn_card_rereads.add(reading.turn_card.code)
            return
        if self._turn_card_box is None:
            self._turn_card_box = reading.turn_card.box
        if here:
            self._turn_card_reads += 1
        else:
            seen[("turn_card",)] = f"{steady} elsewhere"

    def _voted(self, key: tuple, recent: deque):
        """The part's new steady value, or :data:`_NO_CHANGE`: a value that adds to the steady one
        must be the one read most in the last few readings, at least :attr:`confirm` times; any
        other change must hold through every reading of a wait (:meth:`_window`)."""
        steady = self.steady.get(key)
        window = list(recent)[-(2 * self.confirm - 1):]
        votes = Counter(v for v in window if v != steady)
        if votes:
            value, count = votes.most_common(1)[0]
            if count >= self.confirm and _grows(key, steady, value):
                return value
        readings = self._window()
        wait = list(recent)[-readings:]
        if len(wait) == readings and all(v != steady for v in wait):
            value, count = Counter(wait).most_common(1)[0]
            if count >= self.confirm:
                return value
        return _NO_CHANGE

    # ------------------------------------------------------------------------------ events
    def _events(self, before: dict, changed: dict) -> list[TableEvent]:
        if self.hands_spread:
            return []  # the hand is over: what changes now is only how the spread cards are read
        if any(self.steady.get((team, "hands")) for team in TEAMS) and self._spread():
            # Spread hands end the hand; cards of theirs read as laid ones in the same frames are not
            # plays.
            self.hands_spread = True
            # A team whose melds never settled (it added to them turn after turn, faster than they
            # could) opens now with the melds it had before the hands showed: its cards count at
            # the hand's end.
            opened = [event for team in TEAMS if not self.state.teams[team].opened
                      for event in self._opening(team, table=before)]
            return opened + [TableEvent("hands_spread", frame=min(self._seen_at[(team, "hands")] for team in TEAMS
                                                                  if self.steady.get((team, "hands"))))]
        events = []
        # The turn card is drawn once a hand: a discard pile that later looks like two heaps is not it.
        turn_card = before.get(("turn_card",))
        if self._drawn is not None and changed.get(("turn_card",)) == self._drawn[2] and self._back_in_place:
            events.append(self._take_back_draw())
        elif ("turn_card",) in changed and turn_card and changed[("turn_card",)] != turn_card \
                and changed[("turn_card",)] not in self._turn_card_rereads and not self.state.turn_card.drawn:
            drawn = TurnCardDrawn()
            events.append(self._apply(drawn, TableEvent("turn_card_taken", frame=self._seen_at[("turn_card",)])))
            self._drawn = (drawn, events[-1], turn_card)
        for team in TEAMS:
            events += self._threes(team, before, changed)
            if not self.state.teams[team].opened:
                if self._laid_more(team, changed):
                    self._laid_at[team] = self._frame
                events += self._opening(team)
                continue
            for key, value in changed.items():
                if key[0] == team and key[1] == "meld" and value is not None:
                    events += self._meld(team, key[2], before.get(key) or (), value)
            for key, value in changed.items():
                # squared from a meld the hand holds (see the module's docstring)
                if (
                    key[0] == team
                    and key[1] == "pile"
                    and value is not None
                    and (team, key[2]) not in self.pile_contents
                    and key[2] in self._meld_numbers[team]
                ):
                    events += self._squared(team, key[2], value)
        return events

    def _laid_more(self, team: str, changed: dict) -> bool:
        """Whether ``changed`` lays anything of the team's not read steady before: a meld or pile
        not seen yet, or a meld read with more cards than ever. A meld read a card short for a wait
        and whole again for a moment, turn after turn (a small index read only now and then), or
        with one card read in another suit, is laid no further: counted as laid anew, two such
        melds by turns could hold a team's opening back for several plays, which it then swallowed."""
        more = False
        for key, value in changed.items():
            if key[0] != team or key[1] not in ("meld", "pile") or value is None:
                continue
            count = len(value) if key[1] == "meld" else 1
            if count > self._most.get(key, 0):
                more, self._most[key] = True, count
        return more

    def _spread(self) -> bool:
        """Whether the hand has ended with the players' cards spread: a steady row of at least
        :data:`MIN_SPREAD_CARDS` cards past a team's hand line (one card alone there, or two in
        rows of their own, are more likely misread indexes of melds whose other cards went unseen),
        once the hand can have ended (:meth:`_may_end`)."""
        return self._may_end() and any(len(row) >= MIN_SPREAD_CARDS for team in TEAMS
                                       for row in self.steady.get((team, "hands"), ()))

    def _may_end(self) -> bool:
        """Whether the hand can be over: a team has finished the canastas it needs to go out
        (seed 000 §Going out: two; seed 001 §Going out: one in the classic game), counting the
        squared piles and melds of seven the table shows for a team not reported opened yet, or the
        turn card has been drawn, so the draw pile may have run out (seed 000 §When the draw pile
        runs out; the turn card lies under its last eight cards, §Setting up). Cards read past the
        hand line before then are no spread hands (an opening laid under an arm leaves its columns'
        far cards read alone as a row past the hand line). A special hand also
        ends the hand (seed 000 §Special hands); the tracker does not read one, and the players
        enter it at the hand's end."""
        if self.state.turn_card.drawn:
            return True
        needed = self.state.variant.canastas_to_go_out
        for team in TEAMS:
            finished = sum(meld.is_canasta for meld in self.state.teams[team].melds)
            if not self.state.teams[team].opened:
                finished = sum(key[:2] == (team, "pile") or (key[:2] == (team, "meld") and len(value) >= CANASTA_SIZE)
                               for key, value in self.steady.items())
            if finished >= needed:
                return True
        return False

    def _threes(self, team: str, before: dict, changed: dict) -> list[TableEvent]:
        if (team, "threes") not in changed or changed[(team, "threes")] is None:
            return []
        # Against what the hand already holds: a three hidden for a while and seen again is no new one.
        laid = Counter(changed[(team, "threes")]) - Counter(c.code for c in self.state.teams[team].threes.cards)
        # A three the pack has no copy left of is its colour's other three misread (3♠ and 3♣ read
        # alike most often), where that one is left; its colour is what the score needs.
        used = self._laid()
        threes, misread = _in_the_pack(sorted(laid.elements()), used)
        threes += _in_the_pack([THREE_OF_THE_OTHER_SUIT[code] for code in misread], used)[0]
        return [self._apply(ThreesLaidOut(team, (Card.parse(code),)),
                            TableEvent("three_laid_out", team, cards=(code,), frame=self._seen_at[(team, "threes")]))
                for code in sorted(threes)]

    def _opening(self, team: str, table: dict | None = None) -> list[TableEvent]:
        """A team's first melds, laid in one turn: one opening, once they have settled (stayed as
        they are for as long as a card gone must stay gone: a player lays them under an arm, one
        meld after another), or at once from ``table`` when the hand is over (the steady table as it
        was before the hands showed). A canasta among them may already be squared: only its top
        card shows, the rest are taken to be like it. It also waits while one of the team's melds is
        being squared (:meth:`_squaring`): a team that squares a meld a few readings after laying it
        would otherwise open with part of it, and the canasta be reported as a play of its own."""
        if table is None:
            if self._frame - self._laid_at.get(team, self._frame) < self._window() or self._squaring(team):
                return []
            table = self.steady
        laid = {key[2]: value if key[1] == "meld" else self._unseen(value, CANASTA_SIZE, team=team, rank=key[2])
                for key, value in table.items() if key[0] == team and key[1] in ("meld", "pile") and value}
        if not laid:
            return []
        self._within_the_pack(laid, piles={key[2] for key in table if key[:2] == (team, "pile")})
        if self._most_in_a_meld is not None:  # as in _added
            laid = {rank: codes[:self._most_in_a_meld] for rank, codes in laid.items()}
        for rank in laid:
            self._meld_numbers[team][rank] = len(self._meld_numbers[team])
        melds = tuple(tuple(sorted(codes)) for codes in laid.values())
        event = self._apply(Opened(team, tuple(tuple(Card.parse(c) for c in m) for m in melds)),
                            TableEvent("opened", team, cards=tuple(c for m in melds for c in m), melds=melds,
                                       frame=min(self._seen_at.get(key, self._frame) for key in table
                                                 if key[0] == team and key[1] in ("meld", "pile"))))
        for key in [key for key in table if key[0] == team and key[1] == "pile"]:
            self._close(team, key[2])
        return [event]

    def _squaring(self, team: str) -> bool:
        """Whether a meld of the team's too small to lay (seed 000 §Melds and canastas: three cards
        at least) is being squared: a canasta pile of its rank, not steady yet (a pile must hold a
        whole wait, see :meth:`_voted`), read in the last two readings. A meld laid whole may be
        squared a turn later, a play of its own (held-out video seed 34: 8s of six opened, squared
        after the turn card was drawn); one read with fewer cards than a meld holds was squared as
        it was laid, its cards not all read yet."""
        small = {key[2] for key, meld in self.steady.items()
                 if key[:2] == (team, "meld") and len(meld) < rule_value("meld.min_cards")}
        return any(key[:2] == (team, "pile") and key[2] in small and key not in self.steady and len(recent) >= 2
                   and recent[-2] is not None and recent[-1] is not None for key, recent in self._recent.items())

    def _meld(self, team: str, rank: str, old: tuple, new: tuple) -> list[TableEvent]:
        """The event of a meld read as ``new`` where it was ``old``. A meld of a natural rank starts
        once three of its cards are read (seed 000 §Melds and canastas: three cards at least), so two
        misread corners (a joker's read as Q♣ and Q♠) make no meld. Two wild cards still start one:
        jokers read poorly (held-out video seed 28 started its wild-card meld as two jokers), and a
        meld held back would not show at all, where one of two shows the players an illegal meld."""
        numbers = self._meld_numbers[team]
        if rank in numbers:  # against what the hand already holds, not the last reading
            old = tuple(c.code for c in self.state.teams[team].melds[numbers[rank]].cards)
        elif rank != "wild" and len(new) < rule_value("meld.min_cards"):
            return []
        else:  # every card of a meld started is new, those read before it could start too
            old = ()
        added = self._added(old, new)
        if not added:
            return []
        cards = tuple(Card.parse(code) for code in added)
        if rank not in numbers:
            numbers[rank] = len(self.state.teams[team].melds)
            return [
                self._apply(
                    MeldStarted(team, cards), TableEvent("meld", team, rank, added, frame=self._played(team, rank))
                )
            ]
        # A canasta once the hand's meld reaches seven (the reading may show fewer: an arm, a lone index).
        kind = "canasta" if len(old) < CANASTA_SIZE <= len(old) + len(added) else "added_to_meld"
        return [self._apply(CardsAdded(team, numbers[rank], cards),
                            TableEvent(kind, team, rank, added, frame=self._played(team, rank)))]

    def _within_the_pack(self, laid: dict[str, tuple[str, ...]], piles: set[str]) -> None:
        """An opening's melds (rank -> codes, changed in place) with each code read more often than
        the pack holds, counting what both teams have laid, read as its rank in a suit the pack still
        has (an opening read as three 10♠). :meth:`_added` drops such a code instead, and a card laid
        later counts once it is read right; dropping them in an opening too loses cards. The cards
        of its squared canastas are guesses that already keep to the pack."""
        used = self._laid() + Counter(code for rank in piles for code in laid.get(rank, ()))
        for rank, codes in laid.items():
            if rank not in piles:
                kept, misread = _in_the_pack(codes, used)
                laid[rank] = (*kept, *_as_spares(misread, used))

    def _played(self, team: str, rank: str) -> int:
        """The reading a meld's change was first read in (the meld's, or the pile it was squared into)."""
        return max((self._seen_at[key] for key in ((team, "meld", rank), (team, "pile", rank)) if key in self._seen_at),
                   default=self._frame)

    def _added(self, old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
        """The cards a meld read as ``new`` gained over ``old``. A code read once more than the pack
        holds (two decks, four jokers: seed 000, the deal), counting the cards both teams have laid
        but not those guessed, adds nothing: it is a card already counted read twice (a four-corner
        deck's two top indexes that did not pair: fresh video seed 44's two 8♣ read as four, and its
        8s a canasta of seven where six were laid), or another card misread (held-out video seed
        35, a J♣ already counted read again as a third J♠). A card laid is added once it is read as
        a card the pack still has; a card read twice, counted as another of its rank, would stay
        for the whole hand. In Modern American a meld never grows past seven (seed 000 §Melds and
        canastas; the classic variant's may, seed 001): a card more read in one is a card counted
        twice, and is left out rather than flagged to the players as joining a finished canasta."""
        used = self._laid() - Counter(code for codes in self.guessed.values() for code in codes)
        added = _in_the_pack(sorted((Counter(new) - Counter(old)).elements()), used)[0]
        if self._most_in_a_meld is not None:
            added = added[:max(0, self._most_in_a_meld - len(old))]
        return tuple(sorted(added))

    @property
    def _most_in_a_meld(self) -> int | None:
        """The most cards a meld holds in the hand's variant (seed 000 §Melds and canastas: seven in
        Modern American); ``None`` where it may grow on (the classic game, seed 001)."""
        most = self.state.variant.rules.get("meld.max_cards")
        return None if most is None else most.value

    def _squared(self, team: str, rank: str, top: str) -> list[TableEvent]:
        """A meld squared into a pile: the cards it lacked to make seven were laid as it closed (only
        the top card shows; the rest are taken to be like it); remembered as the pile's contents.
        Seven less the cards the hand holds in the meld, not those of its last steady reading: an
        arm over it as it is squared hides some (held-out video seed 39 made a canasta of eight)."""
        meld = tuple(c.code for c in self.state.teams[team].melds[self._meld_numbers[team][rank]].cards)
        missing = max(0, CANASTA_SIZE - len(meld))
        events = []
        if missing:
            events += self._meld(team, rank, meld, meld + self._unseen(top, missing, meld, team=team, rank=rank))
        self._close(team, rank)
        return events

    def _unseen(self, top: str, count: int, seen: tuple[str, ...] = (), *, team: str, rank: str) -> tuple[str, ...]:
        """``count`` cards of a canasta squared before the camera saw them: its top card, then cards
        of its rank in suits the pack still has (a black top card on a natural rank means a mixed
        canasta, so one of them is a 2). The players correct the suits at the end if they matter.

        The top card is one of the unseen cards only if the pack still has a copy of it: players
        put a card of the right colour on top, often one the meld already showed (a meld showing
        both J♥ squared with a club under a J♥ holds two J♥, not three)."""
        if count <= 0:
            return ()
        used = self._laid() | Counter(seen)  # the seen cards of a meld already in the hand state count once
        top_is_new = used[top] < (JOKERS_IN_PACK if top == JOKER else COPIES_PER_CARD)
        used[top] += top_is_new
        card = Card.parse(top)
        guesses = count - top_is_new
        mixed = not card.is_wild and not card.is_red and guesses >= 1 and not any(Card.parse(c).is_wild for c in seen)
        rest = (*spare_cards(used, "2" if card.is_wild else card.rank, guesses - mixed),
                *(spare_cards(used, "2", 1) if mixed else ()))
        self.guessed[(team, rank)] = self.guessed.get((team, rank), ()) + rest
        return (top, *rest) if top_is_new else rest

    def _laid(self) -> Counter:
        """Each card's copies the hand holds laid, in both teams' melds and threes."""
        return Counter(c.code for side in self.state.teams.values()
                       for cards in (*(m.cards for m in side.melds), side.threes.cards) for c in cards)

    def _close(self, team: str, rank: str) -> None:
        number = self._meld_numbers[team].get(rank)
        if number is not None:
            self._apply(CanastaClosed(team, number), None)
            self.pile_contents[(team, rank)] = tuple(c.code for c in self.state.teams[team].melds[number].cards)

    def _take_back_draw(self) -> TableEvent:
        """The turn card reported drawn is read steady again where it lay: it was hidden (an arm or a
        hand resting on the draw pile for longer than a wait), not drawn, for once drawn it is gone
        for the hand, leaving face-down cards where it lay (seed 000 §Setting up and dealing). The
        hand state is played again from its events without the draw, which also gives back what the
        draw decided (bonus cards of a later opening, spread hands able to end the hand, see
        :meth:`_may_end`); a draw the players entered themselves stays. The correction is returned
        as a ``turn_card_back`` event, so the app shows the hand afresh, but is not logged. (A turn
        card unread for a few seconds early in a hand was otherwise reported drawn, and two cards
        read past a hand line later "ended" the hand and lost the plays after them.)"""
        drawn, reported, _ = self._drawn
        self.state = replay([event for event in self.state.events if event is not drawn],
                            HandState(self.state.scores, self.state.rules, self.state.variant.name))
        self._drawn = None
        self.events = [event for event in self.events if event is not reported]
        return TableEvent("turn_card_back", frame=self._seen_at[("turn_card",)])

    def _apply(self, core_event, table_event: TableEvent | None) -> TableEvent | None:
        violations = self.state.apply(core_event)
        if table_event is None:
            return None
        return replace(table_event, violations=tuple(violations))


def _in_the_pack(codes, used: Counter) -> tuple[list[str], list[str]]:
    """``codes`` split into those the pack still has a copy of beside ``used`` (which they join) and
    those it has none of (two decks, four jokers)."""
    kept, over = [], []
    for code in codes:
        if used[code] < (JOKERS_IN_PACK if code == JOKER else COPIES_PER_CARD):
            used[code] += 1
            kept.append(code)
        else:
            over.append(code)
    return kept, over


def _as_spares(codes, used: Counter) -> list[str]:
    """Each code read once more than the pack holds, as a card of its rank (a joker: a wild card) in
    a suit the pack still has beside ``used`` (which they join)."""
    return [spare for code in codes for spare in spare_cards(used, "2" if code == JOKER else Card.parse(code).rank, 1)]


def settle_guesses(teams: dict[str, dict], guessed: dict[tuple[str, str], tuple[str, ...]]) -> None:
    """Give guessed canasta cards other suits where the whole hand (cards left in hands included,
    which the camera sees only at the end) would otherwise hold a card more often than the pack.

    ``teams`` is a hand file's ``teams`` (melds, threes, hands per team), changed in place.
    """
    counts = Counter(code for side in teams.values()
                     for cards in (*side.get("melds", []), side.get("threes", []), *side.get("hands", []))
                     for code in cards)
    for (team, rank), codes in guessed.items():
        meld = next((m for m in teams[team]["melds"] if meld_key(m) == rank), None)
        for code in codes:
            limit = JOKERS_IN_PACK if code == JOKER else COPIES_PER_CARD
            if meld is None or counts[code] <= limit or code not in meld:
                continue
            counts[code] -= 1
            meld[meld.index(code)] = _as_spares([code], counts)[0]

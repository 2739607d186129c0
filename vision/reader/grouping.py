"""Physical cards into the parts of the table: melds, canasta piles, threes, hands and the middle.

Read in each team's upright frame, where a card is about :meth:`CardsSeen.card_size` big and the
table's middle is at 0. Players lay a team's melds in a row of columns (or fans) a card's height or
so from the middle, each column's cards a third of a card apart; a finished canasta squared into a
pile shows one card; threes lie in a row beside the melds; at the end of a hand each partner's cards
are spread in a row further out. So cards one step apart (down a column, along a row or fan) belong
together, and where a group lies and what ranks it holds says what it is.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from companion.cards import Card
from companion.rulebook import value
from vision.reader.detections import union_box
from vision.reader.physical_cards import MIDDLE_HALF_BAND, TURN_CARD_NEAR, TURNED_TWINS, CardsSeen, SeenCard
from vision.reader.reading import TEAMS, CanastaPile, ReadCard, ReadMeld, TableReading, TeamReading
from vision.reader.team_areas import MIDDLE

#: Cards whose indexes lie within the first number of card heights of the table's middle line are
#: the middle's (the discard pile and turn card); beyond the second, a team's. A team's nearest
#: indexes, the tops of its meld columns, are about 0.6 card heights out, and a discard card turned
#: on the pile reaches about as far, so between the two a card is the team's only when the next card
#: of its column lies below it. That takes card sizes measured alike everywhere: the table's
#: top-down view; otherwise (sizes and the middle line guessed) the band ends at the first number.
MIDDLE_BAND = (MIDDLE_HALF_BAND, 0.75)
#: A group starting further out than this many card heights, and no taller than the second number
#: (a row), is a partner's spread hand.
HAND_LINE = 2.45
HAND_ROW_HEIGHT = 0.6
#: Where the table's middle line is guessed (no top-down view: a phone photo, a table with team
#: areas but not its corners), card heights from it are guessed too, and a team's cards may all lie
#: nearer it than they are: a row of at least HAND_ROW_CARDS cards of what a hand leaves
#: (:func:`_left_over`), spread across, lying HAND_BEYOND card heights or more beyond all the team's
#: other cards is a spread hand as well. Read without a set-up, the first 300 held-out tables had
#: two such rows, both spread hands (0.65 and 0.89 card heights beyond); the nearest meld row of
#: three lay 0.56 beyond, and rows of two (a meld's two cards 0.71 beyond, a close-up's turn card's
#: two corners 1.59) are left out; the first 200 close-ups had none. The demo's far hand, read with
#: its team areas, lies 0.75 beyond its canasta piles; photographed, 1.65.
HAND_ROW_CARDS = 3
HAND_BEYOND = 0.6
#: A mixed meld holds at most two wild cards (seed 000 §Natural and mixed melds).
MAX_WILDS_IN_MIXED = 2
#: The turn card shows at least this many card heights beside the discard pile.
TURN_CARD_GAP = 0.25
#: An index box less tall than this share of its width, in the table's top-down view, is turned
#: sideways: the turn card's (the discard pile's cards lie askew by 20° at most).
SIDEWAYS = 1.0
#: ... and one at least this tall for its width stands upright: a discard (:func:`_stock_on_right`).
UPRIGHT = 1.05
#: A card whose index's top turns further than the first of these from the table's axis (the sine
#: of the angle, :attr:`SeenCard.across`; 0.8: 53°) lies sideways, as the turn card does; one that
#: turns less than the second (24°) lies along it, as a discard does. Between the two the facing
#: network's direction tells neither: the camera's slant bends angles on the table (a turn card
#: can read 0.5 and a discard 0.87).
ACROSS = (0.8, 0.4)
#: ... and with team areas or the table's perspective, whose axis is surer than one guessed from the
#: cards' facing, every card on the left less than this (37°): a discard lying askew on the pile
#: beside a turn card reads about 0.5 (``bench/turn_card_side.py`` measures the choice).
ACROSS_SET_UP = 0.6
#: Indexes of a turn card further towards the discard pile than this share of a card's width from
#: its farthest from the pile are not its own (its one visible end is about level across the table).
TURN_CARD_END = 0.25
#: A fanned meld's last card may lie up to this many card heights above the one before it.
FAN_RISE = 0.25
#: The next card of a column lies below a card by less than the first share of a card's width across,
#: and between the second and third shares of its height down (players overlap columns by 0.26–0.34).
COLUMN_STEP = (0.25, 0.15, 0.5)
#: A weak card continues a column when its top-left index lies less than the first share of a card's
#: width across from a counted card of its rank, and between the second and third shares of its
#: height above it: a column's earlier cards lie above its later ones (a card seen by its lower index
#: alone is placed a card's index diagonal too far down and right). Not level with it: a weak find
#: there is most often the same index read again as another card.
CONTINUES = (1.0, 0.1, 1.5)
#: A card seen by one find less than this share the size of its side's cards seen by two or more
#: (their median index size) is a mark on a card's face, not an index: gnome-tango prints a small
#: suit sign in the two corners without an index, which the detector reads as jokers, 0.37 of the
#: index size (check hand video seed 66: one read alone before team A opened made a canasta pile of
#: wild cards, and its opening a wild canasta). Genuine indexes come down to 0.46 of their side's
#: size (jokers from another deck, on the sixteen held-out hand videos' labelled boxes).
MIN_INDEX_SHARE = 0.42
#: The fewest cards of a meld (the rule book's ``meld.min_cards``: seed 000 §Melds and canastas).
MIN_MELD = value("meld.min_cards")
#: Cards one step apart: their top-left indexes within this share of a card's width and height.
STEP = (0.6, 0.55)
#: Two indexes of a card are its top-left and bottom-right (:func:`_lower_index_of`) where they lie at
#: least the first share of a card's width apart across and their mean at least the second share of
#: its height below the higher: the index diagonal is about 0.74 widths across and 0.7 heights down
#: (its mean 0.35 below). A card's two bottom indexes lie level, and its two down a side one above the
#: other (a deck with an index in every corner).
DIAGONAL_PAIR = (0.4, 0.2)


def group_cards(seen: CardsSeen, image_size: tuple[int, int], areas_set: bool = False) -> TableReading:
    """The reading of a frame's cards. With team areas set, the middle is what lies in neither;
    otherwise a band along the middle line. A weak card (:attr:`SeenCard.weak`) counts only where it
    continues a meld column (:func:`_continuing_columns`)."""
    cards = _continuing_columns(seen, _indexes(seen))
    middle = [c for c in cards if c.side == MIDDLE or (not areas_set and _in_middle(c, seen, cards))]
    teams = {}
    for team in TEAMS:
        width, height = seen.card_size(team)
        side = [c for c in cards if c.side == team and c not in middle]
        teams[team] = _team_reading(_linked_groups(side, width, height), seen, width, height)
    discard, turn_card = _middle(middle, seen.card_size(MIDDLE), seen.top_down, seen.turn_card, seen.turn_card_at,
                                 areas_set)
    return TableReading(image_size, teams, discard, turn_card)


def _indexes(seen: CardsSeen) -> list[SeenCard]:
    """The frame's cards but those seen by one find far smaller than the indexes of their side's
    cards seen by two or more (:data:`MIN_INDEX_SHARE`): marks on a card's face."""
    cards = list(seen.cards)
    for side in TEAMS:
        paired = [c.index_size for c in cards if c.side == side and len(c.detections) > 1 and c.index_size]
        if len(paired) < 2:
            continue
        least = MIN_INDEX_SHARE * float(np.median(paired))
        cards = [c for c in cards if c.side != side or len(c.detections) > 1 or not c.index_size
                 or c.index_size >= least]
    return cards


def _continuing_columns(seen: CardsSeen, cards: list[SeenCard]) -> list[SeenCard]:
    """``cards`` but the weak ones that continue no meld column: a weak card counts when it
    is a natural card (not a three) on a team's side whose sure cards show its rank once, and lies
    above a counted card of its rank (counted weak cards included) as :data:`CONTINUES` says, its
    index about that card's size (:meth:`~vision.reader.physical_cards.CardsSeen.one_deck`). A
    column's first cards show only a strip with their index (the later cards cover the rest), which
    the detector is less sure of than the last card's whole face: alone, that card reads as a
    canasta pile (one card showing), a meld of seven. Weak cards that make no meld of
    :data:`MIN_MELD` cards with their sure one count for nothing. Where the sure cards show a rank
    more than once, weak finds add nothing: let them join any column of their rank and they add
    cards that were never laid.
    """
    counted = [c for c in cards if not c.weak]
    lone = {(side, rank) for side in TEAMS for rank, n in
            Counter(_kind(c) for c in counted if c.side == side).items() if n == 1}
    waiting = [c for c in cards if c.weak and (c.side, _kind(c)) in lone and _kind(c) != "wild"
               and not Card.parse(c.code).is_three]
    grew = True
    while grew and waiting:
        grew = False
        for card in list(waiting):
            width, height = seen.card_size(card.side)
            if any(other.side == card.side and _kind(other) == _kind(card) and seen.one_deck(card, other)
                   and abs(other.top_left[0] - card.top_left[0]) < CONTINUES[0] * width
                   and CONTINUES[1] * height < other.top_left[1] - card.top_left[1] < CONTINUES[2] * height
                   for other in counted):
                counted.append(card)
                waiting.remove(card)
                grew = True
    # A meld holds three cards at least: one weak card beside a lone sure one is no column.
    short = {(side, rank) for side, rank in lone
             if sum(c.side == side and _kind(c) == rank for c in counted) < MIN_MELD}
    return [c for c in cards if c in counted and not (c.weak and (c.side, _kind(c)) in short)]


def _in_middle(card: SeenCard, seen: CardsSeen, cards: list[SeenCard]) -> bool:
    """Whether a card, read without team areas, lies in the middle of the table (see :data:`MIDDLE_BAND`)."""
    width, height = seen.card_size(card.side)
    near, far = (bound * height for bound in MIDDLE_BAND)
    if abs(card.index_y) < near:
        return True
    if abs(card.index_y) >= far or not seen.top_down:
        return False
    return not any(other.side == card.side and _next_in_column(card, other, width, height) for other in cards)


def _next_in_column(card: SeenCard, other: SeenCard, width: float, height: float) -> bool:
    """Whether ``other`` lies where the next card of ``card``'s meld column goes: straight below it by
    about a column's overlap, of its rank (or a wild card)."""
    across = abs(other.top_left[0] - card.top_left[0])
    down = other.top_left[1] - card.top_left[1]
    fits = _kind(other) == _kind(card) or _kind(other) == "wild"
    return fits and across < COLUMN_STEP[0] * width and COLUMN_STEP[1] * height < down < COLUMN_STEP[2] * height


def _linked_groups(cards: list[SeenCard], width: float, height: float) -> list[list[SeenCard]]:
    """Cards joined by one-step links (down a column, along a row or a fan)."""
    points = np.array([c.top_left for c in cards]).reshape(-1, 2)
    near = (np.abs(points[:, None, 0] - points[None, :, 0]) < STEP[0] * width) & \
           (np.abs(points[:, None, 1] - points[None, :, 1]) < STEP[1] * height)
    if not len(cards):
        return []
    _, label = connected_components(csr_matrix(near), directed=False)
    groups: dict[int, list[SeenCard]] = {}
    for card, lab in zip(cards, label):
        groups.setdefault(lab, []).append(card)
    return list(groups.values())


def _team_reading(groups: list[list[SeenCard]], seen: CardsSeen, width: float, height: float) -> TeamReading:
    cards = [c for g in groups for c in g]
    groups = [g for g in groups if not _lower_index_of(g, cards, seen, width, height)]
    # A partner's spread hand is a row; cards past the hand line stacked down a column are melds.
    rows = [g for g in groups if np.ptp([c.top_left[1] for c in g]) < HAND_ROW_HEIGHT * height]
    hands = [g for g in rows if min(c.top_left[1] for c in g) > HAND_LINE * height]
    if not seen.top_down:
        spread = [g for g in rows if len(g) >= HAND_ROW_CARDS and _left_over(g)
                  and np.ptp([c.top_left[0] for c in g]) > np.ptp([c.top_left[1] for c in g])]
        others = [c.top_left[1] for g in groups if g not in spread for c in g]
        if others:
            hands += [g for g in spread if g not in hands
                      and min(c.top_left[1] for c in g) > max(others) + HAND_BEYOND * height]
    laid = [c for g in groups if g not in hands for c in g]
    # Threes past the hand line are the threes row, but for a lone three further out than all the
    # team has laid: a hand that ended on a three drawn last holds it (see :func:`_threes_row`).
    farthest = max((c.top_left[1] for c in laid), default=np.inf)
    strays = [g for g in hands if (_threes_row(g) and (len(g) > 1 or g[0].top_left[1] <= farthest))
              or _end_of_column(g, laid, width, height)]
    laid += [c for g in strays for c in g]
    # Spread hands lie further out than every meld column reaches (players spread them beyond
    # their melds): a row short of a column's far end is that column's misread end, which no play
    # explains, so it counts for nothing.
    reach = max((c.top_left[1] for c in laid), default=-np.inf)
    hands = [g for g in hands if g not in strays and min(c.top_left[1] for c in g) > reach]
    threes = [c for c in laid if Card.parse(c.code).is_three]
    melds, piles = [], []
    for cards in _melds_by_rank([c for c in laid if c not in threes], width, height):
        x = float(np.mean([c.centre[0] for c in cards]))
        if len(cards) == 1:
            if not _lower_index_of(cards, laid, seen, width, height):  # a 6 or 9 linked to its card's column
                piles.append(CanastaPile(_read(cards[0]), x))
        else:
            melds.append(ReadMeld(tuple(_read(c) for c in _in_reading_order(cards, height)), x))
    return TeamReading(tuple(sorted(melds, key=lambda m: m.x)), tuple(sorted(piles, key=lambda p: p.x)),
                       tuple(_read(c) for c in sorted(threes, key=lambda c: c.top_left[0])), _two_hands(hands))


def _melds_by_rank(cards: list[SeenCard], width: float, height: float) -> list[list[SeenCard]]:
    """A team melds each rank once, so its natural cards of one rank are one meld (adjacent fans
    interleave, so position alone cannot tell them apart); wild cards join the meld they sit in (a
    meld's card just above, through other wild cards), or else make a wild-card meld."""
    naturals: dict[str, list[SeenCard]] = {}
    wilds = []
    for card in cards:
        parsed = Card.parse(card.code)
        if parsed.is_wild:
            wilds.append(card)
        else:
            naturals.setdefault(parsed.rank, []).append(card)
    melds = list(naturals.values())
    for chain in _linked_groups(wilds, width, height):
        if len(chain) > MAX_WILDS_IN_MIXED:
            melds.append(chain)  # more wild cards than a mixed meld holds: a wild-card meld
            continue
        # A wild card sits at the end of a meld (never on a pile: one natural card alone): below it
        # in a column, a joker's index (printed elsewhere than the other decks') up to a card away;
        # or one step beside it in a fan, whose cards may rise towards the middle.
        near = [(abs(n.top_left[0] - w.top_left[0]) / width + abs(n.top_left[1] - w.top_left[1]) / height, i)
                for i, meld in enumerate(melds[:len(naturals)]) if len(meld) > 1 for n in meld for w in chain
                if _sits_after(w, n, width, height)]
        if near:
            melds[min(near)[1]] += chain
        else:
            melds.append(chain)
    return melds


def _sits_after(wild: SeenCard, natural: SeenCard, width: float, height: float) -> bool:
    """Whether a wild card lies where the next card of a meld goes after ``natural``."""
    across = abs(wild.top_left[0] - natural.top_left[0])
    down = wild.top_left[1] - natural.top_left[1]
    return (across < width and 0 < down < height) or (across < STEP[0] * width and -FAN_RISE * height < down <= 0)


def _in_reading_order(cards: list[SeenCard], height: float) -> list[SeenCard]:
    return sorted(cards, key=lambda c: (round(c.top_left[1] / (0.15 * height)), c.top_left[0]))


def _lower_index_of(group: list[SeenCard], cards: list[SeenCard], seen: CardsSeen, width: float, height: float) -> bool:
    """Whether a card alone, seen by one index (or two, below), is the lower index of a card just
    above it that has the same code and was seen by one index too: the last card of a column or
    row, whose indexes did not pair (a deck whose indexes sit elsewhere, such as the jokers'); not
    where both are seen by one index that differ in size as two decks' do (twins of two decks in a
    fan: a lone lower index under a card seen by more may be one of its own, partly covered). A lone
    6 below a 9 of its suit, or a 9 below a 6, is such a lower index too, read as its turned twin
    (:data:`~vision.reader.physical_cards.TURNED_TWINS`) where its card's diagonal did not pair the
    two (held-out video seed 31: the bottom index of the far side's last 6♦ of a column, read 9♦,
    made a canasta pile of 9s for the whole hand). A card seen by two indexes is such a lower corner
    only where they are not its top-left and bottom-right (:data:`DIAGONAL_PAIR`): a deck with an
    index in every corner shows its two bottom ones level, and two down a side. A top-left and
    bottom-right pair is a whole card (a fan's card below its twin in a close-up was dropped so)."""
    if len(group) > 1 or len(group[0].detections) > 2:
        return False
    lone = group[0]
    if len(lone.detections) == 2 and lone.index_y - lone.top_left[1] >= DIAGONAL_PAIR[1] * height \
            and np.ptp(lone.index_xs) >= DIAGONAL_PAIR[0] * width:
        return False
    return any(card is not lone and card.code in (lone.code, _turned_twin(lone.code))
               and (len(card.detections) > 1 or seen.one_deck(card, lone))
               and abs(lone.top_left[0] - card.top_left[0]) < width
               and 0.3 * height < lone.top_left[1] - card.top_left[1] < 1.5 * height for card in cards)


def _turned_twin(code: str) -> str:
    """The code a card's index reads as turned half round: a 6 as a 9 of its suit, and back."""
    return TURNED_TWINS.get(code[:-1], code[:-1]) + code[-1]


def _end_of_column(group: list[SeenCard], laid: list[SeenCard], width: float, height: float) -> bool:
    """Whether cards past the hand line are the ends of meld columns above them whose middle cards
    went unseen (under an arm, or only a lower index showing): each card of its column's rank, or a
    wild card below wild cards, just below a column. The ends of two columns side by side may link
    into one row (a table turned askew to the camera), so each card is matched on its own."""
    return all(any(_kind(end) == _kind(card) and abs(end.top_left[0] - card.top_left[0]) < width
                   and 0 < end.top_left[1] - card.top_left[1] < 2 * height for card in laid) for end in group)


def _left_over(group: list[SeenCard]) -> bool:
    """Whether a row's cards look like a spread hand, not melds laid side by side (fans linked into
    one row, a canasta pile beside them): fewer than half its natural cards are of a rank it shows
    three or more of. Every meld holds three cards or more, and what is left in a hand at its end
    seldom does: three of a rank would have been melded."""
    naturals = Counter(_kind(card) for card in group if _kind(card) != "wild")
    total = sum(naturals.values())
    return total > 1 and sum(count for count in naturals.values() if count >= 3) < total / 2


def _threes_row(group: list[SeenCard]) -> bool:
    """Whether a row past the hand line is a team's threes: every three is laid face up the moment
    it is drawn (seed 000 §Threes; only the draw pile's last card, or a straight being collected,
    stays in a hand), so a row of threes alone is the threes row, which lies beside the melds and
    reaches as far out as they do, not a spread hand. A lone three further out than all the team
    has laid is the draw pile's last card, left in the hand that drew it: the hand ends there, and
    it counts against the team (seed 000 §Threes); no hand holds more than that one three."""
    return all(Card.parse(card.code).is_three for card in group)


def _kind(card: SeenCard) -> str:
    parsed = Card.parse(card.code)
    return "wild" if parsed.is_wild else parsed.rank


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


def _middle(cards: list[SeenCard], card_size: tuple[float, float], top_down: bool = False,
            known: str | None = None, known_at: tuple[float, float] | None = None, areas_set: bool = False
            ) -> tuple[tuple[ReadCard, ...], ReadCard | None]:
    """The discard pile, and the turn card: it lies sideways under the draw pile, beside the discard
    pile, so it is the card of a second heap: left of the discard pile as team A sees the table, or
    right of it where earlier frames read the turn card there or only that heap has a sideways card
    (:func:`_stock_on_right`: where the stock lies is the table's choice, and which side is team
    A's the players'). Only its end sticks out from under the draw pile, so the gap seen is small;
    a card of the discard pile peeking out beside the top one leaves as big a gap. In the table's
    top-down view the turn card also shows its index sideways (:data:`SIDEWAYS`), which tells the
    two apart. Of that heap's cards the one of the ``known`` code (the turn card as the video's
    earlier frames read it) is it, else the surest: a card of the discard pile pushed aside may
    read surer. Of two cards of that code, the one nearer where those frames read it (``known_at``,
    image pixels): the turn card's twin from the other deck may lie on the discard pile, in the heap
    too, and read surer. Without the top-down view, a heap whose every card the facing network read
    lying along the table's axis (:func:`_all_along`) holds discards pushed aside, not the turn card,
    unless earlier frames read a card of it as the turn card: no turn card then
    (``bench/turn_card_side.py`` measures it)."""
    def table_x(card: SeenCard) -> float:  # back from team B's turned frame to the table's
        return -card.centre[0] if card.side == "B" else card.centre[0]

    width, height = card_size
    cards = sorted(cards, key=table_x)
    gaps = [table_x(b) - table_x(a) for a, b in zip(cards, cards[1:])]
    if not gaps or max(gaps) < TURN_CARD_GAP * height:
        return tuple(_read(c) for c in cards), None
    cut = int(np.argmax(gaps)) + 1
    right = _stock_on_right(cards[:cut], cards[cut:], known, known_at, top_down, areas_set)
    heap = [c for c in (cards[cut:] if right else cards[:cut]) if not top_down or 0 < c.index_aspect < SIDEWAYS]
    if not top_down and _all_along(heap) and not any(c.code == known for c in heap):
        heap = []  # discards pushed aside on the pile: the turn card lies sideways
    if not heap:
        return tuple(_read(c) for c in cards), None
    def nearness(card: SeenCard) -> float:  # to where earlier frames read the turn card, image pixels
        if card.code != known or known_at is None:
            return 0.0
        x0, y0, x1, y1 = card.box
        return -float(np.hypot((x0 + x1) / 2 - known_at[0], (y0 + y1) / 2 - known_at[1]))

    turn_card = max(heap, key=lambda c: (c.code == known, nearness(c), c.confidence))
    end, rest = _turn_card_end(turn_card, width, -1 if right else 1)
    # A deck with indexes in all four corners shows two at the turn card's end, level across the
    # table: one that did not pair with it is its own still, not the discard pile's (choice video
    # seed 40: the two read by turns, 2.2 index sizes apart, so the tracker took the turn card for
    # drawn two plays early).
    own = [c for c in heap if c is not turn_card and c.code == turn_card.code
           and abs(table_x(c) - table_x(turn_card)) < TURN_CARD_END * width]
    if own:
        end = ReadCard(end.code, union_box([end.box] + [c.box for c in own]), end.confidence)
    return tuple(_read(c) for c in cards if c is not turn_card and c not in own) + rest, end


def _all_along(heap: list[SeenCard]) -> bool:
    """Whether the facing network read every card of a heap lying along the table's axis, as discards
    lie (:data:`ACROSS`'s second number): a heap with a card it did not read may hold the turn card."""
    return all(np.isfinite(c.across) and c.across < ACROSS[1] for c in heap)


def _stock_on_right(left: list[SeenCard], right: list[SeenCard], known: str | None,
                    known_at: tuple[float, float] | None, top_down: bool = False, areas_set: bool = False) -> bool:
    """Whether the turn card is the heap right of the discard pile's (as team A sees the table)
    rather than left: a card of the code earlier frames read as the turn card lies there, where
    they read it, and none on the left; else where the facing network read a card there lying
    sideways and every card on the left along the table (:data:`ACROSS`; with team areas or the
    table's perspective, ``areas_set`` or ``top_down``, :data:`ACROSS_SET_UP`); else, in the table's
    top-down view, where a card there lies sideways (:data:`SIDEWAYS`) and every card on the left
    stands upright (:data:`UPRIGHT`). (Without the top-down view the index boxes' shapes do not
    tell: a discard askew on the pile looks as wide, and held-out hand video seed 32, read without
    a set-up, took one for the turn card in its first frames and reported the turn card drawn 237
    frames before it was.)"""
    def known_near(heap: list[SeenCard]) -> bool:  # within TURN_CARD_NEAR index sizes of where it was read
        return known_at is not None and any(
            card.code == known and np.hypot((x0 + x1) / 2 - known_at[0], (y0 + y1) / 2 - known_at[1])
            < TURN_CARD_NEAR * max(x1 - x0, y1 - y0) for card in heap for x0, y0, x1, y1 in card.index_boxes)

    if known_near(right) != known_near(left):
        return known_near(right)
    across = [max((c.across for c in heap if np.isfinite(c.across)), default=np.nan) for heap in (left, right)]
    if across[1] > ACROSS[0] and across[0] < (ACROSS_SET_UP if areas_set or top_down else ACROSS[1]):
        return True
    if not top_down:
        return False
    aspects = [[c.index_aspect for c in heap if c.index_aspect > 0] for heap in (left, right)]
    return all(aspects) and min(aspects[1]) < SIDEWAYS and min(aspects[0]) >= UPRIGHT


def _turn_card_end(card: SeenCard, width: float, towards_discard: int = 1) -> tuple[ReadCard, tuple[ReadCard, ...]]:
    """The turn card shows one end, from under the draw pile: indexes of its code paired with it
    that lie further towards the discard pile (``towards_discard``: 1 when that is right as team A
    sees the table, -1 left) are its twin's from the other deck, on the discard pile. Indexes at the
    one end (a deck with indexes in all four corners shows two there) lie about level across the
    table."""
    if len(card.index_boxes) < 2:
        return _read(card), ()
    xs = np.array(card.index_xs) * (-1 if card.side == "B" else 1) * towards_discard
    end = [k for k in range(len(xs)) if xs[k] - xs.min() < TURN_CARD_END * width]
    rest = [k for k in range(len(xs)) if k not in end]
    return ReadCard(card.code, union_box([card.index_boxes[k] for k in end]), card.confidence), \
        ((ReadCard(card.code, union_box([card.index_boxes[k] for k in rest]), card.confidence),) if rest else ())


def _read(card: SeenCard) -> ReadCard:
    return ReadCard(card.code, card.box, card.confidence)

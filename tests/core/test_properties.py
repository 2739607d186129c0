"""Invariants of the engine, checked on generated hands (hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import NATURAL_RANKS, SUITS, Card
from companion.end_of_hand import EndOfHand, TeamHand
from companion.handfile import HandFileError, score_report
from companion.legality import meld_shape_problems
from companion.melds import Meld
from companion.scoring import score_hand
from companion.table_rules import TableRules
from companion.threes import Threes
from companion.variant import Classic

natural = st.builds(Card, st.sampled_from(NATURAL_RANKS), st.sampled_from(SUITS))
wild = st.one_of(st.just(Card("JK", None)), st.builds(Card, st.just("2"), st.sampled_from(SUITS)))
any_card = st.one_of(natural, wild, st.builds(Card, st.just("3"), st.sampled_from(SUITS)))


@st.composite
def melds(draw):
    """Well-formed or not: a rank, some naturals of it, some wild cards, sometimes a stray card."""
    rank = draw(st.sampled_from(NATURAL_RANKS))
    cards = [Card(rank, draw(st.sampled_from(SUITS))) for _ in range(draw(st.integers(0, 8)))]
    cards += draw(st.lists(wild, max_size=4))
    if draw(st.booleans()) and draw(st.integers(0, 9)) == 0:
        cards.append(draw(any_card))
    return Meld(tuple(draw(st.permutations(cards))))


@given(melds())
def test_every_meld_the_engine_accepts_has_3_to_7_cards_of_one_rank_and_at_most_2_wild(meld):
    if not meld_shape_problems(meld):
        assert 3 <= len(meld.cards) <= 7
        assert len(meld.ranks) <= 1
        assert len(meld.wilds) <= 2 or meld.is_wild_meld
        assert not (meld.rank == "7" and meld.wilds)


@given(melds())
def test_classic_accepts_at_least_two_naturals_and_three_wild_at_most(meld):
    if not Classic().meld_problems(meld, TableRules()):
        assert len(meld.naturals) >= 2 and len(meld.wilds) <= 3 and len(meld.cards) >= 3


@st.composite
def team_hands(draw):
    valid = [m for m in draw(st.lists(melds(), max_size=5)) if not meld_shape_problems(m)]
    threes = draw(st.lists(st.builds(Card, st.just("3"), st.sampled_from(SUITS)), max_size=4))
    hands = draw(st.lists(st.lists(any_card, max_size=6), max_size=2))
    return TeamHand(melds=tuple(valid), hands=tuple(tuple(h) for h in hands), threes=Threes(tuple(threes)))


@settings(max_examples=200)
@given(team_hands(), st.randoms(use_true_random=False))
def test_order_of_melds_does_not_change_the_score(team, random):
    shuffled = list(team.melds)
    random.shuffle(shuffled)
    a = score_hand(EndOfHand(teams={"A": team, "B": TeamHand()}))["A"].total
    b = score_hand(
        EndOfHand(teams={"A": TeamHand(melds=tuple(shuffled), hands=team.hands, threes=team.threes), "B": TeamHand()})
    )["A"].total
    assert a == b


@settings(max_examples=200)
@given(team_hands(), team_hands(), st.sampled_from(["A", "B", None]))
def test_team_labels_do_not_matter(one, other, went_out):
    swap = {"A": "B", "B": "A", None: None}
    a = score_hand(EndOfHand(teams={"A": one, "B": other}, went_out=went_out))
    b = score_hand(EndOfHand(teams={"A": other, "B": one}, went_out=swap[went_out]))
    assert a["A"].total == b["B"].total and a["B"].total == b["A"].total


@given(team_hands())
def test_total_is_the_sum_of_its_lines_and_cards_in_hand_only_cost(team):
    score = score_hand(EndOfHand(teams={"A": team, "B": TeamHand()}))["A"]
    assert score.total == sum(line.points for line in score.lines)
    without_hands = score_hand(EndOfHand(teams={"A": TeamHand(melds=team.melds, threes=team.threes), "B": TeamHand()}))[
        "A"
    ]
    assert score.total <= without_hands.total


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(
                st.sampled_from(["teams", "A", "B", "melds", "hands", "threes", "went_out", "variant"]),
                inner,
                max_size=3,
            )
        ),
        max_leaves=12,
    )
)
def test_any_json_either_scores_or_raises_a_hand_file_error(data):
    try:
        report = score_report(data)
    except HandFileError as error:
        assert "\n" not in str(error)
    else:
        assert set(report) == {"variant", "teams", "game_over", "winner"}

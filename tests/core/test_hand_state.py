"""The hand state driven by table events (seed 000 throughout)."""

import pytest

from companion.hand import (
    CanastaClosed,
    CardsAdded,
    HandEnded,
    HandState,
    MeldStarted,
    Opened,
    PackTaken,
    SpecialHandLaid,
    ThreesLaidOut,
    TurnCardDrawn,
    WentOut,
)
from companion.table_rules import TableRules


def rules_of(violations):
    return [v.rule for v in violations]


def opened(state, cards, team="A", text="KH KS KD, QH QS QD, 8H 8S 8D JK", stock_left=60):
    return state.apply(Opened(team, tuple(cards(m) for m in text.split(",")), stock_left=stock_left))


def test_seed_000_the_140_point_opening(cards):
    """Seed 000 §Counting an opening: at 1,200 points, kings + queens + three 8s and a joker = 140 ≥ 125."""
    state = HandState(scores={"A": 1200, "B": 0})
    assert opened(state, cards) == ()
    assert state.teams["A"].opened


def test_seed_000_without_the_queens_110_is_not_enough(cards):
    state = HandState(scores={"A": 1200, "B": 0})
    violations = opened(state, cards, text="KH KS KD, 8H 8S 8D JK")
    assert rules_of(violations) == ["opening.minimum"]
    assert "110" in violations[0].message and "125" in violations[0].message


@pytest.mark.parametrize(
    "score, points_ok, points_short",
    [
        (3000, "AH AS AD, KH KS KD KC JK 2C", "AH AS AD, KH KS KD KC 2C"),
        (5000, "AH AS AD, KH KS KD KC JK 2C, 9H 9S 9D", "AH AS AD, KH KS KD KC JK 2C"),
    ],
)
def test_opening_minimum_rises_with_the_score(cards, score, points_ok, points_short):
    assert opened(HandState(scores={"A": score, "B": 0}), cards, text=points_ok) == ()
    assert rules_of(opened(HandState(scores={"A": score, "B": 0}), cards, text=points_short)) == ["opening.minimum"]


def test_opening_needs_a_clean_triple(cards):
    state = HandState()
    violations = opened(state, cards, text="AH AS JK, KH KS 2C, QH QS JK")
    assert "opening.clean_triple" in rules_of(violations)


def test_opening_with_a_wild_meld_is_a_table_rule(cards):
    text = "2C 2D JK JK 2H"
    assert "opening.clean_triple" in rules_of(opened(HandState(), cards, text=text))
    assert opened(HandState(rules=TableRules(open_with_wild_meld=True)), cards, text=text) == ()


def test_bonus_cards_4_first_3_second_none_late_or_from_the_pack(cards):
    state = HandState()
    opened(state, cards, team="A")
    opened(state, cards, team="B", text="AH AS AD, 9H 9S 9D JK, 10H 10S 10D")
    assert state.bonus_cards == {"A": 4, "B": 3}
    late = HandState()
    opened(late, cards, stock_left=8)
    assert late.bonus_cards == {}
    after_turn = HandState()
    after_turn.apply(TurnCardDrawn())
    opened(after_turn, cards, stock_left=8)
    assert after_turn.bonus_cards == {}
    pack = HandState()
    pack.apply(Opened("A", (cards("KH KS KD KC"), cards("AH AS AD AC JK")), stock_left=50, pack_top=cards("KC")[0]))
    assert pack.bonus_cards == {}


def test_opening_from_the_pack_counts_only_cards_from_hand(cards):
    """Seed 000 §Taking the pack to open: the top card counts toward neither the triple nor the minimum."""
    state = HandState()
    top = cards("AC")[0]
    violations = state.apply(Opened("A", (cards("AH AS AC"), cards("KH KS KD JK")), pack_top=top))
    # 40 + 80 = 120 from hand < 125; the aces are only a pair from hand and the kings hold a joker
    assert set(rules_of(violations)) == {"opening.minimum", "opening.clean_triple"}
    fine = HandState().apply(Opened("A", (cards("AH AS AD AC"), cards("KH KS KD JK")), pack_top=top))
    assert fine == ()


def test_after_opening_the_rule_of_five(cards):
    state = HandState()
    opened(state, cards)
    assert rules_of(state.apply(MeldStarted("A", cards("5H 5S 2C")))) == ["meld.rule_of_five"]
    state = HandState(rules=TableRules(wild_card_threshold=2))
    opened(state, cards)
    assert state.apply(MeldStarted("A", cards("5H 5S 2C"))) == ()


def test_melding_before_opening_is_flagged(cards):
    assert rules_of(HandState().apply(MeldStarted("A", cards("5H 5S 5D")))) == ["meld.not_opened"]


def test_a_finished_canasta_kills_its_rank_for_both_teams(cards):
    state = HandState()
    opened(state, cards)
    state.apply(CardsAdded("A", 0, cards("KC KH KS KD")))
    assert "K" in state.dead_ranks and str(state.dead_ranks) == "kings"
    opened(state, cards, team="B", text="AH AS AD, 9H 9S 9D JK, 10H 10S 10D")
    assert rules_of(state.apply(MeldStarted("B", cards("KC KH KS")))) == ["meld.dead_rank"]


def test_dead_rank_on_natural_canasta_only_is_a_table_rule(cards):
    state = HandState(rules=TableRules(dead_rank_on="natural_canasta"))
    opened(state, cards)
    state.apply(CardsAdded("A", 1, cards("QC QH QS 2D")))  # mixed canasta of queens (5 naturals + 2)
    assert "Q" not in state.dead_ranks
    state.apply(CardsAdded("A", 0, cards("KC KH KS KD")))
    assert "K" in state.dead_ranks


def test_a_meld_never_grows_past_seven(cards):
    state = HandState()
    opened(state, cards)
    state.apply(CardsAdded("A", 0, cards("KC KH KS KD")))
    assert "meld.closed" in rules_of(state.apply(CardsAdded("A", 0, cards("KC"))))


def test_sevens_never_take_wild_cards_and_aces_only_in_the_opening(cards):
    state = HandState()
    opened(state, cards, text="KH KS KD, QH QS QD, 7H 7S 7D, AH AS AD")
    assert "meld.sevens_wild" in rules_of(state.apply(CardsAdded("A", 2, cards("7C 7H 2C"))))
    state.apply(CardsAdded("A", 3, cards("AC AH")))
    assert "meld.aces_wild" in rules_of(state.apply(CardsAdded("A", 3, cards("JK"))))


def test_no_wild_card_elsewhere_while_the_wild_meld_is_unfinished(cards):
    state = HandState()
    opened(state, cards, text="KH KS KD KC KH, QH QS QD, 9H 9S 9D")
    state.apply(MeldStarted("A", cards("2C 2D JK")))
    assert "meld.wild_meld_unfinished" in rules_of(state.apply(CardsAdded("A", 0, cards("JK"))))


def test_no_second_wild_card_meld_while_the_first_is_unfinished(cards):
    """Seed 000 §Wild card melds: "While your team has one going, no wild card can join any of your
    other melds"; 002: "your side cannot put wild cards in any other meld". Once it is a canasta,
    another may start."""
    state = HandState()
    opened(state, cards, text="KH KS KD KC KH, QH QS QD, 9H 9S 9D")
    assert rules_of(state.apply(MeldStarted("A", cards("2C 2D JK")))) == []
    second = state.check(MeldStarted("A", cards("2H 2S JK")))
    assert rules_of(second) == ["meld.wild_meld_unfinished"] and "finish it" in second[0].message
    assert rules_of(state.apply(CardsAdded("A", 3, cards("2H 2S JK JK")))) == []  # seven: a wild canasta
    assert rules_of(state.apply(MeldStarted("A", cards("2H 2S 2D")))) == []


def test_two_wild_card_melds_are_one_problem_told_once_and_finishing_one_is_no_problem(cards):
    """Laid together in an opening, two unfinished wild-card melds are flagged once (a wild canasta
    beside a small one, not at all); cards finishing a wild meld are never flagged, even where a
    second one was laid against the rule."""
    two = HandState().apply(Opened("A", (cards("KH KS KD"), cards("QH QS QD"), cards("9H 9S 9D"),
                                         cards("2C 2D JK"), cards("2H 2S JK")), stock_left=60))
    assert rules_of(two) == ["meld.wild_meld_unfinished"]
    canasta = HandState().apply(Opened("A", (cards("KH KS KD AH AS AD"), cards("2C 2D 2H 2S JK JK 2C"),
                                             cards("2D 2H JK")), stock_left=60))
    assert "meld.wild_meld_unfinished" not in rules_of(canasta)
    state = HandState()
    opened(state, cards, text="KH KS KD KC KH, QH QS QD, 9H 9S 9D")
    state.apply(MeldStarted("A", cards("2C 2D JK")))
    assert rules_of(state.apply(MeldStarted("A", cards("2H 2S JK")))) == ["meld.wild_meld_unfinished"]
    assert rules_of(state.apply(CardsAdded("A", 3, cards("2H 2S JK JK")))) == []


def test_taking_the_pack(cards):
    state = HandState()
    opened(state, cards)
    top = cards("9C")[0]
    assert state.apply(PackTaken("A", top, cards("9H 9S"))) == ()
    assert "pack.pair" in rules_of(state.apply(PackTaken("A", cards("5C")[0], cards("5H 2C"))))
    assert "pack.top_card" in rules_of(state.apply(PackTaken("A", cards("2C")[0], cards("2H 2S"))))
    # five kings melded: the pack can't be taken with a king on top
    state.apply(CardsAdded("A", 0, cards("KC KH")))
    assert "pack.five_melded" in rules_of(state.apply(PackTaken("A", cards("KC")[0], cards("KD KS"))))


def test_pack_onto_an_existing_meld_needs_three_or_four_cards(cards):
    state = HandState()
    opened(state, cards, text="KH KS KD KC KH, QH QS QD, 9H 9S 9D")
    assert "pack.onto_meld" in rules_of(state.apply(PackTaken("A", cards("KS")[0], cards("KD KC"), meld_index=0)))
    assert state.apply(PackTaken("A", cards("QC")[0], cards("QH QS"), meld_index=1)) == ()


def test_unopened_team_takes_the_pack_only_with_its_opening(cards):
    assert "pack.not_opened" in rules_of(HandState().apply(PackTaken("A", cards("9C")[0], cards("9H 9S"))))


def test_threes_are_laid_out_and_only_threes(cards):
    state = HandState()
    assert state.apply(ThreesLaidOut("A", cards("3H 3C"))) == ()
    assert state.teams["A"].threes.red == 1 and state.teams["A"].threes.black == 1
    assert rules_of(state.apply(ThreesLaidOut("A", cards("5H")))) == ["threes.not_three"]


def test_turn_card(cards):
    state = HandState()
    assert str(state.turn_card) == "turn card not drawn yet"
    state.apply(TurnCardDrawn())
    assert state.turn_card.cards_left == 8
    assert str(state.turn_card) == "turn card drawn: 8 cards left; no more bonus cards"
    assert rules_of(state.apply(TurnCardDrawn())) == ["turn_card.twice"]


def test_going_out(cards):
    state = HandState()
    opened(state, cards)
    assert rules_of(state.can_go_out("A")) == ["going_out.canastas"]
    state.apply(CardsAdded("A", 0, cards("KC KH KS KD")))
    state.apply(CardsAdded("A", 1, cards("QC QH QS 2D")))
    assert state.can_go_out("A") == []
    assert rules_of(state.apply(WentOut("A", cards("3S")[0]))) == ["going_out.last_three"]
    assert state.ended and state.went_out == "A"
    assert rules_of(state.apply(ThreesLaidOut("B", cards("3H")))) == ["hand.ended"]


def test_check_does_not_change_the_state(cards):
    state = HandState()
    opened(state, cards)
    before = list(state.teams["A"].melds)
    assert rules_of(state.check(MeldStarted("A", cards("5H 5S 2C")))) == ["meld.rule_of_five"]
    assert state.teams["A"].melds == before


def test_special_hand_ends_the_hand_and_scores_alone(cards):
    state = HandState()
    garbage = cards("KH KS KD KC QH QS QD QC 9H 9S 9D 8H 8S 8D")
    assert state.apply(SpecialHandLaid("A", garbage)) == ()
    assert state.ended and state.teams["A"].special_hand == "garbage"
    from companion.scoring import score_hand

    assert score_hand(state.end_of_hand())["A"].total == 3000


def test_special_hand_after_opening_is_flagged(cards):
    state = HandState()
    opened(state, cards)
    garbage = cards("KH KS KD KC QH QS QD QC 9H 9S 9D 8H 8S 8D")
    assert "special.opened" in rules_of(state.apply(SpecialHandLaid("A", garbage)))


def test_hand_ended_by_the_stock(cards):
    state = HandState()
    state.apply(HandEnded("last_card_three"))
    assert state.ended and state.went_out is None


def test_a_squared_pile_is_checked_against_its_count(cards):
    state = HandState()
    opened(state, cards)
    assert rules_of(state.apply(CanastaClosed("A", 0))) == ["canasta.too_few"]
    state.apply(CardsAdded("A", 0, cards("KC KH KS KD")))
    assert state.apply(CanastaClosed("A", 0)) == ()


def test_opening_with_a_triple_of_a_dead_rank_is_not_clean(cards):
    state = HandState()
    opened(state, cards)
    state.apply(CardsAdded("A", 0, cards("KC KH KS KD")))  # kings die
    violations = state.apply(Opened("B", (cards("KH KS KC"), cards("AH AS AD AC 2C"))))
    assert {"meld.dead_rank", "opening.clean_triple"} <= set(rules_of(violations))


def test_a_canasta_from_hand_needs_no_minimum_is_a_table_rule(cards):
    canasta = (cards("5H 5S 5D 5C 5H 5S 5D"),)  # 35 points
    assert rules_of(HandState().apply(Opened("A", canasta))) == ["opening.minimum"]
    assert HandState(rules=TableRules(canasta_from_hand_needs_no_minimum=True)).apply(Opened("A", canasta)) == ()


def test_pack_onto_a_meld_with_the_top_card_alone_is_a_table_rule(cards):
    rules = TableRules(pack_onto_meld="top_card_alone")
    state = HandState(rules=rules)
    opened(state, cards, text="KH KS KD KC KH, QH QS QD, 9H 9S 9D")
    assert state.apply(PackTaken("A", cards("QC")[0], (), meld_index=1)) == ()
    default = HandState()
    opened(default, cards, text="KH KS KD KC KH, QH QS QD, 9H 9S 9D")
    assert rules_of(default.check(PackTaken("A", cards("QC")[0], (), meld_index=1))) == ["pack.pair"]


def test_one_more_turn_for_a_special_hand_after_opening_is_a_table_rule(cards):
    garbage = cards("KH KS KD KC QH QS QD QC 9H 9S 9D 8H 8S 8D")
    state = HandState(rules=TableRules(special_hand_after_partner_opens=True))
    opened(state, cards, text="AH AS AD, 10H 10S 10D JK, 6H 6S 6D")
    assert state.apply(SpecialHandLaid("A", garbage)) == ()


def test_a_team_melds_each_rank_once_also_within_its_opening(cards):
    violations = HandState().apply(Opened("A", (cards("KH KS KD"), cards("KC KH KS"), cards("AH AS AD AC"))))
    assert "meld.second_of_rank" in rules_of(violations)


def test_a_meld_of_mixed_ranks_beside_a_wild_meld_is_reported_not_a_crash(cards):
    state = HandState()
    opened(state, cards, text="KH KS KD KC KH, QH QS QD, 9H 9S 9D")
    state.apply(MeldStarted("A", cards("2C 2D JK")))
    assert "meld.mixed_ranks" in rules_of(state.apply(MeldStarted("A", cards("5H 6S 7D"))))


def test_the_hand_with_the_teams_swapped_is_each_teams_play_the_others(cards):
    """The camera took each side for the other's: each team keeps its own score, and its opening is
    checked against its own minimum (seed 000 §Your team's first meld: 125 below 3,000 points, 155
    from 3,000)."""
    from companion.handlog import to_log

    state = HandState(scores={"A": 3000, "B": 0})
    assert opened(state, cards, team="B") == ()  # 140: enough at 0 points
    state.apply(ThreesLaidOut("A", (cards("3H")[0],)))
    state.apply(TurnCardDrawn())
    swapped, broken = state.with_teams_swapped()
    assert rules_of(broken) == ["opening.minimum"]  # 140 is short of team A's 155
    assert swapped.scores == {"A": 3000, "B": 0}
    assert [m.name for m in swapped.teams["A"].melds] == [m.name for m in state.teams["B"].melds]
    assert swapped.teams["A"].opened and not swapped.teams["B"].opened
    assert len(swapped.teams["B"].threes) == 1 and swapped.turn_card.drawn
    assert swapped.first_to_open == "A"
    assert swapped.events[2] is state.events[2]  # the turn card drawn names no team
    back, broken = swapped.with_teams_swapped()
    assert to_log(back.events) == to_log(state.events) and broken == ()


def test_the_pack_joins_only_the_team_s_meld_of_its_rank(cards):
    """002 §Rule changes: the pair joins "your side's meld of that rank"; 000 §Melds and canastas:
    one rank a meld, one meld a rank."""
    state = HandState(scores={"A": 1200, "B": 0})
    opened(state, cards)
    assert "meld.mixed_ranks" in rules_of(state.check(PackTaken("A", cards("9H")[0], cards("9S 9D"), meld_index=0)))
    assert rules_of(state.check(PackTaken("A", cards("KC")[0], cards("KC KH")))) == ["meld.second_of_rank"]
    assert rules_of(state.check(PackTaken("A", cards("KC")[0], cards("KC KH"), meld_index=0))) == []
    assert rules_of(state.check(PackTaken("A", cards("KC")[0], cards("KC KH"), meld_index=7))) == ["meld.missing"]


def test_opening_with_the_pack_melds_its_top_card_with_a_natural_pair(cards):
    """000 §Taking the discard pile: "Show two natural cards from your hand that match the top card,
    and meld all three together"."""
    top = cards("9H")[0]
    joker_match = Opened("A", (cards("AH AS AD AC"), cards("KH KS KD"), cards("9H 9S JK")), pack_top=top)
    assert rules_of(HandState().apply(joker_match)) == ["pack.pair"]
    pair_match = Opened("A", (cards("AH AS AD AC"), cards("KH KS KD"), cards("9H 9S 9D")), pack_top=top)
    assert rules_of(HandState().apply(pair_match)) == []


def test_a_mixed_meld_of_aces_taking_more_wild_cards_is_a_table_rule(cards):
    """002 §Rule changes: aces take wild cards only in the first meld; 000 §Aces calls aces opened
    with a wild card "simply a mixed meld" (table rule ``mixed_aces_take_wild``)."""
    for take_more, expected in ((False, ["meld.aces_wild"]), (True, [])):
        state = HandState(rules=TableRules(mixed_aces_take_wild=take_more))
        opened(state, cards, text="KH KS KD, QH QS QD, 8H 8S 8D, AH AS 2C")
        state.apply(CardsAdded("A", 3, cards("AD AC AH")))
        assert rules_of(state.check(CardsAdded("A", 3, cards("JK")))) == expected
    natural = HandState(rules=TableRules(mixed_aces_take_wild=True))
    opened(natural, cards, text="KH KS KD, QH QS QD, 8H 8S 8D, AH AS AD AC AH")
    assert rules_of(natural.check(CardsAdded("A", 3, cards("JK")))) == ["meld.aces_wild"]

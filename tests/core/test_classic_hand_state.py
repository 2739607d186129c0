"""The hand state in the classic variant: seed 001's rules, not Modern American's."""

from companion.hand import CardsAdded, HandState, MeldStarted, Opened, PackTaken, ThreesLaidOut, WentOut
from companion.rulebook import MODERN


def rules_of(violations):
    return [v.rule for v in violations]


def classic(cards, *melds):
    state = HandState(variant="classic")
    assert rules_of(state.apply(Opened("A", tuple(cards(m) for m in melds)))) == []
    return state


KINGS = "KH KS KD KC KH KS KD"


def test_the_pile_s_top_card_counts_toward_a_classic_opening(cards):
    """001 §Your first meld: "If you take the discard pile to make your first meld, the top card
    counts". Three aces are 60 with the top ace, 40 without: 50 is needed from 0."""
    top = cards("AD")[0]
    assert rules_of(HandState(variant="classic").apply(Opened("A", (cards("AH AS AD"),), pack_top=top))) == []
    short = HandState(variant="classic").apply(Opened("A", (cards("5H 5S 5D"),), pack_top=cards("5D")[0]))
    assert rules_of(short) == ["opening.minimum"]
    assert "001 §Your first meld" in short[0].source
    # Modern counts cards from hand only (000 §Taking the pack to open): 140 less the top ace
    modern = Opened("A", (cards("AH AS AD AC"), cards("KH KS KD"), cards("QH QS QD")), pack_top=top)
    assert rules_of(HandState().apply(modern)) == ["opening.minimum"]


def test_a_classic_canasta_keeps_growing_and_closes_no_rank(cards):
    """001 §Melds and canastas: "a canasta can keep growing"; there are no dead ranks."""
    state = classic(cards, KINGS)
    assert rules_of(state.apply(CardsAdded("A", 0, cards("KC 2C")))) == []
    assert len(state.dead_ranks) == 0
    assert state.teams["A"].melds[0].is_canasta and len(state.teams["A"].melds[0].cards) == 9
    state.apply(Opened("B", (cards("QH QS QD QC"),)))
    assert rules_of(state.apply(MeldStarted("B", cards("KC KH KS")))) == []
    # ... but a team keeps only one meld of each rank, canasta or not
    second = state.apply(MeldStarted("A", cards("KC KH KS")))
    assert rules_of(second) == ["meld.second_of_rank"] and "001" in second[0].source


def test_a_modern_canasta_still_closes_its_rank(cards):
    state = HandState()
    state.apply(Opened("A", (cards(KINGS),)))
    assert rules_of(state.apply(CardsAdded("A", 0, cards("KC")))) == ["meld.closed", "meld.too_many"]
    assert "K" in state.dead_ranks


def test_a_classic_team_goes_out_with_one_canasta_and_any_last_card(cards):
    """001 §Going out: one canasta; sevens are an ordinary rank; no bar on a three as the last card."""
    state = classic(cards, KINGS, "7H 7S 7D")
    assert rules_of(state.can_go_out("A", cards("3S")[0])) == []
    assert rules_of(state.apply(WentOut("A", cards("3S")[0]))) == []
    bare = classic(cards, "KH KS KD KC KH")
    assert rules_of(bare.can_go_out("A")) == ["going_out.canastas"]
    modern = HandState()
    modern.apply(Opened("A", (cards(KINGS), cards("7H 7S 7D"))))
    assert set(rules_of(modern.can_go_out("A", cards("3S")[0]))) == {
        "going_out.canastas", "going_out.unfinished_special", "going_out.last_three"}
    assert MODERN["going_out.canastas"].value == 2


def test_classic_pile_taking_onto_a_meld_or_with_a_wild_card(cards):
    """001 §Taking the discard pile: a meld's size is no bar, the top card alone may join the team's
    meld of its rank, and a natural card with a wild card takes an unfrozen pile."""
    state = classic(cards, "QH QS QD QC QH")
    assert rules_of(state.apply(PackTaken("A", cards("QS")[0], cards("QD QC"), meld_index=0))) == []
    assert rules_of(state.apply(PackTaken("A", cards("QS")[0], meld_index=0))) == []
    assert rules_of(state.apply(PackTaken("A", cards("9S")[0], cards("9D 2C")))) == []
    assert rules_of(state.apply(PackTaken("A", cards("8S")[0], cards("2D 2C")))) == [
        "pack.pair",
        "meld.too_few_natural",
    ]
    assert rules_of(state.apply(PackTaken("A", cards("2S")[0], cards("2D 2C")))) == ["pack.top_card", "meld.wild_only"]
    onto_other_rank = state.apply(PackTaken("A", cards("JS")[0], meld_index=0))
    assert rules_of(onto_other_rank) == ["meld.mixed_ranks"]


def test_classic_lays_out_red_threes_only(cards):
    """001 §Threes: black threes are stop cards, not laid out; Modern lays out every three (000 §Threes)."""
    assert rules_of(HandState(variant="classic").apply(ThreesLaidOut("A", cards("3H 3S")))) == ["threes.black"]
    assert rules_of(HandState().apply(ThreesLaidOut("A", cards("3H 3S")))) == []


def test_classic_black_threes_are_melded_only_by_the_team_going_out(cards):
    """001 §Threes: "You can meld black threes only on the turn you go out". The live hand flags a
    meld of them once the hand ends without that team going out, as the score command does."""
    from companion.hand import HandEnded

    def table_with_threes(team):
        state = classic(cards, "AH AS AD", KINGS)
        state.apply(Opened("B", (cards("QH QS QD"),)))
        assert rules_of(state.apply(MeldStarted(team, cards("3C 3S 3C")))) == []  # going out may follow
        return state

    assert rules_of(table_with_threes("A").apply(WentOut("A"))) == []
    wrong = table_with_threes("B").apply(WentOut("A"))
    assert rules_of(wrong) == ["meld.black_threes_timing"] and "Team B" in wrong[0].message
    assert "001 §Threes" in wrong[0].source
    assert rules_of(table_with_threes("A").apply(HandEnded())) == ["meld.black_threes_timing"]
    after = table_with_threes("B")
    after.apply(WentOut("A"))
    assert rules_of(after.apply(HandEnded())) == ["hand.ended"]  # told once, when the hand ended
    red = classic(cards, "AH AS AD", KINGS)
    assert rules_of(red.apply(MeldStarted("A", cards("3H 3D 3H")))) == ["meld.three"]
    assert rules_of(red.apply(HandEnded())) == []  # red threes are no black threes

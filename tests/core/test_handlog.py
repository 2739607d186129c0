import json

import pytest

from companion.cards import Card, parse_cards
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
from companion.handlog import EVENT_KINDS, HandLogError, from_log, replay, to_log

EVERY_KIND = [
    Opened("A", (parse_cards("KH KS KD"), parse_cards("QH QS JK")), stock_left=40, pack_top=Card.parse("KH")),
    MeldStarted("B", parse_cards("5H 5S 5D")),
    CardsAdded("A", 0, parse_cards("KC 2C")),
    CanastaClosed("A", 0),
    ThreesLaidOut("B", parse_cards("3H 3D")),
    TurnCardDrawn(),
    PackTaken("A", Card.parse("9H"), parse_cards("9S 9D")),
    PackTaken("B", Card.parse("5C"), meld_index=0),
    SpecialHandLaid("B", parse_cards("4H 4S")),
    WentOut("A", Card.parse("7C")),
    HandEnded("stock_out"),
]


def test_every_kind_of_event_comes_back_from_its_json():
    assert {type(e).__name__ for e in EVERY_KIND} == set(EVENT_KINDS)
    assert from_log(json.loads(json.dumps(to_log(EVERY_KIND)))) == EVERY_KIND


def test_a_replayed_hand_is_the_hand_played():
    played = HandState(scores={"A": 1600, "B": 0})
    for event in EVERY_KIND[:7]:
        played.apply(event)
    again = replay(from_log(to_log(played.events)), HandState(scores={"A": 1600, "B": 0}))
    assert again.events == played.events
    assert {t: [m.cards for m in s.melds] for t, s in again.teams.items()} == {
        t: [m.cards for m in s.melds] for t, s in played.teams.items()
    }
    assert again.dead_ranks == played.dead_ranks and again.turn_card == played.turn_card


@pytest.mark.parametrize(
    "log, message",
    [
        ({"events": []}, "events: expected a list of events, got dict"),
        ([["TurnCardDrawn"]], r"events\[0\]: expected an event object"),
        ([{"event": "Shuffled"}], r"events\[0\].event: 'Shuffled' is not an event"),
        ([{"event": "CardsAdded", "team": "A", "cards": []}], r"events\[0\].meld_index: missing"),
        ([{"event": "WentOut", "team": "A", "when": 3}], r"events\[0\].when: unknown field of WentOut"),
        ([{"event": "WentOut", "team": "C"}], r"events\[0\].team: 'C' is not a team"),
        ([{"event": "CanastaClosed", "team": "A", "meld_index": "2"}], r"events\[0\].meld_index: expected int"),
        ([{"event": "MeldStarted", "team": "B", "cards": "KH"}], r"events\[0\].cards: expected a list"),
        (
            [{"event": "TurnCardDrawn"}, {"event": "Opened", "team": "A", "melds": [["KH", "XX"]]}],
            r"events\[1\].melds\[0\]\[1\]: 'XX'",
        ),
    ],
)
def test_a_log_that_is_not_one_names_the_field(log, message):
    with pytest.raises(HandLogError, match=message):
        from_log(log)

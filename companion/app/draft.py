"""The end-of-hand draft: what was read on the table, as players correct it before scoring.

A *place* is where a card lies for one team: ``("melds", i)``, ``("threes",)`` or ``("hands", p)``
(the cards left in partner ``p``'s hand). The draft turns into the core's hand file with
:meth:`HandDraft.to_hand`.

>>> draft = HandDraft.empty()
>>> draft.add_meld("A")
('melds', 0)
>>> draft.add_card("A", ("melds", 0), "kh")
>>> draft.cards("A", ("melds", 0))
['KH']
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from companion import TEAMS, Card, HandState

Place = tuple


def _empty_team() -> dict[str, Any]:
    return {"melds": [], "threes": [], "hands": [[], []], "special_hand": None}


@dataclass
class HandDraft:
    teams: dict[str, dict[str, Any]] = field(default_factory=lambda: {t: _empty_team() for t in TEAMS})
    went_out: str | None = None
    went_out_concealed: bool = False

    @classmethod
    def empty(cls) -> HandDraft:
        return cls()

    @classmethod
    def from_hand(cls, hand: dict[str, Any]) -> HandDraft:
        """A draft of a hand already on the sheet (to edit it)."""
        teams = {}
        for team in TEAMS:
            data = {**_empty_team(), **copy.deepcopy(hand.get("teams", {}).get(team, {}))}
            data.pop("score_before", None)
            data["hands"] = (list(data["hands"]) + [[], []])[:max(2, len(data["hands"]))]
            teams[team] = data
        return cls(teams, hand.get("went_out"), hand.get("went_out_concealed", False))

    @classmethod
    def from_photos(cls, photos: list[tuple[dict[str, Any], str | None]]) -> HandDraft:
        """A draft of what photos of the table show: each photo's hand (the score command's input, as
        a table reading gives it) with the team whose cards it shows, or ``None`` for a photo of the
        whole table, each side its own team's.

        >>> side = lambda melds: {"melds": melds, "threes": [], "hands": [], "special_hand": None}
        >>> photo = {"teams": {"A": side([["5H", "5S", "5D"]]), "B": side([["9C", "9D", "2S"]])}}
        >>> HandDraft.from_photos([(photo, "B")]).teams["B"]["melds"]
        [['5H', '5S', '5D'], ['9C', '9D', '2S']]
        """
        draft = cls()
        for hand, team in photos:
            for side in TEAMS:
                read, into = hand["teams"][side], draft.teams[team or side]
                into["melds"] += [list(meld) for meld in read["melds"]]
                into["threes"] += list(read["threes"])
                into["hands"] = [cards for cards in into["hands"] if cards] + [
                    list(cards) for cards in read["hands"] if cards
                ]
                into["hands"] = (into["hands"] + [[], []])[:max(2, len(into["hands"]))]
        return draft

    @classmethod
    def from_state(cls, state: HandState) -> HandDraft:
        """A draft of the table as the hand state saw it; cards left in hands are added by players."""
        draft = cls(went_out=state.went_out)
        for team, seen in state.teams.items():
            draft.teams[team]["melds"] = [meld.codes() for meld in seen.melds]
            draft.teams[team]["threes"] = [card.code for card in seen.threes.cards]
            draft.teams[team]["special_hand"] = seen.special_hand
        return draft

    # --------------------------------------------------------------------------------- reading
    def cards(self, team: str, place: Place) -> list[str]:
        kind, *index = place
        value = self.teams[team][kind]
        return value[index[0]] if index else value

    def places(self, team: str) -> list[Place]:
        data = self.teams[team]
        return (
            [("melds", i) for i in range(len(data["melds"]))]
            + [("threes",)]
            + [("hands", p) for p in range(len(data["hands"]))]
        )

    def meld_numbers(self) -> dict[str, list[int]]:
        """For each team, the number the dialog shows ("Meld 2") of each meld :meth:`to_hand` keeps."""
        return {team: [number for number, meld in enumerate(data["melds"], 1) if meld]
                for team, data in self.teams.items()}

    def to_hand(self) -> dict[str, Any]:
        """The hand file for the core (without score_before); empty melds are dropped."""
        teams = {}
        for team, data in self.teams.items():
            teams[team] = {
                "melds": [list(m) for m in data["melds"] if m],
                "threes": list(data["threes"]),
                "hands": [list(h) for h in data["hands"]],
                "special_hand": data["special_hand"],
            }
        hand = {"went_out": self.went_out, "teams": teams}
        if self.went_out_concealed:
            hand["went_out_concealed"] = True
        return hand

    # --------------------------------------------------------------------------------- changes
    def set_card(self, team: str, place: Place, index: int, code: str) -> None:
        self.cards(team, place)[index] = Card.parse(code).code

    def add_card(self, team: str, place: Place, code: str) -> None:
        self.cards(team, place).append(Card.parse(code).code)

    def remove_card(self, team: str, place: Place, index: int) -> None:
        del self.cards(team, place)[index]

    def add_meld(self, team: str) -> Place:
        self.teams[team]["melds"].append([])
        return ("melds", len(self.teams[team]["melds"]) - 1)

    def set_special_hand(self, team: str, name: str | None) -> None:
        self.teams[team]["special_hand"] = name

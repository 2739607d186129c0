"""Table rules: the points where the seeds disagree or say "table rules vary".

Each setting has a name (used in hand files, the app and the score command), a default, the values
it may take, and which seed says what. ``TableRules()`` is the default table.

>>> TableRules().wild_card_threshold
5
>>> TableRules.from_dict({"wild_card_threshold": 3}).wild_card_threshold
3
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

SPECIAL_HAND_NAMES = (
    "pairs", "wild_pairs", "miami_pairs", "zip_code", "straight",
    "garbage", "blast_off", "triples", "quads", "dream_hand",
)


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    choices: tuple | None
    sources: str
    reason: str
    #: The setting as players ask it, for the settings dialog.
    title: str = ""
    #: False: the table's way, recorded; nothing the camera sees is checked against it (it is about
    #: the cards in players' hands or what they say).
    checked: bool = True


SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting(
            "wild_card_threshold", 5, (2, 3, 5, None),
            "000 §Natural and mixed melds: after opening a wild card joins only a meld with five "
            "natural cards, 'two, three and five are all in use'; 002 §Adding wild cards: five.",
            "the rule of five is the League's rule and the one both Modern American rule books state first",
            title="Natural cards a meld needs before a wild card joins it, after opening",
        ),
        Setting(
            "swad_when_stuck", "take_back_melds", ("take_back_melds", "discard_swad"),
            "000 §Cards you can't discard: the League has you take back melded cards, most recent "
            "first; other teachers let you discard one when aces, 7s and dead cards are all you "
            "hold (002 §Discarding says the same).",
            "the League's rule, as 000 gives it first",
            title="When sevens, wild cards, aces and dead cards are all you could discard",
            checked=False,
        ),
        Setting(
            "open_with_wild_meld", False, (False, True),
            "000 §Counting an opening: 'some tables also let a team open with a meld of at least "
            "three wild cards in place of the clean triple'; 002 §First meld allows it.",
            "000 states the clean triple as the rule and the wild meld as a variation",
            title="A meld of three wild cards may stand in for the clean triple in an opening",
        ),
        Setting(
            "dead_rank_on", "any_canasta", ("any_canasta", "natural_canasta"),
            "000 §Dead cards: any finished canasta closes its rank; 002 §Melds: only a natural "
            "canasta does.",
            "000 is the rules guide and checks each rule against several published sources",
            title="A rank is dead once a team finishes",
        ),
        Setting(
            "unfinished_four_joker_penalty", 2500, (2500, 2000),
            "001 §How Modern American scores and 002 §Penalties: an unfinished wild meld with all "
            "four jokers costs 2,500 instead of 2,000; 000 §Special melds speaks of big penalties without a figure.",
            "two rule books say 2,500 and none says otherwise",
            title="An unfinished wild-card meld with all four jokers costs",
        ),
        Setting(
            "special_hands", SPECIAL_HAND_NAMES, None,
            "000 §Special hands lists ten hands (the League's list) and says many tables play only "
            "some; 002 plays none.",
            "000's full list",
            title="Special hands your table plays",
        ),
        Setting(
            "garbage_value", 3000, (3000, 2500, 2000),
            "000 §Special hands: garbage 3,000; 001 §How Modern American scores: special hands "
            "2,000 to 3,000.",
            "000's value",
            title="Garbage is worth",
        ),
        Setting(
            "special_hand_after_partner_opens", False, (False, True),
            "000 §Special hands: 'some tables also give you one more turn to try for a special hand "
            "after your partner opens'.",
            "000 states special hands as possible only before the team opens",
            title="One more turn to lay a special hand after your partner opens",
        ),
        Setting(
            "game_target", None, (None, 2500, 5000, 7500, 8500, 10000),
            "000 §Winning the game and 001 §Classic and Modern American: 8,500 for Modern American; "
            "001 §Scoring: 5,000 for classic; 002 §Winning score: the setup can choose 2,500, 5,000, "
            "7,500 or 10,000.",
            "the variant's own target: 8,500 Modern American (all three rule books), 5,000 classic (001)",
            title="The game is won at",
        ),
        Setting(
            "ask_partner_to_go_out", False, (False, True),
            "000 §Going out: many players ask their partner first, agree at the start; 002: you may "
            "ask once a hand, straight after drawing, and a no stops you that turn.",
            "asking is a courtesy in 000, not a rule",
            title="Players ask their partner before going out",
            checked=False,
        ),
        Setting(
            "pack_onto_meld", "pair_and_three_or_four", ("pair_and_three_or_four", "top_card_alone"),
            "000 §Taking the pack to open: the League also mentions taking the pack by adding its "
            "top card to a meld; Canasta Connection and Pagat allow it only with a natural pair and "
            "a meld of three or four cards (002 §Taking the discard pile agrees).",
            "two of 000's sources and 002 agree",
            title="Taking the pack onto a meld of yours on the table",
        ),
        Setting(
            "canasta_from_hand_needs_no_minimum", False, (False, True),
            "002 §First meld: 'a canasta melded straight from hand needs no minimum'; 000 and 001 "
            "do not say so.",
            "only one rule book has it",
            title="A canasta laid straight from hand needs no opening minimum",
        ),
        Setting(
            "mixed_aces_take_wild", False, (False, True),
            "000 §Aces: aces opened with a wild card in them are 'simply a mixed meld' and score "
            "like one, and a meld of aces that starts natural never takes a wild card; 002 §Rule "
            "changes: 'Aces take wild cards only in the first meld'. Yes: a mixed meld of aces takes "
            "more by the rule of five, as other mixed melds do (000 §Natural and mixed melds).",
            "002 says so outright; 000 does not say that a mixed meld of aces takes more",
            title="Aces opened with a wild card in them may take more wild cards",
        ),
        Setting(
            "classic_more_naturals_than_wilds", False, (False, True),
            "Classic only. 001 §Melds and canastas: at least two natural cards and at most three "
            "wild cards; 002 §Melds (standard canasta): more natural cards than wild cards.",
            "001 is the classic rule book among the three",
            title="Classic only: each meld has more natural than wild cards",
        ),
    )
}


def _default(name: str) -> Any:
    return SETTINGS[name].default


class TableRulesError(ValueError):
    """A table-rule name or value that the app does not know."""


@dataclass(frozen=True)
class TableRules:
    """The settings a table agrees before the first deal. Defaults: see :data:`SETTINGS`."""

    wild_card_threshold: int | None = _default("wild_card_threshold")
    swad_when_stuck: str = _default("swad_when_stuck")
    open_with_wild_meld: bool = _default("open_with_wild_meld")
    dead_rank_on: str = _default("dead_rank_on")
    unfinished_four_joker_penalty: int = _default("unfinished_four_joker_penalty")
    special_hands: tuple[str, ...] = _default("special_hands")
    garbage_value: int = _default("garbage_value")
    special_hand_after_partner_opens: bool = _default("special_hand_after_partner_opens")
    game_target: int | None = _default("game_target")
    ask_partner_to_go_out: bool = _default("ask_partner_to_go_out")
    pack_onto_meld: str = _default("pack_onto_meld")
    canasta_from_hand_needs_no_minimum: bool = _default("canasta_from_hand_needs_no_minimum")
    mixed_aces_take_wild: bool = _default("mixed_aces_take_wild")
    classic_more_naturals_than_wilds: bool = _default("classic_more_naturals_than_wilds")

    def __post_init__(self) -> None:
        for f in fields(self):
            setting = SETTINGS[f.name]
            value = getattr(self, f.name)
            if f.name == "special_hands":
                unknown = [name for name in value if name not in SPECIAL_HAND_NAMES]
                if unknown or isinstance(value, str):
                    raise TableRulesError(
                        f"table_rules.special_hands: unknown special hand {unknown or value!r}; "
                        f"known: {', '.join(SPECIAL_HAND_NAMES)}"
                    )
            elif not any(value == c and type(value) is type(c) for c in setting.choices):
                shown = ", ".join("null" if c is None else repr(c) for c in setting.choices)
                raise TableRulesError(f"table_rules.{f.name}: {value!r} is not one of {shown}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableRules:
        """Settings by their documented names; names not given keep their defaults."""
        if not isinstance(data, dict):
            raise TableRulesError("table_rules must be an object of setting names and values")
        unknown = sorted(set(data) - set(SETTINGS))
        if unknown:
            raise TableRulesError(
                f"table_rules.{unknown[0]}: no such table rule; known: {', '.join(SETTINGS)}"
            )
        values = dict(data)
        if "special_hands" in values and isinstance(values["special_hands"], list):
            values["special_hands"] = tuple(values["special_hands"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return {
            f.name: list(getattr(self, f.name)) if f.name == "special_hands" else getattr(self, f.name)
            for f in fields(self)
        }

    def with_(self, **changes: Any) -> TableRules:
        return replace(self, **changes)

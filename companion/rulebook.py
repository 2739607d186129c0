"""Every number of the rules, with the seed section it comes from.

The three seeds in ``shared/seeds``:

* **000** — a Modern American rules guide (special hands, "table rules vary" notes);
* **001** — classic canasta with a Modern American comparison and scoring table (pagat.com);
* **002** — the rules summary of an online Modern American game.

``agree`` says whether every seed that mentions the number gives the same one. Where they do not,
the number is also a :mod:`companion.table_rules` setting, and the setting names the default.
Code that uses a number reads it from here, so a reader can always find where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    value: int
    source: str
    agree: bool = True
    note: str = ""


#: 000 §Special hands values three hands above 001's range.
_PAST_001_RANGE = (
    "001 §How Modern American scores: special hands 2,000 to 3,000; a table that plays that range "
    "leaves this hand out (setting special_hands)"
)

MODERN = {
    # Melds
    "meld.min_cards": Rule(3, "000 §Melds and canastas; 002 §Rule changes: Melds"),
    "meld.max_cards": Rule(7, "000 §Melds and canastas; 001 §Classic and Modern American; 002 §Melds"),
    "meld.max_wild": Rule(2, "000 §Natural and mixed melds; 002 §Rule changes: Melds"),
    "meld.min_natural_in_opening": Rule(2, "000 §Natural and mixed melds"),
    "meld.naturals_before_wild": Rule(
        5, "000 §Natural and mixed melds; 002 §Adding wild cards", agree=False,
        note="000: tables also play two or three; setting wild_card_threshold",
    ),
    "canasta.cards": Rule(7, "000 §Melds and canastas"),
    # Opening (first meld) minimum by team score
    "opening.below_3000": Rule(125, "000 §Your team's first meld; 001 §Classic and Modern American; 002 §First meld"),
    "opening.from_3000": Rule(155, "000 §Your team's first meld; 002 §First meld"),
    "opening.from_5000": Rule(180, "000 §Your team's first meld; 002 §First meld"),
    "opening.clean_triple": Rule(3, "000 §Your team's first meld"),
    # Bonus cards and the turn card
    "bonus_cards.first_to_open": Rule(4, "000 §Bonus cards"),
    "bonus_cards.second_to_open": Rule(3, "000 §Bonus cards"),
    "bonus_cards.min_stock": Rule(9, "000 §Bonus cards"),
    "turn_card.cards_under": Rule(8, "000 §Setting up and dealing"),
    "pack.max_melded_in_rank": Rule(4, "000 §Taking the discard pile (not with five or more melded)"),
    # Going out
    "going_out.canastas": Rule(2, "000 §Going out; 001 §Classic and Modern American; 002 §Going out"),
    "going_out.bonus": Rule(100, "000 §Going out; 001 §How Modern American scores; 002 §Going out"),
    # Canasta bonuses
    "canasta.mixed": Rule(300, "001 §How Modern American scores; 002 §Canasta bonuses"),
    "canasta.natural": Rule(500, "001 §How Modern American scores; 002 §Canasta bonuses"),
    "canasta.natural_sevens": Rule(2500, "000 §Sevens; 001 §How Modern American scores; 002 §Canasta bonuses"),
    "canasta.natural_aces": Rule(2500, "000 §Aces; 001 §How Modern American scores; 002 §Canasta bonuses"),
    "canasta.wild": Rule(2000, "001 §How Modern American scores; 002 §Canasta bonuses"),
    "canasta.wild_four_jokers": Rule(2500, "001 §How Modern American scores; 002 §Canasta bonuses"),
    "canasta.wild_seven_twos": Rule(3000, "001 §How Modern American scores; 002 §Canasta bonuses"),
    # Penalties
    "penalty.unfinished_sevens": Rule(-2500, "000 §Common questions; 001 §How Modern American scores; 002 §Penalties"),
    "penalty.unfinished_aces": Rule(-2500, "001 §How Modern American scores; 002 §Penalties"),
    "penalty.unfinished_wild": Rule(-2000, "001 §How Modern American scores; 002 §Penalties"),
    "penalty.unfinished_wild_four_jokers": Rule(
        -2500, "001 §How Modern American scores; 002 §Penalties",
        note="000 §Special melds speaks of 'big penalties' for unfinished wild melds without a figure; "
        "setting unfinished_four_joker_penalty lets a table play 2,000",
    ),
    "penalty.three_of_sevens_or_aces_in_hand": Rule(
        -1500, "000 §Common questions; 001 §How Modern American scores; 002 §Penalties"
    ),
    "penalty.min_sevens_or_aces_in_hand": Rule(3, "000 §Common questions; 002 §Penalties"),
    "three.last_card_in_hand": Rule(-5, "000 §Threes; 002 §Threes"),
    # Threes, per colour, by how many of that colour a team laid out
    "threes.one": Rule(100, "001 §How Modern American scores; 002 §Threes"),
    "threes.two": Rule(300, "001 §How Modern American scores; 002 §Threes"),
    "threes.three": Rule(500, "001 §How Modern American scores; 002 §Threes"),
    "threes.four": Rule(1000, "001 §How Modern American scores; 002 §Threes"),
    "threes.canastas_to_add": Rule(2, "001 §How Modern American scores; 002 §Threes"),
    # Game
    "game.target": Rule(
        8500, "000 §Winning the game; 001 §Classic and Modern American; 002 §Winning score", agree=False,
        note="002 lets the setup choose 2,500, 5,000, 7,500 or 10,000; setting game_target",
    ),
    # Special hands (000 §Special hands; 002 does not play them)
    "special.pairs": Rule(2500, "000 §Special hands"),
    "special.wild_pairs": Rule(2000, "000 §Special hands"),
    "special.miami_pairs": Rule(2500, "000 §Special hands"),
    "special.zip_code": Rule(2500, "000 §Special hands"),
    "special.straight": Rule(3000, "000 §Special hands"),
    "special.garbage": Rule(3000, "000 §Special hands", agree=False, note="setting garbage_value"),
    "special.blast_off": Rule(3000, "000 §Special hands"),
    "special.triples": Rule(
        3500, "000 §Special hands", agree=False,
        note=_PAST_001_RANGE,
    ),
    "special.quads": Rule(
        3500, "000 §Special hands", agree=False,
        note=_PAST_001_RANGE,
    ),
    "special.dream_hand": Rule(
        8500, "000 §Special hands", agree=False,
        note=_PAST_001_RANGE,
    ),
    "special.hand_size": Rule(14, "000 §Special hands (13 dealt + the card just drawn)"),
}

CLASSIC = {
    "meld.min_cards": Rule(3, "001 §Melds and canastas"),
    "meld.min_natural": Rule(2, "001 §Melds and canastas"),
    "meld.max_wild": Rule(3, "001 §Melds and canastas; 002 §Rule changes: Melds (standard)"),
    "canasta.cards": Rule(7, "001 §Melds and canastas"),
    "canasta.natural": Rule(500, "001 §Melds and canastas; 001 §Scoring"),
    "canasta.mixed": Rule(300, "001 §Melds and canastas; 001 §Scoring"),
    "opening.below_zero": Rule(15, "001 §Your first meld; 002 §First meld (standard)"),
    "opening.from_0": Rule(50, "001 §Your first meld"),
    "opening.from_1500": Rule(90, "001 §Your first meld"),
    "opening.from_3000": Rule(120, "001 §Your first meld"),
    "red_three.each": Rule(100, "001 §Threes; 001 §Scoring"),
    "red_three.all_four": Rule(800, "001 §Threes; 001 §Scoring"),
    "black_three.in_hand": Rule(-5, "001 §Scoring: card values"),
    "going_out.canastas": Rule(1, "001 §Going out"),
    "going_out.bonus": Rule(100, "001 §Going out; 001 §Scoring"),
    "going_out.concealed_bonus": Rule(200, "001 §Going out; 001 §Scoring"),
    "game.target": Rule(5000, "001 §What you need; 001 §Scoring"),
}


def value(key: str, table: dict[str, Rule] = MODERN) -> int:
    return table[key].value


def source(key: str, table: dict[str, Rule] = MODERN) -> str:
    return "seed " + table[key].source

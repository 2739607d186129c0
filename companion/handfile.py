"""Hand files: the JSON a player, the app or another tool gives the scorer.

The format is documented in the README and in ``companion/schemas/hand.schema.json``. Every problem
raises :class:`HandFileError` with one line naming the field, e.g.
``teams.A.melds[1]: a meld holds one rank, not kings and queens``.

>>> report = score_report({"teams": {"A": {"melds": [["KH","KS","KD","KC","KH","KS","KD"]]}, "B": {}}, "went_out": "A"})
>>> report["teams"]["A"]["total"], report["teams"]["A"]["next_minimum"]
(670, 125)
"""

from __future__ import annotations

from typing import Any

from .cards import Card, CardError, pack_overflow
from .end_of_hand import TEAMS, EndOfHand, TeamHand
from .melds import Meld
from .scoring import score_hand
from .table_rules import SPECIAL_HAND_NAMES, TableRules, TableRulesError
from .threes import Threes
from .variant import Variant, get_variant
from .violations import Violation

#: The largest score, either way, a team has before a hand. A game ends after the hand in which a team
#: reaches its target (10,000 at most) and hands score in the thousands, so a sheet stays far below
#: this even with hands entered after its end; a larger number is a typing slip.
MAX_SCORE = 1_000_000
TOP_LEVEL_KEYS = {"variant", "table_rules", "went_out", "went_out_concealed", "teams"}
TEAM_KEYS = {"score_before", "melds", "threes", "hands", "special_hand"}


class HandFileError(ValueError):
    """A hand file that can't be scored; the message names the field."""


def _cards(value: Any, where: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise HandFileError(f'{where}: expected a list of card codes like ["KH", "10D"], got {type(value).__name__}')
    cards = []
    for i, code in enumerate(value):
        try:
            cards.append(Card.parse(code))
        except CardError as error:
            raise HandFileError(f"{where}[{i}]: {error}") from None
    return tuple(cards)


def _list_of_card_lists(value: Any, where: str) -> tuple[tuple[Card, ...], ...]:
    if not isinstance(value, list):
        raise HandFileError(f"{where}: expected a list of card lists, got {type(value).__name__}")
    return tuple(_cards(item, f"{where}[{i}]") for i, item in enumerate(value))


def _team(data: Any, where: str, variant: Variant, rules: TableRules) -> TeamHand:
    if not isinstance(data, dict):
        raise HandFileError(f"{where}: expected an object with melds, threes and hands")
    unknown = sorted(set(data) - TEAM_KEYS)
    if unknown:
        raise HandFileError(f"{where}.{unknown[0]}: unknown field; a team has {', '.join(sorted(TEAM_KEYS))}")
    score = data.get("score_before", 0)
    if not isinstance(score, int) or isinstance(score, bool):
        raise HandFileError(f"{where}.score_before: expected a whole number, got {score!r}")
    if abs(score) > MAX_SCORE:
        raise HandFileError(f"{where}.score_before: {score:,} is more than a game reaches (at most "
                            f"{MAX_SCORE:,} either way)")
    melds = tuple(Meld(cards) for cards in _list_of_card_lists(data.get("melds", []), f"{where}.melds"))
    for i, meld in enumerate(melds):
        problems = variant.meld_problems(meld, rules)
        if problems:
            raise HandFileError(f"{where}.melds[{i}]: {problems[0].message} ({problems[0].source})")
    threes = _cards(data.get("threes", []), f"{where}.threes")
    for i, card in enumerate(threes):
        if not card.is_three:
            raise HandFileError(f"{where}.threes[{i}]: {card.code} is not a three")
        if variant.name == "classic" and card.is_black_three:
            raise HandFileError(
                f"{where}.threes[{i}]: in classic canasta black threes are not laid out (seed 001 §Threes)"
            )
    hands = _list_of_card_lists(data.get("hands", []), f"{where}.hands")
    if variant.name == "classic":
        for p, hand in enumerate(hands):
            for i, card in enumerate(hand):
                if card.is_red_three:
                    raise HandFileError(
                        f"{where}.hands[{p}][{i}]: red threes are laid out at once, never held (seed 001 §Threes)"
                    )
    special = data.get("special_hand")
    if special is not None:
        if variant.name != "modern":
            raise HandFileError(
                f"{where}.special_hand: special hands belong to Modern American (seed 000 §Special hands)"
            )
        if special not in SPECIAL_HAND_NAMES:
            raise HandFileError(
                f"{where}.special_hand: '{special}' is not a special hand; known: {', '.join(SPECIAL_HAND_NAMES)}"
            )
        if special not in rules.special_hands:
            raise HandFileError(f"{where}.special_hand: this table does not play {special} (table rule special_hands)")
    return TeamHand(melds=melds, threes=Threes(threes), hands=hands, special_hand=special, score_before=score)


def load_hand(data: Any) -> EndOfHand:
    """Check a parsed hand file and build the :class:`EndOfHand` to score."""
    if not isinstance(data, dict):
        raise HandFileError("the hand file must be a JSON object with 'teams'")
    unknown = sorted(set(data) - TOP_LEVEL_KEYS)
    if unknown:
        raise HandFileError(f"{unknown[0]}: unknown field; a hand file has {', '.join(sorted(TOP_LEVEL_KEYS))}")
    name = data.get("variant", "modern")
    try:
        if not isinstance(name, str):
            raise ValueError(f"variant: expected \"modern\" or \"classic\", got {name!r}")
        variant = get_variant(name)
    except ValueError as error:
        raise HandFileError(str(error)) from None
    try:
        rules = TableRules.from_dict(data.get("table_rules", {}))
    except (TableRulesError, TypeError) as error:
        raise HandFileError(str(error)) from None
    went_out = data.get("went_out")
    if went_out not in (*TEAMS, None):
        raise HandFileError(f"went_out: {went_out!r} is not a team; use \"A\", \"B\" or null")
    concealed = data.get("went_out_concealed", False)
    if not isinstance(concealed, bool):
        raise HandFileError("went_out_concealed: expected true or false")
    if concealed and variant.name != "classic":
        raise HandFileError(
            "went_out_concealed: only classic canasta pays for going out concealed (seed 001 §Going out)"
        )
    if concealed and went_out is None:
        raise HandFileError("went_out_concealed: nobody went out")
    teams_data = data.get("teams")
    if not isinstance(teams_data, dict):
        raise HandFileError("teams: expected an object with teams \"A\" and \"B\"")
    extra = sorted(set(teams_data) - set(TEAMS))
    if extra:
        raise HandFileError(f"teams.{extra[0]}: the teams are \"A\" and \"B\"")
    teams = {t: _team(teams_data.get(t, {}), f"teams.{t}", variant, rules) for t in TEAMS}
    for t in TEAMS:
        for i, meld in enumerate(teams[t].melds):
            if meld.rank == "3" and went_out != t:
                # seed 001 §Threes: black threes are melded only on the turn a player goes out
                raise HandFileError(
                    f"teams.{t}.melds[{i}]: black threes meld only when going out, and team {t} did not go out (seed "
                    f"001 §Threes)"
                )
    overflow = pack_overflow(c for t in TEAMS for c in teams[t].all_cards())
    if overflow:
        raise HandFileError(f"teams: {overflow}")
    return EndOfHand(
        teams=teams, went_out=went_out, went_out_concealed=concealed, variant=variant.name, table_rules=rules
    )


def hand_warnings(end: EndOfHand) -> list[Violation]:
    """Rules the finished hand seems to break that do not stop it being scored (shown to players):
    the team that went out without what going out needs; a special hand laid by a team that did not
    go out, or beside melds (seed 000 §Special hands: laid down at once, the team's only meld, and
    the hand ends)."""
    warnings: list[Violation] = []
    for name, team in end.teams.items():
        if not team.special_hand:
            continue
        if end.went_out != name:
            warnings.append(
                Violation(
                    "special.went_out",
                    f"The special hand of team {name} ends the hand: team {name} went out with it.",
                    "seed 000 §Special hands",
                )
            )
        if team.melds:
            warnings.append(
                Violation(
                    "special.only_meld",
                    f"A special hand is the only meld of team {name}: its other melds are not scored.",
                    "seed 000 §Special hands",
                )
            )
    if end.went_out is not None and not end.teams[end.went_out].special_hand:
        warnings += get_variant(end.variant).going_out_problems(list(end.teams[end.went_out].melds))
    return warnings


def score_report(data: Any) -> dict[str, Any]:
    """Score a hand file; the result is the ``--json`` output of ``python -m companion score``."""
    end = load_hand(data)
    variant = get_variant(end.variant)
    scores = score_hand(end)
    target = variant.game_target(end.table_rules)
    teams: dict[str, Any] = {}
    for t in TEAMS:
        before = end.teams[t].score_before
        after = before + scores[t].total
        teams[t] = {
            "total": scores[t].total,
            "lines": [{"item": line.item, "points": line.points} for line in scores[t].lines],
            "score_before": before,
            "score_after": after,
            "next_minimum": variant.opening_minimum(after),
        }
    after = {t: teams[t]["score_after"] for t in TEAMS}
    game_over = max(after.values()) >= target
    winner = None
    if game_over and after["A"] != after["B"]:
        winner = max(after, key=after.get)
    return {"variant": variant.name, "teams": teams, "game_over": game_over, "winner": winner}


__all__ = ["HandFileError", "load_hand", "score_report", "hand_warnings"]

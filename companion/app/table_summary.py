"""What the side panel says about the hand in progress, in the game's words, from a HandState."""

from __future__ import annotations

from companion import HandState, Opened

from .words import card_face, where_written


def opening_line(state: HandState, team: str) -> str:
    minimum = state.opening_minimum(team)
    opening = next((e for e in state.events if isinstance(e, Opened) and e.team == team), None)
    if opening is None:
        return f"Not opened yet: needs {minimum} points to open"
    count = state.opening_points(opening)
    short = "" if count >= minimum else " — short of the minimum"
    return f"Opened with {count} (needed {minimum}){short}"


def meld_lines(state: HandState, team: str) -> list[str]:
    melds = state.teams[team].melds
    problems = state.meld_problems(team)
    lines = []
    for meld, broken in zip(melds, problems):
        why = f" — not allowed: {broken[0].message} ({where_written(broken[0].source)})" if broken else ""
        lines.append(meld.describe() + why)
    return lines or ["no melds yet"]


def team_lines(state: HandState, team: str) -> dict[str, list[str]]:
    seen = state.teams[team]
    threes = " ".join(card_face(c.code) for c in seen.threes.cards) or "none laid out"
    blockers = [v.message for v in state.can_go_out(team)]
    return {
        "opening": [opening_line(state, team)],
        "melds": meld_lines(state, team),
        "threes": [threes],
        "canastas": [_canasta_count(seen.canastas, state.variant.canastas_to_go_out)],
        "going out": blockers or ["may go out"],
    }


def _canasta_count(canastas: int, needed: int) -> str:
    """Seed 000 §Going out: two canastas; classic one (seed 001 §Going out)."""
    if needed == 1:
        return f"{canastas} (one is needed to go out)"
    if canastas >= needed:
        return f"{canastas} (the {needed} needed to go out are made)"
    return f"{canastas} of the {needed} needed to go out"


def dead_ranks_line(state: HandState) -> str:
    return f"Dead ranks: {state.dead_ranks}"


def turn_card_line(state: HandState) -> str:
    return str(state.turn_card).capitalize()

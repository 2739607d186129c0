"""The hand in progress as the store keeps it, and the hand brought back from it.

What is saved is the game core's events applied so far (:mod:`companion.handlog`) and the canasta
cards the table tracker had to guess (which the end of the hand settles against the cards left in
hand). Bringing a hand back replays its events on a fresh :class:`HandState` (the scores and rules
come from the game), and gives the tracker what it would have learnt watching the hand: which meld
is each rank's, and which canastas are finished, so the table it sees when the video starts again
is taken as the hand as it stands, not played again.
"""

from __future__ import annotations

from typing import Any

from companion import TEAMS, HandState
from companion.handlog import HandLogError, from_log, replay, to_log
from vision.reader.tracking import TableTracker


def hand_log(tracker: TableTracker) -> dict[str, Any] | None:
    """What the store keeps of the hand the tracker follows; ``None`` before anything happened."""
    if not tracker.state.events:
        return None
    return {"events": to_log(tracker.state.events),
            "guessed": [[team, rank, list(codes)] for (team, rank), codes in tracker.guessed.items()]}


def resumed(log: dict[str, Any] | None, fresh: HandState) -> TableTracker:
    """A tracker following the saved hand ``log``, replayed on ``fresh`` (a new hand of the game);
    ``None`` follows ``fresh`` as it is. Raises :class:`HandLogError` for a log that isn't one."""
    if log is None:
        return TableTracker(state=fresh)
    state = replay(from_log(log.get("events")), fresh)
    return TableTracker.following(state, _guessed(log.get("guessed", [])))


def _guessed(items: Any) -> dict[tuple[str, str], tuple[str, ...]]:
    if not isinstance(items, list) or not all(
            isinstance(item, list) and len(item) == 3 and item[0] in TEAMS and isinstance(item[1], str)
            and isinstance(item[2], list) and all(isinstance(code, str) for code in item[2]) for item in items):
        raise HandLogError("guessed: expected [team, rank, [card codes]] for each canasta whose cards were guessed")
    return {(team, rank): tuple(codes) for team, rank, codes in items}

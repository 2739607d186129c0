"""Hand logs: the events of a hand in progress as JSON, so a hand can be saved and played back.

A :class:`~companion.hand.HandState` is what its events made it, so a saved list of events is the
whole hand: applying them again to a fresh state gives the same melds, threes, dead ranks and turn
card. Each event is an object naming its kind, with its fields; cards are written as card codes.

>>> from companion.cards import parse_cards as cards
>>> log = to_log([Opened("A", (cards("KH KS KD"),), stock_left=60), TurnCardDrawn()])
>>> log  # doctest: +NORMALIZE_WHITESPACE
[{'event': 'Opened', 'team': 'A', 'melds': [['KH', 'KS', 'KD']], 'stock_left': 60, 'pack_top': None},
 {'event': 'TurnCardDrawn'}]
>>> state = replay(from_log(log), HandState())
>>> [m.name for m in state.teams["A"].melds], state.turn_card.drawn
(['3 kings'], True)

A log that isn't one raises :class:`HandLogError`, naming the field:

>>> from_log([{"event": "MeldStarted", "team": "A", "cards": ["KH", "ZZ"]}])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
companion.handlog.HandLogError: events[0].cards[1]: 'ZZ' is not a card code: write rank then suit, ...
"""

from __future__ import annotations

import types
from dataclasses import MISSING, fields
from typing import Any, get_args, get_origin, get_type_hints

from .cards import Card, CardError
from .end_of_hand import TEAMS
from .hand import (
    CanastaClosed,
    CardsAdded,
    Event,
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

#: Every kind of event, by the name a log gives it.
EVENT_KINDS = {kind.__name__: kind for kind in (
    Opened, MeldStarted, CardsAdded, CanastaClosed, ThreesLaidOut, TurnCardDrawn, PackTaken, WentOut,
    SpecialHandLaid, HandEnded,
)}


class HandLogError(ValueError):
    """A saved hand log that can't be played back; the message names the field."""


def to_log(events: list[Event]) -> list[dict[str, Any]]:
    """The events as JSON-ready objects."""
    return [{"event": type(event).__name__, **{f.name: _plain(getattr(event, f.name)) for f in fields(event)}}
            for event in events]


def from_log(log: Any) -> list[Event]:
    """The events of a log written by :func:`to_log`; raises :class:`HandLogError`."""
    if not isinstance(log, list):
        raise HandLogError(f"events: expected a list of events, got {type(log).__name__}")
    return [_event(item, f"events[{i}]") for i, item in enumerate(log)]


def replay(events: list[Event], state: HandState) -> HandState:
    """``state`` (a fresh hand) with the events applied in order; returns it."""
    for event in events:
        state.apply(event)
    return state


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def _event(data: Any, where: str) -> Event:
    if not isinstance(data, dict):
        raise HandLogError(f"{where}: expected an event object, got {type(data).__name__}")
    kind = EVENT_KINDS.get(data.get("event"))
    if kind is None:
        raise HandLogError(f"{where}.event: {data.get('event')!r} is not an event; one of {', '.join(EVENT_KINDS)}")
    hints = get_type_hints(kind)
    unknown = sorted(set(data) - set(hints) - {"event"})
    if unknown:
        raise HandLogError(f"{where}.{unknown[0]}: unknown field of {kind.__name__}")
    missing = [f.name for f in fields(kind) if f.name not in data and f.default is MISSING]
    if missing:
        raise HandLogError(
            f"{where}.{missing[0]}: missing; {kind.__name__} needs {', '.join(f.name for f in fields(kind))}"
        )
    if "team" in data and data["team"] not in TEAMS:
        raise HandLogError(f"{where}.team: {data['team']!r} is not a team; one of {', '.join(TEAMS)}")
    return kind(
        **{name: _typed(hints[name], value, f"{where}.{name}") for name, value in data.items() if name != "event"}
    )


def _typed(hint: Any, value: Any, where: str) -> Any:
    """``value`` read as the field's type: a card, a tuple of them, a number, a name, or ``None``."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is types.UnionType:
        if value is None and type(None) in args:
            return None
        return _typed(next(a for a in args if a is not type(None)), value, where)
    if origin is tuple:
        if not isinstance(value, list):
            raise HandLogError(f"{where}: expected a list, got {type(value).__name__}")
        return tuple(_typed(args[0], item, f"{where}[{i}]") for i, item in enumerate(value))
    if hint is Card:
        try:
            return Card.parse(value)
        except CardError as error:
            raise HandLogError(f"{where}: {error}") from None
    if not isinstance(value, hint) or isinstance(value, bool):
        raise HandLogError(f"{where}: expected {hint.__name__}, got {value!r}")
    return value

"""A broken rule, as a value: what the app shows the players."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    """A rule the table broke, said plainly, with where the rule is written.

    ``rule`` is a short stable key (``"meld.too_many_wild"``) for code and tests; ``message`` is for
    the players; ``source`` names the seed section.
    """

    rule: str
    message: str
    source: str

    def __str__(self) -> str:
        return f"{self.message} ({self.source})"

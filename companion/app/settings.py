"""The app's settings, kept in the store: table rules, variant, team names, camera, detection threshold."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from companion import TableRules

from .game import DEFAULT_TEAM_NAMES
from .store import Store

DEFAULT_THRESHOLD = 0.5  #: detections less sure than this are not shown (the card reader's cut-off)


@dataclass
class AppSettings:
    variant: str = "modern"
    table_rules: dict[str, Any] = field(default_factory=dict)  #: only the rules the table changed
    team_names: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_TEAM_NAMES))
    camera: str | None = None  #: the camera's id, remembered between sessions
    threshold: float = DEFAULT_THRESHOLD

    @classmethod
    def load(cls, store: Store) -> AppSettings:
        defaults = asdict(cls())
        return cls(**{key: store.setting(key, default) for key, default in defaults.items()})

    def save(self, store: Store) -> None:
        store.set_settings(asdict(self))

    @property
    def rules(self) -> TableRules:
        return TableRules.from_dict(self.table_rules)

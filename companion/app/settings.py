"""The app's settings, kept in the store: table rules, variant, team names, the video played last,
detection threshold."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from companion import TEAMS, TableRules, TableRulesError
from companion.variant import VARIANTS
from vision.reader.reading import READING_THRESHOLD

from .game import DEFAULT_TEAM_NAMES
from .store import Store

#: Video sources other than a camera's id: the bundled demo hand, the video file played last.
DEMO, VIDEO_FILE = "demo", "file"
#: Cards read less sure than this are not shown (the card reader's cut-off; those under
#: :data:`vision.reader.reading.SURE` show amber).
DEFAULT_THRESHOLD = READING_THRESHOLD
#: The default threshold assumed for a score-sheet file that stores no default beside its threshold
#: (one written before the reader had a threshold of its own).
FIRST_DEFAULT_THRESHOLD = 0.5
#: The thresholds players may choose (Settings ▸ Detection threshold).
THRESHOLD_RANGE = (0.05, 0.95)


@dataclass
class AppSettings:
    variant: str = "modern"
    table_rules: dict[str, Any] = field(default_factory=dict)  #: only the rules the table changed
    team_names: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_TEAM_NAMES))
    #: What played last, played again at the next start: a camera's id, ``"demo"`` or ``"file"``
    #: (:attr:`video_file`); ``None`` before anything was chosen (the first camera, else the demo).
    source: str | None = None
    video_file: str | None = None  #: the video file played last
    threshold: float = DEFAULT_THRESHOLD

    @classmethod
    def load(cls, store: Store) -> AppSettings:
        """The settings kept in ``store``; each one that can't be used as it is there (of another
        type, a variant or table rule this version does not know) is its default instead."""
        defaults = asdict(cls())
        settings = cls(**{key: store.setting(key, default) for key, default in defaults.items()})
        if settings.source is None:  # an older file keeps only the camera, as "camera"
            settings.source = store.setting("camera")
        for key, default in defaults.items():
            if not settings._usable(key):
                setattr(settings, key, default)
        # Players who never moved the threshold off its default follow the default when it changes.
        if settings.threshold == store.setting("threshold_default", FIRST_DEFAULT_THRESHOLD):
            settings.threshold = DEFAULT_THRESHOLD
        return settings

    def _usable(self, key: str) -> bool:
        value = getattr(self, key)
        if key == "variant":
            return value in VARIANTS
        if key == "table_rules":
            try:
                TableRules.from_dict(value)
            except (TableRulesError, TypeError):
                return False
            return True
        if key == "team_names":
            return isinstance(value, dict) and all(isinstance(value.get(t), str) and value[t].strip() for t in TEAMS)
        if key in ("source", "video_file"):
            return value is None or isinstance(value, str)
        if key == "threshold":
            low, high = THRESHOLD_RANGE
            return isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high
        return True

    def save(self, store: Store) -> None:
        store.set_settings({**asdict(self), "threshold_default": DEFAULT_THRESHOLD})

    @property
    def rules(self) -> TableRules:
        return TableRules.from_dict(self.table_rules)

    def with_game(self, variant: str, rules: TableRules, team_names: dict[str, str]) -> AppSettings:
        """These settings with a game's own variant, table rules and team names (what the settings
        dialog shows for the game being played, which may be a past game opened again)."""
        default = TableRules()
        changed = {key: value for key, value in rules.to_dict().items() if getattr(rules, key) != getattr(default, key)}
        return replace(self, variant=variant, table_rules=changed, team_names=dict(team_names))

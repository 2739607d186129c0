"""The settings dialog: every table rule with its default and where the seeds say it, and the app's own
settings. It edits an :class:`AppSettings`; the main window saves it and applies it."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from companion import SETTINGS, TEAMS, TableRulesError
from companion.table_rules import SPECIAL_HAND_NAMES, Setting

from .cameras import Camera
from .settings import DEMO, THRESHOLD_RANGE, VIDEO_FILE, AppSettings
from .words import special_hand_name, where_written

NONE_WORDS = {"wild_card_threshold": "no limit", "game_target": "the variant's own"}
#: Choices in players' words.
CHOICE_WORDS = {
    "take_back_melds": "take back melded cards, the last melded first", "discard_swad": "discard one of them",
    "any_canasta": "any canasta of it", "natural_canasta": "a natural canasta of it",
    "pair_and_three_or_four": "with a natural pair, while the meld has three or four cards",
    "top_card_alone": "the top card alone may join it",
}


def shown(setting: Setting, value: Any) -> str:
    """A setting's value in words: ``True`` → ``yes``, ``None`` → ``no limit``."""
    if value is None:
        return NONE_WORDS.get(setting.name, "none")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return "all" if value == SPECIAL_HAND_NAMES else ", ".join(value) or "none"
    return f"{value:,}" if isinstance(value, int) else CHOICE_WORDS.get(value, str(value).replace("_", " "))


class SettingsDialog(QDialog):
    def __init__(self, settings: AppSettings, cameras: list[Camera], rules_note: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.resize(820, 720)
        self.settings = settings
        layout = QVBoxLayout(self)

        form = QFormLayout()
        self.variant = QComboBox()
        self.variant.addItem("Modern American", "modern")
        self.variant.addItem("Classic", "classic")
        self.variant.setCurrentIndex(self.variant.findData(settings.variant))
        form.addRow("Variant", self.variant)
        self.team_names = {t: QLineEdit(settings.team_names[t]) for t in TEAMS}
        for team in TEAMS:
            form.addRow(f"Team {team} name", self.team_names[team])
        self.video = QComboBox()
        for camera in cameras:
            self.video.addItem(f"Camera: {camera.description}", camera.id)
        self.video.addItem("No camera: the demo hand", DEMO)
        if settings.video_file:
            self.video.addItem(f"The video file {settings.video_file}", VIDEO_FILE)
        self.video.setCurrentIndex(max(0, self.video.findData(settings.source)))
        # What plays may not be in the list (nothing chosen yet, a camera unplugged): it shows the
        # first entry then, which is no choice of the players'.
        self.video_shown = self.video.currentIndex()
        form.addRow("Video", self.video)
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(*THRESHOLD_RANGE)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(settings.threshold)
        self.threshold.setToolTip("How sure the card reader must be before it shows a card "
                                  "(those it is less than 0.5 sure of show amber)")
        form.addRow("Detection threshold", self.threshold)
        layout.addLayout(form)

        title = QLabel(f"<b>Table rules</b> — {html.escape(rules_note)}")
        title.setWordWrap(True)
        layout.addWidget(title)
        rules = QWidget()
        self.rule_grid = QGridLayout(rules)
        self.rule_inputs: dict[str, Any] = {}
        current = settings.rules
        for row, setting in enumerate(SETTINGS.values()):
            self._add_rule_row(row, setting, getattr(current, setting.name))
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(rules)
        layout.addWidget(scroll, 1)

        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020;")
        self.error.setWordWrap(True)
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _add_rule_row(self, row: int, setting: Setting, value: Any) -> None:
        name = QLabel(f"<b>{html.escape(setting.title)}</b>")
        name.setWordWrap(True)
        name.setToolTip(setting.name)  # the name hand files and the score command use
        self.rule_grid.addWidget(name, 2 * row, 0, Qt.AlignTop)
        self.rule_grid.addWidget(self._rule_input(setting, value), 2 * row, 1, Qt.AlignTop)
        unchecked = ("" if setting.checked else " The camera can't see players' hands or hear them, so the app "
                     "keeps this for your table and checks nothing against it.")
        about = QLabel(
            f"Default: <b>{html.escape(shown(setting, setting.default))}</b> "
            f"({html.escape(where_written(setting.reason))}).{unchecked} "
            f"<span style='color:#555'>{html.escape(where_written(setting.sources))}</span>"
        )
        about.setWordWrap(True)
        about.setStyleSheet("font-size: 11px; margin-bottom: 8px;")
        self.rule_grid.addWidget(about, 2 * row + 1, 0, 1, 2)

    def _rule_input(self, setting: Setting, value: Any) -> QWidget:
        if setting.choices is None:  # special hands: the ones this table plays
            box = QWidget()
            grid = QGridLayout(box)
            grid.setContentsMargins(0, 0, 0, 0)
            checks = {}
            for i, name in enumerate(SPECIAL_HAND_NAMES):
                checks[name] = QCheckBox(special_hand_name(name))
                checks[name].setChecked(name in value)
                grid.addWidget(checks[name], i // 4, i % 4)
            self.rule_inputs[setting.name] = checks
            return box
        combo = QComboBox()
        for choice in setting.choices:
            combo.addItem(shown(setting, choice), choice)
        combo.setCurrentIndex(setting.choices.index(value))
        self.rule_inputs[setting.name] = combo
        return combo

    # ----------------------------------------------------------------------------------- result
    def chosen_rules(self) -> dict[str, Any]:
        """The rules that differ from the defaults, by name."""
        chosen = {}
        for name, widget in self.rule_inputs.items():
            if isinstance(widget, dict):
                value = tuple(n for n in SPECIAL_HAND_NAMES if widget[n].isChecked())
            else:
                value = widget.currentData()
            if value != SETTINGS[name].default:
                chosen[name] = list(value) if isinstance(value, tuple) else value
        return chosen

    def accept(self) -> None:
        result = AppSettings(
            variant=self.variant.currentData(),
            table_rules=self.chosen_rules(),
            team_names={t: self.team_names[t].text().strip() or f"Team {t}" for t in TEAMS},
            source=self.video.currentData() if self.video.currentIndex() != self.video_shown else self.settings.source,
            video_file=self.settings.video_file,
            threshold=round(self.threshold.value(), 2),
        )
        try:
            _ = result.rules  # the core checks every value
        except TableRulesError as error:
            self.error.setText(f"These table rules can't be used: {error}")
            return
        self.settings = result
        super().accept()

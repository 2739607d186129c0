"""The end-of-hand dialog: what was read per team, fixed by the players, scored line by line.

The dialog edits a :class:`HandDraft`; after every change it asks the game core for the score
(:meth:`Game.report`) and shows the breakdown, or why the hand can't be scored yet, in players'
words (:func:`~companion.app.words.hand_problem`). "Confirm" is possible only for a hand the core
accepts; the caller commits it.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from companion import TEAMS, HandFileError, Meld, parse_cards

from .cards_ui import REMOVE, CardRow, ask_card
from .draft import HandDraft, Place
from .game import Game
from .words import as_title, hand_problem, special_hand_name, where_written, with_names


def place_title(draft: HandDraft, team: str, place: Place) -> str:
    kind, *index = place
    if kind == "threes":
        return "Threes laid out"
    if kind == "hands":
        return f"Cards left in player {index[0] + 1}'s hand"
    codes = draft.cards(team, place)
    return f"Meld {index[0] + 1}: " + (Meld(parse_cards(codes)).describe() if codes else "empty — add its cards")


def breakdown_html(report: dict[str, Any], team_names: dict[str, str]) -> str:
    """The core's lines for both teams, side by side."""
    columns = []
    for team in TEAMS:
        t = report["teams"][team]
        rows = "".join(
            f"<tr><td>{line['item']}</td><td align='right'>{line['points']:+,}</td></tr>" for line in t["lines"]
        ) or "<tr><td colspan=2><i>nothing scored</i></td></tr>"
        columns.append(
            f"<td valign='top' width='50%'><b>{html.escape(team_names[team])}</b><table width='100%'>{rows}"
            f"<tr><td><b>This hand</b></td><td align='right'><b>{t['total']:+,}</b></td></tr>"
            f"<tr><td>Score {t['score_before']:,} → <b>{t['score_after']:,}</b></td>"
            f"<td align='right'>next minimum {t['next_minimum']}</td></tr></table></td>"
        )
    return f"<table width='100%' cellspacing='8'><tr>{''.join(columns)}</tr></table>"


class EndOfHandDialog(QDialog):
    def __init__(self, game: Game, draft: HandDraft, position: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.game, self.draft, self.position = game, draft, position
        self.ask_card = lambda current: ask_card(current, self)  # tests replace the picker
        self.report: dict[str, Any] | None = None
        self.setWindowTitle(f"Score hand {position + 1}")
        self.resize(1100, 820)

        layout = QVBoxLayout(self)
        intro = QLabel("Check what was read for each team. Click a card to change or remove it; "
                       "“+” adds a card the camera missed. Then confirm.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.team_boxes: dict[str, QGroupBox] = {}
        teams = QHBoxLayout()
        for team in TEAMS:
            box = QGroupBox(as_title(game.team_names[team]))
            box.setLayout(QVBoxLayout())
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setWidget(box)
            teams.addWidget(scroll)
            self.team_boxes[team] = box
        layout.addLayout(teams, 1)
        layout.addLayout(self._went_out_row())
        self.breakdown = QLabel()
        self.breakdown.setTextFormat(Qt.RichText)
        self.breakdown.setWordWrap(True)
        self.breakdown.setStyleSheet("QLabel { background: #fafaf5; border: 1px solid #ccc; padding: 6px; }")
        layout.addWidget(self.breakdown)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.confirm_button = self.buttons.addButton("Confirm — add to the score sheet", QDialogButtonBox.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.refresh()

    # ------------------------------------------------------------------------------- building
    def _went_out_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel("Went out:"))
        self.went_out_group = QButtonGroup(self)
        self.went_out_buttons: dict[str | None, QRadioButton] = {}
        choices = [(team, as_title(self.game.team_names[team])) for team in TEAMS] + [
            (None, "nobody (the draw pile ran out)")
        ]
        for key, text in choices:
            button = self.went_out_buttons[key] = QRadioButton(text)
            button.setChecked(self.draft.went_out == key)
            button.toggled.connect(lambda on, k=key: on and self._set_went_out(k))
            self.went_out_group.addButton(button)
            row.addWidget(button)
        self.concealed = QCheckBox("went out concealed")
        self.concealed.setChecked(self.draft.went_out_concealed)
        self.concealed.setVisible(self.game.variant == "classic")
        self.concealed.toggled.connect(self._set_concealed)
        row.addWidget(self.concealed)
        row.addStretch(1)
        return row

    def _fill_team(self, team: str) -> None:
        box = self.team_boxes[team]
        layout = box.layout()
        while layout.count():
            item = layout.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        grid = QGridLayout()
        for row, place in enumerate(self.draft.places(team)):
            grid.addWidget(QLabel(place_title(self.draft, team, place)), 2 * row, 0)
            cards = CardRow(self.draft.cards(team, place))
            cards.card_clicked.connect(lambda index, p=place: self.change_card(team, p, index))
            cards.add_clicked.connect(lambda p=place: self.add_card(team, p))
            grid.addWidget(cards, 2 * row + 1, 0)
        holder = QWidget()
        holder.setLayout(grid)
        layout.addWidget(holder)
        new_meld = QPushButton("New meld")
        new_meld.clicked.connect(lambda: self.new_meld(team))
        layout.addWidget(new_meld)
        if self.game.variant == "modern":
            layout.addWidget(self._special_hand_choice(team))
        layout.addStretch(1)

    def _special_hand_choice(self, team: str) -> QWidget:
        choice = QComboBox()
        choice.addItem("no special hand", None)
        for name in self.game.rules.special_hands:
            choice.addItem("special hand: " + special_hand_name(name), name)
        choice.setCurrentIndex(max(0, choice.findData(self.draft.teams[team]["special_hand"])))
        choice.currentIndexChanged.connect(lambda _: self._set_special(team, choice.currentData()))
        return choice

    # ---------------------------------------------------------------------------- player intent
    def change_card(self, team: str, place: Place, index: int) -> None:
        result = self.ask_card(self.draft.cards(team, place)[index])
        if result == REMOVE:
            self.draft.remove_card(team, place, index)
        elif result:
            self.draft.set_card(team, place, index, result)
        self.refresh()

    def add_card(self, team: str, place: Place) -> None:
        result = self.ask_card(None)
        if result and result != REMOVE:
            self.draft.add_card(team, place, result)
            self.refresh()

    def new_meld(self, team: str) -> None:
        place = self.draft.add_meld(team)
        self.add_card(team, place)

    def _set_went_out(self, team: str | None) -> None:
        self.draft.went_out = team
        self._score()

    def _set_concealed(self, on: bool) -> None:
        self.draft.went_out_concealed = on
        self._score()

    def _set_special(self, team: str, name: str | None) -> None:
        """A special hand is how its team goes out (seed 000 §Special hands): choosing one says so."""
        self.draft.set_special_hand(team, name)
        if name is not None and self.draft.went_out != team:
            self.went_out_buttons[team].setChecked(True)  # scores, through _set_went_out
            return
        self._score()

    # -------------------------------------------------------------------------------- showing
    def refresh(self) -> None:
        for team in TEAMS:
            self._fill_team(team)
        self._score()

    def _score(self) -> None:
        try:
            self.report = self.game.report(self.draft.to_hand(), self.position)
        except HandFileError as error:
            self.report = None
            self.breakdown.setText(
                f"<span style='color:#b00020'><b>Can't score this hand yet:</b> "
                f"{html.escape(hand_problem(str(error), self.game.team_names, self.draft.meld_numbers()))}</span>"
            )
        else:
            names = self.game.team_names
            check = f"Check, {names[self.draft.went_out]} went out:" if self.draft.went_out else "Check:"
            warnings = "".join(
                f"<p style='color:#9a5b00'><b>{html.escape(check)}</b> "
                f"{html.escape(with_names(w.message, names))} "
                f"({html.escape(where_written(w.source))})</p>"
                for w in self.game.warnings(self.draft.to_hand(), self.position)
            )
            self.breakdown.setText(warnings + breakdown_html(self.report, self.game.team_names))
        self.confirm_button.setEnabled(self.report is not None)

    def hand(self) -> dict[str, Any]:
        return self.draft.to_hand()

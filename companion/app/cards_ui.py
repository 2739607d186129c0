"""Cards on screen: a chip per card, and the rank + suit picker that a click on a chip opens."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion import Card
from companion.cards import RANKS, SUIT_NAMES, SUITS

from .words import SUIT_SYMBOLS, card_face, card_name

REMOVE = "remove"  #: what the picker returns when the player removes the card
RED = "#c0182b"


def chip_style(code: str) -> str:
    card = Card.parse(code)
    colour = RED if card.is_red or card.is_joker else "#111"
    return (
        f"QPushButton {{ color: {colour}; background: white; border: 1px solid #777; border-radius: 5px;"
        " font-size: 15px; font-weight: bold; padding: 4px 6px; min-width: 34px; }"
        " QPushButton:hover { border: 2px solid #2a6fdb; }"
    )


class CardChip(QPushButton):
    def __init__(self, code: str, parent: QWidget | None = None):
        super().__init__(card_face(code), parent)
        self.code = code
        self.setStyleSheet(chip_style(code))
        self.setToolTip(f"{card_name(code)} — click to change or remove")
        self.setCursor(Qt.PointingHandCursor)


class CardPicker(QDialog):
    """Pick a rank, then a suit (a joker needs no suit). ``chosen`` is the code, or :data:`REMOVE`."""

    def __init__(self, current: str | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Which card is it?" if current is None else f"Change the {card_name(current)}")
        self.chosen: str | None = None
        self._rank = Card.parse(current).rank if current else None
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Rank:"))
        ranks = QGridLayout()
        self.rank_buttons: dict[str, QPushButton] = {}
        for i, rank in enumerate((*RANKS, "JK")):
            button = self._button("Joker" if rank == "JK" else rank, lambda _=False, r=rank: self._pick_rank(r))
            self.rank_buttons[rank] = button
            ranks.addWidget(button, i // 7, i % 7)
        layout.addLayout(ranks)
        layout.addWidget(QLabel("Suit:"))
        suits = QHBoxLayout()
        self.suit_buttons: dict[str, QPushButton] = {}
        for suit in SUITS:
            button = self._button(
                f"{SUIT_SYMBOLS[suit]} {SUIT_NAMES[suit]}", lambda _=False, s=suit: self._pick_suit(s)
            )
            button.setStyleSheet(f"color: {RED if suit in 'DH' else '#111'}; font-size: 15px;")
            self.suit_buttons[suit] = button
            suits.addWidget(button)
        layout.addLayout(suits)
        buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        if current is not None:
            remove = buttons.addButton("Remove this card", QDialogButtonBox.DestructiveRole)
            remove.clicked.connect(lambda: self._finish(REMOVE))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._show_rank()

    def _button(self, text: str, slot) -> QPushButton:
        button = QPushButton(text)
        button.setCheckable(True)
        button.clicked.connect(slot)
        return button

    def _pick_rank(self, rank: str) -> None:
        self._rank = rank
        self._show_rank()
        if rank == "JK":
            self._finish("JK")

    def _pick_suit(self, suit: str) -> None:
        if self._rank and self._rank != "JK":
            self._finish(self._rank + suit)

    def _show_rank(self) -> None:
        for rank, button in self.rank_buttons.items():
            button.setChecked(rank == self._rank)
        for button in self.suit_buttons.values():
            button.setEnabled(self._rank not in (None, "JK"))

    def _finish(self, result: str) -> None:
        self.chosen = result
        self.accept()


def ask_card(current: str | None, parent: QWidget | None) -> str | None:
    """Open the picker; the new code, :data:`REMOVE`, or ``None`` when the player cancels."""
    picker = CardPicker(current, parent)
    return picker.chosen if picker.exec() == QDialog.Accepted else None


class CardRow(QWidget):
    """Chips for the cards at one place, and a "+" to add a missed card."""

    card_clicked = Signal(int)
    add_clicked = Signal()

    def __init__(self, codes: list[str], parent: QWidget | None = None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        self.chips = []
        for index, code in enumerate(codes):
            chip = CardChip(code)
            chip.clicked.connect(lambda _=False, i=index: self.card_clicked.emit(i))
            self.chips.append(chip)
            layout.addWidget(chip)
        self.add_button = QPushButton("+")
        self.add_button.setToolTip("add a card the camera missed")
        self.add_button.setFixedWidth(30)
        self.add_button.clicked.connect(self.add_clicked)
        layout.addWidget(self.add_button)
        layout.addStretch(1)

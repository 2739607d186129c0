"""The main window: the table (video and the hand in progress) and the score sheet, as two tabs."""

from __future__ import annotations

import html
import importlib.resources
import json
import sqlite3
from collections import deque
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QColor, QImage, QKeySequence, QPainter, QPen
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from companion import TEAMS, HandState, Meld, TurnCardDrawn, parse_cards
from companion.hand import Event
from companion.handlog import HandLogError
from vision.reader.deck_learning import learnt_classifier
from vision.reader.frame_sources import FrameSourceError, open_image
from vision.reader.reading import SURE
from vision.reader.team_areas import TABLE_SETUP_FILE, TableSetup, TableSetupError
from vision.reader.tracking import settle_guesses

from .cameras import list_cameras
from .deck import (
    DeckLearner,
    DeckTeacher,
    TeachDialog,
    deck_folder,
    learnt_reader_classifier,
    shipped_reader_classifier,
    use_learnt_deck,
)
from .draft import HandDraft
from .end_of_hand import EndOfHandDialog
from .game import Game
from .hand_in_progress import hand_log, resumed
from .live import LiveReading
from .photos import PHOTO_FILTER, PhotoReading, WhosePhotos, is_photo, local_path
from .reader import corner_size_advice, focus_advice, load_card_reader, model_metrics
from .settings import DEMO, VIDEO_FILE, AppSettings
from .settings_dialog import SettingsDialog
from .sheet_view import SheetView
from .store import DamagedGame, GameChanged, GameSummary, Store, StoreError
from .table_setup import outlines_to_drag, set_outlines, setup_from, starting_corners
from .table_summary import dead_ranks_line, team_lines, turn_card_line
from .video import VIDEO_FILTER, VideoFeed
from .video_view import TABLE, VideoView
from .words import as_title, where_written

#: The bundled demo hand: a simulated hand rendered by ``python -m vision video`` (datasets/demo/,
#: installed as the package ``companion.app.demo``).
DEMO_VIDEO = Path(str(importlib.resources.files("companion.app.demo") / "hand.mp4"))
#: The demo's team areas, as ``python -m vision video`` wrote them beside it.
DEMO_SETUP = DEMO_VIDEO.with_name(TABLE_SETUP_FILE)
#: The video menu's last entry: ask the players for a file.
OPEN_FILE = "open"
#: The corners read last whose heights are pooled to judge how large the camera sees them (a few
#: readings' worth on a full table, more when the reader finds few).
RECENT_CORNERS = 60
SET_UP_HELP = ("<b>Setting up the table:</b> drag the corners (or a whole area) so that each team's area "
               "covers where that team lays its melds, threes and canasta piles. Leave the discard pile "
               "and the draw pile in the strip between them.")


#: Asked of players while no team areas (nor the table's corners) are set up for the picture. Without
#: them the reader tells the teams' sides apart by which way their cards face (:mod:`vision.reader.facing`),
#: team A's the side nearer the picture's bottom until players swap the names (:meth:`MainWindow.swap_sides`),
#: and the window outlines the sides it took. The held-out hand videos follow far more plays with
#: the areas drawn than without (docs/experiments.md, "The facing network and the sides of the
#: table"), so the app asks for them.
AREAS_ADVICE = ("The team areas are not set up, so the card reader tells the two sides apart by which way "
                "their cards face and names each side on the picture; if it names them the wrong way round, "
                "press “Swap the sides” (W). It reads better with the areas: press “Set up table areas” and "
                "drag each team's area over where it lays its melds and threes.")


def setup_beside(video: Path) -> dict | None:
    """The team areas a video file comes with (:data:`~vision.reader.team_areas.TABLE_SETUP_FILE` beside it),
    or ``None`` when it has none, or they can't be read (the video then plays without areas until
    players set them up)."""
    try:
        loaded = json.loads(video.with_name(TABLE_SETUP_FILE).read_text())
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


class TeamPanel(QGroupBox):
    """One team's side of the hand in progress."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.RichText)
        self.text.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        QVBoxLayout(self).addWidget(self.text)

    def show_team(self, name: str, lines: dict[str, list[str]]) -> None:
        self.setTitle(as_title(name))
        parts = [
            f"<b>{heading.capitalize()}:</b> {html.escape(items[0])}" if len(items) == 1 else
            f"<b>{heading.capitalize()}:</b><br>" + "<br>".join("• " + html.escape(item) for item in items)
            for heading, items in lines.items()
        ]
        self.text.setText("<br>".join(parts))


class MainWindow(QMainWindow):
    def __init__(self, store: Store, start_video: bool = True):
        super().__init__()
        self.store = store
        self.settings = AppSettings.load(store)
        #: What went wrong opening the game played last, said once the window is built.
        self.unreadable_game = ""
        self.game = self._current_game()
        self.frozen = False
        self.cameras = list_cameras()
        self.setWindowTitle("Canasta Companion")
        self.resize(1280, 800)

        self.video = VideoView()
        self.playing: str | None = None  #: the video playing: a camera's id, "demo" or a file's path
        self.table_setup = TableSetup()  #: the team areas the reader uses on that video
        self.set_up_bar = self._set_up_bar()
        self.feed = VideoFeed(self)
        self.feed.frame.connect(self._on_frame)
        self.feed.failed.connect(self._on_video_failed)
        self.team_panels = {t: TeamPanel() for t in TEAMS}
        self.dead_ranks = QLabel()
        self.turn_card = QLabel()
        self.broken_rule = QLabel()
        self.broken_rule.setStyleSheet("color: #b00020; font-weight: bold; padding: 4px;")
        self.broken_rule.setWordWrap(True)
        #: Shown while the camera sees the card corners too small or too blurred to read well (see
        #: corner_size_advice and focus_advice).
        self.camera_advice = QLabel()
        self.camera_advice.setStyleSheet("color: #8a4b00; background: #fff3e0; padding: 4px;")
        self.camera_advice.setWordWrap(True)
        self.camera_advice.hide()
        self.recent_corner_heights: deque[float] = deque(maxlen=RECENT_CORNERS)
        self.recent_corner_sharpness: deque[float] = deque(maxlen=RECENT_CORNERS)
        self.model_metrics = model_metrics()
        self.sheet_view = SheetView(self.game)
        self.sheet_view.undo_stack.indexChanged.connect(self._sheet_changed)

        self.tabs = QTabWidget()
        self.tabs.addTab(self._table_tab(), "Table")
        self.tabs.addTab(self.sheet_view, "Score sheet")
        self.setCentralWidget(self.tabs)
        self._build_toolbar()
        self.reader, reader_message = load_card_reader()
        #: The table's own deck, as players taught it (companion.app.deck): learnt beside the score sheets.
        self.deck = deck_folder(store.path)
        if self.reader is not None:
            reader_message += use_learnt_deck(self.reader, self.deck)
        self.teacher = DeckTeacher(self.deck)
        self.learner = DeckLearner(self.deck, self)
        self.learner.finished.connect(self._lesson_done)
        self.newest_frame = None  #: the picture the video showed last (BGR), for teaching the reader
        self._build_menu()
        self.statusBar().showMessage(reader_message)
        self.live: LiveReading | None = None
        self._resume_saved_hand()
        if self.unreadable_game:
            self.broken_rule.setText(" ".join(filter(None, (self.unreadable_game, self.broken_rule.text()))))
        self.readings_taken = 0
        if self.reader is not None:
            self.live = LiveReading(self.reader, self)
            self.live.reading.connect(self.on_reading)
            self.live.failed.connect(
                lambda why: self.statusBar().showMessage(f"The card reader failed on a frame: {why}")
            )
            self.live.use_threshold(self.settings.threshold)
            self.feed.frame_sink = self._offer_frame
            self.photo_reading = PhotoReading(self.live, self)
            self.photo_reading.done.connect(self._score_from_photos)
        self.ask_whose_photos = self._ask_whose_photos  # tests answer instead
        self.setAcceptDrops(True)
        self.refresh_table()
        if start_video:
            self.play_at_start()

    # -------------------------------------------------------------------------------- building
    def _table_tab(self) -> QWidget:
        # What the panel says scrolls where it is longer than the window (a broken rule and camera
        # advice besides both teams' melds); the two buttons stay in sight below it.
        info = QWidget()
        column = QVBoxLayout(info)
        for panel in self.team_panels.values():
            column.addWidget(panel, 1)
        for label in (self.dead_ranks, self.turn_card):
            label.setWordWrap(True)
            label.setStyleSheet("font-size: 14px; font-weight: bold; padding: 4px;")
            column.addWidget(label)
        column.addWidget(self.broken_rule)
        column.addWidget(self.camera_advice)
        scroll = QScrollArea()
        scroll.setWidget(info)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(320)
        side = QWidget()
        column = QVBoxLayout(side)
        column.addWidget(scroll, 1)
        self.turn_button = QPushButton("The turn card was drawn (T)")
        self.turn_button.setToolTip("Press T when the camera can't see the draw pile and someone draws the turn card")
        self.turn_button.clicked.connect(self.turn_card_drawn)
        column.addWidget(self.turn_button)
        score = QPushButton("Score hand (S)")
        score.setStyleSheet("font-size: 15px; font-weight: bold; padding: 8px;")
        score.clicked.connect(self.score_hand)
        column.addWidget(score)
        picture = QWidget()
        picture_column = QVBoxLayout(picture)
        picture_column.setContentsMargins(0, 0, 0, 0)
        picture_column.addWidget(self.set_up_bar)
        picture_column.addWidget(self.video, 1)
        splitter = QSplitter()
        splitter.addWidget(picture)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([1000, 400])  # the picture first; the panel about as wide as its lines want
        return splitter

    def _set_up_bar(self) -> QFrame:
        """Shown above the picture while the team areas are set up: what to do, and how to finish."""
        bar = QFrame()
        bar.setObjectName("setUpBar")
        bar.setStyleSheet("#setUpBar { background: #fff4d6; border: 1px solid #e0a800; border-radius: 4px; }")
        text = QLabel(SET_UP_HELP)
        text.setWordWrap(True)
        self.mark_corners = QCheckBox("The camera films the table at an angle: also drag the white outline "
                                      "onto the table's four corners")
        self.mark_corners.setToolTip("The card reader then sees the table from straight above, where cards "
                                     "line up better")
        self.mark_corners.toggled.connect(self._corners_marked)
        words = QVBoxLayout()
        words.addWidget(text)
        words.addWidget(self.mark_corners)
        row = QHBoxLayout(bar)
        row.addLayout(words, 1)
        for label, tip, slot in (
            ("Done", "Use these areas from now on (kept for this camera or video)", self.finish_set_up),
            ("Reset to default", "Forget the areas and the corners: the card reader tells the sides apart by "
                                 "which way the cards face, the first team's the one nearer the bottom of the "
                                 "picture (“Swap the sides” names them the other way)",
             self.reset_set_up),
            ("Cancel", "Keep the areas as they were", self.cancel_set_up),
        ):
            button = QPushButton(label)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            row.addWidget(button)
        bar.hide()
        return bar

    def _build_toolbar(self) -> None:
        bar = QToolBar("Video")
        bar.setMovable(False)
        bar.addWidget(QLabel(" Video: "))
        self.source = QComboBox()
        self._list_sources(self.settings.source)
        self.source.activated.connect(lambda _: self.start_source(self.source.currentData()))
        bar.addWidget(self.source)
        bar.addSeparator()
        self.set_up_action = QAction("Set up table areas", self)
        self.set_up_action.setCheckable(True)
        self.set_up_action.setToolTip(
            "Drag each team's area on the picture so the card reader knows whose cards are whose"
        )
        self.set_up_action.toggled.connect(self.set_up_areas)
        bar.addAction(self.set_up_action)
        self.swap_action = QAction("Swap the sides", self)
        self.swap_action.setShortcut(QKeySequence("W"))
        self.swap_action.setToolTip("The camera takes each team's cards for the other's: swap them, from now on "
                                    "and in the hand so far (W)")
        self.swap_action.triggered.connect(self.swap_sides)
        bar.addAction(self.swap_action)
        for action in (self.set_up_action, self.swap_action):
            bar.widgetForAction(action).setStyleSheet(  # buttons players see as such
                "QToolButton { border: 1px solid #9a9a9a; border-radius: 4px; padding: 3px 10px; background: #fafafa; }"
                "QToolButton:checked { background: #ffe9a8; border-color: #e0a800; }")
        self.addToolBar(bar)

    def _list_sources(self, chosen: str | None) -> None:
        """The video menu: the cameras, the demo, the video file played last, another file; ``chosen``
        selected (the first entry when it is not there)."""
        self.source.clear()
        for camera in self.cameras:
            self.source.addItem(f"Camera: {camera.description}", camera.id)
        self.source.addItem("The demo hand", DEMO)
        if self.settings.video_file:
            self.source.addItem(f"Video: {Path(self.settings.video_file).name}", VIDEO_FILE)
            self.source.setItemData(self.source.count() - 1, self.settings.video_file, Qt.ToolTipRole)
        self.source.addItem("Open a video file…", OPEN_FILE)
        self.source.setCurrentIndex(max(0, self.source.findData(chosen)))

    def _build_menu(self) -> None:
        game_menu = self.menuBar().addMenu("&Game")
        for text, shortcut, slot in (
            ("&Score hand", "S", self.score_hand),
            ("Score from p&hotos…", "Ctrl+Shift+S", self.score_photos),
            ("&Turn card drawn", "T", self.turn_card_drawn),
            ("&New game", "Ctrl+N", self.ask_new_game),
            ("&Past games…", "Ctrl+O", self.past_games),
            ("Settin&gs…", "Ctrl+,", self.edit_settings),
        ):
            action = QAction(text, self)
            action.setShortcut(QKeySequence(shortcut))
            action.triggered.connect(slot)
            game_menu.addAction(action)
        game_menu.insertAction(game_menu.actions()[2], self.swap_action)
        reader_menu = self.menuBar().addMenu("&Reader")
        for text, shortcut, tip, slot in (
            ("&Teach it our cards…", "Ctrl+L", "Name the cards in the picture so the reader learns your deck",
             self.teach_cards),
            ("&Forget our deck", "", "Go back to reading cards as the app was shipped", self.forget_deck),
        ):
            action = QAction(text, self)
            action.setShortcut(QKeySequence(shortcut))
            action.setStatusTip(tip)
            action.triggered.connect(slot)
            action.setEnabled(self.reader is not None)
            reader_menu.addAction(action)
        edit_menu = self.menuBar().addMenu("&Edit")
        for action, keys in ((self.sheet_view.undo_stack.createUndoAction(self), QKeySequence.Undo),
                             (self.sheet_view.undo_stack.createRedoAction(self), QKeySequence.Redo)):
            action.setShortcut(keys)
            edit_menu.addAction(action)

    # ------------------------------------------------------------------------------- the game
    def _current_game(self) -> Game:
        """The game played last time, so reopening resumes it; a new one the first time, or when the
        last one can't be read back (it stays in the file as it is, for a newer app or for help)."""
        known = {g.id for g in self.store.games()}
        current = self.store.setting("current_game")
        if isinstance(current, int) and current in known:
            try:
                return Game.load(self.store, current)
            except DamagedGame as error:
                # Its hand on the table would be replaced by the new game's first play: copied first.
                try:
                    kept = self.store.keep_unreadable_hand_in_progress()
                except OSError:
                    kept = None
                hand = f" The hand that was on its table is copied to {kept}." if kept else ""
                self.unreadable_game = (f"The game played last can't be opened, so a new game starts: {error}. "
                                        f"It stays in {self.store.path} as it was; the other games are safe.{hand}")
        return self._start_game()

    def _start_game(self) -> Game:
        game = Game.start(self.store, self.settings.variant, self.settings.rules, self.settings.team_names)
        self._keep("which game is played", lambda: self.store.set_settings({"current_game": game.id}))
        return game

    def _keep(self, what: str, write) -> bool:
        """Run ``write`` (a change to the store); where the file can't take it (made read-only, the
        disk full), say so and go on: the hands confirmed before are on disk already."""
        try:
            write()
        except (sqlite3.Error, GameChanged) as error:
            self.statusBar().showMessage(f"Could not save {what} ({error}); the hands confirmed before are "
                                         f"safe in {self.store.path}.")
            if isinstance(error, GameChanged):  # the game was read again: show it as saved
                self.sheet_view.refresh()
                self._sheet_changed()
            return False
        return True

    def _new_hand_state(self) -> HandState:
        return HandState(scores=self.game.sheet.totals, rules=self.game.rules, variant=self.game.variant)

    def set_game(self, game: Game) -> None:
        self.game = game
        self._keep("which game is played", lambda: self.store.set_settings({"current_game": game.id}))
        self.sheet_view.set_game(game)
        self._hand_changed()

    @property
    def state(self) -> HandState:
        """The hand in progress, as the tracker follows it."""
        return self.tracker.state

    def _sheet_changed(self, _index: int | None = None) -> None:
        """A hand on the sheet was corrected, deleted, or the change undone: the hand on the table
        goes on as it is, with the new totals (only scoring it starts the next one)."""
        self.state.scores = dict(self.game.sheet.totals)
        self.refresh_table()

    def _hand_changed(self) -> None:
        """A new hand starts, from the sheet's totals (its opening minimums)."""
        self._show_hand(None)

    def _show_hand(self, log: dict | None, saved: bool = False, saved_anew: bool = True) -> None:
        """Put a hand on the table: a saved one (``log``, as :func:`hand_log` wrote it) or a new one;
        the video's readings drive it from now on. ``saved``: the store already holds ``log``;
        ``saved_anew`` False: the store keeps what it holds until the first play."""
        self.tracker = resumed(log, self._new_hand_state())
        self._saved_events = len(self.state.events) if saved or not saved_anew else -1
        self.last_reading = None
        self.meld_outlines: list[tuple[tuple[float, float, float, float], bool]] = []
        self.last_frame_read = -1
        self.broken_rule.clear()
        if self.live is not None:
            self.live.new_hand()  # the reader forgets the last hand's turn card
        self._save_hand()
        self.refresh_table()

    def _resume_saved_hand(self) -> None:
        """The hand that was on the table when the app closed (or was killed) comes back as it was;
        one that can't be read back is copied to a file beside the score sheets before a new hand
        takes its place."""
        try:
            self._show_hand(self.game.hand_in_progress(), saved=True)
        except (StoreError, HandLogError) as error:
            try:
                kept = self.store.keep_unreadable_hand_in_progress()
            except OSError as not_kept:
                self._show_hand(None, saved_anew=False)  # clears the message line: the message comes after
                self.broken_rule.setText(f"The hand that was on the table when the app last closed can't be read "
                                         f"back ({error}), nor copied aside ({not_kept.strerror}); it is left in "
                                         f"the score-sheet file until a new hand is played.")
                return
            self._show_hand(None)
            where = f" A copy of it as it was is in {kept}." if kept else ""
            self.broken_rule.setText("The hand that was on the table when the app last closed can't be read "
                                     "back, so the table starts a new hand. The score sheet and its games are "
                                     f"safe.{where} (Details: {error})")

    def _save_hand(self) -> None:
        """Keep the hand in progress on disk after each change on the table (one transaction each),
        so a restart resumes it."""
        if len(self.state.events) == self._saved_events:
            return
        if self._keep("the hand in progress", lambda: self.game.save_hand_in_progress(hand_log(self.tracker))):
            self._saved_events = len(self.state.events)

    def _may_leave_the_hand(self, going: str) -> bool:
        """Whether players mean to leave the hand on the table unscored (asked only when one is under
        way): a game's hands stay on its sheet, but only one hand in progress is kept."""
        plays = len(self.state.events)
        if not plays:
            return True
        asked = QMessageBox.question(
            self, f"{going}?",
            f"{going}? The hand on the table ({plays} play{'s' if plays > 1 else ''} so far) is not on the score "
            "sheet yet and will not be kept. The hands already on the sheet stay in Past games.")
        return asked == QMessageBox.Yes

    def ask_new_game(self) -> None:
        """Game ▸ New game: a new game, once players confirm leaving a hand under way."""
        if self._may_leave_the_hand("Start a new game"):
            self.new_game()

    def new_game(self) -> None:
        try:
            game = self._start_game()
        except sqlite3.Error as error:
            QMessageBox.warning(self, "No new game", f"A new game could not be saved ({error}); this game goes on.")
            return
        self.set_game(game)

    def past_games(self) -> None:
        dialog = PastGamesDialog(self.store, self, playing=self.game.id)
        # The game being played, chosen again, goes on with the hand on its table.
        if dialog.exec() == QDialog.Accepted and dialog.chosen not in (None, self.game.id):
            if not self._may_leave_the_hand("Open another game"):
                return
            try:
                game = Game.load(self.store, dialog.chosen)
            except DamagedGame as error:
                QMessageBox.warning(self, "This game can't be opened",
                                    f"This game can't be opened: {error}. It stays in {self.store.path} as it "
                                    "was; the game being played goes on.")
                return
            self.set_game(game)

    def edit_settings(self) -> None:
        note = ("they apply to this game, which has no hands yet" if not self.game.hands
                else "they apply from the next new game; this game keeps the rules it started with")
        # The game being played (a past game, maybe) is shown with its own names, and, while it has
        # no hands, its own rules, so OK keeps them as they are unless the players change them. Once
        # it has hands, the rules shown are those chosen for the next game, which OK keeps.
        if self.game.hands:
            shown = replace(self.settings, team_names=dict(self.game.team_names))
        else:
            shown = self.settings.with_game(self.game.variant, self.game.rules, self.game.team_names)
        dialog = SettingsDialog(shown, self.cameras, note, self)
        if dialog.exec() != QDialog.Accepted:
            return
        self.apply_settings(dialog.settings)

    def apply_settings(self, settings: AppSettings) -> None:
        """Keep the new settings; the hand in progress goes on, its plays replayed by the game's new
        rules where they changed."""
        before = self.settings
        self.settings = settings
        self._keep("the settings", lambda: settings.save(self.store))
        self._keep("the team names", lambda: self.game.set_team_names(settings.team_names))
        new_rules = not self.game.hands and (settings.variant, settings.rules) != (self.game.variant, self.game.rules)
        if new_rules:
            new_rules = self._keep("the game's rules", lambda: self.game.set_rules(settings.variant, settings.rules))
        self.sheet_view.refresh()
        if new_rules:
            self._replay_hand()
        else:
            self.refresh_table()
        if self.live is not None and settings.threshold != before.threshold:
            self.live.use_threshold(settings.threshold)
        if settings.source != before.source:
            self.start_source(settings.source)

    def _replay_hand(self) -> None:
        """The hand on the table played again from its start by the game's (new) rules: its plays
        kept, what they now break shown; a hand the new rules can't replay starts again, said so."""
        log = hand_log(self.tracker)
        try:
            self._show_hand(log)
        except HandLogError as error:
            self._show_hand(None)
            self.statusBar().showMessage(f"The hand on the table can't be played by the new rules ({error}); "
                                         "it starts again.")
            return
        if log is not None:
            self.statusBar().showMessage("The rules changed: the hand on the table is played again by them, "
                                         "its plays kept.")

    # ------------------------------------------------------------------------------ the table
    def refresh_table(self) -> None:
        for team, panel in self.team_panels.items():
            panel.show_team(self.game.team_names[team], team_lines(self.state, team))
        self.video.names.update(self.game.team_names)
        self.video.update()
        self.dead_ranks.setText(dead_ranks_line(self.state))
        self.turn_card.setText(turn_card_line(self.state))
        # Classic canasta has neither dead ranks nor a turn card (seed 001): the panel leaves them out.
        modern = self.game.variant == "modern"
        for widget in (self.dead_ranks, self.turn_card, self.turn_button):
            widget.setVisible(modern)

    def apply_event(self, event: Event) -> None:
        """Something happened on the table: show the hand as it now stands, and any rule it broke."""
        self._show_broken(self.state.apply(event))
        self._save_hand()
        self.refresh_table()

    def _show_broken(self, violations) -> None:
        """Say in red which rules the table breaks, and where each is written (none: clear it)."""
        self.broken_rule.setText("\n".join(f"Not allowed: {v.message} ({where_written(v.source)})" for v in violations))

    def turn_card_drawn(self) -> None:
        """The one-key fallback when the camera can't see the stock (Modern American only)."""
        if self.game.variant == "modern":
            self.apply_event(TurnCardDrawn())

    def end_of_hand_draft(self) -> HandDraft:
        """What was read, for the players to check: the hand state's melds and threes, and the cards
        left in each partner's hand from the latest reading."""
        draft = HandDraft.from_state(self.state)
        if self.last_reading is not None:
            for team in TEAMS:
                hands = [[card.code for card in hand] for hand in self.last_reading.teams[team].hands]
                if hands:
                    draft.teams[team]["hands"] = (hands + [[], []])[:max(2, len(hands))]
        settle_guesses(draft.teams, self.tracker.guessed)
        return draft

    def score_hand(self) -> None:
        """Freeze the picture, let the players check what was read, and add the hand to the sheet."""
        self.frozen = True
        try:
            dialog = EndOfHandDialog(self.game, self.end_of_hand_draft(), len(self.game.hands), self)
            if self.sheet_view.open_dialog(dialog) == QDialog.Accepted and self.sheet_view.add_hand(
                    dialog.hand(), hand_log(self.tracker), self._table_shows):
                self.tabs.setCurrentWidget(self.sheet_view)
                if self.reader is not None and learnt_classifier(self.deck) is None:
                    self.statusBar().showMessage(
                        "Hand scored. While its cards are still on the table, press Ctrl+L to teach the card "
                        "reader your deck: it reads the cards of a deck it has learnt better.")
        finally:
            self.frozen = False

    def score_photos(self, paths: list[str] | None = None) -> None:
        """Score the hand from photos of the table (``paths``, or those the players pick): each
        photo read as a still picture, whose cards it shows asked, then the end-of-hand dialog.
        Photos offered while others are read join them, for one dialog."""
        if self.live is None:
            QMessageBox.information(self, "Score from photos", "The card reader is not available, so photos can't "
                                    "be read. Press “Score hand” and enter the cards instead.")
            return
        joining = self.photo_reading.busy
        if joining:  # the questions below are answered with the usual pointer, not the wait cursor
            QApplication.setOverrideCursor(Qt.ArrowCursor)
        try:
            self._offer_photos(paths)
        finally:
            if joining:
                QApplication.restoreOverrideCursor()

    def _offer_photos(self, paths: list[str] | None) -> None:
        with self.photo_reading.held():  # a set being read waits for these to join it
            if paths is None:
                paths, _ = QFileDialog.getOpenFileNames(self, "Score the hand from photos of the table", "",
                                                        PHOTO_FILTER)
            if not paths:
                return
            # Each file's header is checked here, at once (a picture that is no photo, or too large, is
            # told before any question); its pixels are decoded on the reading thread.
            try:
                pictures = [open_image(Path(path)) for path in paths]
            except FrameSourceError as error:
                QMessageBox.warning(self, "Score from photos", f"This photo can't be read: {error}")
                return
            owners = self.ask_whose_photos(paths, self.photo_reading.count)
            if owners is None:
                return
            if not self.photo_reading.busy:  # a new set: the wait cursor until it is read
                QApplication.setOverrideCursor(Qt.WaitCursor)
            self.photo_reading.read(pictures, owners)
            count = self.photo_reading.count
            self.statusBar().showMessage(f"Reading {count} photos…" if count > 1 else "Reading the photo…")

    def _ask_whose_photos(self, paths: list[str], before: int = 0) -> list[str | None] | None:
        """Whose cards each photo shows (``before``: how many photos of the set are already being read)."""
        dialog = WhosePhotos(paths, self.game.team_names, self, before)
        return dialog.owners() if dialog.exec() == QDialog.Accepted else None

    def _score_from_photos(self, hands: list, unread: list[str]) -> None:
        """The photos are read: let the players check what they show and add the hand to the sheet.
        A photo that could not be decoded or read is told in one line; the others are still scored."""
        QApplication.restoreOverrideCursor()
        self.statusBar().clearMessage()
        if unread:
            rest = (" The end-of-hand dialog shows the cards of the other photos: enter the missing cards there."
                    if hands else "")
            QMessageBox.warning(self, "Score from photos", "\n".join(
                f"This photo can't be read: {why}" for why in unread) + rest)
        if not hands:
            return
        self.frozen = True
        try:
            dialog = EndOfHandDialog(self.game, HandDraft.from_photos(hands), len(self.game.hands), self)
            if self.sheet_view.open_dialog(dialog) == QDialog.Accepted and self.sheet_view.add_hand(
                    dialog.hand(), hand_log(self.tracker), self._table_shows):
                self.tabs.setCurrentWidget(self.sheet_view)
        finally:
            self.frozen = False

    def dragEnterEvent(self, event) -> None:
        """Photos dragged over the window may be dropped on it to score the hand from them, unless a
        dialog is open (Qt hands drops to the window behind one, which would open a second on top)."""
        urls = event.mimeData().urls()
        if self.live is not None and urls and QApplication.activeModalWidget() is None and all(
                url.isLocalFile() and is_photo(local_path(url)) for url in urls):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        if QApplication.activeModalWidget() is not None:
            event.ignore()
            return
        paths = [local_path(url) for url in event.mimeData().urls()]
        event.acceptProposedAction()
        self.score_photos(paths)

    def _table_shows(self, log: dict | None) -> None:
        """A hand was scored (``None``: the next hand starts from the new totals), or its scoring
        undone (``log``: that hand is back on the table as it was scored); the store already holds it."""
        if log is not None and self.state.events:
            self.statusBar().showMessage("The hand taken back off the score sheet is on the table again, "
                                         "in place of the hand that had begun.")
        self._show_hand(log, saved=True)

    # ------------------------------------------------------------------------------- the video
    def play_at_start(self, video_file: str | None = None, camera: str | None = None) -> None:
        """Play the video file or the camera (its id) asked for on the command line, else what
        played last (see :meth:`_source_at_start`)."""
        if video_file is not None:
            self.settings.video_file = video_file
            self.start_source(VIDEO_FILE)
        else:
            self.start_source(camera or self._source_at_start())

    def _source_at_start(self) -> str:
        """What played last time; the first camera (else the demo) the first time, or when the
        camera used last is not connected."""
        fallback = self.cameras[0].id if self.cameras else DEMO
        source = self.settings.source
        if source is None or source in (DEMO, VIDEO_FILE) or any(c.id == source for c in self.cameras):
            return source or fallback
        self.statusBar().showMessage(f"The camera used last time ({source}) is not connected; "
                                     f"choose a video above.")
        return fallback

    def start_source(self, source: str | None) -> None:
        """Play a camera (its id), the demo hand, the video file played last, or a file the players
        pick (:data:`OPEN_FILE`); the choice is kept for the next start. The hand in progress goes on."""
        if source == OPEN_FILE:
            path, _ = QFileDialog.getOpenFileName(
                self, "Play a video of a canasta table", "", VIDEO_FILTER
            )
            if not path:  # nothing picked: the menu shows what still plays
                self._list_sources(self.settings.source)
                return
            self.settings.video_file, source = path, VIDEO_FILE
        gone = source == VIDEO_FILE and not (self.settings.video_file and Path(self.settings.video_file).is_file())
        if gone:
            missing, self.settings.video_file, source = self.settings.video_file, None, DEMO
        self.settings.source = source
        self._keep(
            "the video chosen",
            lambda: self.store.set_settings({"source": source, "video_file": self.settings.video_file}),
        )
        self._list_sources(source)
        if source == DEMO and not DEMO_VIDEO.exists():
            self._play(None, None)
            self.video.show_message(
                f"The demo video is not installed yet ({DEMO_VIDEO}).\n\n"
                "You can still keep score: play your hand, then press “Score hand” and enter the cards."
            )
        elif source == DEMO:
            self._play(DEMO, str(DEMO_VIDEO), loop=True)
        elif source == VIDEO_FILE:
            self._play(self.settings.video_file, self.settings.video_file)
        else:
            self._play(source, source)
        if gone:
            self.statusBar().showMessage(f"The video file played last time is not there any more ({missing}); "
                                         "the demo hand plays instead.")

    def _play(self, key: str | None, opened: str | None, loop: bool = False) -> None:
        """Show another video (``opened``: what OpenCV opens; ``key``: whose table set-up to use). The
        hand in progress goes on: the tracker keeps following it on the new picture."""
        self.cancel_set_up()
        self.feed.stop()
        if self.live is not None:
            self.live.new_source()  # readings of the old video still under way are dropped
        self.recent_corner_heights.clear()  # another camera sees the corners at another size
        self.recent_corner_sharpness.clear()
        self.camera_advice.hide()
        self.last_frame_read = -1  # the new video numbers its frames from 0: that is no new hand
        self.last_reading, self.meld_outlines = None, []
        self.playing = key
        self.use_table_setup(self._saved_setup(key))
        if opened is not None:
            self.feed.start(opened, loop=loop)

    # --------------------------------------------------------------------------- the team areas
    def _saved_setup(self, key: str | None) -> TableSetup:
        """The team areas kept for this video; else those it comes with (:func:`setup_beside`: the
        demo's ``datasets/demo/table_setup.json``, four corners around each team's cards). Without
        them the reader takes the demo's discard pile for the turn card and reports it drawn before
        the first three."""
        try:
            saved = self.store.table_setup(key) if key is not None else None
            if saved is None:
                saved = self._setup_beside(key)
            if saved is None:
                return TableSetup()
            return TableSetup.from_json(saved)
        except StoreError as error:
            self.statusBar().showMessage(f"The team areas kept for this video can't be used ({error}); "
                                         "set them up again.")
            return TableSetup()
        except TableSetupError as error:
            self.statusBar().showMessage(f"The team areas kept for this video can't be used: "
                                         f"{self._setup_words(error)}.")
            return TableSetup()

    @staticmethod
    def _setup_beside(key: str | None) -> dict | None:
        """The team areas the video a source key plays comes with (the demo's, or a file's: its
        own path is its key); ``None`` for a camera, or a video without them."""
        video = DEMO_VIDEO if key == DEMO else Path(key) if key not in (None, VIDEO_FILE) else None
        return setup_beside(video) if video is not None and video.is_file() else None

    def use_table_setup(self, setup: TableSetup, keep: bool = False, new_view: bool = True) -> None:
        """Read the table with these team areas from now on; ``keep`` saves them for this video;
        ``new_view`` False: the reader keeps what it measured of the view (see :meth:`swap_sides`)."""
        self.table_setup = setup
        if keep and self.playing is not None:
            # A video's "none" is kept as such where forgetting it would bring back the areas beside it.
            comes_with = self._setup_beside(self.playing) is not None
            kept = setup.to_json()
            self._keep(
                "the team areas",
                lambda: self.store.save_table_setup(self.playing, kept if kept or comes_with else None),
            )
        if self.live is not None:
            self.live.use_setup(setup, new_view)
        self.video.show_areas(set_outlines(setup))

    def set_up_areas(self, on: bool) -> None:
        """The toolbar's "Set up table areas": on, the areas can be dragged; off again, they are used."""
        if on and not self.video.editing:
            self.begin_set_up()
        elif not on and self.video.editing:
            self.finish_set_up()

    def begin_set_up(self) -> None:
        if self.video.image is None:
            self.statusBar().showMessage("Start a camera or a video first: the team areas are drawn on its picture.")
            self._set_up_shown(False)
            return
        size = (self.video.image.width(), self.video.image.height())
        self.video.show_areas(outlines_to_drag(self.table_setup, size), editing=True)
        self._set_up_shown(True)
        self.mark_corners.blockSignals(True)
        self.mark_corners.setChecked(TABLE in self.video.areas)
        self.mark_corners.blockSignals(False)
        self.tabs.setCurrentIndex(0)  # the areas are set on the table tab's picture

    def finish_set_up(self) -> None:
        """Done: the areas as dragged are used and kept for this video."""
        if not self.video.editing:
            return
        try:
            setup = setup_from(self.video.areas)
        except TableSetupError as error:  # nothing is kept; the outlines stay to be dragged again
            self._set_up_shown(True)
            QMessageBox.warning(self, "Set up table areas",
                                f"These outlines can't be used: {self._setup_words(error)}.")
            return
        self._set_up_shown(False)
        self.use_table_setup(setup, keep=True)
        self.statusBar().showMessage("Table set-up saved for this video: the card reader uses it from now on.")

    def _setup_words(self, error: TableSetupError) -> str:
        """A set-up's problem as players read it: without the file's field prefix, teams by name."""
        words = str(error).removeprefix("table set-up: ")
        for team in TEAMS:
            words = words.replace(f"team {team}'s", f"{self.game.team_names[team]}'s")
        return words

    def reset_set_up(self) -> None:
        """Back to no areas: the reader tells the sides apart by which way the cards face, team A's
        the one nearer the picture's bottom (see :data:`AREAS_ADVICE`)."""
        self._set_up_shown(False)
        self.use_table_setup(TableSetup(), keep=True)
        self.statusBar().showMessage("Team areas cleared: the card reader tells the sides apart by which way the "
                                     f"cards face, {self.game.team_names['A']} on the side nearer the bottom of the "
                                     "picture (“Swap the sides” names them the other way).")

    def swap_sides(self) -> None:
        """Players say the camera takes each team's cards for the other's: the set-up names the sides
        the other way round (kept for this camera or video), and the hand so far is each team's play
        the other's (:meth:`~vision.reader.tracking.TableTracker.swap_teams`)."""
        self.cancel_set_up()
        reading = self.last_reading
        # The reader keeps the finds it took the table's turn from; only the names change.
        self.use_table_setup(self.table_setup.with_sides_swapped(reading.towards_b if reading else None), keep=True,
                             new_view=False)
        if reading is not None:  # as the reader will read it from now on
            self.last_reading = reading.with_teams_swapped()
            self._show_sides_taken(self.last_reading)
        self._show_broken(self.tracker.swap_teams())
        self._save_hand()
        self.refresh_table()
        names = self.game.team_names
        self.statusBar().showMessage(f"Sides swapped: the cards on the side the reader called {names['A']}'s are "
                                     f"{names['B']}'s, and the other way round, from now on and in the hand so far.")

    def cancel_set_up(self) -> None:
        if self.video.editing:
            self._set_up_shown(False)
            self.video.show_areas(set_outlines(self.table_setup))

    def _corners_marked(self, marked: bool) -> None:
        """The table's corners are dragged too (a perspective), or no longer."""
        if not self.video.editing:
            return
        if marked:
            self.video.areas[TABLE] = starting_corners(self.video.image.width(), self.video.image.height())
        else:
            self.video.areas.pop(TABLE, None)
        self.video.update()

    def _set_up_shown(self, shown: bool) -> None:
        self.set_up_bar.setVisible(shown)
        self.set_up_action.blockSignals(True)
        self.set_up_action.setChecked(shown)
        self.set_up_action.blockSignals(False)

    def _offer_frame(self, number: int, frame_bgr) -> None:
        """Called in the decoding thread with every frame: keep it for teaching, hand it to the reader."""
        self.newest_frame = frame_bgr
        self.live.offer(number, frame_bgr)

    # --------------------------------------------------------------------- teaching the reader
    def teach_cards(self) -> None:
        """Freeze the picture, show the card corners found in it with the reader's guesses, and keep
        what the players name; learn the deck in the background once enough cards are taught."""
        frame = self.newest_frame
        if self.reader is None or frame is None:
            self.statusBar().showMessage("There is no picture to teach the card reader from: choose a camera or "
                                         "a video above, with cards face up in view.")
            return
        self.frozen = True
        QApplication.setOverrideCursor(Qt.WaitCursor)  # the first time, the reader's models load (a second or two)
        try:
            finds = self.teacher.finds(frame)
        except Exception as error:  # a damaged model file: say so, the game goes on
            self.frozen = False
            self.statusBar().showMessage(f"The card reader could not look at the picture: {error}")
            return
        finally:
            QApplication.restoreOverrideCursor()
        try:
            if not len(finds):
                self.statusBar().showMessage("The card reader finds no card corners in this picture: lay cards "
                                             "face up where the camera sees their corners, then try again.")
                return
            dialog = TeachDialog(frame, finds, self.store.taught_card_count(), self)
            if dialog.exec() != QDialog.Accepted:
                return
            taught = dialog.taught()
        finally:
            self.frozen = False
        self.keep_taught_cards(taught)

    def keep_taught_cards(self, taught: list[tuple[str, bytes]]) -> None:
        """Add cards the players named to the database; start a lesson when there are enough."""
        from vision.reader.deck_learning import MIN_CARDS

        try:
            count = self.store.add_taught_cards(taught) if taught else self.store.taught_card_count()
        except sqlite3.Error as error:
            self.statusBar().showMessage(f"The cards you named could not be saved ({error}).")
            return
        if self.learner.busy:
            self.statusBar().showMessage(f"The reader has {count} of your cards; it is learning from the earlier "
                                         "ones now, and learns again with these when it is done.")
        elif count < MIN_CARDS:
            self.statusBar().showMessage(f"The reader has {count} of your cards; it learns your deck once it has "
                                         f"{MIN_CARDS}. Lay out more cards and teach it again.")
        else:
            self.learner.start(self.store.taught_cards())
            self.statusBar().showMessage(f"The reader is learning your deck from {count} cards, in the background "
                                         "(a few minutes); play on.")

    def _lesson_done(self, lesson, message: str) -> None:
        """A lesson ended: a kept one names cards from the next reading on."""
        if lesson is not None and lesson.kept:
            try:
                classifier = learnt_reader_classifier(self.deck)
            except Exception as error:  # a damaged export: keep reading as before
                message = f"The reader learnt your deck, but can't load what it learnt ({error}); it reads as before."
            else:
                self.teacher.forget_classifier()
                if self.live is not None and classifier is not None:
                    self.live.use_classifier(classifier)
        self.statusBar().showMessage(message)
        if lesson is not None and self.store.taught_card_count() > lesson.cards:  # cards taught meanwhile
            self.learner.start(self.store.taught_cards())

    def forget_deck(self) -> None:
        asked = QMessageBox.question(self, "Forget your deck?",
                                     "The card reader forgets the cards you taught it and reads as it was "
                                     "shipped. Your score sheets are not touched.")
        if asked == QMessageBox.Yes:
            self.forget_learnt_deck()

    def forget_learnt_deck(self) -> None:
        """Back to the shipped classifier; the taught cards are deleted."""
        from vision.reader.deck_learning import forget_deck

        self.learner.stop()
        left = forget_deck(self.deck)  # what was learnt first: the taught cards go only if it went
        self.teacher.forget_classifier()
        if self.live is not None:
            self.live.use_classifier(shipped_reader_classifier())
        if left:
            self.statusBar().showMessage("The card reader reads as it was shipped, but what it learnt could not all "
                                         f"be removed: {'; '.join(left)}. Your taught cards are kept.")
            return
        if not self._keep("that the taught cards are forgotten", self.store.forget_taught_cards):
            return
        self.statusBar().showMessage("The card reader has forgotten your deck and reads as it was shipped.")

    def _on_frame(self, image: QImage) -> None:
        if not self.frozen:
            self.video.show_frame(self._with_reading(image) if self.last_reading is not None else image)

    def on_reading(self, frame_number: int, reading) -> None:
        """A reading of the table arrived from the reading thread: follow the hand with it. A frame
        number going back means the same video started over (the demo plays its hand again); a
        switch to another video resets the count (see :meth:`_play`) and the hand goes on."""
        if frame_number < self.last_frame_read:
            self._hand_changed()
        self.last_frame_read = frame_number
        self.last_reading = reading
        self.meld_outlines = self._meld_outlines(reading)
        self.readings_taken += 1
        self._show_sides_taken(reading)
        self._judge_corners(reading)
        events = self.tracker.update(reading, frame=frame_number)
        broken = [v for event in events for v in event.violations]
        if broken:
            self._show_broken(broken)
        self._save_hand()
        if events:
            self.refresh_table()

    def _show_sides_taken(self, reading) -> None:
        """Without a set-up, outline each team's side as the reader took it from which way the cards
        face (:mod:`vision.reader.facing`), so players see which side it counts as team A's."""
        if reading.team_sides is not None and not self.video.editing and not self.table_setup.set_up:
            self.video.show_areas(reading.team_sides)

    def _judge_corners(self, reading) -> None:
        """Ask players to bring the camera closer while the corners it reads lately are small, and to
        focus it while they look blurred (not while the bundled demo plays: nobody can move or focus
        its camera)."""
        self.recent_corner_heights.extend(reading.index_heights)
        self.recent_corner_sharpness.extend(reading.index_sharpness)
        advice = (
            []
            if self.playing == DEMO
            else [
                line
                for line in (
                    corner_size_advice(self.recent_corner_heights, self.model_metrics, self.settings.threshold),
                    focus_advice(self.recent_corner_sharpness),
                )
                if line
            ]
        )
        if not self.table_setup.set_up:
            advice.insert(0, AREAS_ADVICE)
        self.camera_advice.setText("\n\n".join(advice))
        self.camera_advice.setVisible(bool(advice))

    def _with_reading(self, image: QImage) -> QImage:
        """The frame with what was read drawn on it: each card's code, and each meld outlined in
        green, or red when its cards are no legal meld (seed sections in the side panel)."""
        image = image.copy()
        painter = QPainter(image)
        for card in self.last_reading.cards():
            x0, y0, x1, y1 = card.box
            painter.setPen(QPen(QColor("#ffb300") if card.confidence < SURE else QColor("#00e676"), 2))
            painter.drawRect(int(x0), int(y0), int(x1 - x0), int(y1 - y0))
            painter.drawText(int(x0), int(y0) - 3, card.code)
        for (x0, y0, x1, y1), legal in self.meld_outlines:
            painter.setPen(QPen(QColor("#00c853") if legal else QColor("#d50000"), 3))
            painter.drawRect(int(x0) - 4, int(y0) - 4, int(x1 - x0) + 8, int(y1 - y0) + 8)
        painter.end()
        return image

    def _meld_outlines(self, reading) -> list[tuple[tuple[float, float, float, float], bool]]:
        """Each read meld's box and whether its cards make a legal meld: worked out once a reading,
        not on every frame painted."""
        outlines = []
        for side in reading.teams.values():
            for meld in side.melds:
                legal = not self.state.variant.meld_problems(Meld(parse_cards(meld.codes)), self.state.rules)
                boxes = [card.box for card in meld.cards]
                outlines.append(((min(b[0] for b in boxes), min(b[1] for b in boxes),
                                  max(b[2] for b in boxes), max(b[3] for b in boxes)), legal))
        return outlines

    def _on_video_failed(self, message: str) -> None:
        self.video.show_message(f"No picture: {message}.\nChoose another camera or video above.")
        self.statusBar().showMessage(f"Video: {message}")

    def closeEvent(self, event) -> None:
        self.feed.stop()  # release the camera and the decoding thread
        self.feed.wait_for_retiring(10_000)  # a camera's read that hung: V4L2 gives up within 10 s
        self.learner.stop()
        if self.live is not None:
            self.live.stop()
        super().closeEvent(event)


def game_line(store: Store, game: GameSummary, playing: int | None) -> str:
    """One game of the Past games list: when it began, who played, its score (the totals it ended
    with, once over), how many hands; the game being played says so."""
    try:
        sheet = Game.load(store, game.id).sheet
        totals = sheet.final_totals or sheet.totals
        score = f"{game.team_names['A']} {totals['A']:,}, {game.team_names['B']} {totals['B']:,}"
    except DamagedGame:
        score = f"{game.team_names['A']} v {game.team_names['B']}, its score can't be read"
    state = "being played" if game.id == playing else f"finished {game.finished[:10]}" if game.finished else "in play"
    return (f"{game.created[:16].replace('T', ' ')} — {score} — {game.hand_count} "
            f"hand{'' if game.hand_count == 1 else 's'}, {state}")


class PastGamesDialog(QDialog):
    def __init__(self, store: Store, parent: QWidget | None = None, playing: int | None = None):
        super().__init__(parent)
        self.setWindowTitle("Past games")
        self.resize(640, 400)
        self.chosen: int | None = None
        self.list = QListWidget()
        for game in store.games():
            item = QListWidgetItem(game_line(store, game, playing))
            item.setData(Qt.UserRole, game.id)
            self.list.addItem(item)
        self.list.itemDoubleClicked.connect(lambda _: self.accept())
        buttons = QDialogButtonBox(QDialogButtonBox.Open | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addWidget(buttons)

    def accept(self) -> None:
        item = self.list.currentItem()
        self.chosen = item.data(Qt.UserRole) if item else None
        super().accept()

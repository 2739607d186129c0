"""The video picture, and the outlines on it that players drag into place: each team's area and,
when the camera films the table at an angle, the table's four corners.

Each outline is a polygon in the video frame's own pixels (what the card reader works in); the
picture is scaled to fit the widget, so every mouse position is turned back into frame pixels.
While they are being set up, a press on a corner picks that corner up and a press inside an outline
picks up the whole of it; the widget only keeps the polygons and says when one was moved.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

#: The outline of the table's four corners, beside the teams' areas ("A", "B").
TABLE = "table"
COLOURS = {"A": QColor("#4fc3f7"), "B": QColor("#ffb74d"), TABLE: QColor("#f5f5f5")}
#: How near (in screen pixels) a press must be to a corner to pick it up.
GRAB_RADIUS = 14
HANDLE_RADIUS = 7
BACKGROUND = QColor("#1d3b2a")


class VideoView(QWidget):
    """The picture, scaled to fit; a plain message when there is no picture; the outlines."""

    areas_moved = Signal()  #: a corner or an outline was dropped in a new place

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMinimumSize(480, 360)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.frames_shown = 0
        self.image: QImage | None = None
        self.message = ""
        #: "A", "B" (the teams' areas), maybe TABLE -> polygon in frame pixels, drawn over the picture
        self.areas: dict[str, np.ndarray] | None = None
        self.names = {"A": "Team A", "B": "Team B", TABLE: "Table corners"}  #: each outline's label
        self.editing = False
        self._held: tuple[str, int | None, np.ndarray] | None = None  # outline, corner (None: all), press point

    # ----------------------------------------------------------------------------- showing
    def show_frame(self, image: QImage) -> None:
        self.image = image
        self.message = ""
        self.frames_shown += 1
        self.update()

    def show_message(self, text: str) -> None:
        self.image = None
        self.message = text
        self.update()

    def text(self) -> str:
        return self.message

    def show_areas(self, areas: dict[str, np.ndarray] | None, editing: bool = False) -> None:
        """Draw these outlines (``None``: none); ``editing`` lets players drag them."""
        self.areas = None if areas is None else {t: np.array(p, np.float64) for t, p in areas.items()}
        self.editing = editing and areas is not None
        self._held = None
        self.setMouseTracking(self.editing)
        self.unsetCursor()
        self.update()

    # ---------------------------------------------------------------------------- geometry
    def picture_rect(self) -> QRectF:
        """Where the frame is painted: as large as fits, centred, its shape kept."""
        if self.image is None:
            return QRectF()
        scale = min(self.width() / self.image.width(), self.height() / self.image.height())
        width, height = self.image.width() * scale, self.image.height() * scale
        return QRectF((self.width() - width) / 2, (self.height() - height) / 2, width, height)

    def to_widget(self, point) -> QPointF:
        """A frame pixel's place on the widget."""
        rect = self.picture_rect()
        scale = rect.width() / self.image.width()
        return QPointF(rect.x() + point[0] * scale, rect.y() + point[1] * scale)

    def to_frame(self, position: QPointF) -> np.ndarray:
        """A widget position in frame pixels, kept inside the frame."""
        rect = self.picture_rect()
        scale = rect.width() / self.image.width()
        x = (position.x() - rect.x()) / scale
        y = (position.y() - rect.y()) / scale
        return np.array([min(max(x, 0.0), self.image.width()), min(max(y, 0.0), self.image.height())])

    # ----------------------------------------------------------------------------- painting
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), BACKGROUND)
        if self.image is None:
            painter.setPen(QColor("#f3f3e8"))
            font = QFont(painter.font())
            font.setPixelSize(16)
            painter.setFont(font)
            painter.drawText(self.rect().adjusted(24, 24, -24, -24), Qt.AlignCenter | Qt.TextWordWrap, self.message)
            return
        painter.setRenderHint(QPainter.SmoothPixmapTransform)
        painter.drawImage(self.picture_rect(), self.image)
        if self.areas is not None:
            painter.setRenderHint(QPainter.Antialiasing)
            for name, polygon in self.areas.items():
                self._paint_area(painter, name, polygon)
        painter.end()

    def _paint_area(self, painter: QPainter, name: str, polygon: np.ndarray) -> None:
        colour = COLOURS[name]
        outline = QPolygonF([self.to_widget(p) for p in polygon])
        fill = QColor(colour)
        fill.setAlpha(60 if self.editing and name != TABLE else 0)  # the table's outline holds the areas
        painter.setBrush(QBrush(fill))
        painter.setPen(QPen(colour, 3 if self.editing else 2, Qt.SolidLine if self.editing else Qt.DashLine))
        painter.drawPolygon(outline)
        if self.editing:
            painter.setBrush(QBrush(QColor("white")))
            painter.setPen(QPen(colour, 3))
            for corner in outline:
                painter.drawEllipse(corner, HANDLE_RADIUS, HANDLE_RADIUS)
        self._paint_name(painter, self.names[name], outline, colour)

    def _paint_name(self, painter: QPainter, name: str, outline: QPolygonF, colour: QColor) -> None:
        """The outline's name on a dark tag by its first corner (far left, where few cards lie),
        readable on any table cloth."""
        font = QFont(painter.font())
        font.setPixelSize(15)
        font.setBold(True)
        painter.setFont(font)
        width = painter.fontMetrics().horizontalAdvance(name) + 16
        corner = outline[0]
        tag = QRectF(corner.x() + 14, corner.y() + 10, width, 24)
        picture = self.picture_rect()  # kept on the picture, whichever corner it names
        tag.moveRight(min(tag.right(), picture.right() - 4))
        tag.moveBottom(min(tag.bottom(), picture.bottom() - 4))
        path = QPainterPath()
        path.addRoundedRect(tag, 5, 5)
        painter.fillPath(path, QColor(0, 0, 0, 170))
        painter.setPen(colour)
        painter.drawText(tag, Qt.AlignCenter, name)

    # ------------------------------------------------------------------------------- dragging
    def _corner_at(self, position: QPointF) -> tuple[str, int] | None:
        best, nearest = None, float(GRAB_RADIUS)
        for name, polygon in self.areas.items():
            for index, point in enumerate(polygon):
                place = self.to_widget(point)
                distance = float(np.hypot(place.x() - position.x(), place.y() - position.y()))
                if distance <= nearest:
                    best, nearest = (name, index), distance
        return best

    def _area_at(self, position: QPointF) -> str | None:
        for name, polygon in self.areas.items():
            if QPolygonF([self.to_widget(p) for p in polygon]).containsPoint(position, Qt.OddEvenFill):
                return name
        return None

    def mousePressEvent(self, event) -> None:
        if not self.editing or self.image is None or event.button() != Qt.LeftButton:
            return super().mousePressEvent(event)
        position = event.position()
        corner = self._corner_at(position)
        if corner is not None:
            self._held = (corner[0], corner[1], self.to_frame(position))
        elif (name := self._area_at(position)) is not None:
            self._held = (name, None, self.to_frame(position))
        self.setCursor(Qt.ClosedHandCursor if self._held else Qt.ArrowCursor)

    def mouseMoveEvent(self, event) -> None:
        if not self.editing or self.image is None:
            return super().mouseMoveEvent(event)
        position = event.position()
        if self._held is None:  # hovering: show what a press would pick up
            over = self._corner_at(position) is not None or self._area_at(position) is not None
            self.setCursor(Qt.OpenHandCursor if over else Qt.ArrowCursor)
            return
        name, corner, pressed = self._held
        point = self.to_frame(position)
        if corner is not None:
            self.areas[name][corner] = point
        else:  # the whole area, kept inside the frame
            size = np.array([self.image.width(), self.image.height()], np.float64)
            polygon = self.areas[name]
            shift = np.clip(point - pressed, -polygon.min(axis=0), size - polygon.max(axis=0))
            self.areas[name] = polygon + shift
            self._held = (name, None, pressed + shift)
        self.update()

    def mouseReleaseEvent(self, event) -> None:
        if self._held is None:
            return super().mouseReleaseEvent(event)
        self.mouseMoveEvent(event)
        self._held = None
        self.setCursor(Qt.OpenHandCursor)
        self.areas_moved.emit()

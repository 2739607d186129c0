"""Card faces rendered from SVG decks with Qt, cached as a face atlas of PNG files.

The only module of ``vision`` that needs Qt: scene generation reads the atlas with OpenCV alone,
so a machine without Qt (a GPU box) can make scenes from an atlas built elsewhere.

Atlas layout: ``<atlas>/<deck_id>/manifest.json`` and one PNG per face (``KH.png``, ``JK-1.png``,
``back.png``). The manifest holds the card size and, per face, the index boxes measured from the
rendered pixels (:mod:`vision.synth.corner_index`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.synth.atlas import ATLAS_INDEX_NAME, MANIFEST_NAME
from vision.synth.corner_index import measure_index_boxes
from vision.synth.decks import DeckSource, card_codes

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_LOGGING_RULES", "qt.svg*=false")  # real decks reference missing ids; harmless

from PySide6.QtCore import QRectF, Qt  # noqa: E402  (the platform must be chosen before Qt loads)
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

# A joker whose element is much wider or narrower than the deck's cards carries decoration outside
# the card (GNOME's Tango): its corners would not line up with the card's, so it is not used.
_JOKER_ASPECT_TOLERANCE = 0.03
MEASURE_HEIGHT = 400


class DeckRenderError(RuntimeError):
    """An SVG deck that Qt cannot read or that lacks one of the 52 cards."""


def build_atlas(decks: list[DeckSource], atlas_dir: Path, card_height: int,
                on_deck_done: Callable[[str], None] = lambda deck_id: None) -> dict:
    """Render every deck into ``atlas_dir``; write and return the atlas index (``atlas.json``).

    A deck is used only if every one of its 52 cards has a measured top-left index: a card without
    one could never be labelled. Jokers without one are dropped from their deck.
    """
    _qt_application()
    index = {"card_height": card_height, "decks": {}, "rejected": {}}
    for deck in decks:
        manifest = render_deck(deck, atlas_dir / deck.deck_id, card_height)
        unreadable = [name for name, face in manifest["faces"].items()
                      if "top_left" not in face["index_boxes"] and face["code"] != "JK"]
        uneven = _uneven_corners(manifest) if deck.family == "project" else []
        if unreadable:
            index["rejected"][deck.deck_id] = f"no corner index found on {', '.join(unreadable)}"
        elif uneven:
            index["rejected"][deck.deck_id] = (
                f"indexes measured in other corners than the rest of the deck on {', '.join(uneven)}"
            )
        else:
            index["decks"][deck.deck_id] = {"split": "test" if deck.held_out else "train"}
        on_deck_done(deck.deck_id)
    (atlas_dir / ATLAS_INDEX_NAME).write_text(json.dumps(index, indent=1))
    return index


def _uneven_corners(manifest: dict) -> list[str]:
    """The cards whose indexes are measured in other corners than most of the deck's.

    The project's drawn decks print the same corners on every card, so a card measured otherwise has a
    printed index the labels would miss (a glyph run into its neighbour); the deck is not used.
    """
    corners = [frozenset(face["index_boxes"]) for face in manifest["faces"].values() if face["code"] != "JK"]
    usual = max(set(corners), key=corners.count)
    return [name for name, face in manifest["faces"].items()
            if face["code"] != "JK" and frozenset(face["index_boxes"]) != usual]


def render_deck(deck: DeckSource, deck_dir: Path, card_height: int) -> dict:
    """Render one deck's 52 cards, its jokers and its back; write the PNGs and the manifest."""
    _qt_application()
    renderer = QSvgRenderer(str(deck.svg_path))
    if not renderer.isValid():
        raise DeckRenderError(f"Qt cannot read the deck {deck.svg_path}")
    reference = renderer.boundsOnElement(deck.element_id("AS"))
    aspect = reference.width() / reference.height()
    # Indexes are measured at one resolution whatever the atlas size, so every atlas agrees.
    size = (round(max(card_height, MEASURE_HEIGHT) * aspect), max(card_height, MEASURE_HEIGHT))
    saved_size = (round(card_height * aspect), card_height)
    deck_dir.mkdir(parents=True, exist_ok=True)
    faces = {}
    for code in card_codes():
        faces[code] = _face_entry(
            code, _render_element(renderer, deck.element_id(code), size), saved_size, deck_dir, code
        )
    jokers = [j for j in deck.joker_element_ids if _element_has_aspect(renderer, j, aspect)]
    for number, element in enumerate(jokers, start=1):
        entry = _face_entry("JK", _render_element(renderer, element, size), saved_size, deck_dir, f"JK-{number}")
        if "top_left" in entry["index_boxes"]:
            faces[f"JK-{number}"] = entry
    manifest = {
        "deck": deck.deck_id,
        "family": deck.family,
        "source": str(deck.svg_path),
        "held_out": deck.held_out,
        "card_size": list(saved_size),
        "faces": faces,
        "back": _write_back(renderer, saved_size, deck_dir),
    }
    (deck_dir / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1))
    return manifest


def _face_entry(code: str, face: np.ndarray, saved_size: tuple[int, int], deck_dir: Path, name: str) -> dict:
    """Measure the face's indexes, save it at the atlas size, and describe it for the manifest."""
    boxes = measure_index_boxes(face)
    scale_x, scale_y = saved_size[0] / face.shape[1], saved_size[1] / face.shape[0]
    if saved_size != (face.shape[1], face.shape[0]):
        face = cv2.resize(face, saved_size, interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(deck_dir / f"{name}.png"), face, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    scaled = {corner: [int(np.floor(box[0] * scale_x)), int(np.floor(box[1] * scale_y)),
                       int(np.ceil(box[2] * scale_x)), int(np.ceil(box[3] * scale_y))] for corner, box in boxes.items()}
    return {"code": code, "file": f"{name}.png", "index_boxes": scaled}


def _write_back(renderer: QSvgRenderer, size: tuple[int, int], deck_dir: Path) -> str | None:
    if not renderer.elementExists("back"):
        return None
    cv2.imwrite(str(deck_dir / "back.png"), _render_element(renderer, "back", size), [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return "back.png"


def _element_has_aspect(renderer: QSvgRenderer, element: str, aspect: float) -> bool:
    if not renderer.elementExists(element):
        return False
    bounds = renderer.boundsOnElement(element)
    return abs(bounds.width() / bounds.height() - aspect) <= _JOKER_ASPECT_TOLERANCE * aspect


def _render_element(renderer: QSvgRenderer, element: str, size: tuple[int, int]) -> np.ndarray:
    """One SVG element drawn to exactly ``size`` pixels, as a BGRA array (OpenCV's channel order)."""
    if not renderer.elementExists(element):
        raise DeckRenderError(f"the deck has no element '{element}'")
    width, height = size
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, element, QRectF(0, 0, width, height))
    painter.end()
    # Format_ARGB32 is stored as B, G, R, A bytes on little-endian machines: OpenCV's BGRA.
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(height, image.bytesPerLine() // 4, 4)
    return rows[:, :width].copy()


def _qt_application() -> QGuiApplication:
    """Qt's SVG renderer needs an application object (offscreen: no display is used). A widgets
    application, so that the same process can still open windows afterwards (the app, its tests):
    Qt allows one application object a process, and a plain QGuiApplication can't show widgets."""
    from PySide6.QtWidgets import QApplication

    return QGuiApplication.instance() or QApplication([])

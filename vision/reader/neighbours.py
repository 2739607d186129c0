"""A corner index read with the indexes around it: its card's other corner, and the cards it lies with.

The classifier reads each find alone, but on a Canasta table an index seldom lies alone:

* **a card's other corner.** Most decks print an index in two opposite corners, some in all four;
  a card on top of a meld, a pile, the threes or the discard pile shows two or more, and a Dondorf
  meld's cards show both top corners down the column. Three quarters of the held-out test split's
  labelled indexes share their card with another labelled one (``scenes720v2``).
* **the cards of a meld.** A meld is three or more cards of one rank (seed 000 §Melds and
  canastas), laid in a column whose indexes lie a step or two apart, and a card's other corners lie
  a card's width or height away.

So before a find is named (:func:`vision.reader.index_classifier.named_finds`) its reading is joined with
those of the finds beside it, in two steps (:func:`read_with_neighbours`):

1. its **other corner**: the find of like size, :data:`OTHER_CORNER_REACH` index sizes away, whose
   reading is likest its own (Bhattacharyya coefficient at least :data:`OTHER_CORNER_LIKENESS`), if
   each is the other's likest, and neither lies in the other's column (the line to its nearest
   neighbour, a meld's next card: :data:`COLUMN_STEP`). The two readings are joined whole (rank and
   suit), by a weighted geometric mean, the other corner's weighing :data:`OTHER_CORNER_WEIGHT` of
   the find's own;
2. its **rank**, with every find of like size :data:`NEIGHBOUR_REACH` index sizes away whose rank
   reading is like its own (at least :data:`RANK_LIKENESS`): each neighbour's rank probabilities
   weigh :data:`NEIGHBOUR_WEIGHT` of its own in a weighted geometric mean. Its suit, given the
   rank, stays its own: a meld's cards differ in suit. A wild card beside natural cards keeps its
   rank where it reads surely (the likeness cuts sure readings of other ranks out), and a card read
   doubtfully beside a meld leans to the meld's rank.

Only finds at least :data:`NEIGHBOUR_FLOOR` sure of being an index count as neighbours: the table
reader keeps finds from there, so the app and the evaluation (which keeps them down to 0.001) join
the same readings. Sizes are the square root of a box's area; a distance is between box centres,
in the geometric mean of the two sizes.

Both steps lift mAP50 by about a point and a half on held-out decks; joining whole every like find
in reach, not only the likest mutual one, cost the suits, hence the rank-only second step. The
measurements behind each constant below: docs/experiments.md, "The neighbour join".
"""

from __future__ import annotations

import numpy as np

from companion.cards import JOKER, RANKS
from vision.reader.classes import CLASS_NAMES
from vision.reader.detections import Detections
from vision.reader.index_classifier import softmax
from vision.reader.reading import READING_THRESHOLD

#: Finds this sure of being an index (the detector's confidence) are neighbours; others are read alone.
NEIGHBOUR_FLOOR = READING_THRESHOLD
#: Two finds are of like size where their sizes differ by at most this factor.
LIKE_SIZE = 1.3
#: A card's other corner lies this far from the find, in index sizes: in the training decks' scenes
#: nearly all of one card's found corners lie 2 to 7 sizes apart.
OTHER_CORNER_REACH = (2.0, 6.0)
#: A meld's next card lies this far from a find, in index sizes: the nearest like find this far
#: away sets the find's column, and a find in line with it (the cosine of the angle between the two
#: directions, either way, over :data:`COLUMN_COSINE`) is another card of the column, not the
#: find's other corner. With this rule nine in ten of the pairs made are one card's corners.
COLUMN_STEP = (0.8, 2.2)
COLUMN_COSINE = 0.9
#: The other corner's reading and the find's are this alike (Bhattacharyya coefficient of their
#: card probabilities) at least: loose, since a card's other corner helps most where the two
#: readings disagree, and the column rule keeps a column's cards out.
OTHER_CORNER_LIKENESS = 0.4
#: The other corner's reading weighs this much of the find's own.
OTHER_CORNER_WEIGHT = 0.3
#: Neighbours in rank lie this far from the find, in index sizes: a meld's next card, a card's
#: other corners.
NEIGHBOUR_REACH = (0.8, 4.0)
#: A neighbour's rank reading and the find's are this alike at least: a looser likeness lets a
#: pile's top card or a card in a hand lean to the next one's rank, where the cards beside each
#: other differ.
RANK_LIKENESS = 0.7
#: Each neighbour's rank reading weighs this much of the find's own.
NEIGHBOUR_WEIGHT = 0.25

#: The rank of each class, the joker its own (the columns of :data:`_RANK_OF_CLASS`).
RANK_NAMES: tuple[str, ...] = (*RANKS, JOKER)
_RANK_OF_CLASS = np.eye(len(RANK_NAMES))[[RANK_NAMES.index(JOKER if code == JOKER else code[:-1])
                                          for code in CLASS_NAMES]]  #: (53, ranks) one-hot
_TINY = 1e-6


def read_with_neighbours(found: Detections, probabilities: np.ndarray) -> np.ndarray:
    """(n, classes) probabilities of ``found``'s finds (the classifier's, "no index" last), each
    joined with its card's other corner and its neighbours' ranks as the module's docstring says.
    The "no index" column and each row's total stay as they were; finds with no neighbour keep
    their reading."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    cards = len(CLASS_NAMES)
    if len(found) < 2:
        return probabilities.astype(np.float32)
    mass = probabilities[:, :cards].sum(axis=1, keepdims=True)
    reading = probabilities[:, :cards] / np.maximum(mass, _TINY)
    offsets, distance, alike_size = _geometry(found)
    counted = (found.confidence >= NEIGHBOUR_FLOOR)
    eligible = alike_size & counted[:, None] & counted[None, :]
    np.fill_diagonal(eligible, False)

    # 1. The other corner: the mutual likest reading in reach and out of either find's column, joined whole.
    likeness = _likeness(reading)
    in_reach = eligible & (distance >= OTHER_CORNER_REACH[0]) & (distance <= OTHER_CORNER_REACH[1])
    in_reach &= ~_in_column(offsets, distance, eligible)
    score = np.where(in_reach, likeness, -1.0)
    likest = score.argmax(axis=1)
    paired = np.flatnonzero((score.max(axis=1) >= OTHER_CORNER_LIKENESS)
                            & (likest[likest] == np.arange(len(likest))))
    logs = np.log(np.maximum(reading, _TINY))
    reading = reading.copy()
    reading[paired] = softmax((logs[paired] + OTHER_CORNER_WEIGHT * logs[likest[paired]])
                              / (1 + OTHER_CORNER_WEIGHT))

    # 2. The rank, with every like neighbour in reach; the suit given the rank stays the find's.
    ranks = reading @ _RANK_OF_CLASS
    in_reach = eligible & (distance >= NEIGHBOUR_REACH[0]) & (distance <= NEIGHBOUR_REACH[1])
    weights = (in_reach & (_likeness(ranks) >= RANK_LIKENESS)) * NEIGHBOUR_WEIGHT
    joined = np.flatnonzero(weights.sum(axis=1))
    rank_logs = np.log(np.maximum(ranks, _TINY))
    new_ranks = softmax((rank_logs[joined] + weights[joined] @ rank_logs)
                        / (1 + weights[joined].sum(axis=1, keepdims=True)))
    suit_given_rank = reading[joined] / np.maximum(ranks[joined] @ _RANK_OF_CLASS.T, _TINY)
    rows = suit_given_rank * (new_ranks @ _RANK_OF_CLASS.T)
    reading[joined] = rows / np.maximum(rows.sum(axis=1, keepdims=True), _TINY)

    out = probabilities.copy()
    out[:, :cards] = reading * mass
    return out.astype(np.float32)


def _in_column(offsets: np.ndarray, distance: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """(n, n) whether find j lies in find i's column or i in j's: along the line from a find to its
    nearest neighbour :data:`COLUMN_STEP` away (a meld's next card), the cosine over :data:`COLUMN_COSINE`.
    ``offsets``, ``distance``: from :func:`_geometry`; ``eligible``: the pairs that may be neighbours."""
    directions = offsets / np.maximum(np.linalg.norm(offsets, axis=2, keepdims=True), _TINY)
    steps = np.where(eligible & (distance >= COLUMN_STEP[0]) & (distance <= COLUMN_STEP[1]), distance, np.inf)
    nearest = steps.argmin(axis=1)
    column = directions[np.arange(len(nearest)), nearest]  # (n, 2): each find's column direction
    cosine = np.abs((directions * column[:, None, :]).sum(axis=2))
    in_column = np.isfinite(steps.min(axis=1))[:, None] & (cosine > COLUMN_COSINE)
    return in_column | in_column.T


def _geometry(found: Detections) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, n, 2) offsets from each find's centre to each other's (pixels), (n, n) the distances
    between them in index sizes, and (n, n) whether each two are of like size."""
    centres = found.centers.astype(np.float64)
    sizes = np.sqrt(np.maximum(found.sizes.astype(np.float64).prod(axis=1), _TINY))
    offsets = centres[None, :] - centres[:, None]
    distance = np.linalg.norm(offsets, axis=2) / np.sqrt(sizes[:, None] * sizes[None, :])
    ratio = sizes[:, None] / sizes[None, :]
    return offsets, distance, (ratio <= LIKE_SIZE) & (ratio >= 1 / LIKE_SIZE)


def _likeness(distributions: np.ndarray) -> np.ndarray:
    """(n, n) Bhattacharyya coefficients of the rows: 1 for the same distribution, 0 for disjoint ones."""
    roots = np.sqrt(np.maximum(distributions, 0.0))
    return roots @ roots.T

"""The card reader: what the app and ``python -m vision read`` run.

A frame's trip: the detector finds corner indexes (:mod:`~vision.reader.detector`), the classifier
names them (:mod:`~vision.reader.index_classifier`, with :mod:`~vision.reader.neighbours`), the
finds become cards (:mod:`~vision.reader.physical_cards`) placed by team areas and facing
(:mod:`~vision.reader.team_areas`, :mod:`~vision.reader.facing`), grouped into melds and piles
(:mod:`~vision.reader.grouping`) into a :class:`~vision.reader.reading.TableReading`
(:mod:`~vision.reader.card_reader` runs them in turn); :mod:`~vision.reader.tracking` turns
readings into table events. Also here: frame sources, focus, the weight loaders and the deck lessons
the app runs (:mod:`~vision.reader.deck_learning`).

It imports the game core (``companion``, without ``companion.app``) and no other part of
``vision``; it runs without the training stack (torch is loaded only to run a torch save, the
reference backend).
"""

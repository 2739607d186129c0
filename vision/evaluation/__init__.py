"""Scoring the reader: the detector and classifier on labelled scenes (:mod:`~vision.evaluation.detector`),
whole tables (:mod:`~vision.evaluation.tables`), hand videos (:mod:`~vision.evaluation.videos`) and
labelled photographs (:mod:`~vision.evaluation.photos`), by the size of the corner indexes
(:mod:`~vision.evaluation.bands`).

It may import every other stage of ``vision`` except :mod:`vision.cli`; nothing the app runs imports it.
"""

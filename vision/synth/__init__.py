"""Synthetic data: card faces and decks, table states and their layouts, rendered scenes with their
labels, camera effects, and simulated hand videos with per-frame ground truth.

It may import :mod:`vision.reader` (card classes, team areas) and the game core; nothing the app
runs imports it.
"""

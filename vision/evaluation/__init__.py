"""Scoring the reader: on labelled photographs, by the size of the corner indexes.

It may import every other part of ``vision``; nothing the app runs imports it.
"""

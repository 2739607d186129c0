"""The command lines of ``python -m vision`` (:mod:`vision.__main__`): argument parsing and reporting
around the stages, which do the work. May import every stage.
"""

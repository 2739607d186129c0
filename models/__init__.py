"""The shipped weights and what they measured (``MODEL_CARD.md``), installed as the package
``vision.models`` (pyproject.toml maps this folder there): the reader finds them with
importlib.resources wherever the project is installed (:func:`vision.reader.weights.shipped_file`)."""

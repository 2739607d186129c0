"""Training the reader's networks and making their weight files: the detector's training and tiles,
the index classifier's and facing network's training data and training, ONNX export and int8
quantization.

It may import :mod:`vision.synth` and :mod:`vision.reader`; nothing the app runs imports it. Most
of it needs the training stack (pyproject.toml's ``[train]`` extra).
"""

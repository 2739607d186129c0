"""The network of the index classifier and of the facing reader, :class:`IndexNet`, in torch: what
their training saves (``.pt``) hold. The reader runs a save only as the reference for its export
(:class:`~vision.reader.index_classifier.IndexClassifier`); the app runs the exports, without torch.
Training is in :mod:`vision.model.index_training`.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from vision.reader.classes import CLASS_NAMES


class IndexNet(nn.Module):
    """Three conv blocks and a linear head. ``width`` is the first block's channels (doubled per block):
    16 gives 76 k parameters and 10 M multiply-adds per crop, 24 gives 167 k and 22 M."""

    def __init__(self, classes: int = len(CLASS_NAMES), width: int = 16) -> None:
        super().__init__()
        self.width = width

        def block(c_in: int, c_out: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
                                 nn.Conv2d(c_out, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
                                 nn.MaxPool2d(2))

        self.features = nn.Sequential(block(3, width), block(width, 2 * width), block(2 * width, 4 * width))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
                                  nn.Linear(4 * width, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def load_net(weights: Path) -> IndexNet:
    """The network of a training save (eval mode); torch's own errors for a damaged file."""
    saved = torch.load(weights, map_location="cpu", weights_only=True)
    model = IndexNet(classes=saved.get("classes", len(CLASS_NAMES)), width=saved.get("width", 16))
    model.load_state_dict(saved["state"])
    return model.eval()

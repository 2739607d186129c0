"""Fine-tuning the shipped classifier's export in numpy (vision.reader.index_tuning), checked against ONNX
Runtime running the same file."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reader.deck_learning import SHIPPED_CLASSIFIER
from vision.reader.index_classifier import CROP, IndexClassifier, to_array
from vision.reader.index_tuning import (
    LABEL_SMOOTHING,
    ExportedNet,
    ExportError,
    channels_last,
    fine_tune_export,
    smoothed_cross_entropy,
)
from vision.reader.weights import shipped_file


@pytest.fixture(scope="module")
def crops() -> np.ndarray:
    return np.random.default_rng(0).integers(0, 255, (24, CROP, CROP, 3), dtype=np.uint8)


def test_it_computes_the_logits_onnx_runtime_computes(crops):
    expected = IndexClassifier(SHIPPED_CLASSIFIER)._logits(crops)
    np.testing.assert_allclose(ExportedNet(SHIPPED_CLASSIFIER).logits(crops), expected, atol=1e-4)


def test_its_training_gradients_are_the_slopes_of_the_loss(crops):
    net = ExportedNet(SHIPPED_CLASSIFIER)
    net.params = {name: value.astype(np.float64) for name, value in net.params.items()}  # exact enough to compare
    x, labels = channels_last(crops[:6]).astype(np.float64), np.arange(6) * 7

    def training_loss() -> tuple[float, np.ndarray, list]:
        logits, tape = net.forward(x, np.random.default_rng(5))  # the same dropout each time
        return *smoothed_cross_entropy(logits, labels), tape

    _, at_logits, tape = training_loss()
    gradients = net.backward(at_logits, tape)
    assert set(gradients) == set(net.params)
    rng = np.random.default_rng(1)
    for name, param in net.params.items():  # a weight, scale or bias of every layer
        at = tuple(int(rng.integers(0, side)) for side in param.shape)
        losses = []
        for step in (1e-6, -1e-6):
            param[at] += step
            losses.append(training_loss()[0])
            param[at] -= step
        assert gradients[name][at] == pytest.approx((losses[0] - losses[1]) / 2e-6, rel=1e-3, abs=1e-8), name


def test_a_training_step_is_torch_s(crops):
    """The same batch through the classifier's torch network in training mode (dropout off): the
    same logits, gradients and running statistics. Both compute in float64: in float32 their
    roundings differ by about 1e-5, and a value that close to a ReLU's zero lands on either side of
    it, a gradient's worth of difference that is no fault of either."""
    torch = pytest.importorskip("torch")
    from vision.reader.index_net import load_net

    model = load_net(SHIPPED_CLASSIFIER.with_suffix(".pt")).double().train()
    labels = np.arange(len(crops)) * 2
    logits = model.head[:2](model.features(torch.from_numpy(to_array(crops)).double()))  # (no dropout)
    logits = model.head[3](logits)
    torch.nn.CrossEntropyLoss(label_smoothing=LABEL_SMOOTHING)(logits, torch.from_numpy(labels)).backward()
    net = ExportedNet(SHIPPED_CLASSIFIER)
    mine, tape = net.forward(channels_last(crops).astype(np.float64), np.random.default_rng(0), dropout=0.0)
    gradients = net.backward(smoothed_cross_entropy(mine, labels)[1], tape)
    np.testing.assert_allclose(mine, logits.detach().numpy(), atol=1e-3)
    expected = {name: value.grad.numpy() for name, value in model.named_parameters()}
    assert set(gradients) == set(expected)
    for name, gradient in gradients.items():
        np.testing.assert_allclose(gradient, expected[name], atol=1e-4 * np.abs(expected[name]).max(), err_msg=name)
    state = model.state_dict()
    for name, value in net.running.items():
        np.testing.assert_allclose(value, state[name].numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


def test_a_tuned_export_is_saved_whole_and_runs_in_onnx_runtime_and_openvino(crops, tmp_path):
    contexts = np.random.default_rng(2).integers(0, 255, (8, 2 * CROP, 2 * CROP, 3), dtype=np.uint8)
    out = tmp_path / "tuned.onnx"
    done = fine_tune_export(SHIPPED_CLASSIFIER, contexts, np.arange(8), out, minutes=5, max_crops=64, lr=1e-3,
                            batch=32, log=lambda _: None)
    assert done["crops_seen"] == 64 and not list(tmp_path.glob("*.partial"))
    tuned = ExportedNet(out).logits(crops)
    assert np.abs(tuned - ExportedNet(SHIPPED_CLASSIFIER).logits(crops)).max() > 1e-3  # it moved
    np.testing.assert_allclose(IndexClassifier(out)._logits(crops), tuned, atol=1e-3)
    # OpenVINO computes in bfloat16 where the CPU can (vision.reader.weights.OpenVinoModel): 8 bits of mantissa.
    np.testing.assert_allclose(IndexClassifier(out, runtime="openvino")._logits(crops), tuned, atol=0.15)


def test_a_file_it_cannot_tune_is_an_error_naming_it(tmp_path):
    damaged = tmp_path / "damaged.onnx"
    damaged.write_bytes(b"half a file")
    with pytest.raises(ExportError, match="damaged.onnx: not a readable ONNX model"):
        ExportedNet(damaged)
    with pytest.raises(ExportError, match="cards.onnx: not an index classifier's export"):
        ExportedNet(shipped_file("cards.onnx"))  # the detector

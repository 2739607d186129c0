"""The detector's commands of ``python -m vision``: tiles, train, export, evaluate.

tiles     cut a synth dataset's train/val scenes into 640×640 training tiles
classifier  train the two-stage design's index-crop classifier and score it on held-out decks
recalibrate  measure the classifier's batch-norm statistics again on the crops the reader feeds it
facing    train the network that tells which way each index points (vision.reader.facing), score it on held-out decks
train     train or resume the detector (``--background`` detaches it; ``--status`` reports)
export    write the ONNX model the fast backend runs
evaluate  score the detector on the held-out decks' test scenes; metrics, plots, per-card table
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from vision.reader.detections import LabelsError
from vision.reader.detector import BACKENDS, STRIDE
from vision.reader.facing import DEFAULT_FACING_WEIGHTS
from vision.reader.weights import DEFAULT_WEIGHTS, WeightsError


class CropsCacheError(Exception):
    """A ``--crops-cache`` folder keeps crops made with other options than those asked for."""


#: Errors these commands report as one line (``vision.__main__`` prints them).
ERRORS: tuple[type[Exception], ...] = (WeightsError, CropsCacheError, LabelsError)


def at_least(low: int):
    """An argparse ``type``: a whole number of at least ``low``. Anything else is argparse's usage
    error naming the flag (``argument --workers: must be a whole number of at least 1, not '-1'``)."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"must be a whole number of at least {low}, not {text!r}")
        return value

    return whole_number


def seconds(text: str) -> float:
    """An argparse ``type``: a finite number of seconds, 0 or more (not ``nan`` or ``inf``)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, 0 or more, not {text!r}")
    return value


def add_commands(commands: argparse._SubParsersAction) -> None:
    tiles = commands.add_parser("tiles", help="cut synthetic scenes into training tiles")
    tiles.add_argument("--scenes", type=Path, nargs="+", required=True, help="python -m vision synth folders")
    tiles.add_argument("--out", type=Path, required=True)
    tiles.add_argument("--val-scenes", type=int, default=64,
                       help="val scenes to tile from each folder (default %(default)s)")
    tiles.add_argument("--workers", type=at_least(1), default=1, help="processes cutting scenes (default %(default)s)")
    tiles.add_argument("--reader-scale", action="store_true",
                       help="shrink each scene first as the reader would read it (close-ups' large indexes halved "
                            "into the detector's band)")
    tiles.set_defaults(run=_run_tiles)

    train = commands.add_parser("train", help="train or resume the card detector")
    train.add_argument("--data", type=Path, default=Path("datasets/generated/tiles/data.yaml"))
    train.add_argument("--model", default="yolov8n.yaml", help="architecture yaml, or a .pt to fine-tune")
    train.add_argument("--imgsz", type=int, default=640)
    train.add_argument("--epochs", type=int, default=30)
    train.add_argument("--batch", type=int, default=16)
    train.add_argument("--name", default="cards", help="run name under runs/detector (default %(default)s)")
    train.add_argument("--single-class", action="store_true", help="one 'corner index' class (two-stage design)")
    train.add_argument("--threads", type=int, default=2)
    train.add_argument("--device", default="cpu", help="cpu, or a CUDA device number (default %(default)s)")
    train.add_argument("--hours", type=float, help="train for this long instead of --epochs")
    train.add_argument("--lr0", type=float, help="peak learning rate, AdamW (default: ultralytics' automatic choice)")
    train.add_argument("--bf16", action="store_true",
                       help="compute in bfloat16 (weights kept float32): 2-3 times as fast on a CPU with AMX")
    train.add_argument("--resume", action="store_true", help="continue the run from its last checkpoint")
    train.add_argument("--background", action="store_true", help="detach; log to runs/detector/<name>.log")
    train.add_argument("--status", action="store_true", help="print the run's last epoch and exit")
    train.set_defaults(run=_run_train)

    classifier = commands.add_parser("classifier", help="train the index-crop classifier (two-stage design)")
    classifier.add_argument("--scenes", type=Path, default=Path("datasets/generated/scenes720"))
    classifier.add_argument("--out", type=Path, default=Path("models/index_classifier.pt"))
    classifier.add_argument("--minutes", type=float, default=10.0, help="training wall-clock budget")
    classifier.add_argument("--train-scenes", type=int, default=1200, help="scenes to cut crops from")
    classifier.add_argument("--more-scenes", type=Path, action="append", default=[], metavar="DIR",
                            help="another scene set whose first --train-scenes training scenes add crops "
                                 "(repeatable; held-out scores and false finds stay --scenes')")
    classifier.add_argument("--threads", type=int, default=2)
    classifier.add_argument("--init", type=Path, help="continue training these classifier weights")
    classifier.add_argument("--width", type=int, default=16,
                            help="first block's channels (a new run; above --init's, it widens that net)")
    classifier.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (cosine over the minutes)")
    classifier.add_argument("--seed", type=int, default=0,
                            help="seed of the drawn crops and, unless --train-seed is given, of the training")
    classifier.add_argument("--train-seed", type=int, metavar="N",
                            help="seed of the training's shuffling and augmentation alone: another run of the "
                                 "same crops (two runs differing only in it moved held-out mAP50 by up to 0.0045)")
    classifier.add_argument("--turn", type=float, help="turn training crops by up to this many degrees "
                            "either way, besides half turns (default: vision.reader.index_classifier.TRAIN_TURN)")
    classifier.add_argument("--fade", type=float, help="fade a training crop's ink towards white this often "
                            "(default: vision.reader.index_classifier.TRAIN_FADE)")
    classifier.add_argument("--rand-conv", type=float, default=0.0, metavar="SHARE",
                            help="see this share of each batch through a random convolution "
                                 "(vision.model.index_training.random_convolution; default %(default)s)")
    classifier.add_argument("--fan", type=float, default=0.0, metavar="SHARE",
                            help="see this share of the training crops between two neighbours, as a tight fan "
                                 "shows an index (vision.model.index_training.fanned; default %(default)s)")
    classifier.add_argument("--bf16", action="store_true",
                            help="compute in bfloat16 (weights kept float32): 2-3 times the crops a minute on a "
                                 "CPU with AMX, slower on one without (bench/bench_classifier_training.py)")
    classifier.add_argument("--false-finds", type=Path, metavar="WEIGHTS",
                            help="one-class detector (.onnx) whose false finds teach a background class")
    classifier.add_argument("--false-find-conf", type=float, default=0.05,
                            help="lowest detector confidence of the false finds (default %(default)s)")
    classifier.add_argument("--drawn", type=int, default=0, metavar="N",
                            help="add N index crops drawn in the installed typefaces (vision.synth.index_glyphs)")
    classifier.add_argument("--crops-cache", type=Path, metavar="DIR",
                            help="keep the training crops made from these options in DIR, and take them from "
                                 "there when DIR has them (saves their making: minutes to half an hour)")
    classifier.set_defaults(run=_run_classifier)

    facing = commands.add_parser("facing", help="train the network that tells which way each card index points")
    facing.add_argument("--scenes", type=Path, required=True, help="a python -m vision synth folder (its train split)")
    facing.add_argument("--test-scenes", type=Path, default=Path("datasets/generated/scenes720d"),
                        help="scored on this folder's test split, the held-out decks (default %(default)s)")
    facing.add_argument("--out", type=Path, required=True, help="the save (.pt); its ONNX export is written beside it")
    facing.add_argument("--minutes", type=float, default=30.0, help="wall-clock budget (default %(default)s)")
    facing.add_argument("--init", type=Path, default=None, help="continue this save (a run cut off: its --out)")
    facing.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (default %(default)s)")
    facing.add_argument("--seed", type=int, default=0)
    facing.add_argument("--threads", type=int, default=2)
    facing.set_defaults(run=_run_facing)

    recalibrate = commands.add_parser("recalibrate", help="measure the index classifier's batch-norm statistics "
                                      "again on the detector's finds in training scenes (no labels used)")
    recalibrate.add_argument("--classifier", type=Path, required=True, metavar="PT", help="the classifier save")
    recalibrate.add_argument("--scenes", type=Path, required=True, help="a python -m vision synth folder")
    recalibrate.add_argument("--split", default="train", help="its split to take crops from (default %(default)s)")
    recalibrate.add_argument("--limit", type=int, default=500, help="first N scenes of the split (default %(default)s)")
    recalibrate.add_argument("--detector", type=Path,
                             help="one-class detector whose finds are cut (default: the one the app runs)")
    recalibrate.add_argument(
        "--share",
        type=float,
        default=None,
        help="share of the new statistics, 0-1 (default: vision.model.index_training.BATCH_NORM_SHARE)",
    )
    recalibrate.add_argument("--out", type=Path, required=True, metavar="PT",
                             help="the recalibrated save (and its ONNX export beside it)")
    recalibrate.set_defaults(run=_run_recalibrate)

    export = commands.add_parser("export", help="export weights to ONNX for the fast CPU backend")
    export.add_argument("--weights", type=Path, help="detector checkpoint (default: the shipped one, "
                        "unless only --classifier is given)")
    export.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS)
    export.add_argument("--half", action="store_true", help="store the weights as fp16 (half the file)")
    export.add_argument("--int8", type=Path, metavar="SCENES",
                        help="also write int8 models calibrated on these scenes' val images: <out>.int8.onnx "
                             "(ONNX Runtime) and <out>.int8.xml/.bin (OpenVINO, what the app runs), or with "
                             "--classifier the classifier's <PT>.int8.onnx")
    export.add_argument("--classifier", type=Path, metavar="PT",
                        help="export this index classifier save to ONNX beside it (<PT>.onnx; the detector too only "
                             "if --weights is given)")
    export.set_defaults(run=_run_export)

    evaluate = commands.add_parser("evaluate", help="score the detector on the held-out decks")
    evaluate.add_argument("--scenes", type=Path, action="append", metavar="DIR",
                          help="a python -m vision synth folder whose test split (held-out decks) is scored; "
                               "give it again to score several together, e.g. a whole-table and a close-up set "
                               "(default datasets/generated/scenes720)")
    evaluate.add_argument("--weights", type=Path,
                          help="network to score (default: the one the backend runs in the app, "
                               "vision.reader.weights.default_weights)")
    evaluate.add_argument("--backend", choices=BACKENDS, default=BACKENDS[0],
                          help="what runs the network (default %(default)s, the app's)")
    evaluate.add_argument("--classifier", type=Path, help="index classifier: evaluate the two-stage design")
    evaluate.add_argument("--facing", type=Path, default=DEFAULT_FACING_WEIGHTS, metavar="ONNX",
                          help="the facing network that turns each find upright before the classifier reads "
                               "it, as the app does (default %(default)s); --no-facing reads them as they lie")
    evaluate.add_argument("--no-facing", dest="facing", action="store_const", const=None)
    evaluate.add_argument("--out", type=Path, default=Path("runs/evaluate"))
    evaluate.add_argument("--limit", type=at_least(1), help="first N test scenes only")
    evaluate.add_argument("--input-width", type=at_least(STRIDE),
                          help="run the network once on frames scaled to this width (default: as --read says)")
    evaluate.add_argument(
        "--read",
        choices=("still", "views"),
        default="still",
        help="still: each scene read as a still picture, at every scale its indexes need "
        "(vision.reader.scales; default); views: at the frame's default views alone "
        "(vision.reader.detector.input_widths_for), as a live frame is while its indexes are small",
    )
    evaluate.set_defaults(run=_run_evaluate)


def _run_tiles(args: argparse.Namespace) -> int:
    from vision.model.tiles import write_tiles

    counts = write_tiles(args.scenes, args.out, {"val": args.val_scenes}, args.workers, args.reader_scale)
    print(f"{counts['train']} train and {counts['val']} val tiles in {args.out}; data.yaml written")
    return 0


def _run_train(args: argparse.Namespace) -> int:
    from vision.model import train

    if args.status:
        print(train.status(args.name))
        return 0
    if args.background:
        argv = [a for a in _forwarded(args) if a != "--background"]
        pid, log = train.start_background(argv, args.name)
        print(f"training in the background: pid {pid}, log {log}; "
              f"progress: python -m vision train --status --name {args.name}")
        return 0
    recipe = train.Recipe(args.data, args.model, args.imgsz, args.epochs, args.batch, args.name,
                          args.single_class, args.threads, args.device, args.hours, args.lr0, args.bf16)
    try:
        run = train.train(recipe, resume=args.resume)
    except train.TrainingError as error:
        raise WeightsError(str(error)) from None
    print(f"weights in {run / 'weights'}")
    return 0


def _forwarded(args: argparse.Namespace) -> list[str]:
    """The train command's own options again, to hand to the detached process."""
    argv = ["--data", str(args.data), "--model", args.model, "--imgsz", str(args.imgsz), "--epochs",
            str(args.epochs), "--batch", str(args.batch), "--name", args.name, "--threads", str(args.threads),
            "--device", args.device] + (["--hours", str(args.hours)] if args.hours else [])
    argv += ["--lr0", str(args.lr0)] if args.lr0 else []
    return argv + ["--single-class"] * args.single_class + ["--resume"] * args.resume + ["--bf16"] * args.bf16


def _run_facing(args: argparse.Namespace) -> int:
    import torch

    from vision.model import facing_training, index_training
    from vision.reader.facing import FacingReader

    torch.set_num_threads(args.threads)
    contexts, ups = facing_training.facing_contexts(args.scenes, "train")
    if not len(contexts):
        raise FileNotFoundError(
            f"{args.scenes}: no labelled scenes in its train split; write them first: "
            f"python -m vision synth --out {args.scenes} --images 1500 --size 1280x720 --splits train"
        )
    print(f"{len(contexts)} index contexts from {args.scenes}", flush=True)
    summary = index_training.train_facing(contexts, ups, args.out, args.minutes, seed=args.seed, init=args.init,
                                     lr=args.lr, log=lambda line: print(line, flush=True))
    reader = FacingReader(index_training.export_onnx(args.out))
    within = facing_training.facing_accuracy(reader, args.test_scenes)
    scored = (", ".join(f"{share:.3f} within {deg}°" for deg, share in within.items()) if within
              else "not scored (no labelled test scenes there)")
    print(f"{summary['crops_seen']} crops seen in {summary['minutes']:g} min in all; held-out decks "
          f"({args.test_scenes}, test): {scored}; weights in {args.out} and {args.out.with_suffix('.onnx')}")
    return 0


def _run_classifier(args: argparse.Namespace) -> int:
    import numpy as np
    import torch

    from vision.model import index_crops, index_training
    from vision.reader import index_classifier as ic

    torch.set_num_threads(args.threads)
    if args.bf16 and not index_training.bf16_is_fast():
        print("warning: this CPU has no bfloat16 arithmetic (AMX or AVX-512 BF16): --bf16 will train slower "
              "than without it", flush=True)
    detector = None
    if args.false_finds:
        from vision.reader.detector import CardDetector

        detector = CardDetector(args.false_finds, conf=args.false_find_conf, classifier=False, threads=args.threads)
    contexts, labels = _cached_crops(args) or _training_crops(args, detector)
    summary = index_training.train_classifier(contexts, labels, args.out, args.minutes, seed=_training_seed(args),
                                         log=lambda line: print(line, flush=True), init=args.init,
                                         width=args.width, lr=args.lr,
                                         turn=ic.TRAIN_TURN if args.turn is None else args.turn,
                                         fade=ic.TRAIN_FADE if args.fade is None else args.fade,
                                         rand_conv=args.rand_conv, bf16=args.bf16, fan=args.fan)
    trained = ic.IndexClassifier(index_training.export_onnx(args.out))  # the export is what the app runs: score it
    test_contexts, test_labels = index_crops.scene_crops(args.scenes, "test")
    accuracy = index_crops.crop_accuracy(trained, test_contexts, test_labels)
    print(f"{summary['crops_seen']} crops seen in {summary['minutes']:g} min in all; held-out decks: {accuracy:.4f} of "
          f"{len(test_labels)} ground-truth index crops named right; weights in {args.out} and "
          f"{args.out.with_suffix('.onnx')}")
    if detector is not None:
        false = index_crops.false_find_crops(args.scenes, "test", detector)
        rejected = index_crops.crop_accuracy(trained, false, np.full(len(false), ic.BACKGROUND))
        print(f"held-out decks: {rejected:.4f} of {len(false)} false finds judged no index")
    return 0


def _run_recalibrate(args: argparse.Namespace) -> int:
    from vision.model import index_crops, index_training
    from vision.reader import index_classifier as ic
    from vision.reader.detector import CardDetector
    from vision.reader.reading import READING_THRESHOLD

    share = index_training.BATCH_NORM_SHARE if args.share is None else args.share
    if not 0 <= share <= 1:
        raise WeightsError(f"--share goes from 0 to 1, not {share:g}")
    if args.limit < 1:
        raise WeightsError("--limit must be at least 1")
    ic.IndexClassifier(args.classifier)  # a missing or damaged save fails here, saying how to rebuild it
    detector = CardDetector(args.detector, conf=READING_THRESHOLD, classifier=False)
    try:
        crops = index_crops.reader_crops(args.scenes, args.split, detector, args.limit)
    except FileNotFoundError as error:
        raise WeightsError(str(error)) from None
    if not len(crops):
        raise WeightsError(f"{args.detector} finds nothing at {READING_THRESHOLD} in {args.scenes}'s {args.split} "
                           "scenes: no crops to measure the statistics on")
    index_training.recalibrate_batch_norm(args.classifier, crops, args.out, share)
    print(f"batch-norm statistics of {args.classifier} moved {share:g} of the way to those of {len(crops)} reading "
          f"crops ({args.limit} {args.split} scenes of {args.scenes}); weights in {args.out} and "
          f"{index_training.export_onnx(args.out)}")
    return 0


def _training_seed(args: argparse.Namespace) -> int:
    """The seed of the classifier's training draws: ``--train-seed``, else ``--seed``. The crops (and
    a crops cache) depend on ``--seed`` alone, so runs differing only in ``--train-seed`` train on
    the same crops."""
    return args.seed if args.train_seed is None else args.train_seed


def _crops_recipe(args: argparse.Namespace) -> dict:
    """What decides a classifier's training crops (what ``--crops-cache`` keeps): the options, and
    for drawn crops the number of typefaces installed (installing fonts changes them) and the
    drawing's version (:data:`vision.synth.index_glyphs.DRAWING`: a cache from before it was recorded is
    made again)."""
    from vision.synth.index_glyphs import DRAWING, font_files

    return {"scenes": str(args.scenes), "train_scenes": args.train_scenes,
            **({"more_scenes": [str(more) for more in args.more_scenes]} if args.more_scenes else {}),
            # a cache made before false finds came from the --more-scenes too is made again
            **({"false_finds_from": "all scenes"} if args.more_scenes and args.false_finds else {}),
            "false_finds": str(args.false_finds) if args.false_finds else None,
            "false_find_conf": args.false_find_conf if args.false_finds else None,
            "drawn": args.drawn, "seed": args.seed if args.drawn else None,
            "typefaces": len(font_files()[0]) if args.drawn else None,
            "drawing": DRAWING if args.drawn else None}


def _cached_crops(args: argparse.Namespace):
    """The training crops kept in ``--crops-cache`` (mapped from disk, not read into memory), or None
    when it has none yet; CropsCacheError when they were made from other options."""
    import json

    import numpy as np

    if args.crops_cache is None or not (args.crops_cache / "recipe.json").is_file():
        return None
    kept, asked = json.loads((args.crops_cache / "recipe.json").read_text()), _crops_recipe(args)
    if kept != asked:
        differ = ", ".join(f"{key} {kept.get(key)!r} (asked {asked.get(key)!r})" for key in {**kept, **asked}
                           if kept.get(key) != asked.get(key))
        raise CropsCacheError(f"{args.crops_cache} keeps crops made with other options: {differ}; "
                              "name another --crops-cache folder")
    contexts = np.load(args.crops_cache / "contexts.npy", mmap_mode="r")
    labels = np.load(args.crops_cache / "labels.npy")
    print(f"{len(labels)} training crops from {args.crops_cache}", flush=True)
    return contexts, labels


def _training_crops(args: argparse.Namespace, detector):
    """Crops of the training scenes' indexes, the detector's false finds among them ("no index") and
    drawn indexes, as the options ask; kept in ``--crops-cache`` if given."""
    import json

    import numpy as np

    from vision.model.index_crops import false_find_crops, scene_crops
    from vision.reader.index_classifier import BACKGROUND

    contexts, labels = scene_crops(args.scenes, "train", args.train_scenes)
    print(f"{len(labels)} training crops from {args.train_scenes} scenes", flush=True)
    for more in args.more_scenes:
        more_contexts, more_labels = scene_crops(more, "train", args.train_scenes)
        contexts, labels = np.concatenate([contexts, more_contexts]), np.concatenate([labels, more_labels])
        print(f"{len(more_labels)} training crops from {args.train_scenes} scenes of {more}", flush=True)
    # False finds from every scene set the index crops come from, so adding scenes keeps their share
    # (taken from --scenes alone they are too few, and fewer held-out false finds are judged "no index").
    for scenes in [args.scenes, *args.more_scenes] if detector is not None else []:
        false = false_find_crops(scenes, "train", detector, args.train_scenes)
        contexts = np.concatenate([contexts, false])
        labels = np.concatenate([labels, np.full(len(false), BACKGROUND, labels.dtype)])
        print(f"{len(false)} false finds of {args.false_finds} (confidence >= {args.false_find_conf}) in "
              f"{scenes} as background", flush=True)
    if args.drawn:
        from vision.synth.index_glyphs import drawn_contexts, font_files

        drawn, drawn_labels = drawn_contexts(args.drawn, seed=args.seed)
        contexts, labels = np.concatenate([contexts, drawn]), np.concatenate([labels, drawn_labels])
        print(f"{len(drawn)} index crops drawn in {len(font_files()[0])} typefaces", flush=True)
    if args.crops_cache:
        args.crops_cache.mkdir(parents=True, exist_ok=True)
        np.save(args.crops_cache / "labels.npy", labels)
        np.save(args.crops_cache / "contexts.npy", contexts)
        # The recipe last: a folder without it (a run cut off while saving) is made again.
        (args.crops_cache / "recipe.json").write_text(json.dumps(_crops_recipe(args), indent=1) + "\n")
        print(f"training crops kept in {args.crops_cache}", flush=True)
    return contexts, labels


def _run_export(args: argparse.Namespace) -> int:
    from vision.model.export import export_onnx

    if args.classifier:
        from vision.model.index_training import export_onnx as export_classifier

        exported = export_classifier(args.classifier)
        print(f"wrote {exported}")
        if args.int8:
            from vision.model.export import quantize_classifier

            print(f"wrote {quantize_classifier(exported, args.int8)}")
        if args.weights is None:
            return 0
    weights = args.weights or DEFAULT_WEIGHTS.with_suffix(".pt")
    print(f"wrote {export_onnx(weights, args.out, half=args.half)}")
    if args.int8:
        import cv2

        from vision.model.export import OPENVINO_CALIBRATION_FRAMES, quantize_onnx, quantize_openvino
        from vision.reader.detector import INPUT_WIDTH, NARROW_FRAME_WIDTHS
        from vision.reader.weights import OPENVINO_INT8

        paths = sorted((args.int8 / "images" / "val").glob("*.jpg"))[:OPENVINO_CALIBRATION_FRAMES]
        frames = [frame for frame in map(cv2.imread, map(str, paths)) if frame is not None]
        if not frames:
            raise WeightsError(f"no val images in {args.int8 / 'images' / 'val'} to calibrate int8 on")
        print(f"wrote {quantize_onnx(args.out, args.out.with_suffix('.int8.onnx'), frames[:16], INPUT_WIDTH)}")
        # OpenVINO's int8 model is calibrated at the widths the app reads frames at (1280 and 1920 px).
        print(f"wrote {quantize_openvino(args.out, args.out.with_suffix(OPENVINO_INT8), frames, NARROW_FRAME_WIDTHS)}")
    return 0


def _run_evaluate(args: argparse.Namespace) -> int:
    from vision.evaluation.detector import evaluate_command

    print(evaluate_command(args))
    return 0

"""The README's drawn pictures: how well the reader reads by corner size, and a good camera set-up.

    python docs/pictures.py                                   # both, from the committed files
    python docs/pictures.py --close-ups runs/evaluate/closeup1080/metrics.json

* ``docs/accuracy-by-size.png``: exact-card recall by band of corner-index size, read from the
  ``by_band`` table of ``python -m vision evaluate``'s ``metrics.json`` (the whole held-out tables in
  ``models/evaluation``, and the close-ups where ``--close-ups`` names their run).
* ``docs/camera-setup.png``: a frame of the bundled 1080p demo hand with one corner index enlarged
  beside it, and a side view of the camera over the table.

Run it after ``python -m companion.app.screenshots docs/``: it also stores every PNG in ``docs/``
with at most 256 colours where that makes the file smaller, so that each stays small.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DEMO = ROOT / "datasets" / "demo"
#: The demo frame shown (a full table before the hands are spread) and the meld card whose corner is enlarged.
FRAME, CARD = 380, "5H"


def band_floor(band: str) -> float:
    """Where a band such as ``"8–16 px"``, ``"< 8 px"`` or ``"≥ 128 px"`` starts, to sort by."""
    if band.startswith("<"):
        return 0.0
    return float(re.search(r"\d+", band).group())


def plot_accuracy(runs: list[tuple[str, Path]], out: Path) -> None:
    """Recall at the reader's threshold (0.2, solid) and where a card counts as sure (0.5, dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = [(label, json.loads(path.read_text())["by_band"]) for label, path in runs]
    bands = sorted({band for _, table in tables for band in table["0.2"]}, key=band_floor)
    fig, ax = plt.subplots(figsize=(7.2, 4.2), dpi=100)
    for (label, table), colour in zip(tables, ("#1f77b4", "#d62728")):
        for threshold, style in (("0.2", "-o"), ("0.5", "--s")):
            rows = table.get(threshold, {})
            shown = [band for band in bands if band in rows and rows[band]["indexes"] >= 40]
            ax.plot([bands.index(band) for band in shown], [rows[band]["recall"] for band in shown], style,
                    color=colour, alpha=1.0 if threshold == "0.2" else 0.6,
                    label=f"{label}, at {threshold}" + (" (sure)" if threshold == "0.5" else ""))
    ax.axhline(0.98, color="grey", linestyle=":", linewidth=1)
    ax.text(len(bands) - 1, 0.955, "target 0.98", ha="right", va="top", fontsize=8, color="grey")
    ax.axvspan(-0.5, bands.index("16–32 px") - 0.5 if "16–32 px" in bands else -0.5, color="#ff9800", alpha=0.12)
    ax.text(0.5, 0.93, "the app asks you\nto move closer", fontsize=8, color="#b35c00", va="top", ha="center")
    ax.set_xticks(range(len(bands)), [band.replace(" px", "") for band in bands])
    ax.set_xlabel("size of the card's corner index in the picture (pixels, its longer side)")
    ax.set_ylabel("cards named exactly right")
    ax.set_ylim(0, 1)
    ax.set_xlim(-0.5, len(bands) - 0.5)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    ax.set_title("Five card designs the reader never saw", fontsize=10)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def demo_corner() -> tuple[list[list[float]], float]:
    """The polygon of :data:`CARD`'s top-left index in the demo's frame :data:`FRAME`, and its height."""
    for number, line in enumerate(gzip.open(DEMO / "frames.jsonl.gz", "rt")):
        if number == FRAME:
            for card in json.loads(line)["cards"]:
                for index in card["indexes"] if card["code"] == CARD and card["team"] == "A" else []:
                    if index["corner"] == "top_left" and index["labelled"]:
                        ys = [y for _, y in index["polygon"]]
                        return index["polygon"], max(ys) - min(ys)
    raise SystemExit(f"no labelled top-left index of {CARD} in frame {FRAME} of {DEMO}")


def plot_camera_setup(out: Path) -> None:
    import cv2
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon, Rectangle

    video = cv2.VideoCapture(str(DEMO / "hand.mp4"))
    video.set(cv2.CAP_PROP_POS_FRAMES, FRAME)
    ok, frame = video.read()
    video.release()
    if not ok:
        raise SystemExit(f"can't read frame {FRAME} of {DEMO / 'hand.mp4'}")
    rgb = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
    polygon, height = demo_corner()
    xs, ys = [x for x, _ in polygon], [y for _, y in polygon]
    cx, cy, half = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, 24

    plt.rcParams["font.size"] = 10
    fig = plt.figure(figsize=(11, 3.6), dpi=110)
    grid = fig.add_gridspec(1, 3, width_ratios=[2.2, 0.8, 1.5], wspace=0.08)
    whole, corner, side = (fig.add_subplot(grid[0, i]) for i in range(3))

    whole.imshow(rgb[::2, ::2])
    whole.add_patch(Rectangle(((cx - half) / 2, (cy - half) / 2), half, half, fill=False, color="white", linewidth=1.5))
    whole.set_title("the demo hand: 1920×1080, cards about 127 px tall", fontsize=9)
    whole.axis("off")

    x0, y0 = int(cx - half), int(cy - half)
    corner.imshow(rgb[y0:y0 + 2 * half, x0:x0 + 2 * half], interpolation="nearest",
                  extent=(x0 - 0.5, x0 + 2 * half - 0.5, y0 + 2 * half - 0.5, y0 - 0.5))
    corner.add_patch(Polygon(polygon, closed=True, fill=False, color="#00e676", linewidth=1.5))
    corner.set_title(f"its corner index:\nabout {height:.0f} px tall", fontsize=9)
    corner.axis("off")

    side.set_xlim(-75, 75)
    side.set_ylim(-12, 95)
    side.set_aspect("equal")
    side.axis("off")
    side.add_patch(Rectangle((-50, -4), 100, 4, color="#8d6e63"))
    side.plot([0, -50], [72, 0], color="#90a4ae", linewidth=1)
    side.plot([0, 50], [72, 0], color="#90a4ae", linewidth=1)
    side.add_patch(Rectangle((-5, 72), 10, 6, color="#37474f"))
    side.annotate("", xy=(-60, 0), xytext=(-60, 72), arrowprops={"arrowstyle": "<->", "color": "#37474f"})
    side.text(-62, 36, "about\n70 cm", ha="right", va="center", fontsize=8)
    side.text(0, -10, "about 1 m of table in the picture", ha="center", fontsize=8)
    side.text(8, 80, "webcam at 1920×1080 over the middle,\nlooking down (a slant to 30° is fine)",
              fontsize=8, va="bottom")
    side.set_title("side view", fontsize=9)
    fig.savefig(out, bbox_inches="tight")
    plt.close(fig)


def shrink(path: Path) -> None:
    """Store ``path`` with at most 256 colours where that makes it smaller (screenshots and plots
    have few colours; a video frame's grain is lost, which nobody sees at this size)."""
    from PIL import Image

    before = path.stat().st_size
    image = Image.open(path).convert("RGB")
    small = path.with_suffix(".tmp.png")
    image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(small, optimize=True)
    if small.stat().st_size < before:
        small.replace(path)
    else:
        small.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description="Draw the README's accuracy-by-size plot and camera set-up picture, "
                                     "and store every PNG in docs/ small.")
    parser.add_argument("--metrics", type=Path, default=ROOT / "models" / "evaluation" / "metrics.json",
                        help="the whole held-out tables' evaluation (default models/evaluation/metrics.json)")
    parser.add_argument("--close-ups", type=Path, metavar="METRICS",
                        help="the close-ups' evaluation, e.g. runs/evaluate/closeup1080/metrics.json")
    parser.add_argument("--out", type=Path, default=DOCS, help="where the pictures go (default docs/)")
    args = parser.parse_args()
    runs = [("whole tables, 720p", args.metrics)] + ([("close-ups, 1080p", args.close_ups)] if args.close_ups else [])
    plot_accuracy(runs, args.out / "accuracy-by-size.png")
    plot_camera_setup(args.out / "camera-setup.png")
    for path in sorted(args.out.glob("*.png")):
        shrink(path)
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

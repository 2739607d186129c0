#!/usr/bin/env bash
# Packs what scripts/gpu_train.sh needs on the device machine (an H200 with Python 3.12, torch,
# OpenCV and pandas, but no ultralytics, albumentations, PySide6 or network) into .gpu/, which git
# ignores (.git/info/exclude) and the device tool carries. Run here, in the repository root:
#
#   scripts/gpu_pack.sh
#
# The device run fine-tunes models/cards.pt (tracked, so it travels anyway) when it exists.
# Then, with the device tool: run(command="bash scripts/gpu_train.sh", carry=[".gpu"], timeout_s=600).
# Everything that travels (tracked files + .gpu) must stay under 64 MiB; this prints the total.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-/work/main/.venv/bin/python}
ATLAS=${ATLAS:-datasets/cache/faces}
EXCLUDE=$(git rev-parse --git-path info/exclude)
grep -qx '/.gpu/' "$EXCLUDE" 2>/dev/null || echo '/.gpu/' >> "$EXCLUDE"
rm -rf .gpu && mkdir -p .gpu/site .gpu/whl

# The face atlas without four of the five held-out decks: they only make test scenes, which the
# device run does not use, and dropping them keeps the carry under its limit. One stays so that
# the synth command still has decks for its test split.
"$PY" - "$ATLAS" .gpu/faces <<'EOF'
import json, shutil, sys
from pathlib import Path
source, target = Path(sys.argv[1]), Path(sys.argv[2])
index = json.loads((source / "atlas.json").read_text())
size = lambda deck: sum(f.stat().st_size for f in (source / deck).rglob("*") if f.is_file())
held_out = sorted((d for d, e in index["decks"].items() if e["split"] == "test"), key=size)
dropped = set(held_out[1:])  # the smallest stays
index["decks"] = {d: e for d, e in index["decks"].items() if d not in dropped}
target.mkdir(parents=True)
for deck in index["decks"]:
    shutil.copytree(source / deck, target / deck)
(target / "atlas.json").write_text(json.dumps(index))
EOF

# ultralytics is pure Python: copy the installed one (the same version as here).
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cp -r "$SITE/ultralytics" "$SITE/thop" .gpu/site/
find .gpu/site -name __pycache__ -prune -exec rm -rf {} +
# ultralytics' trainer imports polars only to copy results.csv into each checkpoint, inside a
# try; pandas (there) stands in for it rather than carrying a 40 MB wheel.
mkdir -p .gpu/site/polars
cat > .gpu/site/polars/__init__.py <<'EOF'
"""Stand-in for polars on the device machine: the one call ultralytics' trainer makes, via pandas."""
import io

import pandas


def read_csv(data, **_):
    return _Frame(pandas.read_csv(io.BytesIO(data)))


class _Frame:
    def __init__(self, frame):
        self.frame = frame

    def to_dict(self, as_series=False):
        return self.frame.to_dict(orient="list")
EOF

# albumentations (the synth's photographic effects) and its compiled needs, built for Python 3.12.
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .gpu/whl albumentations==2.0.8 albucore==0.0.24 pydantic==2.14.4 pydantic-core==2.50.5 \
  annotated-types==0.8.0 typing-inspection==0.4.5 simsimd==6.5.16 stringzilla==5.3.2

du -sh .gpu
echo "tracked files: $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1) bytes; the sum must stay under 64 MiB"

#!/usr/bin/env bash
# Packs what scripts/gpu_train.sh needs on a GPU machine (one with Python 3.12, torch, OpenCV and
# Pillow, but no ultralytics, albumentations, PySide6 or network) into .gpu/, which git ignores
# (.git/info/exclude) and which is copied there beside the repository. Run here, in its root:
#
#   scripts/gpu_pack.sh
#
# The GPU run fine-tunes models/cards.pt (tracked, so it is copied anyway) when it exists.
# Then, on the GPU machine, in a copy of the repository with .gpu/ beside it: bash scripts/gpu_train.sh
# (under ten minutes). The copy (tracked files + .gpu) is held under 64 MiB: the face atlas takes the
# room the rest leaves (CARRY_MIB, 65 by default: the budget counts the faces before gzip, which
# squeezes them a little; with 65 a copy of 74 decks came to 63.8 MB and went through, where 62
# left room for 67), and this prints the total.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-/work/main/.venv/bin/python}
ATLAS=${ATLAS:-datasets/cache/faces}
EXCLUDE=$(git rev-parse --git-path info/exclude)
grep -qx '/.gpu/' "$EXCLUDE" 2>/dev/null || echo '/.gpu/' >> "$EXCLUDE"
rm -rf .gpu && mkdir -p .gpu/site .gpu/whl

# ultralytics is pure Python: copy the installed one (the same version as here).
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cp -r "$SITE/ultralytics" "$SITE/thop" .gpu/site/
find .gpu/site -name __pycache__ -prune -exec rm -rf {} +
# ultralytics' trainer imports polars only to copy results.csv into each checkpoint; a stand-in
# on the standard library's csv module does that, rather than copying a 40 MB wheel.
mkdir -p .gpu/site/polars
cat > .gpu/site/polars/__init__.py <<'EOF'
"""Stand-in for polars on the GPU machine: the one call ultralytics' trainer makes."""
import csv
import io


def read_csv(data, **_):
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    return _Frame({key.strip(): [_number(row[key]) for row in rows] for key in (rows[0] if rows else {})})


def _number(text):
    try:
        return float(text)
    except ValueError:
        return text


class _Frame:
    def __init__(self, columns):
        self.columns = columns

    def to_dict(self, as_series=False):
        return self.columns
EOF

# albumentations (the synth's photographic effects) and its compiled needs, built for Python 3.12.
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .gpu/whl albumentations==2.0.8 albucore==0.0.24 pydantic==2.14.4 pydantic-core==2.50.5 \
  annotated-types==0.8.0 typing-inspection==0.4.5 simsimd==6.5.16 stringzilla==5.3.2

# The face atlas as lossless WebP (scripts/gpu_faces.py; gpu_train.sh turns it back into PNGs), as
# many decks as the copy has room for: it outgrew 64 MiB with the second generation of drawn decks.
# The tracked files, the packages above and the faces stay under CARRY_MIB. Each face travels
# halved as the renderer's pyramid halves it (--half; HALF_FACES= for whole
# faces): a card drawn under two thirds of the face's height renders pixel for pixel as before, a
# bigger one a little softer (12 training scenes: 99.3 % of pixels alike, 0.8 grey levels off at
# most on average), and all 87 decks fit (24.5 MB before gzip) where 74 filled the room.
tracked=$(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1)
packages=$(du -sb .gpu | cut -f1)
"$PY" scripts/gpu_faces.py pack "$ATLAS" .gpu/faces $(( ${CARRY_MIB:-65} * 1048576 - tracked - packages )) ${HALF_FACES---half}

# Two gzipped archives rather than thousands of small files: a copy of many small files is
# measured by more than their bytes (a 65.2 MB tree of 4,784 files counted as over 64 MiB).
tar -C .gpu -czf .gpu/site.tar.gz site && rm -rf .gpu/site
tar -C .gpu -czf .gpu/faces.tar.gz faces && rm -rf .gpu/faces
du -sh .gpu
echo "tracked files $tracked bytes + .gpu $(du -sb .gpu | cut -f1) bytes; the sum must stay under 64 MiB (67108864)"

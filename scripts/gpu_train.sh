#!/usr/bin/env bash
# A ~9-minute training run on the device machine (one H200, 16 cores, no network), run by the
# device tool after scripts/gpu_pack.sh:
#
#   run(command="bash scripts/gpu_train.sh", carry=[".gpu"], timeout_s=600)
#
# Makes fresh scenes from the carried atlas on the 16 cores, cuts them into tiles, trains on the
# GPU for TRAIN_HOURS (fine-tuning models/cards.pt when it exists), and leaves in $OUT: best.pt,
# last.pt, results.csv and train.log. Back here: copy best.pt to models/cards.pt, then
# python -m vision export, python -m vision evaluate, and update models/MODEL_CARD.md.
#
# Tried here on the CPU (tenth session; everything but the wheels' install, which needs Python
# 3.12): sed '/pip install/d' scripts/gpu_train.sh > scripts/dry.sh && DEVICE=cpu SCENES=24
# TRAIN_HOURS=0.002 PATH=.venv/bin:$PATH bash scripts/dry.sh; rm scripts/dry.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-out}
SCENES=${SCENES:-6000}
DESIGN=${DESIGN:---single-class}  # the shipped two-stage design; DESIGN= trains the 53-class detector
DEVICE=${DEVICE:-0}                # a CUDA device number; DEVICE=cpu tries the script here on a few scenes
TRAIN_HOURS=${TRAIN_HOURS:-0.1}    # 6 min of training; scenes (~1 min), tiles (~1 min) and start-up take the rest
mkdir -p "$OUT"
exec > >(tee "$OUT/train.log") 2>&1

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/whl/*.whl || exit 1
export PYTHONPATH=".:.gpu/site:/tmp/site" YOLO_OFFLINE=1 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader

start=$(date +%s)
python3 scripts/gpu_faces.py unpack .gpu/faces /tmp/faces || exit 1
python3 -m vision synth --out /tmp/scenes --images "$SCENES" --seed "$RANDOM" --size 1280x720 \
  --workers 16 --atlas /tmp/faces | tail -1 || exit 1
python3 -m vision tiles --scenes /tmp/scenes --out /tmp/tiles || exit 1
echo "data ready in $(( $(date +%s) - start )) s"

model=yolov8n.yaml
[ -f models/cards.pt ] && model=models/cards.pt
python3 -m vision train --data /tmp/tiles/data.yaml --model "$model" --name gpu --device "$DEVICE" \
  --batch 64 --threads 16 --hours "$TRAIN_HOURS" --epochs 100 $DESIGN
cp runs/detector/gpu/weights/best.pt runs/detector/gpu/weights/last.pt runs/detector/gpu/results.csv "$OUT/"
echo "total $(( $(date +%s) - start )) s"

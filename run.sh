#!/usr/bin/env bash
# The project's one entry point for people and CI.
#   ./run.sh app  [args]   start Canasta Companion (the bundled demo hand when no webcam is found)
#   ./run.sh test [args]   run the test suite (args go to pytest)
# Both install what is missing first: Debian packages and a virtual environment at .venv with the
# project. The app needs Qt's system libraries and the project alone (about 1.4 GB); the tests also
# need the training stack (the [train] extra) and the card artwork and typefaces training data is
# made from (TRAINING_PACKAGES).
set -euo pipefail
cd "$(dirname "$0")"

DEBIAN_PACKAGES=(
  libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0  # Qt 6 runtime
  # what Qt's xcb platform plugin (the X11 desktop) links: `ldd` on PySide6's plugins/platforms/libqxcb.so
  # and lib/libQt6XcbQpa.so.6 (tests/app/test_desktop.py checks that none is missing)
  libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-glx0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1
  libxcb-xfixes0 libxcb-xkb1 libxkbcommon-x11-0
  libpulse0                                  # Qt Multimedia (the camera list) loads it
  fonts-dejavu-core                          # a font for Qt and for the project's own card faces
  python3-venv                               # `python3 -m venv` below (Debian keeps ensurepip apart)
)
TRAINING_PACKAGES=(
  kdegames-card-data-kf5 gnome-cards-data   # real card-deck artwork (SVG) for the synthetic scenes
  fonts-urw-base35 fonts-liberation2 fonts-freefont-ttf   # typefaces of the project's other drawn decks
  # more typefaces for the index crops the classifier learns from (vision/synth/index_glyphs.py): condensed,
  # old-style, rounded and slab letters like those of decks it has never seen
  fonts-paratype fonts-yanone-kaffeesatz fonts-adf-gillius fonts-adf-universalis fonts-adf-romande
  fonts-adf-tribun fonts-adf-baskervald fonts-linuxlibertine fonts-ebgaramond fonts-lato fonts-cantarell
  fonts-comic-neue fonts-vollkorn fonts-go fonts-oldstandard fonts-sil-charis fonts-dosis fonts-jura
  fonts-crosextra-carlito fonts-crosextra-caladea fonts-roboto fonts-roboto-slab fonts-open-sans
  fonts-league-spartan fonts-quicksand fonts-comfortaa
  # and 31 more: monospaced, geometric, humanist and Greek-cut letters, several
  # with suit symbols of their own (Croscore, STIX, Symbola, Fira Code, Asana Math)
  fonts-symbola fonts-stix fonts-cmu fonts-oflb-asana-math fonts-croscore fonts-cabin fonts-inter
  fonts-firacode fonts-hack fonts-inconsolata fonts-jetbrains-mono fonts-sil-gentiumplus fonts-sil-andika
  fonts-bebas-neue fonts-f500 fonts-fantasque-sans fonts-averia-gwf fonts-tuffy fonts-isabella
  fonts-radisnoir fonts-gfs-didot fonts-gfs-neohellenic fonts-adf-accanthis fonts-adf-berenis
  fonts-adf-ikarius fonts-adf-irianis fonts-adf-libris fonts-adf-mekanus fonts-adf-oldania
  fonts-adf-switzera fonts-adf-verana
)

# What the tests need besides: an X server without a screen, to start the app as on a desktop (xcb),
# and xwininfo, to see its window there.
TEST_DEBIAN_PACKAGES=(xvfb x11-utils)

ensure_debian_packages() {   # the packages named as arguments
  command -v dpkg-query >/dev/null || return 0   # not Debian: install the equivalents of DEBIAN_PACKAGES yourself
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
}

# ensure_venv app: the project alone; ensure_venv test: with its [train] and [dev] extras. A stamp
# per kind and pyproject.toml records what is installed. A test install serves the app as well, and
# pip removes nothing an earlier install added, so the two commands never undo each other.
ensure_venv() {
  local kind="$1" extras=""
  [ "$kind" = test ] && extras="[train,dev]"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  local hash
  hash="$(sha256sum pyproject.toml | cut -c1-16)"
  local stamp=".venv/.installed-$kind-$hash"
  if [ ! -f "$stamp" ] && [ ! -f ".venv/.installed-test-$hash" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -e ".$extras"
    # ultralytics depends on the full opencv-python, which ships its own Qt plugins and points Qt at
    # them on import, breaking PySide6. Both wheels write the same cv2/ folder, so keep only headless.
    if .venv/bin/python -m pip show -q opencv-python 2>/dev/null; then
      .venv/bin/python -m pip uninstall -y -q opencv-python opencv-python-headless
      .venv/bin/python -m pip install -q opencv-python-headless
    fi
    find .venv -maxdepth 1 -name '.installed-*' ! -name "*-$hash" -delete   # stamps of an older pyproject.toml
    touch "$stamp"
  fi
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  app)
    ensure_debian_packages "${DEBIAN_PACKAGES[@]}"
    ensure_venv app
    exec .venv/bin/python -m companion.app "$@"
    ;;
  test)
    ensure_debian_packages "${DEBIAN_PACKAGES[@]}" "${TRAINING_PACKAGES[@]}" "${TEST_DEBIAN_PACKAGES[@]}"
    ensure_venv test
    export QT_QPA_PLATFORM=offscreen
    exec .venv/bin/python -m pytest "$@"
    ;;
  *)
    echo "usage: ./run.sh app | ./run.sh test [pytest args]" >&2
    exit 2
    ;;
esac

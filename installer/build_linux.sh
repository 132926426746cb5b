#!/usr/bin/env bash
# Build the Linux one-folder app into dist/Findling and check it with its own self-test.
#   bash installer/build_linux.sh            # plain
#   FINDLING_WITH_MODELS=~/.cache/findling/models bash installer/build_linux.sh   # with models
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -e . pyinstaller==6.22.3
pyinstaller --noconfirm --distpath dist --workpath build installer/findling.spec
dist/Findling/Findling --selftest
du -sh dist/Findling

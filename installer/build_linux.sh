#!/usr/bin/env bash
# Build the Linux one-folder app into dist/Findling, check it with its own self-test and its
# size bound, and pack it.
#   bash installer/build_linux.sh            # plain
#   FINDLING_WITH_MODELS=~/.cache/findling/models bash installer/build_linux.sh   # with models
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -e . pyinstaller==6.22.3
pyinstaller --noconfirm --distpath dist --workpath build installer/findling.spec
dist/Findling/Findling --selftest
max_mb=300
if [ -n "${FINDLING_WITH_MODELS:-}" ]; then max_mb=$((max_mb + $(du -sm "$FINDLING_WITH_MODELS" | cut -f1))); fi
python3 installer/bundle_size.py dist/Findling --max-mb "$max_mb"
tar -C dist -czf dist/Findling-linux-x86_64.tar.gz Findling
echo "packed: $(($(stat -c %s dist/Findling-linux-x86_64.tar.gz) / 1000000)) MB dist/Findling-linux-x86_64.tar.gz"

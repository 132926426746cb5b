#!/usr/bin/env bash
# Build Findling.app and a .dmg on macOS:  bash installer/macos/make_dmg.sh
# Signing and notarization run only when their credentials are configured:
#   FINDLING_CODESIGN_IDENTITY   "Developer ID Application: …" (codesign)
#   FINDLING_NOTARY_PROFILE      a keychain profile made with `xcrun notarytool store-credentials`
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' desktop/findling/__init__.py)
python3 -m pip install -e . pyinstaller==6.22.3
pyinstaller --noconfirm --distpath dist --workpath build installer/findling.spec
app="dist/Findling.app"
"$app/Contents/MacOS/Findling" --selftest
python3 installer/bundle_size.py "$app" --max-mb 300
# The executable inside the .app is also the command line: `findling install-cli` (or
# ln -s /Applications/Findling.app/Contents/MacOS/Findling ~/.local/bin/findling) puts it on PATH.

if [ -n "${FINDLING_CODESIGN_IDENTITY:-}" ]; then
    codesign --force --deep --options runtime --timestamp --sign "$FINDLING_CODESIGN_IDENTITY" "$app"
    codesign --verify --strict --verbose=2 "$app"
else
    echo "codesign skipped: FINDLING_CODESIGN_IDENTITY is not set"
fi

dmg="dist/Findling-$version.dmg"
staging=$(mktemp -d)
cp -R "$app" "$staging/"
ln -s /Applications "$staging/Applications"
rm -f "$dmg"
hdiutil create -volname "Findling $version" -srcfolder "$staging" -ov -format UDZO "$dmg"
rm -rf "$staging"

if [ -n "${FINDLING_CODESIGN_IDENTITY:-}" ]; then
    codesign --sign "$FINDLING_CODESIGN_IDENTITY" --timestamp "$dmg"
fi
if [ -n "${FINDLING_NOTARY_PROFILE:-}" ] && [ -n "${FINDLING_CODESIGN_IDENTITY:-}" ]; then
    xcrun notarytool submit "$dmg" --keychain-profile "$FINDLING_NOTARY_PROFILE" --wait
    xcrun stapler staple "$dmg"
else
    echo "notarization skipped: FINDLING_NOTARY_PROFILE (and a signing identity) are not set"
fi
dmg_mb=$(($(stat -f %z "$dmg") / 1000000))
echo "built $dmg ($dmg_mb MB)"
if [ "$dmg_mb" -gt 120 ]; then echo "the dmg is over its bound of 120 MB" >&2; exit 1; fi

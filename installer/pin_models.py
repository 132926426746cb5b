"""Maintainers' tool: resolve every manifest model still at revision "main" to its current
commit, with each file's sha256 and size from the hub, and print the pinned TOML entries to
paste into resources/models.toml. Needs network access to the hub (HF_ENDPOINT honoured).

    python installer/pin_models.py [--manifest resources/models.toml]
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path

from huggingface_hub import constants, hf_hub_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "desktop"))
from findling.models.manifest import load_manifest  # noqa: E402


def _json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.load(resp)


def _head(url: str) -> tuple[str, int]:
    request = urllib.request.Request(url, method="HEAD", headers={"Accept-Encoding": "identity"})
    with urllib.request.urlopen(request, timeout=30) as resp:
        etag = (resp.headers.get("X-Linked-Etag") or resp.headers.get("ETag") or "").strip('"')
        size = int(resp.headers.get("X-Linked-Size") or resp.headers.get("Content-Length") or 0)
        return etag, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, default=None)
    args = parser.parse_args()
    manifest = load_manifest(args.manifest)
    endpoint = constants.ENDPOINT
    for spec in manifest.models.values():
        if spec.pinned:
            continue
        commit = _json(f"{endpoint}/api/models/{spec.repo}/revision/{spec.revision}")["sha"]
        print(f'[models."{spec.name}"]  # {spec.repo}\nrevision = "{commit}"\nfiles = [')
        for f in spec.files:
            etag, size = _head(hf_hub_url(spec.repo, f.path, revision=commit, endpoint=endpoint))
            sha = f'sha256 = "{etag}", ' if len(etag) == 64 else ""
            print(f'    {{ path = "{f.path}", kind = "{f.kind}", {sha}size = {size} }},')
        print("]\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

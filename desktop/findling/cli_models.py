"""`findling models`: list, pull, import, remove and use the models (or a model server)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from findling.errors import FindlingError

if TYPE_CHECKING:
    from findling.models.service import ModelService


def _model_progress():
    if not sys.stderr.isatty():
        return None

    def show(p) -> None:
        frac = p.done / p.total if p.total else 0.0
        sys.stderr.write(f"\r\033[K{p.model}: {p.file} {p.done / 1e6:.1f}/{p.total / 1e6:.1f} MB ({frac:.0%})")
        sys.stderr.flush()

    return show


def _list_models(service: ModelService) -> int:
    from findling.models.manifest import ROLES, model_size

    manifest = service.manifest
    for role in ROLES:
        if role not in manifest.defaults:  # a manifest of one's own may leave a role out
            continue
        chosen = service.spec(role).name
        for name in (manifest.defaults[role], *manifest.alternatives.get(role, ())):
            spec = manifest.get(name)
            st = service.store.status(spec)
            mark = "*" if name == chosen else " "
            print(f"{mark} {role:<10} {name:<26} {st.state:<10} {model_size(spec, st.size):>12}  {spec.repo}")
        if (endpoint := service.endpoint(role)) is not None:
            print(f"* {role:<10} {endpoint.where()}")
    print("* = in use")
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from findling.models.service import ModelService
    from findling.settings import load_settings

    if args.action == "use":
        return _use_model(args)
    service = ModelService(load_settings(args.home).models)
    manifest = service.manifest
    if args.action == "list":
        return _list_models(service)
    if args.action == "import":
        from pathlib import Path

        from findling.models.download import sha256_file
        from findling.models.importing import identify

        folder = args.dir or args.name  # the name is optional: the folder says which model it holds
        if not folder:
            print("findling: give the folder to import from", file=sys.stderr)
            return 2
        spec = manifest.get(args.name) if args.dir else identify(Path(folder), manifest, sha256_file)
        status = service.store.import_dir(spec, Path(folder))
        print(f"{spec.name} ({spec.role}): {status.state} from {folder}")
        if spec.name not in (
            manifest.defaults.get(spec.role),
            *manifest.alternatives.get(spec.role, ()),
        ) or spec.repo.startswith("local:"):
            print(
                f'to use it: set {spec.role} = "{spec.name}" under [models] in settings.toml, '
                "or choose it in the window's Models dialog"
            )
        return 0
    if not args.name:
        print("findling: name a model (see findling models list)", file=sys.stderr)
        return 2
    spec = manifest.get(args.name)
    if args.action == "pull":
        status = service.store.pull(spec, progress=_model_progress())
        if sys.stderr.isatty():
            sys.stderr.write("\r\033[K")
        print(f"{spec.name}: {status.state} ({status.size / 1e6:.1f} MB, {status.detail})")
    elif args.action == "remove":
        print(f"{spec.name}: {'removed' if service.store.remove(spec) else 'was not installed'}")
    return 0


def _use_model(args: argparse.Namespace) -> int:
    """`models use ROLE NAME` (a local model) or `models use ROLE --url URL --model NAME`: saved in
    settings.toml, then tried once so the user learns at once whether the server answers."""
    from findling.models.choice import try_server, use_local, use_server
    from findling.models.manifest import ROLES
    from findling.models.remote import Endpoint
    from findling.models.service import ModelService
    from findling.settings import load_settings, save_settings

    role, local = args.name, args.dir
    if role not in ROLES:
        print("findling: name the role: embedder, reranker, generator or ocr", file=sys.stderr)
        return 2
    settings = load_settings(args.home)
    if args.url is None:
        if not local:
            print(f"findling: name the model ({role} NAME) or its server (--url URL --model NAME)", file=sys.stderr)
            return 2
        use_local(settings.models, role, local, ModelService(settings.models).manifest)
        save_settings(settings, args.home)
        print(f"{role}: {local}, on this computer")
        return 0
    endpoint = Endpoint(args.url.rstrip("/"), args.model or "", args.api or "openai", args.key_env or "")
    use_server(settings.models, role, endpoint, args.allow_remote)  # refused: nothing saved
    save_settings(settings, args.home)
    print(f"{role}: {endpoint.where()}")
    try:
        said = try_server(role, endpoint)
    except FindlingError as exc:
        print(f"saved, but the server does not answer now: {exc}", file=sys.stderr)
        return 1
    print(f"it answers: {said}")
    return 0

"""The models a process holds, built once per role, each role without waiting on another."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from findling.models.manifest import ModelSpec
from findling.models.service import ModelService
from findling.settings import ModelSettings


@dataclass
class _Built:
    spec: ModelSpec


def test_a_role_is_built_while_another_is_still_building():
    """The window's first search waited 2.2 s for its embedder while the Answer beside it built
    the generator: both were built under one lock."""
    service = ModelService(ModelSettings())
    building, release = threading.Event(), threading.Event()

    def slow(spec: ModelSpec) -> _Built:
        building.set()
        release.wait(30)
        return _Built(spec)

    generator = threading.Thread(target=service._cached, args=("_generator", "generator", slow))
    generator.start()
    try:
        assert building.wait(10)
        got: list[_Built] = []
        embedder = threading.Thread(target=lambda: got.append(service._cached("_embedder", "embedder", _Built)))
        embedder.start()
        embedder.join(10)
        assert got and got[0].spec.role == "embedder" and not release.is_set()  # built, the generator still not
    finally:
        release.set()
        generator.join(30)
    assert service._cached("_generator", "generator", _Built).spec.role == "generator"  # built once, kept

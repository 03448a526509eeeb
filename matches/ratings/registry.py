"""The lab's rating systems by name, for `evaluate_ratings` and the benchmark.

``create("elo", k=24)`` makes one system, passing options to its constructor;
``create_many("glicko,glicko2")`` takes a comma-separated list, as a command line gives it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from matches.ratings.base import ContinuousGlicko, RatingSystem
from matches.ratings.elo import Elo
from matches.ratings.glicko2 import Glicko2
from matches.ratings.moonstone import Moonstone
from matches.ratings.trueskill import TrueSkill

FACTORIES: Mapping[str, Callable[..., RatingSystem[Any]]] = MappingProxyType(
    {
        "glicko": ContinuousGlicko,
        "glicko2": Glicko2,
        "elo": Elo,
        "trueskill": TrueSkill,
        "moonstone": Moonstone,
    }
)


def create(name: str, **options: Any) -> RatingSystem[Any]:
    """A new system by registry name; unknown names list the known ones."""
    try:
        factory = FACTORIES[name]
    except KeyError:
        raise ValueError(
            f"unknown rating system {name!r}; choose from {', '.join(FACTORIES)}"
        ) from None
    return factory(**options)


def create_many(names: str | Iterable[str]) -> list[RatingSystem[Any]]:
    """Systems with default options from "a,b,c" or an iterable of names."""
    if isinstance(names, str):
        names = names.split(",")
    return [create(name.strip()) for name in names if name.strip()]

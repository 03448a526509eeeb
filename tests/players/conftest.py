"""Fixtures for the page tests: plain static files and a small simulated league."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest

from tests.players.league import SeededLeague, seed_league


@pytest.fixture(autouse=True)
def _plain_static_files(settings) -> None:
    """Pages link their CSS through {% static %}; the hashed-name manifest exists only
    after collectstatic, which tests do not run."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def league(db) -> SeededLeague:
    """2,000 rated games among 80 simulated players, with ranks and statistics."""
    return seed_league(players=80, games=2000)


@pytest.fixture
def seed() -> Callable[..., SeededLeague]:
    return seed_league


__all__ = ["datetime"]

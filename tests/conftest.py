"""Fixtures shared by the whole suite."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from matches.tasks import recompute_after_flag_changes
from players.selectors.roster import current_roster
from players.services import ensure_roster

# The leagues the tests share, wherever they live: `league` for pages, `api` (on
# `api_league`) for the API, `flagged_league` for holding raw queries to the ORM.
from tests.fixtures.api_league import api, api_league  # noqa: F401
from tests.fixtures.flagged_league import flagged_league  # noqa: F401
from tests.fixtures.pages import league  # noqa: F401
from web import caching, embedded_db

# No example has a time limit: the first example of a test can pay numba's compilation of
# the array ledger, and a busy machine slows any of them. Speed is measured by the benches, not
# asserted here (hypothesis's default deadline of 200 ms is a timed assertion).
settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("suite")

_DB_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "live_server"}


@pytest.fixture(autouse=True)
def _roster(request: pytest.FixtureRequest) -> None:
    """Tests that use the database get the roster, which transactional tests flush away."""
    marker = request.node.get_closest_marker("django_db")
    names = set(request.fixturenames)
    if not marker and not _DB_FIXTURES & names:
        return
    transactional = bool(
        {"transactional_db", "live_server"} & names or (marker and marker.kwargs.get("transaction"))
    )
    request.getfixturevalue("transactional_db" if transactional else "db")
    ensure_roster()


def _warm_roster_first(assert_queries: Callable) -> Callable:
    """Query counts are for a process that has read the roster of the generation (once
    per generation and process: players.selectors.roster), as every request but the
    first after a change is."""

    @contextmanager
    def counted(*args: Any, **kwargs: Any) -> Iterator[Any]:
        current_roster()
        with assert_queries(*args, **kwargs) as captured:
            yield captured

    return counted


@pytest.fixture
def django_assert_num_queries(django_assert_num_queries: Callable) -> Callable:
    return _warm_roster_first(django_assert_num_queries)


@pytest.fixture
def django_assert_max_num_queries(django_assert_max_num_queries: Callable) -> Callable:
    return _warm_roster_first(django_assert_max_num_queries)


@pytest.fixture(autouse=True)
def _isolated_cache(settings, tmp_path) -> None:
    """Each test gets its own empty cache: throttles and cached pages never leak across tests
    (nor the clients a worker remembers refusing: web.caching)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": str(tmp_path),
        }
    }
    caching._refused_until.clear()


@pytest.fixture(autouse=True)
def _confirmation_off_unless_asked(settings) -> None:
    """The small leagues most tests build cannot reach RANKED_MIN_OPPONENTS (10) different
    settled opponents: they run without that rule, as they were written. Its own tests
    (tests/matches/test_win_trading.py, test_placement.py, test_raw_queries.py and
    tests/ratings/) set the minimum they test."""
    settings.RANKED_MIN_OPPONENTS = 0


@pytest.fixture(autouse=True)
def _static_files_without_collectstatic(settings) -> None:
    """Pages render {% static %} without a collectstatic run (the manifest storage needs one;
    tests/site/test_static.py checks that production path on its own)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def reference_formulas(settings) -> None:
    """The reference formulas exactly (docs/rating-model.md#reference-numbers): each side's
    expected score from the opponent's deviation alone, no flattening, no matchup."""
    settings.RATING_ONE_CHANCE = False
    settings.RATING_UPDATE_DAMPING = 0.0


@pytest.fixture
def queued_recomputes(monkeypatch) -> list[None]:
    """The recomputes flag changes queue (matches.services.flags), one entry per task,
    recorded instead of sent to a broker; run one with `recompute_after_flag_changes()`."""
    queued: list[None] = []
    monkeypatch.setattr(recompute_after_flag_changes, "delay", lambda: queued.append(None))
    return queued


@pytest.fixture
def cluster() -> Iterator[Path]:
    """A directory for an embedded PostgreSQL cluster of the test's own, stopped and removed
    afterwards. Not under tmp_path: pytest makes its temporary root private (0700) again
    whenever another pytest session starts on the machine, which would shut the cluster's
    system user (as root, the wheel runs the server as one) out of its data mid-test."""
    home = Path(tempfile.mkdtemp(prefix="ratings-test-cluster-"))
    directory = home / "postgres"
    yield directory
    embedded_db.stop(directory)
    shutil.rmtree(home, ignore_errors=True)

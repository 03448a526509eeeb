"""Schemathesis drives every operation of the schema against a live server holding the seeded
league: no response may be a server error or break the schema.

Cases come from schemathesis's Python API (operation strategies under Hypothesis) rather
than its pytest plugin, which does not run under pytest 9.2. Besides fully generated valid
and invalid requests, every operation also gets requests that name the league's players
and the schema's own examples, so that successful responses are checked too, not just 404s.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.throttling import SimpleRateThrottle
from schemathesis import GenerationMode
from schemathesis.schemas import APIOperation

from tests.fixtures.api_league import ALICE, BOB, pin_opponents_clock, seed_league
from tests.web.test_schema import COMMITTED

EXAMPLES_PER_OPERATION = 60
SCHEMA = schemathesis.openapi.from_path(COMMITTED)
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]
# Values that exist in the seeded league, for the parameters that name things.
KNOWN_PATH = {"player_id": ALICE.id, "character": "SO"}
KNOWN_QUERY = {"name": "kyo", "opponent": BOB.id, "a": f"{ALICE.id}:SO", "b": f"{BOB.id}:KY"}


def _known(values: dict[str, str], parameters: Any) -> dict[str, str]:
    return {p.name: values[p.name] for p in parameters if p.name in values}


def cases(operation: APIOperation) -> st.SearchStrategy:
    """Generated valid and invalid requests, valid ones about known players, and examples."""
    return st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
        operation.as_strategy(
            GenerationMode.POSITIVE,
            path_parameters=_known(KNOWN_PATH, operation.path_parameters),
            query=_known(KNOWN_QUERY, operation.query),
        ),
        *SCHEMA.get_strategies_from_examples(operation),
    )


@pytest.mark.slow
@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.label)
def test_operation_keeps_to_the_schema(operation, live_server, monkeypatch):
    # Hundreds of requests a minute from one client: keep the throttle out of the way.
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "1000000/min")
    pin_opponents_clock(monkeypatch)
    seed_league()

    @given(case=cases(operation))
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: schemathesis.Case) -> None:
        case.call_and_validate(base_url=live_server.url, timeout=30)

    check()

"""A small fault campaign (bench.faults) as a test: real workers on a hostile feed,
SIGKILLed and cut off from the database, must still store every good game once, rate
it once, reject every bad replay with its reason and read the feed to its end."""

from __future__ import annotations

import pytest
import redis

from bench.faults import CampaignSettings, run_campaign
from bench.hostile_feed import BEHAVIOURS
from tests.worker.conftest import REDIS_TEST_URL, database_url

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SETTINGS = CampaignSettings(
    tuple(BEHAVIOURS),
    good=120,
    kills=2,
    terminations=2,
    page_delay=0.3,
    drain_timeout=45.0,
)


def test_workers_killed_and_cut_off_on_a_hostile_feed_lose_and_double_nothing(broker, tmp_path):
    application_name = f"test-faults-{broker.queue}"
    queue = redis.Redis.from_url(REDIS_TEST_URL) if REDIS_TEST_URL else None
    result = run_campaign(
        SETTINGS,
        worker_environment={**broker.environment(), "DATABASE_URL": database_url(application_name)},
        application_name=application_name,
        queue_length=lambda: queue.llen(broker.queue) if queue else 0,
        logs=tmp_path,
    )
    assert not result.failures, result.summary()

"""Every Celery task has a time limit, so a stuck task ends instead of holding a worker."""

from __future__ import annotations

import pytest
from django.conf import settings

from matches.models import IngestRun, Match
from matches.tasks import pull_replays
from ratingsite.celery import app
from tests.factories import replay
from tests.worker.conftest import http_source, wait_for


def test_every_task_has_a_soft_and_a_hard_time_limit():
    app.loader.import_default_modules()
    tasks = [task for name, task in app.tasks.items() if name.startswith("matches.")]
    # Every task of the app has its limits in settings (CELERY_TASK_ANNOTATIONS).
    assert {task.name for task in tasks} == set(settings.CELERY_TASK_ANNOTATIONS)
    for task in tasks:
        assert 0 < task.soft_time_limit < task.time_limit, task.name


@pytest.mark.django_db(transaction=True)
def test_a_stuck_pull_is_stopped_by_its_soft_limit_and_its_run_recorded(
    fake_feed, worker_processes
):
    feed = fake_feed([replay(n) for n in range(1, 7)])
    # Without a task limit this pull would wait 30 s for each of 4 attempts at page 2.
    source = http_source(feed.url, attempts=4, read_timeout=30.0)
    feed.fail("3", "hang", times=4)
    worker_processes.start(pool="prefork")  # the solo pool has no time limits
    # The sender stamps the limits on the message (beat: those of settings); a short one here.
    pull_replays.apply_async(soft_time_limit=3, time_limit=60)
    finished = IngestRun.objects.filter(finished_at__isnull=False)
    run = wait_for(finished.first, timeout=60, message="the run to be recorded")
    assert run.error == "stopped: the pull task reached its time limit"
    assert run.new == 3 and Match.objects.count() == 3
    source.refresh_from_db()
    assert source.cursor == "3"  # the stored page moved the cursor with it
    wait_for(lambda: "Soft time limit (3s) exceeded" in worker_processes.logs())

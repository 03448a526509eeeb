"""The periodic lab evaluation: scheduled by beat, stored for the page and the API."""

from __future__ import annotations

import pytest
from django.conf import settings

from matches.selectors.lab import latest_lab_report
from matches.tasks import refresh_lab
from web.generation import current_generation


def test_beat_runs_the_lab_on_its_own_schedule():
    entry = settings.CELERY_BEAT_SCHEDULE["refresh_lab"]
    assert entry["task"] == "matches.tasks.refresh_lab"
    assert entry["schedule"] == settings.CELERY_LAB_SECONDS


@pytest.mark.django_db
def test_the_task_stores_a_report_and_bumps_the_generation(stored_league):
    before = current_generation()
    refresh_lab.apply().get()
    report = latest_lab_report()
    assert report is not None and report["games"] > 0
    assert {system["name"] for system in report["systems"]} >= {"glicko", "elo"}
    assert current_generation() > before

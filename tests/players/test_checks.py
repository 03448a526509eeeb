"""The system check that holds RATING_LOW_DEVIATION to the ranking indexes' condition."""

from __future__ import annotations

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from players.models import RANKED_INDEX_DEVIATION, Rating


def low_deviation_errors() -> list[checks.CheckMessage]:
    return [message for message in checks.run_checks() if message.id == "players.E001"]


def test_the_ranking_indexes_are_built_for_the_default_setting() -> None:
    conditions = {
        index.name: index.condition for index in Rating._meta.indexes if "ranked" in index.name
    }
    assert set(conditions) == {"rating_ranked_idx", "rating_char_ranked_idx"}
    for condition in conditions.values():
        assert condition.children == [("deviation__lt", RANKED_INDEX_DEVIATION)]
    assert low_deviation_errors() == []


@pytest.mark.parametrize("low", [RANKED_INDEX_DEVIATION + 25, RANKED_INDEX_DEVIATION - 5])
def test_another_low_deviation_is_refused_with_the_way_to_change_both(low: float) -> None:
    with override_settings(RATING_LOW_DEVIATION=low):
        [error] = low_deviation_errors()
        assert error.level == checks.ERROR
        assert f"{low:g}" in error.msg and f"{RANKED_INDEX_DEVIATION:g}" in error.msg
        assert "makemigrations" in error.hint and "RANKED_INDEX_DEVIATION" in error.hint
        with pytest.raises(SystemCheckError, match=r"players\.E001"):
            call_command("check")

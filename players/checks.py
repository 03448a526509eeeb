"""System checks for what the players' models cannot enforce themselves."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register

from players.models import RANKED_INDEX_DEVIATION


@register()
def ranking_indexes_follow_low_deviation(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """The ranking indexes (rating_ranked_idx, rating_char_ranked_idx) hold the ratings
    below the deviation a migration built them for. Under a higher RATING_LOW_DEVIATION
    they miss ranked ratings and every ranking reads the whole rating table; under a
    lower one they hold unranked ratings that every ranking walks past. Migrations are
    fixed files, so the setting cannot move the indexes: a change takes both."""
    low = settings.RATING_LOW_DEVIATION
    if low == RANKED_INDEX_DEVIATION:
        return []
    return [
        Error(
            f"RATING_LOW_DEVIATION is {low:g}, but the ranking indexes hold the ratings "
            f"with a deviation below {RANKED_INDEX_DEVIATION:g}.",
            hint=(
                f"Either unset RATING_LOW_DEVIATION (or set it to {RANKED_INDEX_DEVIATION:g}), "
                f"or set RANKED_INDEX_DEVIATION in players/models.py to {low:g}, run "
                "`manage.py makemigrations players` and `manage.py migrate` (it rebuilds "
                "both indexes), then `manage.py recompute_ratings`."
            ),
            id="players.E001",
        )
    ]

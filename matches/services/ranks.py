"""Ranks (DESIGN.md section 3): every ranked rating numbered, overall and per character."""

from __future__ import annotations

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from matches.selectors.statistics import RANKS_REFRESHED_AT
from matches.services.site_statistic import store_statistic
from players.models import Player, Rating


@transaction.atomic
def refresh_ranks() -> int:
    """Number every ranked rating, overall and per character; returns how many are ranked.

    A rating is ranked when its deviation is below the low-deviation limit and its
    player is neither hidden nor a cheater; ranks follow the value (ties by id).
    """
    ratings, players = Rating._meta.db_table, Player._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {ratings} SET global_rank = NULL, character_rank = NULL "
            "WHERE global_rank IS NOT NULL OR character_rank IS NOT NULL"
        )
        cursor.execute(
            f"""
            UPDATE {ratings} SET global_rank = ranked.overall, character_rank = ranked.within
            FROM (
                SELECT r.id AS id,
                       ROW_NUMBER() OVER (ORDER BY r.value DESC, r.id) AS overall,
                       ROW_NUMBER() OVER (PARTITION BY r.character_id ORDER BY r.value DESC, r.id)
                           AS within
                FROM {ratings} r JOIN {players} p ON p.id = r.player_id
                WHERE r.deviation < %s AND NOT p.hidden AND NOT p.cheater
            ) AS ranked
            WHERE {ratings}.id = ranked.id
            """,
            [settings.RATING_LOW_DEVIATION],
        )
        ranked = cursor.rowcount
    store_statistic(RANKS_REFRESHED_AT, {"at": timezone.now().isoformat()})
    return ranked

"""What the suite needs to know about the database it runs on."""

from __future__ import annotations

from django.db import connection, models


def index_definitions(*tables: type[models.Model]) -> set[tuple[str, str]]:
    """Every index and constraint of the tables, by name and definition (PostgreSQL)."""
    names = [model._meta.db_table for model in tables]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY(%s)", [names]
        )
        indexes = set(cursor.fetchall())
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = ANY(%s::regclass[])",
            [names],
        )
        return indexes | set(cursor.fetchall())

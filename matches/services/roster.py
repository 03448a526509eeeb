"""Writes on the roster that the rest of the site must follow (docs/roster.md)."""

from __future__ import annotations

from celery import current_app
from django.db import transaction

from players.models import Character
from web.generation import bump_generation

# Sent by name: the tasks module imports the services, never the other way round.
INGEST_WAITING_TASK = "matches.tasks.ingest_waiting_replays"


def save_character(character: Character) -> None:
    """Save a character added or edited (in the admin): at the commit, every process
    reads the new roster on its next request (the generation is bumped) and the replays
    waiting for the character are stored and rated by a task."""
    character.save()
    transaction.on_commit(bump_generation)
    transaction.on_commit(current_app.tasks[INGEST_WAITING_TASK].delay)

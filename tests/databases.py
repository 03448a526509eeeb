"""What the suite needs to know about the database it runs on."""

from __future__ import annotations

import pytest
from django.db import connection


def postgres_only(reason: str) -> pytest.MarkDecorator:
    """Skip a test on SQLite, saying why it needs PostgreSQL."""
    return pytest.mark.skipif(connection.vendor != "postgresql", reason=reason)

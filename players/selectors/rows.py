"""Model instances from the rows of hand-written queries, made as the ORM makes them: for
reads on every page view, where building the query through the ORM cost more than
PostgreSQL took to run it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, Generic, TypeVar

from django.db import connection
from django.db.models import Model

M = TypeVar("M", bound=Model)


class ModelColumns(Generic[M]):
    """A model's columns under a table alias in a hand-written query: `sql` selects them
    (`width` of them), `instance` makes the model from them with the backend's and the
    fields' converters applied, so that each value is what the ORM would read."""

    def __init__(self, model: type[M], alias: str) -> None:
        self.model = model
        self.alias = alias

    @cached_property
    def sql(self) -> str:
        return ", ".join(f"{self.alias}.{field.column}" for field in self._fields)

    @cached_property
    def width(self) -> int:
        return len(self._fields)

    def instance(self, row: Sequence[Any], start: int = 0) -> M:
        """The model made of this model's columns in `row`, from `start` on."""
        values = list(row[start : start + self.width])
        for position, converters, column in self._converters:
            for convert in converters:
                values[position] = convert(values[position], column, connection)
        return self.model.from_db(connection.alias, self._names, values)

    @cached_property
    def _fields(self) -> list[Any]:
        return list(self.model._meta.concrete_fields)

    @cached_property
    def _names(self) -> list[str]:
        return [field.attname for field in self._fields]

    @cached_property
    def _converters(self) -> list[tuple[int, list[Callable[..., Any]], Any]]:
        found = []
        for position, field in enumerate(self._fields):
            column = field.get_col(self.model._meta.db_table)
            converters = connection.ops.get_db_converters(column) + field.get_db_converters(
                connection
            )
            if converters:
                found.append((position, converters, column))
        return found

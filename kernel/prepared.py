"""Hot queries whose SQL is built once per process, then run with each request's values.

Django builds a queryset's SQL anew every time it runs. For the few queries every judging
request runs (the session's user with its roles, the page's assignment and item, the item
statuses, the submit's scale lookup and its row lock and scope check), building the SQL took
about as long as PostgreSQL took to answer (measured). ``prepared_rows`` builds
it once per process, database and shape from the very queryset code (so each rule keeps its
one home), with stand-in values in place of the request's, then binds the request's values
where the stand-ins were. Rows become model instances as Django's own ModelIterable makes
them (Django 5.2): fields, ``select_related`` objects and annotations, with the database
converters applied (JSON decoded, and so on).

Only plain integer values may vary (ids, lists of ids). A list's length is part of the shape:
each length gets its own SQL. Anything else that changes the SQL (which filters apply) must
be decided inside ``build`` from nothing but its arguments' types and lengths. A list longer
than ``LONGEST_KEPT`` runs through the ORM as usual: a request cannot fill the memory with
SQL for every length it likes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections, models
from django.db.models.query import get_related_populators

__all__ = ["LONGEST_KEPT", "prepared_rows"]

LONGEST_KEPT = 32  # a formula item has at most a few hits; far more is no judging page

# Stand-ins are large negative numbers: no id, count or constant of a query is ever one. They
# fit a 32-bit integer column (the user id's): Django finds nothing outside a column's range
# without asking, and the SQL would say so.
_STAND_IN_BASE = -2_147_000_000

_PREPARED: dict[tuple[Any, ...], _Prepared | None] = {}  # (build, model, database, list lengths)
_LOCK = threading.Lock()


def _stand_ins(values: dict[str, int | Sequence[int]]) -> tuple[dict[str, Any], dict[int, Any]]:
    """Arguments for ``build`` made of stand-ins, and which value each stand-in is."""
    arguments: dict[str, Any] = {}
    which: dict[int, tuple[str, int | None]] = {}
    for name, value in values.items():
        if isinstance(value, int):
            which[stand_in := _STAND_IN_BASE - len(which)] = (name, None)
            arguments[name] = stand_in
        else:
            arguments[name] = []
            for index in range(len(value)):
                which[stand_in := _STAND_IN_BASE - len(which)] = (name, index)
                arguments[name].append(stand_in)
    return arguments, which


@dataclass(frozen=True)
class _Prepared:
    """A query built once: its SQL and parameters, where each value goes, and how its rows
    become model instances (what Django's ModelIterable works out when it runs a query)."""

    sql: str
    params: tuple[Any, ...]
    slots: dict[int, tuple[str, int | None]]  # parameter index -> (value name, list index)
    model: type[models.Model]
    converters: dict[int, Any]  # column -> (converters, expression), as the compiler gives
    init_list: list[str]
    fields: slice
    related: list[Any]
    annotations: dict[str, int]

    def rows(self, alias: str, values: dict[str, Any]) -> list[Any]:
        bound = list(self.params)
        for position, (name, index) in self.slots.items():
            value = values[name]
            bound[position] = value if index is None else value[index]
        connection = connections[alias]  # this thread's, not the one the SQL was built on
        with connection.cursor() as cursor:
            cursor.execute(self.sql, bound)
            fetched = cursor.fetchall()
        objects = []
        for fetched_row in fetched:
            row = list(fetched_row)
            for position, (converters, expression) in self.converters.items():
                for convert in converters:
                    row[position] = convert(row[position], expression, connection)
            obj = self.model.from_db(alias, self.init_list, row[self.fields])
            for populator in self.related:
                populator.populate(row, obj)
            for name, position in self.annotations.items():
                setattr(obj, name, row[position])
            objects.append(obj)
        return objects


def _prepare(
    build: Callable[..., models.QuerySet[Any]],
    alias: str,
    values: dict[str, int | Sequence[int]],
) -> _Prepared | None:
    """The query of this shape built once, or None when it can have no rows."""
    arguments, which = _stand_ins(values)
    compiler = build(**arguments).query.get_compiler(using=alias)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:  # ``pk__in`` an empty list, say: Django answers no rows unasked
        return None
    slots = {i: which[p] for i, p in enumerate(params) if isinstance(p, int) and p in which}
    missing = set(which.values()) - set(slots.values())
    if missing:  # a value the SQL holds some other way (inlined, converted): cannot be bound
        raise RuntimeError(f"{build.__qualname__}: cannot bind {sorted(map(str, missing))}")
    select, klass_info = compiler.select, compiler.klass_info
    if klass_info is None:
        raise RuntimeError(f"{build.__qualname__}: not a queryset of model instances")
    chosen = klass_info["select_fields"]
    return _Prepared(
        sql=sql,
        params=tuple(params),
        slots=slots,
        model=klass_info["model"],
        converters=compiler.get_converters([s[0] for s in select[: compiler.col_count]]),
        init_list=[f[0].target.attname for f in select[chosen[0] : chosen[-1] + 1]],
        fields=slice(chosen[0], chosen[-1] + 1),
        related=get_related_populators(klass_info, select, alias),  # type: ignore[call-arg]  # stubs: Django 6
        annotations=dict(compiler.annotation_col_map or {}),
    )


def prepared_rows(
    model: type[models.Model],
    build: Callable[..., models.QuerySet[Any]],
    **values: int | Sequence[int],
) -> list[Any]:
    """The rows of ``build(**values)``: instances of ``model`` with their annotations as
    attributes and their ``select_related`` objects, the SQL built once per shape. ``build``
    must be a module-level function: the SQL is kept under its identity."""
    alias = model._default_manager.db
    lengths = [len(value) for value in values.values() if not isinstance(value, int)]
    if any(length > LONGEST_KEPT for length in lengths):
        return list(build(**values).using(alias))
    shape = tuple(
        (name, None if isinstance(value, int) else len(value))
        for name, value in sorted(values.items())
    )
    key = (build, model, alias, shape)
    if key not in _PREPARED:
        prepared = _prepare(build, alias, values)
        with _LOCK:
            _PREPARED[key] = prepared
    prepared = _PREPARED[key]
    return [] if prepared is None else prepared.rows(alias, values)

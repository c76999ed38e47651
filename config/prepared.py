"""Hot queries whose SQL is built once per process, then run with each request's values.

Django builds a queryset's SQL anew every time it runs. For the few queries every judging
request runs (the session's user with its roles, the submit's row lock and scope check),
building the SQL took about as long as PostgreSQL took to answer (issue 14 §6, measured).
``prepared_rows`` builds it once per process, database and shape from the very queryset code
(so the rule keeps its one home), with stand-in values in place of the request's, and later
binds the request's values where the stand-ins were.

Only plain integer values may vary (ids, lists of ids). A list's length is part of the shape:
each length gets its own SQL. Anything else that changes the SQL (which filters apply) must
be decided inside ``build`` from nothing but its arguments' types and lengths. A list longer
than ``LONGEST_KEPT`` runs through the ORM as usual: a request cannot fill the memory with
SQL for every length it likes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from django.db import models

__all__ = ["LONGEST_KEPT", "prepared_rows"]

LONGEST_KEPT = 32  # a formula item has at most a few hits; far more is no judging page

# Stand-ins are large negative numbers: no id, count or constant of a query is ever one. They
# fit a 32-bit integer column (the user id's): Django finds nothing outside a column's range
# without asking, and the SQL would say so.
_STAND_IN_BASE = -2_147_000_000

# (build, model, database, list lengths) -> (sql, params, {param index: (name, list index)})
_Slots = dict[int, tuple[str, int | None]]
_PREPARED: dict[tuple[Any, ...], tuple[str, tuple[Any, ...], _Slots]] = {}
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


def _prepare(
    build: Callable[..., models.QuerySet[Any]],
    alias: str,
    values: dict[str, int | Sequence[int]],
) -> tuple[str, tuple[Any, ...], _Slots]:
    arguments, which = _stand_ins(values)
    query = build(**arguments).using(alias).query
    sql, params = query.get_compiler(using=alias).as_sql()
    slots = {i: which[p] for i, p in enumerate(params) if isinstance(p, int) and p in which}
    missing = set(which.values()) - set(slots.values())
    if missing:  # a value the SQL holds some other way (inlined, converted): cannot be bound
        raise RuntimeError(f"{build.__qualname__}: cannot bind {sorted(map(str, missing))}")
    return sql, tuple(params), slots


def prepared_rows(
    model: type[models.Model],
    build: Callable[..., models.QuerySet[Any]],
    **values: int | Sequence[int],
) -> list[Any]:
    """The rows of ``build(**values)`` (a queryset of ``model`` instances with their
    annotations as attributes), its SQL built once per shape. ``build`` must be a module-level
    function: the SQL is kept under its identity."""
    alias = model._default_manager.db
    lengths = [len(value) for value in values.values() if not isinstance(value, int)]
    if any(length > LONGEST_KEPT for length in lengths):
        return list(build(**values).using(alias))
    shape = tuple(
        (name, None if isinstance(value, int) else len(value))
        for name, value in sorted(values.items())
    )
    key = (build, model, alias, shape)
    prepared = _PREPARED.get(key)
    if prepared is None:
        prepared = _prepare(build, alias, values)
        with _LOCK:
            _PREPARED[key] = prepared
    sql, params, slots = prepared
    bound = list(params)
    for position, (name, index) in slots.items():
        value = values[name]
        bound[position] = value if index is None else value[index]  # type: ignore[index]
    return list(model._default_manager.db_manager(alias).raw(sql, bound))

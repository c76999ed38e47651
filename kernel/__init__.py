"""The shared kernel: what every app builds on and no app owns.

Access rules about people (who is an organizer), request parameters, prepared queries, the cache,
background jobs, bulk COPY loads, and the pure rules in ``kernel.core`` (grade scale, qrels file
format, topic ordering, spreadsheet cells). It imports no app: arrows point from the apps down to
it (docs/architecture.md).
"""

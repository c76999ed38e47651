"""Pure rules every app shares (no Django, no database): grades, qrels files, topic order."""

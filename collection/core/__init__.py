"""Collection's pure code (no Django, no database): file formats, post HTML, query terms."""

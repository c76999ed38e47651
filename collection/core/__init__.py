"""Pure collection code: no Django, no database."""

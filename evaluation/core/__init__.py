"""Pure evaluation code: no Django, no database."""

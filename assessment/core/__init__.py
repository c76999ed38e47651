"""Assessment's pure code (no Django, no database): agreement, guidelines, judge grade files."""

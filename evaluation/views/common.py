"""What every evaluation page shares. The organizer check and the task a URL names live in
``config.access`` (one home); ids and choices are read through ``config.params``."""

from __future__ import annotations

from config.access import organizer_required, task_for

__all__ = ["organizer_required", "task_for"]

from django.apps import AppConfig


class JudgesConfig(AppConfig):
    """LLM judges: endpoints, prompts, judge runs, their provenance, and probes."""

    name = "judges"
    verbose_name = "LLM judges"

from django.apps import AppConfig


class NuggetsConfig(AppConfig):
    name = "nuggets"

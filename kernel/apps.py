from django.apps import AppConfig


class KernelConfig(AppConfig):
    name = "kernel"
    verbose_name = "Shared kernel"

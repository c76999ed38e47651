from django.apps import AppConfig


class PoolingConfig(AppConfig):
    name = "pooling"

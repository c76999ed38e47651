from django.apps import AppConfig


class NuggetsConfig(AppConfig):
    name = "nuggets"

    def ready(self) -> None:
        # The results index lives in the evaluation app, below this one: it learns of the
        # published nugget scores through the source registered here.
        from evaluation.result_sources import result_source_register
        from nuggets.result_source import published_nugget_scores_links

        result_source_register(published_nugget_scores_links)

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches and ingestion"

    def ready(self) -> None:
        from matches.metrics import PipelineCollector
        from web.metrics import add_scrape_collector

        add_scrape_collector(PipelineCollector())

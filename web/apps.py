from django.apps import AppConfig


class WebConfig(AppConfig):
    """Shared web plumbing; as an app it registers its system checks and the worker's
    heartbeat on /metrics."""

    name = "web"

    def ready(self) -> None:
        from web import checks  # noqa: F401  (registers the checks)
        from web.celery_metrics import HeartbeatCollector
        from web.metrics import add_scrape_collector

        add_scrape_collector(HeartbeatCollector())

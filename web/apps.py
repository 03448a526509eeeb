from django.apps import AppConfig


class WebConfig(AppConfig):
    """Shared web plumbing; as an app it registers its system checks and the worker's
    heartbeat on /metrics."""

    name = "web"

    def ready(self) -> None:
        from django.core.signals import request_finished

        from web import checks  # noqa: F401  (registers the checks)
        from web.celery_metrics import HeartbeatCollector
        from web.logs import forget_request_id
        from web.metrics import add_scrape_collector

        add_scrape_collector(HeartbeatCollector())
        request_finished.connect(forget_request_id, dispatch_uid="forget_request_id")

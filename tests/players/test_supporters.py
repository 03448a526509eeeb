"""The supporters page: visible players with the supporter flag, by name, linked."""

from __future__ import annotations

import re

import pytest

from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def test_supporters_are_listed_by_name_and_linked(client, django_assert_num_queries):
    zed = PlayerFactory(name="zed", supporter=True)
    amy = PlayerFactory(name="Amy", supporter=True)
    PlayerFactory(name="Bob", supporter=True, hidden=True)
    PlayerFactory(name="Cat")
    with django_assert_num_queries(1):
        html = client.get("/supporters").content.decode()
    listed = re.findall(r'<a href="/player/(\d+)"><bdi>([^<]*)</bdi></a>', html)
    assert listed == [(amy.id, "Amy"), (zed.id, "zed")]


def test_no_supporters_yet(client):
    PlayerFactory(name="Cat")
    assert "No supporters yet." in client.get("/supporters").content.decode()


def test_every_page_links_to_the_supporters(client):
    assert '<a href="/supporters">Supporters</a>' in client.get("/about").content.decode()

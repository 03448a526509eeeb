import pytest

from tests.factories import PlayerFactory
from web.generation import current_generation


@pytest.mark.django_db(transaction=True)
def test_saving_a_player_as_the_admin_does_invalidates_cached_pages():
    player = PlayerFactory()
    before = current_generation()
    player.hidden = True
    player.save()
    assert current_generation() > before

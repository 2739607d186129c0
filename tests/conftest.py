import pytest

from companion.cards import parse_cards


@pytest.fixture
def cards():
    """``cards("KH KS KD")`` -> a tuple of Card."""
    return parse_cards

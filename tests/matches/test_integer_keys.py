"""The compiled integer keys of the recompute's storage against their plain Python
meaning: a stable sort, numbering in order of first appearance, set membership."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from matches.services.rating import integer_keys


@given(st.lists(st.integers(0, 40), max_size=300), st.integers(41, 60))
def test_counting_order_is_the_stable_sort(keys, key_count):
    keys = np.array(keys, dtype=np.int64)
    expected = np.argsort(keys, kind="stable")
    assert integer_keys.stable_order(keys, key_count).tolist() == expected.tolist()


@given(st.lists(st.integers(0, 30), max_size=300))
def test_first_seen_numbers_count_keys_in_order_of_appearance(keys):
    numbers, key_of = integer_keys.first_seen_numbers(np.array(keys, dtype=np.int64), 31)
    first_seen = list(dict.fromkeys(keys))
    assert key_of.tolist() == first_seen
    assert numbers.tolist() == [first_seen.index(key) for key in keys]


@given(
    st.sets(st.integers(-(2**63), 2**63 - 1), max_size=200),
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=50),
)
def test_positions_find_every_key_and_nothing_else(keys, others):
    keys = list(keys)
    # Low bits alike, as colliding slots: the probing must still tell them apart.
    keys += [(key & ~0xFFFF) | 7 for key in keys[:20] if (key & ~0xFFFF) | 7 not in keys]
    keys = list(dict.fromkeys(keys))
    positions = integer_keys.Positions(np.array(keys, dtype=np.int64))
    assert positions.distinct
    assert positions.of(np.array(keys, dtype=np.int64)).tolist() == list(range(len(keys)))
    missing = [key for key in others if key not in keys]
    assert (positions.of(np.array(missing, dtype=np.int64)) == -1).all()
    assert (
        not integer_keys.Positions(np.array(keys + keys[:1], dtype=np.int64)).distinct or not keys
    )

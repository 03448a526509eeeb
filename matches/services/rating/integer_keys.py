"""Whole-number keys over arrays, compiled: numbering keys in order of first appearance,
finding 64-bit keys in a set, and a stable sort by counting.

The recompute's storage (rating.recompute_storage) finds players by the hash of their
id, numbers ratings and orders snapshots with them: tens of millions of keys, where
Python dictionaries and comparison sorts would take most of its time. Pure numpy and
numba, nothing of Django (a contract in pyproject.toml).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _number_in_place(keys: np.ndarray, table: np.ndarray) -> int:
    count = 0
    for i in range(keys.shape[0]):
        number = table[keys[i]]
        if number < 0:
            number = count
            table[keys[i]] = number
            count += 1
        keys[i] = number
    return count


def first_seen_numbers(keys: np.ndarray, key_count: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys (0 <= key < key_count) numbered 0, 1, ... in order of first appearance:
    (the number of each entry of `keys`, the key of each number)."""
    numbers = np.array(keys, dtype=np.int64)
    table = np.full(key_count, -1, dtype=np.int32)
    count = _number_in_place(numbers, table)
    seen = np.flatnonzero(table >= 0)
    key_of = np.empty(count, dtype=np.int64)
    key_of[table[seen]] = seen
    return numbers, key_of


@njit(cache=True, nogil=True)
def _build_positions(keys: np.ndarray, slots: np.ndarray, positions: np.ndarray) -> bool:
    mask = slots.shape[0] - 1
    for i in range(keys.shape[0]):
        slot = keys[i] & mask
        while positions[slot] >= 0:
            if slots[slot] == keys[i]:
                return False
            slot = (slot + 1) & mask
        slots[slot] = keys[i]
        positions[slot] = i
    return True


@njit(cache=True, nogil=True)
def _look_up(slots: np.ndarray, positions: np.ndarray, wanted: np.ndarray, out: np.ndarray):
    mask = slots.shape[0] - 1
    for i in range(wanted.shape[0]):
        slot = wanted[i] & mask
        while positions[slot] >= 0 and slots[slot] != wanted[i]:
            slot = (slot + 1) & mask
        out[i] = positions[slot]


class Positions:
    """Where each of a set of distinct 64-bit keys sits in it: an open-addressing hash
    table, for keys that are hashes already (their low bits pick the slot)."""

    def __init__(self, keys: np.ndarray) -> None:
        size = 1 << max(4, (2 * len(keys)).bit_length())  # at most half full
        self._slots = np.zeros(size, dtype=np.int64)
        self._positions = np.full(size, -1, dtype=np.int64)
        self.distinct = _build_positions(
            np.ascontiguousarray(keys, dtype=np.int64), self._slots, self._positions
        )

    def of(self, wanted: np.ndarray) -> np.ndarray:
        """The position of each wanted key, -1 where it is not in the set."""
        out = np.empty(len(wanted), dtype=np.int64)
        _look_up(self._slots, self._positions, np.ascontiguousarray(wanted, np.int64), out)
        return out


@njit(cache=True, nogil=True)
def _counting_order(keys: np.ndarray, key_count: int) -> np.ndarray:
    starts = np.zeros(key_count + 1, dtype=np.int64)
    for key in keys:
        starts[key + 1] += 1
    for key in range(key_count):
        starts[key + 1] += starts[key]
    order = np.empty(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        order[starts[keys[i]]] = i
        starts[keys[i]] += 1
    return order


def stable_order(keys: np.ndarray, key_count: int) -> np.ndarray:
    """np.argsort(keys, kind="stable") for keys 0 <= key < key_count, by counting: one
    pass, where a comparison sort of tens of millions takes seconds."""
    return _counting_order(np.ascontiguousarray(keys, dtype=np.int64), key_count)

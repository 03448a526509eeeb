"""Rows for PostgreSQL's binary COPY, encoded by numpy a column at a time.

psycopg encodes a row at a time, a few microseconds each: at ten million match results
that is most of a recompute. The format is simple (per row a 16-bit field count, per
field a 32-bit length, -1 for NULL, then big-endian bytes), so rows that share a shape
(which fields are NULL, how long each text is) are one numpy record array: a handful
of shapes cover a whole table. Free of Django: columns arrive as arrays with their
PostgreSQL type oids (`bulk.column_types`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Signature, flags and header extension; the trailer is a field count of -1.
HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
TRAILER = b"\xff\xff"

# PostgreSQL's own epoch, 2000-01-01, in Unix seconds and days.
_PG_EPOCH_SECONDS = 946_684_800
_PG_EPOCH_DAYS = 10_957

# type oid: big-endian numpy format of its binary form (text: by length).
FORMATS = {
    16: "?",  # boolean
    21: ">i2",  # smallint
    23: ">i4",  # integer
    20: ">i8",  # bigint
    701: ">f8",  # double precision
    1184: ">i8",  # timestamptz: microseconds since 2000; given as Unix epoch seconds
    1082: ">i4",  # date: days since 2000; given as days since 1970
}
_TEXT = {25, 1043}  # text, varchar: given as a numpy bytes array (dtype "S")


def _binary_values(oid: int, values: np.ndarray) -> np.ndarray:
    if oid == 1184:
        return np.round((values - _PG_EPOCH_SECONDS) * 1e6).astype(np.int64)
    if oid == 1082:
        return values - _PG_EPOCH_DAYS
    return values


def _nulls(oid: int, column: np.ndarray) -> np.ndarray | None:
    """Where a column is NULL: masked entries, and NaN in float and time columns."""
    if np.ma.isMaskedArray(column):
        return np.ma.getmaskarray(column)
    if column.dtype.kind == "f":
        nan = np.isnan(column)
        return nan if nan.any() else None
    return None


def encode(types: Sequence[int], columns: Sequence[np.ndarray]) -> bytes:
    """The COPY data of rows given as columns (no header or trailer); NULL is NaN in a
    float or time column, a masked entry in any."""
    count = len(columns[0])
    nulls = [_nulls(oid, column) for oid, column in zip(types, columns, strict=True)]
    values = [np.ma.getdata(column) for column in columns]
    # A shape code per row: its NULL pattern and text lengths.
    shape = np.zeros(count, dtype=np.int64)
    for oid, column, null in zip(types, values, nulls, strict=True):
        if null is not None:
            shape = shape * 2 + null
        if oid in _TEXT:
            shape = shape * (column.dtype.itemsize + 1) + np.char.str_len(column)
    codes, shape_of_row = np.unique(shape, return_inverse=True)
    blocks = []
    for code in range(len(codes)):
        rows = slice(None) if len(codes) == 1 else np.flatnonzero(shape_of_row == code)
        blocks.append(_encode_shape(types, values, nulls, rows))
    return b"".join(blocks)


def _encode_shape(
    types: Sequence[int],
    values: Sequence[np.ndarray],
    nulls: Sequence[np.ndarray | None],
    rows: slice | np.ndarray,
) -> bytes:
    """Rows of one shape, which the first of them tells."""
    fields: list[tuple[str, str]] = [("count", ">i2")]
    content = []
    for j, (oid, column, null) in enumerate(zip(types, values, nulls, strict=True)):
        part = column[rows]
        fields.append((f"length{j}", ">i4"))
        if null is not None and null[rows][0]:
            content.append((j, -1, None))
            continue
        if oid in _TEXT:
            width = int(np.char.str_len(part[:1])[0])
            fields.append((f"value{j}", f"S{width}"))
        else:
            width = np.dtype(FORMATS[oid]).itemsize
            fields.append((f"value{j}", FORMATS[oid]))
        content.append((j, width, _binary_values(oid, part)))
    records = np.empty(len(values[0]) if isinstance(rows, slice) else len(rows), dtype=fields)
    records["count"] = len(types)
    for j, width, part in content:
        records[f"length{j}"] = width
        if part is not None:
            records[f"value{j}"] = part
    return records.tobytes()


def native_dtype(oid: int) -> np.dtype:
    """The numpy type of a `FORMATS` type in this machine's byte order."""
    return np.dtype(FORMATS[oid]).newbyteorder("=")


def decode_array(data: bytes, oid: int) -> np.ndarray:
    """The elements of a one-dimensional PostgreSQL array without NULLs in binary form
    (array_send), of a fixed-width type of `FORMATS` (times stay in PostgreSQL's units)."""
    dimensions, _has_nulls, _element_oid = np.frombuffer(data, ">i4", 3)
    if dimensions == 0:
        return np.empty(0, FORMATS[oid])
    # Header: dimensions, NULL flag and element type, one (length, lower bound) pair;
    # then every element as its length and value.
    elements = np.frombuffer(data, [("length", ">i4"), ("value", FORMATS[oid])], offset=20)
    return elements["value"]

"""What more than one binary reader decodes: the base-128 varint (protobuf's wire format in W&B's
run files and TensorBoard's event files, RocksDB's block entries, index handles and WriteBatches, Snappy's
length), and the error a reader raises on bytes that do not decode."""

from __future__ import annotations


class Damage(Exception):
    """Bytes that do not decode as their writer wrote them (caught per record, block or file)."""


def varint(b, p: int) -> tuple[int, int]:
    """A little-endian base-128 varint at ``p``: (value, next position). At most 10 bytes (a
    64-bit value); raises Damage when it runs past the end of ``b`` or is longer. A one-byte
    varint (most keys and lengths) returns at once: the W&B reader calls this per field."""
    try:  # (free in CPython 3.11+ until it raises: no bounds test per byte)
        c = b[p]
        if c < 0x80:
            return c, p + 1
        x = c & 0x7F
        shift = 7
        while True:
            p += 1
            c = b[p]
            x |= (c & 0x7F) << shift
            if c < 0x80:
                return x, p + 1
            shift += 7
            if shift > 63:
                raise Damage("varint too long")
    except IndexError:
        raise Damage("varint runs past the end") from None

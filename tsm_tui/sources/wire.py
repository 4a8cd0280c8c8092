"""What more than one binary reader decodes: the base-128 varint (protobuf's wire format in
TensorBoard's event files, RocksDB's block entries, index handles and WriteBatches, Snappy's
length), and the error a reader raises on bytes that do not decode."""

from __future__ import annotations


class Damage(Exception):
    """Bytes that do not decode as their writer wrote them (caught per record, block or file)."""


def varint(b, p: int) -> tuple[int, int]:
    """A little-endian base-128 varint at ``p``: (value, next position). At most 10 bytes (a
    64-bit value); raises Damage when it runs past the end of ``b`` or is longer."""
    x = shift = 0
    while True:
        if p >= len(b):
            raise Damage("varint runs past the end")
        c = b[p]
        p += 1
        x |= (c & 0x7F) << shift
        if c < 0x80:
            return x, p
        shift += 7
        if shift > 63:
            raise Damage("varint too long")

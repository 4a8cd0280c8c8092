"""CRC-32C (Castagnoli) and TFRecord's masked form: TensorBoard event files frame
every record with two of them. Google's C implementation when installed (it is a
dependency), a table-driven fallback otherwise."""

from __future__ import annotations

try:  # optional C implementations, used when present
    import google_crc32c as _gcrc  # type: ignore

    def crc32c(data: bytes) -> int:
        return _gcrc.value(data)
except ImportError:  # pragma: no cover - depends on the environment
    try:
        import crc32c as _crc  # type: ignore

        def crc32c(data: bytes) -> int:
            return _crc.crc32c(data)
    except ImportError:
        _table = []
        for _i in range(256):
            _c = _i
            for _ in range(8):
                _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
            _table.append(_c)
        _TABLE = tuple(_table)

        def crc32c(data: bytes) -> int:
            c = 0xFFFFFFFF
            t = _TABLE
            for b in data:
                c = t[(c ^ b) & 0xFF] ^ (c >> 8)
            return c ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF

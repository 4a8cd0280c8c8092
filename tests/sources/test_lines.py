"""The one byte -> line splitter (sources/lines.py): what the replay, the tailer
and the readers' chunked paths cut lines with."""

from __future__ import annotations

import json
import random

import pytest

from tsm_tui.core.frame import expand
from tsm_tui.sources import reading, registry
from tsm_tui.sources.head import HOLE
from tsm_tui.sources.jsonl import JsonlReader
from tsm_tui.sources.lines import (
    CR_CUT,
    LONG_LINE,
    MAX_LINE,
    GBK_TEXT,
    NON_UTF8,
    LineSplitter,
    Tally,
    decode_line,
    feed_block,
    feed_lines,
)


def split(pieces: list[bytes], end: bool = True) -> tuple[list[str], Tally]:
    """The lines ``pieces`` make (decoded the way every reader decodes them)."""
    sink = Tally()
    sp = LineSplitter(sink)
    raws: list[tuple[bytes, bool]] = []
    for p in pieces:
        block = sp.push(p)
        assert not block or block.endswith(b"\n")  # push returns complete lines only
        raws += [(r, False) for r in block.split(b"\n")[:-1]]
    if end:
        last = sp.end()
        if last:
            raws.append((last, True))
    return [decode_line(r, sink, last_open) for r, last_open in raws], sink


def test_a_partial_line_is_held_until_its_newline():
    sink = Tally()
    sp = LineSplitter(sink)
    assert sp.push(b'{"step": 1, "lo') == b""
    assert sp.push(b'ss": 2.0}\n{"step": 2') == b'{"step": 1, "loss": 2.0}\n'
    assert sp.push(b", ") == b""
    assert sp.push(b'"loss": 1.9}\n') == b'{"step": 2, "loss": 1.9}\n'
    assert sp.end() == b"" and sink.skip_reasons == {}


def test_any_cut_gives_the_same_lines():
    """A stream cut at every possible place (or in random pieces) gives the same lines
    as the whole stream at once: the partial line is never lost nor repeated."""
    data = b"".join(json.dumps({"step": s, "loss": 2.0 / s}).encode() + b"\n" for s in range(1, 40))
    data += b"last line without newline"
    whole, _ = split([data])
    assert whole[-1] == "last line without newline" and len(whole) == 40
    for cut in range(len(data) + 1):
        assert split([data[:cut], data[cut:]])[0] == whole
    rng = random.Random(7)
    for _ in range(50):
        pieces, i = [], 0
        while i < len(data):
            k = rng.randint(1, 40)
            pieces.append(data[i : i + k])
            i += k
        assert split(pieces)[0] == whole


def test_live_the_unterminated_last_line_waits_a_finished_file_reads_it():
    sink = Tally()
    sp = LineSplitter(sink)
    assert sp.push(b"a\nb") == b"a\n"
    assert bytes(sp.partial) == b"b"  # live: held (the writer may still finish it)
    assert sp.end() == b"b"  # a finished file: its last line is read
    assert sp.end() == b""  # (and the splitter starts afresh)


def test_an_over_long_line_is_counted_once_and_dropped_to_its_newline():
    long = b"x" * (MAX_LINE + 10)
    # in one piece, as a complete line: decode_line drops it
    lines, sink = split([b"a\n" + long + b"\nb\n"])
    assert lines == ["a", "", "b"] and sink.skip_reasons == {LONG_LINE: 1} and sink.skipped == 1
    # in pieces without its newline: dropped as it comes (memory stays bounded), once
    sink = Tally()
    sp = LineSplitter(sink)
    assert sp.push(b"a\n" + long[:600_000]) == b"a\n"
    assert sp.push(long[600_000:]) == b""
    assert not sp.partial and sp.discarding  # nothing of it is kept
    assert sp.push(b"yyy" * 1000) == b""
    assert sp.push(b"tail of it\nb\n") == b"b\n"
    assert sink.skip_reasons == {LONG_LINE: 1}
    # a line of exactly MAX_LINE bytes with its newline is the longest read
    ok = b"z" * (MAX_LINE - 1)
    lines, sink = split([ok[:1000], ok[1000:] + b"\n"])
    assert lines == [ok.decode()] and sink.skip_reasons == {}
    lines, sink = split([ok + b"zz\n"])
    assert lines == [""] and sink.skip_reasons == {LONG_LINE: 1}
    # an over-long unterminated last line at the end of a file: counted once, not read
    lines, sink = split([b"a\n", long])
    assert lines == ["a"] and sink.skip_reasons == {LONG_LINE: 1}


def test_nul_holes_are_dropped_and_counted():
    lines, sink = split([b"\0" * 4096 + b"a 1\n", b"b\0\0 2\n"])
    assert lines == ["a 1", "b 2"]
    assert sink.skip_reasons == {HOLE: 4098} and sink.skipped == 0  # noted, no line lost
    lines, sink = split([b"\0" * 100])  # a hole and nothing else
    assert lines == [] and sink.skip_reasons == {HOLE: 100}


def test_crlf_and_bare_carriage_returns():
    lines, _ = split([b"a\r\nb\r", b"\nc\r\r\n"])
    assert lines == ["a", "b", "c"]
    # tqdm redraws one line with bare CRs: one line, the readers split on them
    lines, _ = split([b"10%|#   | 1/10\r20%|##  | 2/10\rstep 2 loss 1.5\n"])
    assert lines == ["10%|#   | 1/10\r20%|##  | 2/10\rstep 2 loss 1.5"]


def test_invalid_utf8_is_replaced_and_counted_and_the_line_still_read():
    lines, sink = split([b"step 1 loss \xff\xfe 2.0\n", "caf\u00e9 ok\n".encode()])
    assert lines == ["step 1 loss \ufffd\ufffd 2.0", "caf\u00e9 ok"]
    assert sink.skip_reasons == {NON_UTF8: 1} and sink.skipped == 0
    # a character cut between two pieces is joined, not replaced
    enc = "\u00e9t\u00e9\n".encode()
    lines, sink = split([enc[:1], enc[1:]])
    assert lines == ["\u00e9t\u00e9"] and sink.skip_reasons == {}


def test_gbk_chinese_lines_are_decoded_as_gbk_and_latin1_stays_replaced():
    """A line of GBK Chinese (a log written on a Chinese Windows machine) is decoded as GBK and counted;
    Latin-1 bytes, whose lone accents GBK would pair with the ASCII letter after them, stay replaced."""
    zh = "当前Batch：10/6035 | 当前损失值：10.113"
    lines, sink = split([zh.encode("gbk") + b"\n", "caf\u00e9 \u00e9t\u00e9\n".encode("latin-1")])
    assert lines == [zh, "caf\ufffd \ufffdt\ufffd"]
    assert sink.skip_reasons == {GBK_TEXT: 1, NON_UTF8: 1} and sink.skipped == 0


def test_reset_after_a_truncation_and_carry_across_a_copytruncate():
    sink = Tally()
    sp = LineSplitter(sink)
    sp.push(b"a\nhalf of a li")
    sp.reset()  # truncated: the held bytes belonged to the old content
    assert sp.push(b"new\n") == b"new\n"
    sp.push(b"cut by the co")
    other = LineSplitter(sink)
    other.carry(sp)  # copytruncate: the file goes on where its copy stopped
    assert other.push(b"py\n") == b"cut by the copy\n"


def test_a_truncated_file_replays_what_it_holds(tmp_path):
    """A file cut mid-line (a crash, a copy taken while written) is read to its last
    complete record, and its cut last line is read as a line (a counted bad line)."""
    p = tmp_path / "metrics.jsonl"
    p.write_bytes(b'{"step": 1, "loss": 2.0}\n{"step": 2, "loss": 1.9}\n{"step": 3, "lo')
    reader, _ = registry.open_reader(str(p))
    recs = list(expand(reading.read_items(str(p), reader)))
    assert [r.step for r in recs] == [1, 2]
    assert reader.skipped == 1


def test_the_line_path_and_the_chunk_path_give_the_same_records():
    """feed_lines (the tailer's small reads) and feed_block (the replay, a big read)."""
    data = "".join(json.dumps({"step": s, "loss": 2.0 / s}) + "\n" for s in range(1, 300)).encode()
    data += b"not json\n" + b'{"step": 300, "loss": 0.1}\n'
    a, b = JsonlReader("x.jsonl"), JsonlReader("x.jsonl")
    ra = [(r.step, r.loss) for r in expand(feed_lines(a, data))]
    rb = [(r.step, r.loss) for r in expand(feed_block(b, data))]
    assert ra == rb and len(ra) == 300
    assert a.skip_reasons == b.skip_reasons and a.skipped == b.skipped == 1


def test_a_line_the_reader_raises_on_is_a_counted_skip(monkeypatch):
    r = JsonlReader("x.jsonl")
    real = r.feed

    def feed(line):
        if "boom" in line:
            raise RecursionError("deep")
        return real(line)

    monkeypatch.setattr(r, "feed", feed)
    monkeypatch.setattr(r, "feed_chunk", lambda data: (_ for _ in ()).throw(ValueError("chunk")))
    recs = list(expand(feed_block(r, b'{"step": 1, "loss": 2}\n{"boom": 1}\n{"step": 2, "loss": 1}\n')))
    assert [x.step for x in recs] == [1, 2]
    assert r.skip_reasons.get("unreadable (RecursionError)") == 1


@pytest.mark.parametrize("cut", [1, 7, 4096, 65536])
def test_the_tailer_and_the_replay_read_the_same_records(tmp_path, cut):
    """The same bytes through the tailer (in pieces of ``cut`` bytes) and the replay:
    the same records and the same skip counts (one splitter, one set of rules)."""
    from tsm_tui.sources.tail.delivery import Delivery

    rows = [json.dumps({"step": s, "loss": 2.0 / s}).encode() for s in range(1, 3000)]
    rows[5] = b"\xff\xfe" + rows[5]
    rows[9] = b"x" * (MAX_LINE + 5)
    rows[11] = rows[11] + b"\r"
    rows[20] = b"\0\0" + rows[20]
    data = b"\n".join(rows) + b"\n"
    p = tmp_path / "m.jsonl"
    p.write_bytes(data)
    replay = JsonlReader(str(p))
    want = [(r.step, r.loss) for r in expand(reading.read_items(str(p), replay))]

    class Host:
        def __init__(self):
            self.got = []

        def put(self, source, reader, records):
            self.got += [(r.step, r.loss) for r in expand(records)]

    host = Host()
    f = Delivery(str(p), JsonlReader(str(p)), host)  # type: ignore[arg-type]
    for i in range(0, len(data), cut):
        f.feed_lines(data[i : i + cut])
    assert host.got == want
    assert f.reader.skip_reasons == replay.skip_reasons and f.reader.skipped == replay.skipped


def test_a_bar_redrawn_past_cr_cut_gives_its_redraws_as_it_is_drawn():
    """A bar redrawn with \\r and no newline for a whole epoch (tqdm, Lightning): once the held line passes
    CR_CUT its redraws up to the last \\r are lines (live: read as drawn, not at the epoch's end), none empty,
    the redraw being drawn held; past MAX_LINE nothing is dropped. A CRLF split between two pushes is not
    cut apart."""
    bar = [
        f"Epoch 0:  2%|#   | {s}/90000 [01:41<1:36:07,  1.35s/it, loss={1 / s:.4f}]".encode() for s in range(1, 20001)
    ]
    data = b"\r" + b"\r".join(bar)  # ~1.6 MB, past MAX_LINE, no newline yet
    sink = Tally()
    sp = LineSplitter(sink)
    got = []
    for i in range(0, len(data), 4096):
        got += sp.push(data[i : i + 4096]).split(b"\n")[:-1]
    assert got and got[0] == bar[0] and all(g in bar for g in got) and len(got) < len(bar)
    assert b"\r" not in b"".join(got) and len(sp.partial) <= CR_CUT + 4096
    got += sp.push(b"\n").split(b"\n")[:-1]  # the epoch's newline: the rest, one line of redraws
    assert b"\r".join(got) == b"\r".join(bar) and not sink.skip_reasons
    lines, sink = split([b"x" * (CR_CUT + 10) + b"\r", b"\nnext\n"])
    assert lines == ["x" * (CR_CUT + 10), "next"]

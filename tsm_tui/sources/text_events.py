"""Text events: the lines a run writes that say how it ended (or nearly did).

Every text reader's ``feed`` is tapped (``tapped``, applied by
``SourceReader.__init_subclass__``): a line that gave no record is looked at by
the reader's ``TextTap``, which returns a ``TextEvent`` for a line of the crash
table (``sources/crash_patterns.py``), delivered in place among the reader's
records. So every text format (stdout, Slurm ``.out``, Megatron, HF stdout, the
generic reader, a W&B run file's console) gets them with no code of its own, on
the line path and on the chunk path alike (a fast reader's templates only take
metric lines; every other line goes through ``feed``).

What counts (the rest is console noise):

- inside a Python traceback (``Traceback (most recent call last):`` and its
  indented frames, rank-prefixed or not; C++ / Paddle's ``Error Message
  Summary``), the exception line that ends it; at the ``warning`` level when the
  header was logged as a warning (torch._dynamo's ``[WARNING] Traceback``);
- anywhere, a line of the table marked ``anywhere`` (an OOM, the NCCL watchdog,
  Slurm's ``CANCELLED``, a segfault), unless it is part of an argument dump
  (Megatron's ``arguments`` block, ``key ....... value`` leaders), of a printed
  config (an indented ``key: value``, a quoted value) or of a banner (a line
  boxed in ``#`` / ``=`` / ``|``).

A line that says a checkpoint was saved (``checkpoint_lines.py``) is an event too, of kind
``checkpoint_saved`` at the ``info`` level: the Checkpoints check reads it, the crash check
does not.

Linear time: one gate regex (literal alternatives that begin with a capital, which
the regex engine finds with a character-set scan) and a few substring tests per
line; the table's regexes only on lines that pass the gate.
"""

from __future__ import annotations

import functools
import re

from tsm_tui.core.record import TextEvent
from tsm_tui.core.sanitize import strip_ansi
from tsm_tui.sources.checkpoint_lines import SAVE_KIND, reports_a_save, save_line
from tsm_tui.sources.crash_patterns import (
    EXC_ENDINGS,
    EXC_LINE,
    EXIT_CODES,
    GATE,
    GATE_LOWER,
    PATTERNS,
    PREFIX,
    TB_CHAIN,
    TB_HEADER,
    TB_WARNING,
    CrashPattern,
)

MAX_TEXT = 500  # characters of an event's line kept
CHAIN_LINES = 4  # lines after an exception within which a chained traceback keeps its level (ours)
TB_JUNK = 40  # lines that are neither frames nor the exception before an open traceback is let go (ours)
_BY_WHERE = {w: tuple(p for p in PATTERNS if p.where == w) for w in ("anywhere", "exception")}
_EXC_PATTERNS = _BY_WHERE["exception"] + _BY_WHERE["anywhere"]
#: an argument dump's line (Megatron, DeepSpeed: ``  name .......... value``)
_LEADERS = re.compile(r"\S \.{3,}+ ")
#: a printed config's line: an indented key, or a quoted key (JSON, a dict, YAML)
_CONFIG = re.compile(r"\s++[a-z_][\w.-]*+\s*+[:=](?:\s|$)|\s*+[\"'][\w .-]++[\"']\s*+:")
#: a model's generation printed by the loop (nanoGPT / build-nanogpt's "rank 0 sample 3: Hello, I'm a language
#: model, ... writing ...", "sample 2: ...", "Generated: ...", "completion 1: ..."): the model's words, never the
#: run's (fresh60: a sample's "I'm a language model ... writing ... in school" was a checkpoint save "school")
_GENERATION = re.compile(r"(?i)\s*+(?:rank\s*+\d++\s++)?(?:samples?|generat(?:ed|ion)|completion)\s*+\d*+\s*+[:>]")


def _not_the_run(body: str) -> bool:
    """A line's message (after its prefix) that is not the run speaking: an argument dump, a printed
    config, a model's generation."""
    return _LEADERS.search(body) is not None or _CONFIG.match(body) is not None or _GENERATION.match(body) is not None


#: a banner's line: boxed in one decoration character
_BANNER = re.compile(r"\s*+([#=|!])\1*+ ")
#: what may stand before an error message that is the error itself: an exception's name,
#: a logger's ERROR level (``torch.OutOfMemoryError: CUDA out of memory``, ``[ERROR] ... CUDA error:``)
_FATAL_LEAD = re.compile(
    r"(?:Error|Exception|Failure|error|exception)(?:\([\w.]*+\))?:$"
    r"|\b(?:ERROR|CRITICAL|FATAL|E\d{4})\b|\[E "
)
_LEAD_NAME = re.compile(r"[\w.]++")
_EXC_NAME_ENDS = ("Error", "Exception", "Failure")
#: causes whose message, after other free text (``Error loading model:  CUDA out of memory``),
#: is an error the program caught and printed (a warning), not its end
_MESSAGE_CAUSES = frozenset({"oom", "cuda", "dataloader"})
_TAGS = re.compile(r"\[rank(\d++)\]:|\[default(\d++)\]:|\[\d++,(\d++)\]<std")
_DETAILS = (
    ("rank", re.compile(r"\[Rank (\d++)\]|rank[: ]\s*+(\d++)|local_rank: (\d++)")),
    ("worker", re.compile(r"worker process (\d++)|process (\d++) terminated")),
    ("pid", re.compile(r"\bpid(?:\(s\))?[ =:]\s*+(\d++)")),
    ("signal", re.compile(r"signal:? (SIG[A-Z]++|Killed|Terminated|Segmentation fault|Bus error|Aborted)")),
    ("exit", re.compile(r"exit ?code:? (-?\d++)|return code = (-?\d++)|exit status (-?\d++)")),
    ("alloc", re.compile(r"Tried to allocate (\d[\d.]*+ ?[KMGT]i?B)")),
    ("op", re.compile(r"OpType=(\w++)")),
    ("timeout_ms", re.compile(r"Timeout\(ms\)=(\d++)")),
    ("reason", re.compile(r"DUE TO ([A-Z]++(?: [A-Z]++)*+)|TERM_(\w++):")),
)


def _gate(line: str) -> bool:
    if GATE.search(line) is not None:
        return True
    for w in GATE_LOWER:
        if w in line:
            return True
    return False


def _fatal_lead(lead: str) -> bool:
    """What stands before an error message makes it the error itself: an exception's name
    first (``RuntimeError: [enforce fail ...] DefaultCPUAllocator``), or at its end, or a
    logger's ERROR level."""
    m = _LEAD_NAME.match(lead)
    if (
        m is not None
        and m.group().endswith(_EXC_NAME_ENDS)
        and lead[m.end() : m.end() + 1] in (":", "(", "")
        or m is not None
        and m.group().endswith(_EXC_NAME_ENDS)
        and lead[m.end() : m.end() + 2] == " ("
    ):
        return True
    return _FATAL_LEAD.search(lead) is not None


def details(raw: str, text: str) -> dict[str, str]:
    """What the line names: the rank, a worker, a pid, the signal, an exit code ..."""
    out: dict[str, str] = {}
    m = _TAGS.search(raw[:64])
    if m is not None:
        out["rank"] = next(g for g in m.groups() if g is not None)
    for key, rx in _DETAILS:
        if key in out:
            continue
        m = rx.search(text)
        if m is not None:
            out[key] = next(g for g in m.groups() if g is not None)
    return out


class TextTap:
    """One reader's look at its lines: an open traceback, an argument dump, the last
    record's step. O(1) per line; nothing kept but a few flags and a prefix."""

    __slots__ = ("source", "tb", "tb_prefix", "tb_junk", "args", "after", "chain", "chain_left", "ignored")

    def __init__(self, source: str) -> None:
        self.source = source
        self.tb: str | None = None  # an open traceback: its level ("fatal" / "warning")
        self.tb_prefix = ""  # what stood before its header (a logger's per-line prefix)
        self.tb_junk = 0
        self.args = False  # inside Megatron's "---- arguments ----" block
        self.after: int | None = None  # the step of the last record this reader gave
        self.chain: str | None = None  # the level of the traceback that just ended (a chained one follows)
        self.chain_left = 0
        #: the line before was Python's "Exception ignored in ...": the traceback after it was swallowed
        self.ignored = False

    def records(self, out: list) -> None:
        """The reader gave records for a line: the run went on (no traceback is open)."""
        last = out[-1]
        if type(last) is not TextEvent:
            self.after = last.step
        self.tb = None
        self.chain = None

    def ran_to(self, step: int) -> None:
        """A columnar fast path framed records up to ``step`` (no per-line look): the
        same as :meth:`records` for its last one, so events after it say that step."""
        self.after = step
        self.tb = None
        self.chain = None

    def line(self, line: str) -> TextEvent | None:
        """A line that gave no record: the event it is, if any."""
        if self.args:
            if "end of arguments" in line:
                self.args = False
            return None
        if "\x1b" in line:
            line = strip_ansi(line)
        if "\r" in line:
            line = line[line.rfind("\r") + 1 :]
        if self.tb is not None:
            return self._in_traceback(line)
        ignored, self.ignored = self.ignored, False
        saved = save_line(line)
        if saved is not None:
            return self._saved(line, *saved)
        if len(line) <= NAN_SKIP_MAX and ("kip" in line or "KIP" in line) and NAN_SKIP.search(line):
            return self._nan_skipped(line)
        if not _gate(line):
            if "-- arguments --" in line:
                self.args = True
            elif self.chain is not None and line.strip():
                self.chain_left -= 1
                if self.chain_left <= 0:
                    self.chain = None
            return None
        h = TB_HEADER.search(line)
        if h is not None:
            self._open(line, h.start(), ignored)
            return None
        if "Exception ignored" in line:
            # Python's "Exception ignored in: <function X.__del__>", "... in atexit callback: <...>",
            # "... in thread started by: ...": the interpreter printed an exception it swallowed (at
            # exit, in a finaliser); the run went on, or had ended (fresh24's Ulysses run: three
            # atexit autotune-cache writes failed after its 500 iterations and read "crashed")
            self.ignored = True
            return None
        return self._anywhere(line)

    def _open(self, line: str, at: int, ignored: bool = False) -> None:
        """A traceback's header at ``line[at:]``: the level of its logger (a chained
        traceback keeps the level of the one before it; one after "Exception ignored in"
        is a warning) and the per-line prefix."""
        if ignored or TB_WARNING.search(line, 0, at):
            self.tb = "warning"
        else:
            self.tb = self.chain or "fatal"
        self.chain = None
        self.tb_prefix = line[:at] if at else ""
        self.tb_junk = 0

    def _in_traceback(self, line: str) -> TextEvent | None:
        if self.tb_prefix and line.startswith(self.tb_prefix):
            body = line[len(self.tb_prefix) :]  # (a logger that prefixes every line of the message)
        else:
            m = PREFIX.match(line)
            assert m is not None  # (PREFIX matches the empty string)
            body = line[m.end() :]
        if not body.strip():
            return None
        if body[0] in " \t│╭╰┃╷╵" or body.startswith(("File ", "> File", "^", "~")):
            return None  # a frame, its source line or marker (or a rich / loguru traceback's box)
        if body.startswith(TB_CHAIN):
            return None
        h = TB_HEADER.search(body)
        if h is not None:  # a new traceback (another rank's, a worker's)
            self._open(line, len(line) - len(body) + h.start())
            return None
        m = EXC_LINE.match(body)
        if m is not None and m.group(1).endswith(EXC_ENDINGS):
            level = self.tb
            self.tb = None
            self.chain, self.chain_left = level, CHAIN_LINES
            return self._event(line, body, _EXC_PATTERNS, level, exception=m.group(1))
        self.tb_junk += 1
        if self.tb_junk > TB_JUNK:
            self.tb = None
        return self._anywhere(line) if _gate(line) else None

    def _saved(self, line: str, path: str, step: int | None) -> TextEvent | None:
        """A checkpoint save the line says (``checkpoint_lines.py``): its path and the step it
        names; the event's step is the last record's, as for any event."""
        details = {"path": path[:MAX_TEXT]}
        if step is not None:
            details["step"] = str(step)
        return self._info(line, SAVE_KIND, "checkpoint", "a checkpoint saved", details)

    def _nan_skipped(self, line: str) -> TextEvent | None:
        """A loop's own guard saying it skipped a non-finite loss (``NAN_SKIP``): at the last record's
        step, the NaN/Inf check's (a loop that skips NaN batches never prints a nan value)."""
        return self._info(line, NAN_SKIP_KIND, "nonfinite", "a non-finite loss skipped by the loop")

    def _info(self, line: str, kind: str, cause: str, what: str, details: dict | None = None) -> TextEvent | None:
        """An ``info`` event of ``kind`` at the last record's step; none for a line of an argument dump
        or a printed config."""
        m = PREFIX.match(line)
        assert m is not None  # (PREFIX matches the empty string)
        body = line[m.end() :]
        if _not_the_run(body):
            return None  # an argument dump, a printed config, a model's generation
        return TextEvent(
            self.after if self.after is not None else 0,
            source=self.source,
            kind=kind,
            cause=cause,
            level="info",
            text=line.strip()[:MAX_TEXT],
            before=self.after,
            what=what,
            details=details,
        )

    def _anywhere(self, line: str) -> TextEvent | None:
        m = PREFIX.match(line)
        assert m is not None  # (PREFIX matches the empty string)
        k = m.end()
        body = line[k:]
        ev = self._event(line, body, _BY_WHERE["anywhere"], None)
        if ev is None:
            return None
        if _not_the_run(body) or _BANNER.match(body):
            return None  # an argument dump, a printed config, a generation, a banner: not the run speaking
        return ev

    def _event(
        self, raw: str, body: str, patterns: tuple[CrashPattern, ...], level: str | None, exception: str | None = None
    ) -> TextEvent | None:
        text = body.strip()
        hit: CrashPattern | None = None
        handled = False
        for p in patterns:
            m = p.rx.search(text)
            if m is not None:
                if exception is None and m.start() > 0:
                    if text[m.start() - 1] in "'\"":
                        return None  # a quoted value (a printed config, echoed code)
                    lead = text[: m.start()].rstrip()
                    handled = (
                        (p.cause in _MESSAGE_CAUSES or TB_WARNING.search(lead) is not None)
                        and p.level == "fatal"
                        and not _fatal_lead(lead)
                    )
                    # (a logger's WARNING before the message: torch elastic's "WARNING:...:The node .. has
                    # failed to send a keep-alive heartbeat .. RendezvousTimeoutError.", a run that went on
                    # for 9 epochs, fresh50: no crash)
                hit = p
                break
        if hit is None and exception is None:
            return None
        if hit is not None:
            kind, cause, what, framework = hit.id, hit.cause, hit.what, hit.framework
            lv = "warning" if level == "warning" or handled else hit.level
        else:
            assert exception is not None  # (no pattern hit: an exception line)
            kind, cause, what, framework = "exception", "exception", exception, "Python"
            lv = level or "fatal"
        return TextEvent(
            self.after if self.after is not None else 0,
            source=self.source,
            kind=kind,
            cause=cause,
            level=lv,
            text=raw.strip()[:MAX_TEXT],
            before=self.after,
            what=what or kind,
            framework=framework,
            exception=exception,
            details=details(raw, text[:2000]) or None,
        )


#: the detail a crash line printed after the end of training carries (a reader's ``training_ended``)
AFTER_END = "after"
#: a loop's guard that skipped a step for a non-finite loss: "NaN loss detected! Skipping batch.", "loss is
#: nan, skipping this step", "Skipping batch 25: inf loss" (fresh57's Unsloth loop: 12 such lines, the bar's
#: loss postfix kept its last finite value, "all 806 records finite"); a kind of its own: the NaN/Inf
#: check's, not the crash check's
NAN_SKIP_KIND = "nonfinite_skipped"
#: ... said on a short line: longer ones are not looked at (the pattern's bounded look-arounds stay O(1) a line;
#: a 1 MiB line of "epoch 1, skip " took 3.5 s, tests/integration/test_hostile.py)
NAN_SKIP_MAX = 400
NAN_SKIP = re.compile(
    r"(?i)(?=[^\n]{0,200}?\bskip(?:s|ped|ping)?\b)"
    r"[^\n]{0,200}?(?:\b(?:nan|inf|non-?finite)\b[^\n]{0,30}?\bloss\b|\bloss\b[^\n]{0,30}?\b(?:nan|inf|non-?finite)\b)"
)


def tapped(feed):
    """``feed`` with the reader's ``TextTap`` looking at every line that gave no record."""

    @functools.wraps(feed)
    def tapped_feed(self, line):
        if self._feeding:  # (a subclass's feed calling its base's: one look per line)
            return feed(self, line)
        tap = self.text_tap
        if tap is None:
            return feed(self, line)
        self._feeding = True
        try:
            out = feed(self, line)
        finally:
            self._feeding = False
        if out and ("av" in line or "AV" in line) and reports_a_save(line):
            out = []  # (a save's report, its loss the save's: no training step; its event below)
        if out:
            tap.records(out)
            if "%|" in line and "]" in line:
                # a kill printed after a tqdm redraw that never got its newline (the process was killed
                # mid-epoch): "... 249/496 [15:35<10:25,  2.53s/it]slurmstepd: error: *** JOB 5270 ON gpu02
                # CANCELLED AT ... ***" (fresh29: the bar's record hid it, "no crash or error lines")
                tail = line[line.rfind("]") + 1 :]
                if tail.strip() and _gate(tail):
                    ev = tap.line(tail)
                    if ev is not None:
                        return out + [ev]
            if "Traceback" in line and TB_HEADER.search(line):
                # a traceback's header that released records held back (the HF stdout reader keeps a
                # step's dicts until the next line: the header after the last one gave them): the
                # header is no record's, the traceback opens (fresh13: a TypeError after the summary)
                tap.line(line)
            return out
        ev = tap.line(line)
        if ev is None:
            return out
        if ev.level == "fatal":
            if getattr(self, "training_ended", False):
                # after the trainer's end-of-training summary (HF's train_runtime dict): the training ran to its
                # end, what came after it (writing results, an evaluation script) failed (analysis/detectors/crash.py)
                ev.details = {**(ev.details or {}), AFTER_END: "the end-of-training summary"}
            elif tap.after is not None and tap.after > 0 and tap.after == self.run_info.get("total_steps"):
                # the last record is the planned last step (Keras' "Epoch 1000/1000", a step N/N): the training
                # ran to its end, the code after it failed (fresh52: model.save_weights' IOError after 1,000
                # epochs read "crashed at step 1000"); exactly the plan, so a total in other units never matches
                ev.details = {**(ev.details or {}), AFTER_END: f"its planned end (step {tap.after} of {tap.after})"}
        return [ev]

    tapped_feed.tapped = True
    return tapped_feed


def exit_event(code: int, step: int | None, source: str, framework: str) -> TextEvent:
    """A tracker recorded the run's exit code (a W&B run file's exit record): 0 a normal
    end, a code the tracker gives a meaning (``crash_patterns.EXIT_CODES``) that, else a crash."""
    cause, level, what = ("exit", "fatal", "a non-zero exit code") if code else ("done", "info", "exit code 0")
    known = EXIT_CODES.get((framework, code))
    if known is not None:
        cause, level, what = known[:3]
    return TextEvent(
        step if step is not None else 0,
        source=source,
        kind="exit_code",
        cause=cause,
        level=level,
        text=f"the run exited with code {code} ({framework})",
        before=step,
        what=what,
        framework=framework,
        details={"exit": str(code)},
    )

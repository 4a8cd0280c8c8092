"""Hugging Face Trainer console output (``nohup python train.py > train.log``).

``ProgressCallback`` prints each log as a Python dict repr between tqdm bar
redraws, so in a captured file the dict is glued to bar fragments separated by
``\\r``: ``  10/4854 [00:16<2:14:42,  1.67s/it]{'loss': 1.56, 'grad_norm': nan, ...}``.
The dict has no step. Its step is the tqdm counter ``N/TOTAL`` of the training bar
drawn before it, else the previous step plus the logging interval seen so far, else a
count: but under ``nohup`` (``> log 2>&1``, no ``python -u``) stdout is block-buffered
while tqdm's stderr is not, so the dicts reach the file in bursts of ~8 KiB, long after
the bars of their steps (a spike at step 1170 read as 17776, an Inf at step 1 as 11).
So dicts are held until the burst ends (the next bar or other text, the end of the file,
or 2 s without new bytes live), and a burst of several is placed on the logging grid:
its dicts one logging interval apart after the last dict placed (``logging_steps`` when
the log prints the arguments; else the interval that fits the burst against the bar's
counter c drawn before it: the buffer was flushed by a write at step c, so the burst's
last dict is at c, or one interval before when that write was the next dict, left in
the buffer); a burst that does not fit the grid (a resume, a gap) is placed by the bar.
A dict at step 1 (``logging_first_step``) is told by its ``epoch`` (a third of the next
one's or less) or, epochs rounded to 0.0, by which grid the bar's counter fits. How the
steps were derived is said in the report (``step_source``). The training bar is the last bar drawn before a training dict, not a data
bar (a ``datasets`` ``Map`` / tokenizer / filter bar, one counting ``examples/s``:
axolotl, TRL and LLaMA-Factory print those first) and not an evaluation bar: once
a bar gave a dict its step, it stays the training bar while its counter moves
between dicts. Its total is the planned steps (ms-swift's ``global_step/max_steps``
first).
Evaluation dicts (``eval_*``) are validation losses at the current step; the
final summary (``train_runtime``, run-average ``train_loss``) is not a step.
"""

from __future__ import annotations

import os
import re

from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.core.sanitize import strip_ansi
from tsm_tui.core.numbers import MAX_INT, int64
from tsm_tui.sources.base import METRICS, LineReader
from tsm_tui.sources.fields import field_for, loss_role
from tsm_tui.sources.generic_text import DICT_PAIR, weights_dict
from tsm_tui.sources.text_groups import dict_counter

TQDM = re.compile(r"(?<!\d)(\d+)/(\d++) \[")  # linear: one attempt per digit run
# bars that count data, not steps: their label (tqdm's desc) or their unit
DATA_BAR = re.compile(
    r"(?i)\b(?:map|tokeniz|filter|generating|loading|downloading|extracting|converting|packing|"
    r"preprocess|shuffl|saving|formatting|grouping|concatenat|resolving|fetching|"
    r"eval|val\b|valid|test\b|predict)"
)
_UNIT = re.compile(r"(?:([A-Za-z]+)/s|s/([A-Za-z]+))\b")
MAX_BARS = 16
MAX_BARS_PER_PART = 4
DICT_START = re.compile(r"\{'[^']+': ")
# ms-swift's dicts (string values) name their step: 'global_step/max_steps': '5/84'
GLOBAL_STEP = re.compile(r"'global_step/max_steps':\s*'(\d+)/(\d+)'")
SNIFF = re.compile(r"\{'(?:loss|grad_norm|learning_rate|eval_loss|train_runtime)': ")
# the run's arguments as HF / TRL print them (TrainingArguments' repr: "logging_steps=10,";
# YAML / argparse dumps: "logging_steps: 10")
LOGGING_STEPS = re.compile(r"\blogging_steps\s*+[=:]\s*+(\d++)")
FIRST_STEP = re.compile(r"\blogging_first_step\s*+[=:]\s*+(True|False|true|false)")
EPOCH = re.compile(r"'epoch':\s*'?([-+]?\d[\d.eE+-]*)")
#: a line that ends with a named step ("After 201 steps, Global Step: 201", "step 1200"): the step of
#: the dict printed after it (a custom loop's "Train Metrics so far: {'loss': 2.24, ...}" on a line
#: of its own, two lines later: fresh17 GraphRetro read its 700 dicts by count, steps 1-800 for
#: 1-124951; "-------- Completed Epoch: 1 Global Step: 1250 -----"). Linear: the digits end the line but
#: for its decoration, one attempt per step word
STEP_LINE = re.compile(
    r"(?i)(?:global[ _]?step|(?<![\w/])step|(?<![\w/])iter(?:ation)?)\s*+[:=#]?\s*+(\d{1,15})[\s.)\-=*#]*+$"
)
#: ... and a step or an epoch named just before the dict on its own line ("INFO - Epoch 59: {'loss':
#: 5.25}", "step 1200 | {'loss': ...}"): the dict's step (fresh20's Titans log: its 246 dicts were
#: counted 1-246, nine launches of epochs 0-99 read as one series). Anchored at the dict's start
#: (the search runs backwards over a bounded span): linear.
NAMED_BEFORE = re.compile(
    r"(?i)(?<![\w/])(?:global[ _]?step|step|iter(?:ation)?|epoch)\s*+[:=#]?\s*+(\d{1,15})\s*+[:|,\-]?\s*+$"
)
NAMED_SPAN = 48  # characters before the dict searched (ours: a word, a number and separators)
#: a dict at step 1 (logging_first_step) has an epoch at most this share of the next one's
#: (the next is at logging_steps >= 2 otherwise twice the first; ours)
FIRST_STEP_RATIO = 0.34
#: an epoch printed with 2 decimals is within this share of an epoch of its true value
EPOCH_ROUNDING = 0.005
#: how far the interval those epochs show can be from the true one (2-decimal epochs over a
#: summary epoch of 0.46: 0.5% each; ours, with margin)
EPOCH_SPREAD = 0.05
MAX_EPOCHS = 1e6  # an epoch beyond this (or NaN, inf) places nothing
MAX_HELD = 4096  # dicts held in one burst (an 8 KiB buffer holds ~40; a log without bars: then by count)
#: a finished log's end-of-training summary ("{'train_runtime': 15475.849, 'train_samples_per_second': 13.153,
#: 'train_steps_per_second': 0.822, 'train_loss': 0.1479, 'epoch': 20.0}"), looked for in its last SUMMARY_TAIL bytes
#: when it is opened: its steps (runtime x steps per second) over its epoch are the steps per epoch that
#: place a log's dicts when no bar counts them (stdout captured apart from tqdm's stderr: a Slurm .out,
#: nohup with 2>/dev/null, disable_tqdm)
SUMMARY = re.compile(
    r"\{'train_runtime':\s*+'?([\d.]+)'?,[^}]{0,200}?'train_steps_per_second':\s*+'?([\d.]+)'?,[^}]{0,200}?"
    r"'epoch':\s*+'?([\d.]+)'?\s*+\}"
)
#: (64 KiB: a script that tests the model after training prints its generations after the summary,
#: fresh66's TRL log 9 KiB of them; ours)
SUMMARY_TAIL = 65536
#: ... and the dicts so placed: one interval apart from the start, the interval the epochs show (a round
#: one within EPOCH_SPREAD of it, else the nearest integer), the last dict's grid step within this share of
#: its epoch x the steps per epoch (the summary's steps per second has 3 decimals: 0.06% at 0.822; ours)
SUMMARY_FIT = 0.02


class HFStdoutReader(LineReader):
    name = "hf-stdout"
    holds_lines = True  # (a burst held until it ends: delivered live when the file goes quiet)
    priority = 8

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        hits = summaries = 0
        for ln in head[:2000]:
            m = SNIFF.search(ln) if "{'" in ln else None
            if m is not None and not weights_dict(ln, m.start()):
                hits += 1
                summaries += m.group().startswith("{'train_runtime'")
        if not hits:
            return 0.0
        if hits == summaries:
            # only the end-of-training summary (a notebook's TrainOutput(..., metrics={'train_runtime': ...})
            # after a table of the losses, fresh39): no dict of a step; another reader reads the steps
            return 0.3
        return 0.75 + 0.2 * min(1.0, hits / 3)

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._bars: dict[int, int] = {}  # total -> last counter of each step-counting bar
        self._last_bar: tuple[int, int] | None = None  # (total, counter) of the last one drawn
        self._train: tuple[int, int] | None = None  # the training bar's (total, counter) at the last dict
        self._counter: int | None = None  # ms-swift's own step (global_step/max_steps)
        self._named: int | None = None  # a step named on a line of its own since the last dict (STEP_LINE)
        self._own: int | None = None  # the step named just before the dict on its line (NAMED_BEFORE)
        self._interval: int | None = None
        self.other_lines = 0
        #: dicts waiting for the end of their burst: (pairs, is a training dict, epoch)
        self._held: list[tuple[list, bool, float | None]] = []
        self._anchor: int | None = None  # the training bar's counter before the burst's first dict
        self._logging_steps: int | None = None  # printed in the log
        self._first_step: bool | None = None  # logging_first_step, printed in the log
        self._train_dicts = 0  # training dicts placed so far
        #: how the steps were derived (the report's ``step_source``); None until a dict is placed
        self.step_source: str | None = None
        self._max_burst = 0
        self._after_bar = False  # bursts placed by the bars around them (``_between``): no exact grid fits
        self._per_epoch: float | None = None  # steps per epoch, from the final summary
        #: steps per epoch from the summary at the end of the file when it was opened (``_peek``): places
        #: the dicts of a log with no bar (``_by_summary``)
        self._summary_per_epoch = _peek(path)
        #: the trainer printed its end-of-training summary (``train_runtime``) and no training dict since
        self.training_ended = False

    def feed(self, line: str) -> list[StepRecord]:
        if "\x1b" in line:
            line = strip_ansi(line)
        out: list[StepRecord] = []
        for part in line.split("\r") if "\r" in line else (line,):
            out += self._part(part)
        return out

    def _part(self, part: str) -> list[StepRecord]:
        i = part.find("{'")
        out: list[StepRecord] = []
        if i < 0:
            bars = list(_step_bars(part))  # (parsed once: the burst's end and the bars' state)
            if self._held and part.strip() and not self._whole_run():
                out = self._resolve(self._next_bar(bars))  # a bar or other text: the burst has ended
            if "logging_" in part:
                self._args(part)
            if "tep" in part or "ter" in part:
                n = STEP_LINE.search(part)
                if n is not None:
                    self._named = int64(n.group(1))
            self._bar(bars)
            return out
        bars = list(_step_bars(part[:i]))
        if self._held and part[:i].strip() and not self._whole_run():
            out = self._resolve(self._next_bar(bars))
        self._bar(bars)
        m = DICT_START.search(part, i)
        if m is None:
            self.other_lines += 1
            return out
        j = part.find("}", m.start())
        body = part[m.start() : j + 1 if j >= 0 else len(part)]
        pairs = DICT_PAIR.findall(body)
        if pairs and weights_dict(part, m.start()):  # (a model dump's loss weights: generic_text.weights_dict)
            self.other_lines += 1
            pairs = []
        if pairs and not any(field_for(k) or loss_role(k) for k, _ in pairs):
            # a dict printed in a message, not a log dict (transformers' "Updated tokens:
            # {'bos_token_id': None, 'pad_token_id': 151643}"): taken for one, it set the
            # plan from the data bar drawn before it (fresh10: "40595 planned" of 573 steps)
            self.other_lines += 1
            pairs = []
        if pairs:
            g = GLOBAL_STEP.search(body) if "'global_step/" in body else None
            if g is not None:
                pairs = [p for p in pairs if p[0] != "global_step/max_steps"]
                self.run_info.setdefault("total_steps", g.group(2))  # (bounded by RunFacts)
                if not any(k.startswith("eval_") for k, _ in pairs) and int64(g.group(1)) is not None:
                    self._counter = int64(g.group(1))  # the dict's own step, better than any bar
            c = dict_counter(part, i) if g is None else None  # absl's "[Train 10/1882] {...}"
            if c is not None and c[0] is None and not any(k.startswith("eval_") for k, _ in pairs):
                self._counter = c[1]
                self.run_info.setdefault("total_steps", c[2])
            elif (
                c is None
                and g is None
                and (own := _named_before(part, i)) is not None
                and not any(k.startswith("eval_") for k, _ in pairs)
            ):
                self._own = own  # a logger's "Epoch 59: {'loss': 5.25}": the step the line names
                self._note("before")
            elif (
                g is None
                and self._named is not None
                and self._last_bar is None  # (a training bar's counter is the step where there is one)
                and not any(k.startswith("eval_") for k, _ in pairs)
            ):
                self._counter = self._named  # (the step named on a line before it: STEP_LINE)
                self._note("named")
            self._named = None
            out += self._dict(pairs, body)
        if j >= 0:
            tail = part[j + 1 :]
            if self._held and tail.strip():
                out += self._resolve()
            self._bar(list(_step_bars(tail)))
        return out

    def _args(self, text: str) -> None:
        m = LOGGING_STEPS.search(text)
        if m and self._logging_steps is None:
            n = int64(m.group(1))
            if n is not None and n > 0:
                self._logging_steps = n
        m = FIRST_STEP.search(text)
        if m and self._first_step is None:
            self._first_step = m.group(1).lower() == "true"

    def flush(self) -> list[StepRecord]:
        return self._resolve() + super().flush()

    def describe(self) -> dict:
        """The report's file entry: how the steps were derived (``step_source``)."""
        return {"step_source": self.step_source} if self.step_source else {}

    def idle(self) -> list[StepRecord]:
        return self._resolve() + super().idle()

    def _bar(self, bars: list[tuple[int, int]]) -> None:
        """The state of the step-counting bars drawn (``_step_bars``)."""
        for total, n in bars:
            if total not in self._bars and len(self._bars) >= MAX_BARS:
                self._bars.clear()
            self._bars[total] = n
            self._last_bar = (total, n)

    def _next_bar(self, bars: list[tuple[int, int]]) -> int | None:
        """The counter of the training bar (the anchor's) among ``bars`` drawn after a burst, which ends it;
        None if none."""
        bar = self._train or self._last_bar
        if bar is None:
            return None
        got = [n for total, n in bars if total == bar[0]]
        return got[-1] if got else None

    def _train_counter(self) -> int | None:
        """The training bar's counter for a training dict (see the module docstring)."""
        last = self._last_bar
        if last is None:
            return None
        tr = self._train
        if tr is not None and last[0] != tr[0]:
            cur = self._bars.get(tr[0])
            if cur is not None and cur != tr[1]:  # the bar that gave the last step moved: still it
                last = (tr[0], cur)
        self._train = last
        self.run_info.setdefault("total_steps", last[0])
        return last[1]

    def _dict(self, pairs: list[tuple[str, str]], body: str) -> list[StepRecord]:
        keys = [k for k, _ in pairs]
        if "train_runtime" in keys or "total_flos" in keys:
            self.training_ended = True  # (a crash line after it: text_events.AFTER_END)
            # the final summary: its epoch at the training bar's last step gives the steps per
            # epoch that place a burst flushed at the exit (see _by_epoch)
            ep = _epoch(body)
            bar = self._last_bar
            if self._held and ep is not None and 0 < ep < MAX_EPOCHS and bar is not None and bar[1] == bar[0]:
                self._per_epoch = bar[0] / ep
            return []
        is_eval = any(k.startswith("eval_") for k in keys)
        if not is_eval:
            self.training_ended = False  # (a training dict after a summary: another training in the file)
        if self._own is not None:  # the line names the dict's step: taken as it is (back: a relaunch)
            step, self._own = self._own, None
            out = self._resolve()
            rec = self._place(pairs, is_eval, step=step)
            return out + ([rec] if rec is not None else [])
        if self._counter is not None:  # the dict names its own step (ms-swift): no burst to place
            out = self._resolve()
            rec = self._place(pairs, is_eval)
            return out + ([rec] if rec is not None else [])
        if (not is_eval and (self._last_bar is not None or self._summary_per_epoch is not None)) or self._held:
            # (a log without any bar has nothing to place a burst by, but the summary: no holding)
            if not self._held:
                self._anchor = self._train_counter() if not is_eval else None
            elif self._anchor is None and not is_eval:
                self._anchor = self._train_counter()
            self._held.append((pairs, not is_eval, _epoch(body)))
            if len(self._held) >= MAX_HELD:
                return self._resolve()
            return []
        rec = self._place(pairs, is_eval)
        return [rec] if rec is not None else []

    def _resolve(self, nxt: int | None = None) -> list[StepRecord]:
        """Place the held burst: its training dicts' steps (see the module docstring),
        then every dict of it in order (an evaluation dict at the training step before it).
        ``nxt``: the training bar's counter drawn right after the burst, if one ended it."""
        held, self._held = self._held, []
        if not held:
            return []
        train = [h for h in held if h[1]]
        steps = self._burst_steps(train, nxt) if train else []
        out: list[StepRecord] = []
        it = iter(steps)
        for pairs, is_train, _ in held:
            if is_train:
                rec = self._place(pairs, False, next(it))
            else:
                rec = self._place(pairs, True)
            if rec is not None:
                out.append(rec)
        self._anchor = None
        return out

    def _burst_steps(self, train: list, nxt: int | None = None) -> list[int | None]:
        m = len(train)
        prev = self._last_step if self._train_dicts else 0
        c = self._anchor
        L = self._logging_steps
        self._max_burst = max(self._max_burst, m)
        if self._after_bar and (placed := self._between(m, c, nxt, prev)) is not None:
            self._train_dicts += m
            return placed
        if m == 1 and not (self._train_dicts == 0 and self._first_step):
            self._train_dicts += 1
            if c is not None and c > prev:
                self._note("bar")
                return [None]  # the bar's counter (_place)
            if L is not None:
                self._note("interval")
                return [prev + L]
            self._note("bar" if self._interval else "counted")
            return [None]  # the interval seen so far, else a count (_place)
        # several dicts in one burst (stdout buffered). The buffer was flushed by a write at
        # the bar's counter c: the burst's last dict is at c (it was that write, or the write
        # was an evaluation dict or its newline), or one interval before (the write was the
        # next dict's, left in the buffer). The dicts are one interval apart.
        first = self._train_dicts == 0 and self._first_dict(train, c, L)
        n = m - 1 if first else m  # dicts on the logging grid (a dict at step 1 aside)
        base = 0 if self._train_dicts == 0 else prev
        if L is None:
            # no logging_steps printed: the interval earlier bursts fitted, when they did (a
            # burst flushed between two grid steps, 18 dicts from 400 with the bar at 585, fits
            # the grid of 10, not a grid of its own: counting it put the dicts 185 apart)
            L = self._interval
        if c is not None and (L is None or not (c - L <= base + n * L <= c)):
            got = _grid(c - base, n, L)
            if got is not None:
                L, at_bar = got
                if self._logging_steps is None:
                    self._note("inferred")
                base = (c if at_bar else c - L) - n * L  # (a resume, a gap: placed by the bar)
        if c is None and L is None and self._summary_per_epoch is not None:
            got_steps = self._by_summary(train, first)
            if got_steps is not None:
                self._train_dicts += m
                self._note("summary")
                return got_steps
        if L is None:
            steps = self._by_epoch(train)
            if steps is None and not first and (steps := self._between(m, c, nxt, prev)) is not None:
                self._after_bar = True  # (and from here on: lines were lost, no grid fits)
            self._train_dicts += m
            if steps is not None:
                if not self._after_bar:
                    self._note("epoch" if self._per_epoch else "epoch_summary")
                return steps
            self._note("counted")
            return [1] + [None] * (m - 1) if first else [None] * m
        if self._logging_steps is not None:
            self._note("interval")
        elif self.step_source is None:
            self._note("inferred")
        self._interval = L
        self._train_dicts += m
        lead: list[int | None] = [1] if first else []
        return lead + [base + (i + 1) * L for i in range(n)]

    def _between(self, m: int, c: int | None, nxt: int | None, prev: int) -> list[int | None] | None:
        """The steps of a burst of ``m`` dicts after the training bar's counter ``c`` (``nxt``: its counter
        drawn after the burst) when no exact logging grid fits them: a console capture that lost some
        lines (W&B's output.log keeps a bar's redraw over the dict printed with it), its stdout lagging
        the bar by a few steps or not. One logging interval apart: ending at ``c`` (the dicts of the steps
        the bar has counted, printed after it) when that stays past the last step placed, else starting
        after ``c`` (each dict after the bar of its step) when they fit before ``nxt``; None otherwise, and
        for a burst no bar follows (flushed at the exit).
        The interval: the one earlier bursts had, else the largest round one the room allows (fresh72's
        ViVidBot runs: 169 dicts between bars 0, 8, 14, 19 ... of 1963, the LR rising one warm-up step a
        dict, were counted 1-541; fresh7's: 92 dicts ending at bars 98, 101, 105 ... counted 1-181 for 1-131)."""
        if c is None or nxt is None or c < prev or nxt <= c:
            return None  # (a burst at the exit, no bar after it: the summary's or counted)
        room = max((c - prev) / m, (nxt - c) / m)
        if room < 1:
            return None
        L = (
            self._interval
            if self._interval and self._interval <= room
            else max(n for n in _round_numbers(room) if n <= room)
        )
        if c - (m - 1) * L > prev:
            steps: list[int | None] = [c - (m - 1 - i) * L for i in range(m)]
        elif c + m * L <= nxt:
            steps = [c + (i + 1) * L for i in range(m)]
        else:
            return None
        self._interval = L
        self._note("after_bar")
        return steps

    def _by_epoch(self, train: list) -> list[int | None] | None:
        """The steps of a burst that fits no grid by the bar (flushed at the exit, not by a
        dict's write: TRL's 3 dicts at 50, 100, 150 with the bar at its end, 175): each
        dict's epoch x the steps per epoch (the final summary's), on the grid of one logging
        interval the epochs show; None when an epoch is missing or the dicts do not fit. The
        summary read at the end of a finished log when it was opened (``_peek``) gives them too:
        a burst ended by text with no bar drawn before it (a callback's snapshot of the bar printed
        after its dicts, "100/1000 [...]=== INFERENCE TEST ===": fresh66's TRL log, counted 1-900
        for 5-1000)."""
        per = self._per_epoch or self._summary_per_epoch
        eps = [h[2] for h in train]
        if per is None or len(eps) < 2 or any(e is None or not 0 < e < MAX_EPOCHS for e in eps):
            return None
        at = [e * per for e in eps]
        guess = (at[-1] - at[0]) / (len(at) - 1)
        if not 1 <= guess <= MAX_INT or at[-1] > MAX_INT:
            return None
        # an epoch is off by its rounding (2 decimals before transformers 5) and by counting
        # batches, not optimizer steps (gradient accumulation, a last short batch): a dict
        # within a quarter interval of its grid step is on it; of the intervals that fit, a
        # round one (logging_steps=50, not 49) and then the closest
        tol = max(EPOCH_ROUNDING * per + 1, guess / 4)
        best: tuple[bool, float, list[int]] | None = None
        lo, hi = guess * (1 - EPOCH_SPREAD), guess * (1 + EPOCH_SPREAD)
        for L in {max(1, round(guess)), *(n for n in _round_numbers(hi) if lo <= n <= hi)}:
            last = round(at[-1] / L) * L
            steps = [last - (len(at) - 1 - i) * L for i in range(len(at))]
            err = sum(abs(x - a) for x, a in zip(steps, at))
            if steps[0] <= 0 or any(abs(x - a) > tol for x, a in zip(steps, at)):
                continue
            key = (not _round(L), err, steps)
            if best is None or key[:2] < best[:2]:
                best = key
        if best is None:
            return None
        steps = best[2]
        self._interval = steps[1] - steps[0]
        return list(steps)

    def _whole_run(self) -> bool:
        """A log with no bar and a final summary (``_peek``): its dicts are held as one burst, the
        whole run, until the file ends (or MAX_HELD), other text between them notwithstanding."""
        return self._summary_per_epoch is not None and self._last_bar is None

    def _by_summary(self, train: list, first: bool) -> list[int | None] | None:
        """The steps of the training dicts of a log with no bar, held whole and ended by its summary
        (SUMMARY): one interval apart, the interval the epochs show over the summary's steps per epoch
        (a round one close to it first); None when the burst is not the whole run (more than MAX_HELD
        dicts, or no summary after them), an epoch is missing or goes back (several launches: the
        summary is the last one's), or the last dict's step does not fit its epoch."""
        per = self._summary_per_epoch
        eps = [h[2] for h in train]
        if per is None or self._train_dicts or not self.training_ended:
            return None
        if any(e is None or not 0 <= e < MAX_EPOCHS for e in eps) or any(b < a for a, b in zip(eps, eps[1:])):
            return None
        span = eps[-1] * per
        if not 1 <= span / len(train) <= MAX_INT:
            return None
        if self._first_step is None:
            # (a dict at step 1, logging_first_step: its epoch under half an interval; 2-decimal epochs
            # round step 1 of a long epoch to 0.0, as they round step 10)
            first = len(train) > 1 and eps[0] * per < span / len(train) / 2
        lead: list[int | None] = [1] if first else []
        n = len(train) - len(lead)
        if n < 1:
            return None
        guess = span / n
        lo, hi = guess * (1 - EPOCH_SPREAD), guess * (1 + EPOCH_SPREAD)
        fits = sorted(r for r in _round_numbers(hi) if lo <= r <= hi)
        L = min(fits, key=lambda r: abs(r - guess)) if fits else max(1, round(guess))
        steps = [(i + 1) * L for i in range(n)]
        if abs(steps[-1] - span) > max(SUMMARY_FIT * span, EPOCH_ROUNDING * per + L):
            return None
        self._interval = L
        return lead + steps  # type: ignore[operator]

    def _first_dict(self, train: list, c: int | None, L: int | None) -> bool:
        """The first training dict is at step 1 (``logging_first_step``): printed in the
        log; else its epoch a small share of the next dict's; else (HF rounded the epochs
        to 2 decimals: 0.0 at step 1 and at step 10 of a long epoch) the bar's counter
        fits the burst only with it."""
        if self._first_step is not None:
            return self._first_step
        e0, e1 = train[0][2], train[1][2]
        if e0 is not None and e1 is not None and e0 > 0:
            return e0 <= FIRST_STEP_RATIO * e1
        if c is None:
            return False
        m = len(train)
        return _grid(c, m - 1, L) is not None and _grid(c, m, L) is None

    def _note(self, how: str) -> None:
        L = self._logging_steps
        says = {
            "bar": "the training bar's counter drawn before each dict",
            "interval": f"the dicts' order x the logging interval ({L}, logging_steps printed in the log)",
            "inferred": "stdout was block-buffered (dicts arrived in bursts): the last dict of a burst at the "
            "training bar's counter drawn before it, the others one logging interval apart (the "
            "bar's advance since the previous burst / its dicts, or the interval earlier bursts fitted)",
            "epoch": "the dicts' epoch x the steps per epoch (the final summary's epoch at the training bar's "
            "last step), one logging interval apart (stdout was block-buffered and flushed at the exit)",
            "epoch_summary": "the dicts' epoch x the steps per epoch of the final summary (train_runtime x "
            "train_steps_per_second over its epoch), one logging interval apart (no training bar drawn before them)",
            "summary": "the dicts' order x the logging interval their epochs show over the steps per epoch of the "
            "final summary (train_runtime x train_steps_per_second over its epoch; no training bar in the log)",
            "counted": "counted (no step in the dicts, no training bar, no logging_steps printed)",
            "after_bar": "the training bar's counter drawn before each burst of dicts, the dicts one logging interval "
            "apart ending at it, or after it when they would reach back past the dicts before (a console capture "
            "that lost lines, as W&B's output.log: no exact logging grid fits the bursts)",
            "named": "the step named on a line of its own before each dict ('Global Step: 201')",
            "before": "the step or epoch named before each dict on its line ('Epoch 59: {...}')",
        }
        rank = (
            "before",
            "named",
            "bar",
            "interval",
            "inferred",
            "after_bar",
            "epoch",
            "epoch_summary",
            "summary",
            "counted",
        )
        cur = self.step_source
        if cur is None or rank.index(how) > next((rank.index(k) for k, v in says.items() if v == cur), -1):
            self.step_source = says[how]

    def _place(self, pairs: list[tuple[str, str]], is_eval: bool, step: int | None = None) -> StepRecord | None:
        if is_eval:
            if self._last_step <= 0 and self.records == 0:
                # before any training dict: the training bar's counter, not that of the
                # evaluation bar just completed (eval_on_start evaluates at step 0)
                bar = self._last_bar if self._last_bar and self._last_bar[1] != self._last_bar[0] else None
                step = max(self._counter or (bar[1] if bar else 0), 0)
            else:
                step = self._last_step
            prev = self._last_step
            rec = self.build(pairs, step=step)
            self._last_step = prev
            return rec
        prev = self._last_step
        if step is None and self._anchor is None and self._counter is None and self._last_bar is None:
            # no bar at all: the dicts' order x logging_steps when the log prints it, else a count
            if not _has_metric(pairs):
                return None  # a dict of something else (TRL's "Updated tokens: {'pad_token_id': ...}")
            self._train_dicts += 1
            k = self._train_dicts - (1 if self._first_step else 0)  # (the dict at step 1 aside)
            if k == 0:
                step = 1
            elif self._logging_steps is not None:
                step = k * self._logging_steps
            self._note("interval" if step is not None else "counted")
        if step is not None:
            rec = self.build(pairs, step=step)
            if rec is not None and step > prev and prev > 0 and self._counter is None and self._interval is None:
                self._interval = step - prev
            self._counter = None
            return rec
        c = self._counter if self._counter is not None else self._anchor
        self._counter = None
        if c is not None and c > prev:
            step = c
        elif self._interval:
            step = prev + self._interval
        else:
            step = None  # counted by build()
        rec = self.build(pairs, step=step)
        if rec is not None and step is not None and c is not None and c > prev and prev > 0:
            self._interval = c - prev
        return rec


def _epoch(body: str) -> float | None:
    e = EPOCH.search(body) if "'epoch'" in body else None
    try:
        return float(e.group(1)) if e else None
    except ValueError:
        return None


def _peek(path: str) -> float | None:
    """The steps per epoch of the end-of-training summary in the last SUMMARY_TAIL bytes of the file at
    ``path`` (SUMMARY), or None (no such file, a live log not finished yet, no summary)."""
    if not path:
        return None
    try:
        f = open_regular(path)
    except OSError:
        return None
    try:
        size = os.fstat(f.fileno()).st_size
        f.seek(max(0, size - SUMMARY_TAIL))
        tail = f.read(SUMMARY_TAIL).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        f.close()
    found = list(SUMMARY.finditer(tail))
    m = found[-1] if found else None  # (the last one: the run that ends the file)
    if m is None:
        return None
    try:
        runtime, sps, epoch = float(m.group(1)), float(m.group(2)), float(m.group(3))
    except ValueError:
        return None
    steps = runtime * sps
    if not (0 < epoch < MAX_EPOCHS and 1 <= steps <= MAX_INT):
        return None
    return steps / epoch


def _step_bars(text: str):
    """(total, counter) of each bar in ``text`` that counts steps (not a data or evaluation bar: its
    label or its unit says so), the last MAX_BARS_PER_PART of them."""
    if "/" not in text or " [" not in text:
        return
    found = list(TQDM.finditer(text))
    for m in found[-MAX_BARS_PER_PART:]:  # (one bar per redraw; a line of thousands costs no more)
        n, total = int64(m.group(1)), int64(m.group(2))
        if n is None or total is None or total <= 0:
            continue
        a = m.start()
        label = text[max(0, a - 120) : a]
        label = label[max(label.rfind("]"), label.rfind("\r")) + 1 :]
        end = text.find("]", m.end(), m.end() + 120)
        rate = text[m.end() : end if end >= 0 else m.end() + 120]
        if DATA_BAR.search(label) or any((u or v) != "it" for u, v in _UNIT.findall(rate)):
            continue  # a data or evaluation bar: its counter is no step
        yield total, n


def _round_numbers(upto: float) -> list[int]:
    """The round numbers up to ``upto``: 1, 2, 5 and 25 times each power of ten."""
    out, p = [], 1
    while p <= upto:
        out += [p, 2 * p, 5 * p, 25 * p]
        p *= 10
    return out


def _round(n: int) -> bool:
    """One of _round_numbers: the logging intervals people choose."""
    return n in _round_numbers(n)


def _has_metric(pairs: list[tuple[str, str]]) -> bool:
    """A dict that names a training metric (not a config or token dict printed before the bars)."""
    return any(field_for(k) in METRICS for k, _ in pairs)


def _grid(span: int, n: int, L: int | None) -> tuple[int, bool] | None:
    """The logging interval that puts ``n`` dicts one interval apart with the last at
    ``span`` steps past the grid's start, or one interval before it: (interval, at the
    bar), the interval ``L`` when it fits, else the one whole interval that does; None
    when neither does (or both do with different intervals: ambiguous)."""
    if n <= 0 or span <= 0:
        return None
    fits = [(span // k, k == n) for k in (n, n + 1) if span % k == 0]
    if L is not None:
        for got in fits:
            if got[0] == L:
                return got
    if len({f[0] for f in fits}) == 1:
        return fits[0]
    return None


def _named_before(part: str, i: int) -> int | None:
    """The step or epoch named right before the dict at ``i`` (NAMED_BEFORE), or None."""
    m = NAMED_BEFORE.search(part, max(0, i - NAMED_SPAN), i)
    return int64(m.group(1)) if m is not None else None

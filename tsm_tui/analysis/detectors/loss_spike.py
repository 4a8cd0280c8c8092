"""Loss spikes: find them, tell the ones that recover (WARN) from the ones that
do not or that turn into divergence (FAIL).

Rules (sources in tsm_tui/core/settings.py):
- seed rule: loss > 2.5 x median of the window without its last 10 records,
  kept from firing on noisy runs by a z >= 2.5 test on log-loss (ZClip);
- OLMo-core rule: log-loss > mean + 6 sigma of the same baseline (with a 1.3x
  floor so a smooth curve's tiny wiggles are not "spikes");
- an absolute floor (0.05) so bumps near zero loss are ignored.
Spiking values are kept out of the baseline (ZClip feeds its EMA the clipped
value), so a spike does not hide the next one.
"""

from __future__ import annotations

from dataclasses import replace

import math
from collections import deque
from itertools import islice

import bottleneck as bn
import numpy as np

from tsm_tui.analysis import advice
from tsm_tui.analysis.detectors.base import NONE, ROWS, Detector
from tsm_tui.analysis.detectors.components import Components
from tsm_tui.analysis.detectors.creep import Climb, Creep
from tsm_tui.analysis.detectors.lr_peak import SchedulePeak
from tsm_tui.analysis.detectors.step_unit import StepUnit
from tsm_tui.core.numbers import fmt
from tsm_tui.core.numbers import times as _times
from tsm_tui.analysis.detectors.stats import (
    Delay,
    MannKendall,
    RollingMedian,
    RollingMoments,
    RunningLine,
    diff_sd,
    diff_spread,
    iqm_of,
    mean_std,
)
from tsm_tui.analysis.detectors.grad_norm import PEAK_REALERT, SPIKE_GAP
from tsm_tui.analysis.detectors.stats import median as _median
from tsm_tui.analysis.rules import back_from_divergence, diverged
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord
from tsm_tui.sources.fields import ObjectiveKind

SIGMA_MIN_RATIO = 1.3
#: said of an RL run's findings, which are warnings (settings.rl_loss_fails)
RL_NOTE = "an RL run: its loss is not a measure of progress, judge it by the reward; a warning, not a failure"
#: ... and a GAN's (a discriminator loss beside the objective: fields.gan_key)
GAN_NOTE = (
    "a GAN: its generator loss rises as the discriminator learns, judge it by its samples (FID); "
    "a warning, not a failure"
)
RECOVERY_RECORDS = 3  # consecutive records back near baseline
#: ... and a blow-up (BLOWUP_RATIO x the baseline) after this many records that are all back near it
#: is a spike of its own in the incident (``_again``), not a part of the one before (ours: two in a
#: row under the bar; a noisy loss's spikes need RECOVERY_RECORDS)
BACK_MIN = 2
IF_NOT_RECOVERED = "If it does not recover: "
SKIP_BATCH = "Inspect and skip the batch(es)"
#: a sustained excursion: the loss above 2x its pre-spike baseline for more than 4
#: records is divergence in progress, called at once (llm-foundry KillLossSpike,
#: llmfoundry/callbacks/kill_loss_spike_callback.py: outlier_multiplier=2, patience=4)
SUSTAIN_FACTOR = 2.0
SUSTAIN_RECORDS = 5
#: standard errors of a median of a few noisy records that still count as back at the baseline
#: (``_back_by_median``; ours: two, a one-sided ~98% band: a noisy loss back at its level is not
#: called "not recovered" on the scatter of five records)
MEDIAN_SE_Z = 2.0
#: ... and not fading fast: the loss still >= 0.75x its value 4 records earlier (a bad
#: batch's spike decaying 20% a step is back under 2x a few records later; ours)
SUSTAIN_HOLD = 0.75
#: the recovery deadline (settings.recovery_steps) fails only a spike whose peak reached 2x its
#: pre-spike baseline: a smaller rise still above 1.25x at the deadline stays open, and is judged by
#: what the loss does (back: recovered; settled above 1.25x: lasting damage, _settled; the rolling
#: median 1.5x its best: divergence; still up at the end of the log: _finalize). The deadline is in
#: steps, so on a log written every 2,000 steps it came one record after the onset: a TF1 LSTM's
#: per-batch, L2-dominated loss (fresh14) stepped 1.66x and decayed back over ~10 records, and FAILed
#: "has not recovered 2000 steps later". Source: llm-foundry KillLossSpike's outlier_multiplier=2
#: (SUSTAIN_FACTOR) and the corpus label conventions' 2x loss spike (bench/corpus/fresh12/SOURCES.md).
DEADLINE_FAIL_RATIO = SUSTAIN_FACTOR
#: lasting damage (ours): medians of blocks of BLOCK records since the onset; when
#: the last SETTLE_BLOCKS medians differ by < SETTLE_REL and the level is still above
#: recovery_factor x the baseline, the loss has settled at a worse level: no recovery.
BLOCK = 10
#: the upper quartile of a normal law in sigmas: a noisy loss's pre-spike level
#: (_back_by_median; the median of 5 records from the same noise is below it ~90% of the time)
UPPER_QUARTILE_Z = 0.674
#: the pre-spike window is noise, not a descent, when the detrended spread of its log-loss
#: (_detrended_sd) is at least half its whole spread (ours: a descent's spread is its trend)
NOISE_SHARE = 0.5
SETTLE_BLOCKS = 3
SETTLE_REL = 0.03
#: a divergence the loss came back from and then went on to a rolling median at most NEW_LOWS x its best before
#: the climb is a passing climb: the verdict is a WARN, not a FAIL (its alerts stay as they were raised). Ours:
#: fresh51's per-batch T5 fine-tune over 20 epochs climbs 1.6x within an epoch as it memorises, each epoch lower
#: than the last (0.088 before the climb, 0.0038 at the end) and read "loss diverged ... then came back" (FAIL)
NEW_LOWS = 0.9
#: the spike baseline is the smaller of the delayed window's median and the median of
#: the last LOCAL values: during a fast initial descent the delayed median lags far
#: above the loss and hides a bad batch (ours)
LOCAL = 5
LOCAL_LAG = 1.2  # ... when it is at least 1.2x lower (a descent, not noise; ours)
LOCAL_WINDOWS = 5  # ... in the first 5 windows of records only (the initial descent; ours)
#: in that initial descent the window's spread of log-losses is mostly the descent itself
#: (a 3x bad batch at step 100 of a fast descent was 2 sigma): the spike rules also take
#: a detrended spread, from the first differences of the last EARLY_K log-losses
#: (see _detrended_sd), and,
#: before the baseline window has filled, test against the median of the last LOCAL
#: values from EARLY_MIN records on (a bad batch at step 30 was never looked at) (ours)
EARLY_K = 30
EARLY_MIN = 20
#: the noise floor of the first records' robust test (settings.spike_early_*), in log units:
#: a smooth first descent has near-equal differences, whose MAD is ~0 (ours: 5%)
EARLY_SD_FLOOR = 0.05
#: ... and before spike_early_min values, from the BLOWUP_MIN-th record on: a loss BLOWUP_RATIO x
#: above every earlier value is a blow-up, never a start's noise (a start's first loss is its
#: highest; ours, the grad-norm rule's "max / median in the hundreds is never noise"; fresh18: an
#: LR scan's run logged 2.74 at its third record and 1.44e11 at its fourth, then NaN)
BLOWUP_MIN = 4
BLOWUP_RATIO = 100.0
#: records of context (LR, grad norm, loss scale) kept to tell the cause of a spike
#: (ours: 16 covers the few records over which a grad norm climbs before the loss,
#: and leaves 11 older ones for the reference level)
CTX = 16
#: a short log's steady climb (settings.divergence_short_*): its level is the median of the
#: last CLIMB_LAST values (ours: a single record is no level; 3, as the recovery rule's records)
CLIMB_LAST = 3
#: ... and measured after a low that is not the log's first value, the rank test at this z
#: (ours: the minimum of noisy values is followed by their level, a small climb; of 1,800
#: flat and 1,800 falling-then-flat lognormal runs of 99 values at log-sd 0.05-0.8, the rule
#: measured from the start raised 2 and 0 divergences, from the low at z 3.5: 4 and 2, at 4.0:
#: 0 and 0; fresh8's Whisper climb: z 5.1)
CLIMB_AFTER_LOW_Z = 4.0
#: ... or a jump that stayed: on a log whose first value is its lowest, every value after it at least
#: JUMP_STAYED x it for divergence_short_min values, and within JUMP_SPREAD x of each other (a level, not a noisy
#: per-batch series whose first value was a lucky low: log-sd 0.8 made 3 of 300 flat runs "jump" at 2x):
#: a step up to a higher level the line's and the ranks' tests do not prove a climb of (it is flat after
#: the jump, or falls a little). Ours; fresh65's QLoRA run at LR 5: 1.64 at step 1, then 11.8, 11.6, 10.4
#: and 10.3735 to the end (10 values, 6.3x), read "no spikes in 10 loss values"; a resumed Qwen3 launch
#: whose first value is the checkpoint's 1.47 and the rest ~14 (9.4x). Not 2x (the labels' spike bar): a
#: run's first loss is often below its next ones when they start (DINO's loss rises as its teacher warms,
#: 2.1x; a diffusion LM's first batch 2.4x below the rest: fresh6, fresh36, both then learn)
JUMP_STAYED = 3.0
JUMP_SPREAD = 2.0
#: ... or, values that spread wider than JUMP_SPREAD, JUMP_NOISY x divergence_short_min of them, every one
#: JUMP_STAYED x the first or more and the step up from it settings.sigma (OLMo-core's 6) sds of their
#: log-values or more: a jump out of the run's noise, not a lucky low first value (ours; fresh90's LSTM
#: classifier at LR 0.1: 1.80 = ln 6 at iteration 0, then 8-31 for 20 records, never back, "no spikes in 21
#: loss values": 7.3 sds after 16 values. Of 1,500 lognormal and 1,500 Student-t (3 dof) flat logs of 11-98
#: values at log-sd 0.3-1.5, 16 were said after 7 such values at 2.5 sds, 7 after 16 at 2.5 sds; its twin,
#: 6.8-76 after the same 1.80, is 2.4 sds: within such noise, not said)
JUMP_NOISY = 2
#: ... or a rise from a learned low to a level that stayed above where the run began: after a low that is
#: not the first value, every value since some record >= divergence_factor x the low's level (the median of
#: the low and the values either side of it: the minimum of a noisy log is an extreme, its neighbours are
#: not) for at least divergence_short_min values, at least as many as the log took to reach its low (the
#: later a low, the more extreme a noisy log's low can be) and half the values since it (a level the loss
#: moved to, not a stretch of noise long after), the low's level at most STAYED_LEARNED x the start (the run
#: had learned), the values within JUMP_SPREAD x of each other and closer
#: than the step up from the low's level (a new level, not noise that strays as far as the step), and the
#: newest ones' median at or above the median of the log's first STAYED_START values (the run undid what
#: it learned).
#: Ours; fresh82's speech run: 0.734 -> 0.399 at epoch 8, then 0.48, 0.53, 0.60, 0.78 and ~0.84 for 28
#: epochs, read "no spikes" (the line's and the ranks' tests fail on a rise that then holds: Mann-Kendall z
#: 3.1 at most). Of 1,800 lognormal logs of 98 values (flat, and falling then flat; log-sd 0.05-0.8), none
#: is said (without the half-since and learned guards, 2 were: an early low, a late stretch of noise)
STAYED_START = 3
STAYED_LEARNED = 0.8
#: ... or a rise clear of the run's noise, which need not have stayed to the end nor undone what the run
#: learned: every value of a run of divergence_short_min in a row >= divergence_factor x the low's level
#: after a learned low (STAYED_LEARNED) reached after divergence_short_min values or more, else (a low the
#: run had not learned its way to) JUMP_STAYED x it, and settings.sigma (OLMo-core's 6 sigma) units of the
#: noise before the low above it (diff_sd of its log-values, at least EARLY_SD_FLOOR: a smooth descent's
#: steps are its trend, not noise), within JUMP_SPREAD x of each other and closer than the step up. A noisy
#: log's high stretch is its noise (log-sd 0.3: 1.5x is 1.4 sd), never 6 sd above its level. Ours; fresh89's
#: wav2vec2 CTC fine-tune: 11,383 -> 883 at step 2150, then 1163, 1473 ... 2397 at 2600 and above 1470 to
#: 2800 before it came back to 1061 (2.7x its low for 11 records), read "no spikes in 61 loss values" (each
#: value under 2x the median of the descent before it); fresh91's MMEngine detector, 1.76-1.84 for five
#: records, then 24.2 when its extra heads switch on and 17.8-21.5 to the end (10x), "no spikes in 15 loss
#: values". Of 4,200 generated logs of 29-98 values (lognormal flat, falling, and AR(1) falling; log-sd
#: 0.02-0.8), 16 more are said than before, all AR(1) wanders of log-sd 0.2-0.5 (a level that moved 1.5x
#: for 8 records), none of the 2,800 with independent noise
#: a loss whose first value is under this level has its spike floor scaled down by it (_delta; ours:
#: a cross-entropy starts at ln(classes) >= 0.69, the 0.05 floor was set for such losses)
FLOOR_LEVEL = 1.0
#: a rise under the spike floor is still a spike (the smooth-series rule) when it is >= SMOOTH_RATIO x the
#: median, >= the floor scaled to the loss's level (the floor x median / FLOOR_LEVEL) and >= settings.sigma (6)
#: of the window's log-loss noise (OLMo-core's 6 sigma): a loss that fell by decades (a PINN from 139 to 2e-5, a
#: modal GNN's 0.0009) keeps the first value's floor, so a 36x or 56x burst of a smooth series read "no spikes"
#: (fresh37, fresh40); the noise of a memorised per-batch loss near 0 keeps such bumps under 6 sigma (ours). 4x
#: (the first records' spike_early_ratio), not the seed rule's 2.5x: at 2.5x, a healthy U-Net CSV's 2.5x bump
#: near 0 warned (fresh16) and a PINN's earlier small bumps opened an incident that hid two labelled spikes
SMOOTH_RATIO = 4.0
#: ... and a loss whose baseline is near zero is back once within this share of the spike's excursion
#: above it (ours: a 36x burst of a regression loss that stays at 0.03 is 90% of its excursion: not back)
BACK_SHARE = 0.05
#: a baseline window whose sd of log-losses is this many times its robust spread (1.4826 x MAD) holds
#: outliers (a run's first records, an earlier blow-up that entered it): a value at the seed rule's
#: ratio (spike_factor) is then judged against the robust spread too (``_contaminated_z``), never a
#: smaller one (the 6-sigma rule keeps the window's sd: at 3x and for every ratio, per-batch losses with
#: heavy tails raised dozens of 1.3-2x warnings on 20 corpus logs; ours: a normal law's sd is its robust
#: spread, a Student t with 3 degrees of freedom's ~1.7x of it; fresh29's char-NER window, 3.1e8 among
#: 0.3s, far more)
CONTAMINATED = 5.0
CONTAMINATED_MIN = 20  # values a window needs for its MAD (ours: the label rule's median wants 10, a MAD more)
CTX_NEAR = 5  # the records just before the onset (and the onset) vs the older ones (ours)
LR_JUMP = 1.5  # LR above 1.5x its level before: a jump (as lr_schedule.JUMP_FACTOR; ours)
GN_SPIKE = 3.0  # grad norm >= 3x its level on the onset step (grad_spike_ratio)
GN_CLIMB = 1.5  # grad norm above 1.5x its level on the records before the onset (ours)
SCALE_DROP = 4.0  # loss scale down 4x (two halvings) around the onset: an fp16 overflow (ours)
SLOW_RECOVERY = 50  # steps: a recovery slower than this points at the optimizer state (ours)
#: a persistent data fault: the onset looked like bad data and the loss stays up while the
#: grad norm does not (the median of the grad norms from the DATA_SETTLE-th record after the
#: onset on is below GN_SPIKE x the level before it: no longer a spike): the model is
#: stable, what it is fed changed; optimizer-state trouble keeps the grad norm up (ours)
DATA_SETTLE = 3
DATA_GN = 8  # grad norms of the incident kept for that test
#: a spike inside an incident gone critical (folded in, no alert) that is this many times the largest
#: value said of the incident, and as many times the loss a record before it, gets one alert of its own
#: (ours: the critical alert says where the trouble began; a jump 56x past it later is news a rollback
#: needs; a blow-up's record-by-record climb is the incident itself)
PAGED_REALERT = 10.0
#: a signed objective (PPO's policy loss, a log-likelihood: it goes below 0) has no ratio
#: scale: a spike there is a rise above the median of the last ``window`` values by >= sigma
#: robust standard deviations (the window's interquartile range / IQR_SD, the IQR of a
#: normal law in sds) and by >= spike_min_delta (issue 26: DeepSpeed-Chat's actor loss
#: swinging to 2.2 against a median of 0.08 was not looked at); a warning, folded as the
#: grad-norm check folds its spikes (SPIKE_GAP records, PEAK_REALERT), no recovery test
IQR_SD = 1.349
#: a spike against the level the loss is at once an incident has gone critical (the sustained
#: excursion said, or the incident paged: divergence or no recovery): the critical alert said where
#: the trouble began, and the spike rule's baseline is the level before it, so a burst against the
#: new level was folded in, unsaid (issue 26's largest class of missed events: SB3 A2C / DQN and
#: Spinning Up PPO value losses bursting after a blow-up, fresh67's DQN whose TD loss jumps 2.7-4.1x
#: at every target-network sync after an incident opened at episode 11). The level is the median of
#: the last LEVEL_N values as they came (the labels' rule: 2x the median of the previous 50, spikes
#: in it), of those since the incident's onset only (the new level, not the climb to it), from
#: LEVEL_MIN of them on; and for ``window`` records after a paged incident came back, of those since
#: the return (the rolling baseline, rebuilt at the page, still holds the incident's level:
#: ``_level_ref``). A value spike_factor x it, spike_min_delta above it and spike_min_z units of the
#: window's noise above it (``diff_sd`` of its log values: robust to the level moving), in a jump
#: from the value before it of SIGMA_MIN_RATIO x at least and as many units of the spread of those
#: steps beyond their median step (a blow-up's steady climb, 5% a record, is the incident itself: its
#: steps are its trend) opens a burst: one warning a burst; not in a GAN's run (its losses burst as
#: its two models play: the labels' conventions call those ambiguous; fresh7's DCGAN, paged from a
#: first loss of 0.0008, said 272) (ours)
LEVEL_N = 50
#: values since the newest spike said that a later spike inside the same open incident must jump from
#: to be said (``_apart``; ours: RECOVERY_RECORDS, the records a recovery needs)
APART_RECORDS = 3
LEVEL_MIN = 20  # values the level needs (ours: the label rule's median wants 10; a quartile more)
CAUSES = {
    "data": "a bad batch",
    "optimizer": "optimizer state",
    "lr": "an LR change",
    "fp16": "fp16 overflow",
}


class _Incident:
    __slots__ = (
        "onset",
        "baseline",
        "peak",
        "peak_step",
        "spike_records",
        "ok_run",
        "state",
        "alert",
        "records",
        "high_run",
        "excursion",
        "buf",
        "meds",
        "cause",
        "evidence",
        "lr_jump",
        "end",
        "last_spike",
        "hist",
        "gn_ref",
        "gns",
        "persistent",
        "noise_hi",
        "alerted",
        "since",
        "said_since",
        "said_at",
        "noisy",
        "window",
        "noise_sd",
        "n0",
    )

    def __init__(self, onset: int, baseline: float, value: float) -> None:
        self.onset = onset
        self.baseline = baseline
        self.peak = value
        self.peak_step = onset
        self.spike_records = 1
        self.ok_run = 0
        self.state = "open"  # open / recovered / failed / diverged / damaged
        self.alert: Alert | None = None  # the onset alert, updated when the spike resolves
        self.records = 1  # records since the onset, the onset included
        self.high_run = int(value > SUSTAIN_FACTOR * baseline)  # consecutive records above 2x baseline
        self.excursion: int | None = None  # step of the sustained-excursion alert
        self.buf: list[float] = []  # the current block of BLOCK records
        self.meds: list[float] = []  # medians of the last blocks (at most 3)
        self.cause: str | None = None  # data / optimizer / lr / fp16 (None: not told apart)
        self.evidence = ""
        self.lr_jump: tuple[float, float, int] | None = None  # (LR before, LR after, step)
        self.end: int | None = None  # step of the resolution
        self.last_spike = onset
        self.hist: list[float] = [value]  # the last SUSTAIN_RECORDS values since the onset
        self.gn_ref: float | None = None  # the grad norm's level before the onset
        self.gns: list[float] = []  # grad norms since the onset (the first DATA_GN, then the last ones)
        self.persistent = False  # cause "data": the data changed from the onset on (not one bad batch)
        self.noise_hi = baseline  # the pre-spike window's upper quartile (_back_by_median)
        self.alerted = value  # the largest value an alert said for this incident (PEAK_REALERT)
        self.since: list[float] = []  # the last RECOVERY_RECORDS values since the newest spiking record
        #: the values since the newest spike an alert said (not it; the last LEVEL_N: ``_apart``)
        self.said_since: deque[float] = deque(maxlen=LEVEL_N)
        self.said_at = onset  # the step of that spike
        self.noisy = False  # the pre-spike window's spread is noise, not a descent (NOISE_SHARE)
        self.noise_sd = 0.0  # ... and then its detrended sd of log-loss (_back_by_median)
        self.window = baseline  # the delayed window's median at the onset (the baseline may be LOCAL's)
        self.n0 = 0  # the detector's record count at the onset (LEVEL_N)

    def level(self) -> float:
        """The level the excursion rule doubles: the baseline, or the pre-spike window's upper
        quartile when that window is noise and the quartile is higher (settings.recovery_factor)."""
        return max(self.baseline, self.noise_hi) if self.noisy else self.baseline

    def resolve(self, moot: set) -> None:
        """The conditional rollback of the onset alert is moot once the spike
        recovered (nothing to do) or failed (the critical alert carries it). The
        alert itself is never changed (it was said already): its key is noted and
        ``LossSpikeDetector.view`` leaves that action out of the report's view."""
        if self.alert is not None and self.alert.key:
            moot.add(self.alert.key)


class LossSpikeDetector(Detector):
    id = "loss_spike"
    title = "Loss Spike Detection"
    label = "Loss spike"
    short = "spike"
    column = ("spk", "s")
    core = True
    metric = "loss"
    order = 10
    urgency = 40

    def __init__(self, settings, state, part: bool = False) -> None:
        super().__init__(settings, state)
        #: the loss terms beside the objective, each under this rule (components.py); a
        #: term's own detector (``part``) has none
        self.parts = None if part else Components(type(self), settings, state)
        self._in_frame = False
        self.unit = StepUnit(settings)  # a step of the log is an epoch: one record back is a whole epoch (_back_since)
        #: the loss went below 0: a signed objective (PPO's policy loss, a log-likelihood),
        #: not on a ratio scale, so the ratio rules (spike, divergence) stay silent (ours)
        self.signed = False
        self._sig = RollingMedian(settings.window)  # a signed objective's window (its spikes left out)
        self.signed_spikes: list[list] = []  # [onset step, peak, peak step, median, largest rise said]
        self._sig_last: int | None = None  # self.n at the newest signed spike
        #: a reinforcement-learning run (fields.rl_key): judged by its reward, so its
        #: findings are warnings (settings.rl_loss_fails)
        self.rl = False
        self.rl_note = RL_NOTE  # why (RL_NOTE, or GAN_NOTE for an adversarial run)
        self._kind = ObjectiveKind()  # an RL run's or a GAN's objective
        #: onset alerts whose "if it does not recover" action is moot (the incident resolved)
        self.moot_keys: set[str] = set()
        #: onset alerts whose "skip the batch" action is moot (not a bad batch after all)
        self.cause_moot: set[str] = set()
        self._revised: list[str] = []  # moot keys not yet reported by ``revised``
        base_len = max(5, settings.window - settings.spike_exclude_recent)
        self._delay = Delay(settings.spike_exclude_recent)
        self._med = RollingMedian(base_len)
        self._logm = RollingMoments(base_len)
        self._recent = RollingMedian(settings.window)  # undelayed, for divergence
        self._lvl: deque = deque(maxlen=LEVEL_N)  # the last LEVEL_N values as they came (LEVEL_N)
        self._lvl_hit: int | None = None  # self.n at the last record over that level
        self._lvl_after: tuple[int, _Incident] | None = None  # (self.n at the return, the paged incident) (LEVEL_N)
        self._first: float | None = None  # the first loss > 0 (the spike floor's scale: _delta)
        self._best_med: float | None = None
        #: the middle half's mean (stats.iqm_of) of the window whose median was the best (_middle_moved)
        self._best_iqm: float | None = None
        self._best_step: int | None = None
        self._incident: _Incident | None = None
        self.incidents: list[_Incident] = []
        self.n = 0
        self.recovered = 0
        self.failed = 0
        self._last: StepRecord | None = None
        self._before: float | None = None
        self._diverged_at: int | None = None
        self._diverged_first: int | None = None  # the onset of the first divergence (the verdict says it)
        self._diverged_best: float | None = None  # the rolling median's best before it (NEW_LOWS)
        self._loc: deque = deque(maxlen=LOCAL)  # the last values fed to the baseline, undelayed
        #: (step, lr, grad norm, loss scale) of the last CTX records with a finite loss
        self._ctx: deque = deque(maxlen=CTX)
        self._sched = SchedulePeak()  # the LR schedule's peak, for "lower the peak LR" (a jump is not it)
        #: the incident that went critical and turned into divergence or did not recover,
        #: until the loss is back near its baseline: it is still the same incident, so
        #: spikes in it are folded in and divergence is not said again (one page each)
        self._paged: _Incident | None = None
        self._paged_ok = 0  # records in a row back under recovery_factor x its baseline
        #: a log too short for the rolling median's window: a line through its log-losses
        #: (settings.divergence_short_*), the objective's only; None once the window is full
        self._climb: RunningLine | None = None
        self._climb_mk: MannKendall | None = None  # ... and its rank test (heavy-tailed per-batch noise)
        self._climb_low: tuple[float, int] | None = None  # the lowest loss so far (value, step)
        self._climb_last: deque = deque(maxlen=CLIMB_LAST)
        #: (largest LR so far, records since it last rose) of the stretch
        self._climb_lr: tuple[float, int] | None = None
        self._climb_reset()
        #: a slow sustained climb below the divergence factor (creep.py), the objective's only
        self._creep: Creep | None = None if part else Creep()
        self.creep: Climb | None = None  # the climb said (the verdict says it) ...
        self.creep_div = False  # ... at the divergence factor (a FAIL)
        self._creep_pending: list[Alert] = []  # said by a frame's bulk rows, out with the next row

    # ------------------------------------------------------------------ update
    def update(self, rec: StepRecord) -> list[Alert]:
        self.unit.see(rec.step, rec.epoch)
        if rec.extra and not self.rl:
            self.see_keys(rec.extra)
        out = self._update(rec)
        if self._creep_pending:  # (said by the bulk rows before this one: they come first)
            out, self._creep_pending = self._creep_pending + out, []
        if rec.extra and self.parts is not None and not self._in_frame:
            more = self.parts.update(rec)
            if more:
                out = out + more
        return self._rl_cap(out) if self.rl and out else out

    def see_keys(self, extra) -> None:
        """Is this a reinforcement-learning run, or a GAN's? (fields.ObjectiveKind)"""
        kind = self._kind.see(extra)
        if kind is not None and not self.settings.rl_loss_fails:
            self.rl, self.rl_note = True, RL_NOTE if kind == "rl" else GAN_NOTE

    def _rl_cap(self, alerts: list[Alert]) -> list[Alert]:
        """An RL or GAN run's critical findings as warnings (settings.rl_loss_fails)."""
        note = self.rl_note
        return [
            replace(a, severity=Severity.WARNING, message=f"{a.message} {note[0].upper()}{note[1:]}.")
            if a.severity == Severity.CRITICAL
            else a
            for a in alerts
        ]

    def after_frame(self, fr) -> list[Alert]:
        self._in_frame = False
        out, self._creep_pending = self._creep_pending, []
        if self.rl and out:
            out = self._rl_cap(out)
        if fr.extra and self.parts is not None:
            return out + self.parts.update_frame(fr)
        return out

    def _update(self, rec: StepRecord) -> list[Alert]:
        x = rec.loss
        if x is None or not math.isfinite(x):
            return []
        self.n += 1
        last = self._last
        self._before = last.loss if last is not None else None  # (the loss a record before: PAGED_REALERT's jump)
        self._last = rec
        if self._first is None and x > 0:
            self._first = x
        if x < 0 or self.signed:
            if not self.signed:  # the window so far is the signed rule's first baseline
                self.signed = True
                self._climb = None  # (no ratio scale)
                self._sig.extend(list(self._recent.values()))
            return self._signed_spike(rec, x)
        self._sched.update(rec.lr)
        pg = self._paged
        if pg is not None:
            if x > pg.peak:
                pg.peak, pg.peak_step = x, rec.step
            self._paged_ok = self._paged_ok + 1 if x <= self._back_bar(pg.baseline) else 0
            if self._paged_ok >= RECOVERY_RECORDS:
                # back: the rolling baseline still holds the incident's level for a window; the level rule
                # (LEVEL_N) judges the values since the loss came back until it has refilled
                self._lvl_after = (self.n - RECOVERY_RECORDS, pg)
                self._paged, self._paged_ok = None, 0
        out: list[Alert] = []
        med = self._med.get()
        is_spike = False
        early = self.n <= LOCAL_WINDOWS * self.settings.window
        if med is not None and len(self._med) >= self.settings.min_baseline:
            base = _local_base(med, self._loc, early)
            is_spike, ratio, z = self._test(x, base, self._recent.values() if early else None)
            if is_spike:
                out += self._on_spike(rec, x, base, ratio, z)
        elif early and self.n > EARLY_MIN and len(self._loc) >= LOCAL:
            base = _median(self._loc)  # before the baseline window has filled (see EARLY_K)
            is_spike, ratio, z = self._test(x, base, self._recent.values(), window=False)
            if is_spike:
                out += self._on_spike(rec, x, base, ratio, z)
        elif self.settings.spike_early_min < self.n <= EARLY_MIN and len(self._recent) >= self.settings.spike_early_min:
            prev = list(self._recent.values())  # every value before this one (n <= EARLY_MIN < EARLY_K)
            base = _median(prev)
            is_spike, ratio, z = self._early_test(x, base, prev)
            if is_spike:
                out += self._on_spike(rec, x, base, ratio, z)
        elif BLOWUP_MIN <= self.n <= self.settings.spike_early_min and len(self._recent) >= BLOWUP_MIN - 1:
            prev = list(self._recent.values())
            base = _median(prev)
            top = max(prev)
            if top > 0 and x >= BLOWUP_RATIO * top and x - top >= self._delta():
                is_spike = True
                out += self._on_spike(rec, x, base, x / base, math.inf)
        inc = self._incident
        lv = self._level_ref()
        if lv is not None:
            out += self._level_spike(rec, x, *lv, said=bool(out))
        if inc is not None:
            out += self._track(inc, rec, x, is_spike)
        # spiking values do not enter the baseline (ZClip feeds the clipped value)
        fed = (med if med is not None else base) if is_spike else x
        self._loc.append(base if is_spike else x)
        out_val = self._delay.push(fed)
        if out_val is not None:
            self._med.update(out_val)
            if out_val > 0:
                self._logm.update(math.log(out_val))
        short = self._climb is not None and len(self._recent) < self.settings.window
        self._recent.update(x)
        self._lvl.append(x)
        self._ctx.append((rec.step, _num(rec.lr), _num(rec.grad_norm), _num(rec.loss_scale)))
        out += self._divergence(rec)
        if short:
            out += self._climbing(rec, x)
        if self._creep is not None:
            hit = self._creep.push(rec.step, x, _num(rec.lr))
            if hit is not None:
                out += self._creep_alert(hit)
        return out

    # ------------------------------------------------------------------ frames
    # Columnar hooks (the driver is Detector.update_frame): stretches with no spike
    # candidate and no divergence are taken in bulk (``_bulk`` stops at the first row
    # that could raise something); a real spike and its incident go record by record
    # (the screen flags every row while an incident is open). Non-finite losses never
    # touch this check.
    def prepare(self, fr):
        # (the rows the driver feeds to update: their loss terms go by frame, after_frame)
        self._in_frame = True
        if fr.extra and not self.rl:
            self.see_keys(fr.extra)  # (alerts come from update, which caps them)
        loss = fr.get("loss")
        if loss is None:
            return None
        if self.signed or (loss < 0).any():
            return ROWS  # (a signed objective: its records only count)
        with np.errstate(invalid="ignore", over="ignore"):
            total = loss.sum()
        if math.isfinite(total):  # every loss finite (a NaN or an Inf makes the sum one; so may a huge sum)
            return None
        ok = np.isfinite(loss)
        return None if ok.all() else np.flatnonzero(ok)  # frame index of each finite loss

    def screen(self, fr, rows, a: int, b: int) -> np.ndarray:
        if self._incident is not None:  # an open spike: record by record until it resolves
            return np.arange(a, b)
        if self._climb is not None and len(self._recent) < self.settings.window:
            # a short log's climb (_climbing): its first ``window`` values record by record
            return np.arange(a, min(b, a + self.settings.window - len(self._recent)))
        return NONE

    def bulk(self, fr, rows, a: int, q: int) -> int | None:
        loss = fr.get("loss")
        ep = fr.get("epoch")
        if ep is not None:
            self.unit.see_frame(fr.step[a:q], ep[a:q])  # (rows update takes later see them again: harmless)
        if loss is None:
            return None
        idx = np.arange(a, q) if rows is None else rows[slice(*np.searchsorted(rows, (a, q)))]
        if not idx.size:
            return None
        stop = self._bulk(fr, idx, loss[idx] if rows is not None else loss[a:q])
        return None if stop == idx.size else int(idx[stop])

    def _bulk(self, fr, idx, xs) -> int:
        """Take finite losses ``xs`` (frame rows ``idx``) in bulk up to the first whose
        record could raise something (a spike or divergence); commit the state for
        the rows before it and return its position (len when none)."""
        s = self.settings
        fed = xs
        m = fed.size
        if self._first is None:
            pos = fed[fed > 0]
            if pos.size:
                self._first = float(pos[0])
        nd, held = self._delay.n, len(self._delay)
        # the delay passes values on unchanged while nothing spikes
        outs = self._delay.outputs(fed)
        nout = np.maximum(0, held + np.arange(m) - nd)  # values out of the delay before row j
        base = np.fromiter(self._med.values(), float, len(self._med))
        bseq = np.concatenate((base, outs))
        t = base.size + nout - 1  # index in bseq of the newest baseline value row j sees
        count = np.minimum(self._med.size, t + 1)
        lb = (
            bn.move_min(bseq, min(self._med.size, bseq.size), min_count=1)[np.maximum(t, 0)]
            if bseq.size
            else np.zeros(m)
        )
        # the local baseline (the last LOCAL values, undelayed) bounds it too
        L0 = len(self._loc)
        lseq = np.concatenate((np.fromiter(self._loc, float, L0), fed))
        lpos = np.arange(m) + L0 - 1  # the newest local value row j sees
        lmin = bn.move_min(lseq, min(LOCAL, lseq.size), min_count=1)[np.maximum(lpos, 0)]
        lmin[lpos < 0] = np.inf
        lb = np.minimum(lb, lmin)
        # the window's minimum bounds its median from below: a row below 1.3x the
        # minimum or within spike_min_delta of it cannot pass the spike test
        delta = self._delta()
        over = fed - lb >= delta
        if self._smooth_ok():
            # (under the floor, a row SMOOTH_RATIO x its window's minimum and the floor x that level above it may
            # still be a smooth series' spike: only those, so a noisy loss near 0 costs no more candidates)
            over |= (
                (fed >= SMOOTH_RATIO * lb)
                & (lb < FLOOR_LEVEL)
                & (fed - lb >= delta * np.maximum(lb, 0.0) / FLOOR_LEVEL)
            )
        cand = (count >= s.min_baseline) & (t >= 0) & (fed >= SIGMA_MIN_RATIO * lb) & over
        stop = m
        # before the baseline window has filled, a row 1.3x over its last LOCAL values
        # goes through update() (the early test; see EARLY_K)
        early_end = LOCAL_WINDOWS * s.window
        e = min(m, early_end - self.n)  # rows still in the initial descent
        if e > 0 and len(self._med) < s.min_baseline:
            nth = self.n + 1 + np.arange(e)  # self.n as update() sees it at each row
            pre = np.flatnonzero(
                (count[:e] < s.min_baseline)
                & (
                    (
                        (nth > EARLY_MIN)
                        & (lpos[:e] >= LOCAL - 1)
                        & (fed[:e] >= SIGMA_MIN_RATIO * lmin[:e])
                        & (fed[:e] - lmin[:e] >= delta)
                    )
                    | ((nth > s.spike_early_min) & (nth <= EARLY_MIN))  # (the first records' test: a few rows)
                    | ((nth >= BLOWUP_MIN) & (nth <= s.spike_early_min))  # (... and the blow-up test)
                )
            )
            if pre.size:
                stop = int(pre[0])
        for j in np.flatnonzero(cand[:stop]).tolist():
            win = sorted(bseq[max(0, t[j] - self._med.size + 1) : t[j] + 1].tolist())
            k = len(win)
            med = win[k // 2] if k % 2 else 0.5 * (win[k // 2 - 1] + win[k // 2])
            early = self.n + j + 1 <= early_end
            loc_base = _local_base(med, lseq[max(0, j + L0 - LOCAL) : j + L0].tolist(), early)
            recent = (list(self._recent.values()) + fed[max(0, j - EARLY_K) : j].tolist()) if early else None
            if self._test_window(float(fed[j]), loc_base, bseq, t[j], recent):
                stop = j
                break
        # divergence: the exact rolling median of the undelayed window
        div_stop, best = self._divergence_scan(fr, idx, xs, stop)
        stop = min(stop, div_stop)
        pg = self._paged
        if pg is not None:  # the row at which the paged incident recovers goes through update()
            ok = fed <= self._back_bar(pg.baseline)
            bad = np.flatnonzero(~ok)
            # length of the run of ok rows ending at each row (carrying the one before)
            last_bad = np.full(m, -1, dtype=np.int64)
            last_bad[bad] = bad
            last_bad = np.maximum.accumulate(last_bad)
            run = np.arange(m) - last_bad + np.where(last_bad < 0, self._paged_ok, 0)
            hit = np.flatnonzero(run >= RECOVERY_RECORDS)
            if hit.size:
                stop = min(stop, int(hit[0]))
        if self._lvl_after is not None and self.n - self._lvl_after[0] > self.settings.window:
            self._lvl_after = None  # (its window is over: _level_ref)
        if pg is not None or self._lvl_after is not None:
            # ... and so does a row that may spike against the level since (LEVEL_N): the minimum of the
            # last LEVEL_N values bounds their median (and that of any tail of them) from below
            L0 = len(self._lvl)
            vseq = np.concatenate((np.fromiter(self._lvl, float, L0), fed))
            vpos = np.arange(m) + L0 - 1  # the newest value before row j
            vmin = bn.move_min(vseq, min(LEVEL_N, vseq.size), min_count=1)[np.maximum(vpos, 0)]
            vmin[vpos < 0] = np.inf
            lv = np.flatnonzero(fed >= s.spike_factor * vmin)
            if lv.size:
                stop = min(stop, int(lv[0]))
        # commit rows 0 .. stop-1 as if fed one by one
        if stop:
            if pg is not None:
                top = int(np.argmax(fed[:stop]))
                if fed[top] > pg.peak:
                    pg.peak, pg.peak_step = float(fed[top]), int(fr.step[idx[top]])
                self._paged_ok = int(run[stop - 1])
            lr = fr.get("lr")
            if lr is not None:
                a, b = int(idx[0]), int(idx[stop - 1]) + 1
                self._sched.update_many(lr[a:b] if b - a == stop else lr[idx[:stop]])
            self.n += stop
            prev = self._last
            self._last = fr.record(int(idx[stop - 1]))
            self._before = float(fed[stop - 2]) if stop >= 2 else (prev.loss if prev is not None else None)
            k_out = max(0, held + stop - nd)  # values out of the delay after these rows
            self._delay.extend(fed[:stop])
            self._med.extend(outs[:k_out])
            pos = outs[:k_out]
            self._logm.extend(list(map(math.log, pos[pos > 0][-self._logm.size :].tolist())))
            self._recent.extend(fed[:stop])
            self._lvl.extend(fed[max(0, stop - LEVEL_N) : stop].tolist())
            self._loc.extend(fed[max(0, stop - LOCAL) : stop].tolist())
            self._ctx.extend(_ctx_rows(fr, idx[max(0, stop - CTX) : stop]))
            if best is not None:
                self._best_med, self._best_step, self._best_iqm = best
            if self._creep is not None:
                rows = idx[:stop]
                got = self._creep.push_many(fr.step[rows], fed[:stop], lr[rows] if lr is not None else None)
                if got is not None:
                    self._creep_pending += self._creep_alert(got)
        return stop

    def _test_window(self, x: float, med: float, bseq, t: int, recent=None) -> bool:
        """The spike test of ``_test`` for a candidate row, with the log-moments
        window rebuilt from the baseline sequence up to index ``t`` (and ``recent``:
        the undelayed values before the row, in the initial descent)."""
        s = self.settings
        small = self._floor_gate(x, med)
        if small is None:
            return False
        ratio = x / med
        n_old = len(self._med)
        new = bseq[n_old : t + 1]
        mean, std = self._logm.mean_std_after([math.log(v) for v in new[new > 0][-self._logm.size :].tolist()])
        z = (math.log(x) - mean) / std if std > 1e-12 else (math.inf if ratio > 1 else 0.0)
        if recent is not None:
            sd = _detrended_sd(recent)
            if sd is not None:
                z = max(z, math.log(ratio) / sd if sd > 1e-12 else math.inf)
        if ratio >= s.spike_factor and z < s.spike_min_z:
            zr = _contaminated_z(x, bseq[max(0, t - self._med.size + 1) : t + 1].tolist(), std)
            z = max(z, zr) if zr is not None else z
        if small:
            return ratio >= SMOOTH_RATIO and z >= s.sigma
        return (ratio >= s.spike_factor and z >= s.spike_min_z) or (z >= s.sigma and ratio >= SIGMA_MIN_RATIO)

    def _middle_moved(self) -> bool:
        """The level rose with the rolling median: the window's interquartile mean (stats.iqm_of)
        ``diverged`` from the best window's too (unknown: True). A loss of two modes mixed (per-case
        losses with a batch of 1, some cases stuck at ~0.52 while the others fall to ~0.2) has a median
        that jumps from one mode to the other as their shares cross a half (fresh85's MONAI spleen run:
        "diverging" 1.6x and 1.5x on a healthy run whose epoch means rose 29%); the middle half of the
        window moves with the shares. A loss that climbs moves both; one that shifts to a higher level
        is said once the new level holds the middle of the window (a 1.5x shift: ~15 records after its
        median crossed, in a window of 100). Ours."""
        q, qb = self._recent.iqm(), self._best_iqm
        return q is None or qb is None or bool(diverged(q, qb, self.settings))

    def _divergence_scan(self, fr, idx, xs, stop: int):
        """First row (before ``stop``) where ``_divergence`` would
        fire, and the best rolling median (value, step) after the rows before it."""
        if self._paged is not None or stop == 0:
            return stop, None
        s = self.settings
        # the rows from v0 on see a full window: its exact median after each
        v0 = max(0, self._recent.size - len(self._recent) - 1)
        if v0 >= stop:
            return stop, None
        c = self._recent.medians_after(xs[:stop])[v0:]
        if self._diverged_at is not None:  # the row at which the loss is back goes through update()
            b0 = self._best_med
            if b0 is None:
                return stop, None
            hits = np.flatnonzero(back_from_divergence(c, b0, s))
            return (v0 + int(hits[0]) if hits.size else stop), None
        b0 = self._best_med
        prev = np.empty(c.size)
        prev[0] = np.inf if b0 is None else b0
        if c.size > 1:
            prev[1:] = np.minimum.accumulate(c[:-1])
            if b0 is not None:
                np.minimum(prev, b0, out=prev)
        upd = c < prev
        fire = ~upd & diverged(c, prev, s)
        hits = np.flatnonzero(fire)
        end = int(hits[0]) if hits.size else c.size  # rows of c taken in bulk
        stop_at = v0 + end if hits.size else stop
        best = None
        u = np.flatnonzero(upd[:end])
        if u.size:
            j = int(u[-1])
            # (the best window's middle half: the window after row v0 + j, as update() would see it)
            L0 = len(self._recent)
            seq = np.concatenate((np.fromiter(self._recent.values(), float, L0), xs[: v0 + j + 1]))
            best = (
                float(c[j]),
                int(fr.step[idx[v0 + j]]),
                iqm_of(np.sort(seq[max(0, seq.size - self._recent.size) :])),
            )
        return stop_at, best

    def _test(self, x: float, med: float, recent=None, window: bool = True) -> tuple[bool, float, float]:
        small = self._floor_gate(x, med)  # (most records stop here, no log())
        if small is None:
            return False, 0.0, 0.0
        ratio = x / med
        z = -math.inf
        if window:
            mean, std = self._logm.moments()
            z = (math.log(x) - mean) / std if std > 1e-12 else (math.inf if ratio > 1 else 0.0)
        if recent is not None:  # the initial descent: against a detrended spread too (see EARLY_K)
            sd = _detrended_sd(recent)
            if sd is not None:
                z = max(z, math.log(ratio) / sd if sd > 1e-12 else math.inf)
        if window and ratio >= self.settings.spike_factor and z < self.settings.spike_min_z:
            zr = _contaminated_z(x, self._med.values(), std)  # (the seed rule's z only: see CONTAMINATED)
            z = max(z, zr) if zr is not None else z
        if small:  # (under the floor: only a jump far out of a smooth series' own noise, SMOOTH_RATIO)
            return ratio >= SMOOTH_RATIO and z >= self.settings.sigma, ratio, z
        seed = ratio >= self.settings.spike_factor and z >= self.settings.spike_min_z
        sigma = z >= self.settings.sigma and ratio >= SIGMA_MIN_RATIO
        return (seed or sigma), ratio, z

    def _early_test(self, x: float, med: float, prev: list) -> tuple[bool, float, float]:
        """The test of the first EARLY_MIN records (settings.spike_early_*): >= spike_early_ratio
        x the median of every earlier value and >= sigma noise units above it in log units."""
        s = self.settings
        if med <= 0 or x < s.spike_early_ratio * med or x - med < self._delta():
            return False, 0.0, 0.0
        logs = [math.log(v) for v in prev if v > 0]
        sd = max(diff_sd(logs) if len(logs) >= 3 else 0.0, EARLY_SD_FLOOR)
        ratio = x / med
        z = math.log(ratio) / sd
        return z >= s.sigma, ratio, z

    def _on_spike(self, rec, x, med, ratio, z) -> list[Alert]:
        pg = self._paged
        if pg is not None:  # still the incident that went critical: folded in ...
            b = self._before
            if x >= PAGED_REALERT * pg.alerted and b is not None and 0 < b and x >= PAGED_REALERT * b:
                # ... but a spike far above anything said of it, in one jump from the record before, is said
                # where it is (fresh56's retina PINN: a 3,568 at step 39149 inside the climb after a 63.4 burst
                # at 37299, never located); a blow-up's climb, record by record, stays folded
                pg.alerted = x
                return [self._grew(pg, rec, x, z)]
            return []
        inc = self._incident
        if inc is not None:
            back, prev = self._back_since(inc, x), inc.last_spike
            inc.spike_records += 1
            inc.ok_run = 0
            inc.last_spike = rec.step
            if x > inc.peak:
                inc.peak, inc.peak_step = x, rec.step
            if inc.excursion is not None:
                return []
            if self._grew_past(inc, x):
                # a far larger spike than the one said: said too (not once the incident is critical)
                inc.alerted = x
                return [self._grew(inc, rec, x, z)]
            if back:  # the loss had come back to its level: a spike of its own, in the same incident
                return [self._again(inc, rec, x, z, prev)]
            level = self._apart(inc, x)
            if level is not None:  # ... or had held a level far below this value since the last one said
                return [self._apart_alert(inc, rec, x, z, level)]
            return []
        inc = self._incident = _Incident(rec.step, med, x)
        inc.window = max(med, self._med.get() or med)
        inc.n0 = self.n
        mean, std = self._logm.moments()
        if len(self._logm) >= SUSTAIN_RECORDS and math.isfinite(mean) and math.isfinite(std):
            inc.noise_hi = math.exp(min(mean + UPPER_QUARTILE_Z * std, 700.0))
            sd = _detrended_sd(self._recent.values())
            # the window's spread is its noise, not a descent (its detrended spread is most of it)
            inc.noisy = sd is not None and sd >= NOISE_SHARE * std
            if inc.noisy and sd is not None:
                inc.noise_sd = sd
        self.incidents.append(inc)
        self._classify(inc, rec)
        zs = f", {z:.1f} sigma" if math.isfinite(z) else ""
        cause = f" {self._cause_text(inc)}" if inc.evidence else ""
        inc.alert = Alert(
            self.id,
            Severity.WARNING,
            rec.step,
            f"Loss spike at step {rec.step}: {fmt(x)} vs baseline {fmt(med)} ({_times(ratio)}x{zs}).{cause} "
            f"Spikes that recover are normal; watching for recovery within {self.settings.recovery_steps} steps.",
            value=x,
            baseline=med,
            actions=[
                *self._cause_actions(inc, rec.step)[:1],
                advice.clip(self.state),
                f"{IF_NOT_RECOVERED}{advice.rollback(self.state, rec.step)}",
            ],
            key=f"loss_spike:{rec.step}",
            cause=inc.cause,
        )
        return [inc.alert]

    def _signed_spike(self, rec: StepRecord, x: float) -> list[Alert]:
        """The spike rule of a signed objective (see IQR_SD): on differences from the
        window's median, in robust sds of the window; a spike stays out of the window."""
        w, s = self._sig, self.settings
        if len(w) >= s.min_baseline:
            med, q3, q1 = w.get(), w.quantile(0.75), w.quantile(0.25)
            assert med is not None and q3 is not None and q1 is not None  # (the window is not empty)
            sd = (q3 - q1) / IQR_SD
            rise = x - med
            if rise >= s.spike_min_delta and sd > 0 and rise >= s.sigma * sd:
                last, self._sig_last = self._sig_last, self.n
                z = rise / sd
                if last is not None and self.n - last <= SPIKE_GAP:  # the same incident
                    inc = self.signed_spikes[-1]
                    if x > inc[1]:
                        inc[1], inc[2] = x, rec.step
                    if rise < PEAK_REALERT * inc[4]:
                        return []
                    inc[4] = rise
                    what = f"Loss spike incident since step {inc[0]} grew"
                else:
                    self.signed_spikes.append([rec.step, x, rec.step, med, rise])
                    what = f"Loss spike at step {rec.step}"
                return [
                    Alert(
                        self.id,
                        Severity.WARNING,
                        rec.step,
                        f"{what}: {fmt(x)} vs median {fmt(med)} of the last {len(w)} values (+{fmt(rise)}, "
                        f"{z:.1f} robust sd; the loss is signed, so it is judged on differences, not ratios).",
                        value=x,
                        baseline=med,
                        actions=[
                            advice.clip(self.state),
                            f"Inspect the batch (the rollouts and rewards) at step {rec.step}.",
                        ],
                        key=f"loss_spike:{rec.step}",
                    )
                ]
        w.update(x)
        return []

    def _level_ref(self) -> tuple[_Incident, int, bool] | None:
        """(incident, record count from which the level is taken, after it) while LEVEL_N's rule judges: an
        incident gone critical (paged, or its excursion said: the values since its onset), or a window of
        records after a paged one came back (the values since: the rolling baseline still holds the
        incident's level, fresh64's A2C value loss back from 1e5 to 10-800 with 28-46x spikes unsaid)."""
        if self._paged is not None:
            return self._paged, self._paged.n0, False
        inc = self._incident
        if inc is not None and inc.excursion is not None:
            return inc, inc.n0, False
        after = self._lvl_after
        if after is not None:
            if self.n - after[0] <= self.settings.window:
                return after[1], after[0], True
            self._lvl_after = None
        return None

    def _level_spike(self, rec: StepRecord, x: float, inc: _Incident, n0: int, after: bool, said: bool) -> list[Alert]:
        """A spike against the level the loss is at inside an incident gone critical, or just after a paged one
        (LEVEL_N): one warning for the first record of a burst over it; nothing when this record said something."""
        s = self.settings
        if self.rl_note is GAN_NOTE:
            return []  # (a GAN's losses burst as its two models play: adversarial, not a fault; the labels' too)
        k = min(len(self._lvl), self.n - n0)  # the values since the onset (or the return): the level it is at now
        if k < LEVEL_MIN:
            return []
        w = list(islice(self._lvl, len(self._lvl) - k, None))
        med = _median(w)
        if not med > 0 or x < s.spike_factor * med or x - med < self._delta():
            return []
        logs = [math.log(v) for v in w if v > 0]
        if len(logs) < LEVEL_MIN:
            return []
        # the noise of the log values' steps, about their median step (a steady climb's steps are its trend):
        # the value must stand spike_min_z of it (as ``diff_sd``) above the level, and jump as far from the value
        # before it
        mid, spread = diff_spread(logs)
        z = math.log(x / med) / spread * math.sqrt(2.0) if spread > 1e-12 else math.inf
        jump = (math.log(x) - logs[-1] - mid) / spread if spread > 1e-12 else math.inf
        if z < s.spike_min_z or jump < s.spike_min_z or x < SIGMA_MIN_RATIO * math.exp(logs[-1]):
            return []
        prev, self._lvl_hit = self._lvl_hit, self.n
        if said or prev == self.n - 1:  # (the burst's first record says it)
            return []
        zs = f", {z:.1f} robust sd" if math.isfinite(z) else ""
        return [
            Alert(
                self.id,
                Severity.WARNING,
                rec.step,
                f"Loss spike at step {rec.step}: {fmt(x)} vs {fmt(med)}, the median of the last {len(w)} values "
                f"({_times(x / med)}x{zs}), "
                + (
                    f"after the loss came back from the incident since step {inc.onset} (the baseline still holds "
                    "the incident's level: spikes against the level since are said)."
                    if after
                    else f"inside the incident since step {inc.onset} (the loss is at a new level: spikes against it "
                    "are said)."
                ),
                value=x,
                baseline=med,
                actions=[advice.clip(self.state)],
                key=f"loss_spike_level:{rec.step}",
                cause=inc.cause,
            )
        ]

    def _again(self, inc: _Incident, rec: StepRecord, x: float, z: float, prev: int) -> Alert:
        """A spike inside the open incident after the loss came back to its level since the
        previous spiking record (``_back_since``): said, though the incident (its recovery
        and damage tests) goes on (issue 26: a per-batch loss, spikes at 3649 and 3849 each
        back at the next record, the second folded into the first, unsaid)."""
        return self._inside(
            inc,
            rec,
            x,
            f"Loss spike at step {rec.step}: {fmt(x)} vs baseline "
            f"{fmt(inc.baseline)} ({_ratio(x, inc.baseline, z)}), after the loss had come back to "
            f"its level since the spike at step {prev} (incident since step {inc.onset}).",
            f"loss_spike_again:{rec.step}",
        )

    def _apart(self, inc: _Incident, x: float) -> float | None:
        """A spike inside the open incident that jumps from the level the loss has held since the newest
        spike said (APART_RECORDS values at least): spike_factor x their median and PEAK_REALERT x their
        largest; that level (their median), else None. A loss whose first spike left it at a higher level (not back: ``_back_since``) folded
        every later spike into that one (fresh116's offline-RL critic: 25.9x at step 46, the loss at
        ~1.7x its baseline since, 12.8x at 56 and 24.5x at 68 unsaid)."""
        h = inc.said_since
        if len(h) < APART_RECORDS or self.rl_note is GAN_NOTE:
            return None  # (a GAN's losses burst as its two models play: as ``_level_spike``)
        level = _median(list(h))
        return level if x >= self.settings.spike_factor * level and x >= PEAK_REALERT * max(h) else None

    def _apart_alert(self, inc: _Incident, rec: StepRecord, x: float, z: float, level: float) -> Alert:
        """The alert of ``_apart``'s spike, ``level`` the one it jumped from."""
        return self._inside(
            inc,
            rec,
            x,
            f"Loss spike at step {rec.step}: {fmt(x)} vs baseline {fmt(inc.baseline)} "
            f"({_ratio(x, inc.baseline, z)}), a jump from ~{fmt(level)}, the loss's level over the "
            f"{len(inc.said_since)} records since the spike at step {inc.said_at} (incident since step {inc.onset}).",
            f"loss_spike_apart:{rec.step}",
        )

    def _grew_past(self, inc: _Incident, x: float) -> bool:
        """``x`` is far above what was said of the open incident: PEAK_REALERT x the largest value said,
        or, for an incident said below the spike factor (its sigma test), a jump from the level back (the
        record before within ``_back_bar``) to the spike factor x the baseline, its excess over it
        PEAK_REALERT x the excess said (fresh125's Qwen LoRA: a 1.8x onset at 2675, the loss back at its
        level for two records, then 2.8x at 2700, folded in unsaid: the run's largest spike had no alert
        of its own; ours, the grad-norm rule's factor on the excess). A climb's next record is no jump."""
        a, b = inc.alerted, inc.baseline
        if x >= PEAK_REALERT * a:
            return True
        before = self._before
        return (
            0 < b < a < self.settings.spike_factor * b <= x
            and x - b >= PEAK_REALERT * (a - b)
            and before is not None
            and before <= self._back_bar(b, inc.peak)
        )

    def _grew(self, inc: _Incident, rec: StepRecord, x: float, z: float) -> Alert:
        """A spike inside the open incident PEAK_REALERT x the largest value said for it
        (issue 26: a 7.7x loss spike at step 190 of a run whose 3.7x spike at step 98 was
        still open was folded into it, unsaid; the grad-norm check's rule)."""
        return self._inside(
            inc,
            rec,
            x,
            f"Loss spike incident since step {inc.onset} grew: {fmt(x)} at step "
            f"{rec.step} vs baseline {fmt(inc.baseline)} ({_ratio(x, inc.baseline, z)}).",
            f"loss_spike_grew:{rec.step}",
        )

    def _inside(self, inc: _Incident, rec: StepRecord, x: float, msg: str, key: str) -> Alert:
        """A warning for a spike inside the open incident (the onset's alert carries the
        rest of the actions: one incident)."""
        inc.said_since.clear()
        inc.said_at = rec.step
        return Alert(
            self.id,
            Severity.WARNING,
            rec.step,
            msg,
            value=x,
            baseline=inc.baseline,
            actions=[advice.clip(self.state)],
            key=key,
            cause=inc.cause,
        )

    # -- what kind of spike ------------------------------------------------------
    def _classify(self, inc: _Incident, rec: StepRecord) -> None:
        """The cause the evidence at the onset points to: an LR change, an fp16
        overflow (loss-scale collapse), the optimizer (grad norm climbing for several
        records first), or a bad batch (grad norm spiking on the onset step alone;
        confirmed when the loss recovers at once). Evidence only from what is logged."""
        ctx = list(self._ctx)
        now = (rec.step, _num(rec.lr), _num(rec.grad_norm), _num(rec.loss_scale))
        near, old = ctx[-(CTX_NEAR - 1) :] + [now] if CTX_NEAR > 1 else [now], ctx[: -(CTX_NEAR - 1)]
        lr_old = [c[1] for c in old if c[1] is not None]
        lr_near = [(c[0], c[1]) for c in near if c[1] is not None]  # (step, LR)
        if lr_old and lr_near:
            ref = _median(lr_old)
            hi = max(lr_near, key=lambda c: c[1])
            if ref > 0 and hi[1] >= LR_JUMP * ref:
                inc.cause, inc.lr_jump = "lr", (ref, hi[1], hi[0])
                inc.evidence = f"the LR jumped {hi[1] / ref:.0f}x ({fmt(ref)} -> {fmt(hi[1])}) at step {hi[0]}"
                return
        sc_old = [c[3] for c in old if c[3] is not None]
        sc_near = [c[3] for c in near if c[3] is not None]
        if sc_old and sc_near and max(sc_old) > 0 and min(sc_near) * SCALE_DROP <= max(sc_old):
            inc.cause = "fp16"
            inc.evidence = f"the fp16 loss scale fell {max(sc_old) / max(min(sc_near), 1e-30):.0f}x alongside"
            return
        gn_old = [c[2] for c in old if c[2] is not None]
        if len(gn_old) >= 3:
            inc.gn_ref = _median(gn_old)
        if len(gn_old) >= 3 and now[2] is not None:
            ref = _median(gn_old)
            before = [c[2] for c in near[:-1] if c[2] is not None]
            if ref > 0 and len(before) >= 3 and all(g >= GN_CLIMB * ref for g in before[-3:]):
                inc.cause = "optimizer"
                inc.evidence = (
                    f"the grad norm climbed for {len(before)} records before the loss "
                    f"({fmt(before[-3])} -> {fmt(now[2])} vs {fmt(ref)})"
                )
                return
            if ref > 0 and now[2] >= GN_SPIKE * ref:
                inc.cause = "data"
                inc.evidence = f"the grad norm spiked on the same step ({_times(now[2] / ref)}x)"
                return

    def _settle_cause(self, inc: _Incident, took: int) -> None:
        """At the resolution: a one-step spike that recovered at once is a bad batch; a
        slow recovery points at the optimizer state (Molybog et al. 2023); one that did
        not recover was not a bad batch whatever the onset looked like."""
        if inc.cause in ("lr", "fp16"):
            return
        if inc.state != "recovered":
            if inc.cause == "data":
                self._not_data(inc, "the loss did not come back (a bad batch's spike recovers at once)")
            return
        if inc.spike_records <= 2 and took <= 10 and inc.state == "recovered":
            if inc.cause is None:
                inc.cause, inc.evidence = "data", "a one-step spike that recovered at once"
            elif inc.cause == "data":
                inc.evidence += " and it recovered at once"
        elif took > SLOW_RECOVERY and inc.state == "recovered" and inc.cause != "optimizer":
            inc.cause, inc.evidence = "optimizer", f"a slow recovery ({took} steps)"

    def _data_persists(self, inc: _Incident) -> bool:
        """The onset looked like bad data (the grad norm spiked on the same step, no climb
        before) and since then the grad norm is back at its level while the loss stays up:
        not the optimizer (its trouble keeps the grad norm up), the data from that step on."""
        g = inc.gns[DATA_SETTLE - 1 :] if len(inc.gns) >= DATA_SETTLE + 1 else []
        if inc.cause != "data" or not inc.gn_ref or len(g) < 2:
            return False
        level = _median(g)
        if level >= GN_SPIKE * inc.gn_ref:
            return False
        inc.persistent = True
        inc.evidence = (
            f"the grad norm spiked with the loss at step {inc.onset} and is back near its level "
            f"({fmt(level)} vs {fmt(inc.gn_ref)} before) while the loss stays up: the model is stable, "
            f"the data changed"
        )
        if inc.alert is not None and inc.alert.key and inc.alert.key not in self.cause_moot:
            self.cause_moot.add(inc.alert.key)  # "skip the batch at step N" is not the remedy: the data from N on
            self._revised.append(inc.alert.key)
        return True

    def _not_data(self, inc: _Incident, why: str) -> None:
        """Revise a "bad batch" cause that the incident's course contradicts: a bad batch
        spikes for a step or two and recovers. What is left is the optimizer state, or an
        LR change the log cannot show. The onset alert is not changed; its "skip the
        batch" action is left out of the report's view (``view``). A data fault that
        persists (``_data_persists``) stays a data fault."""
        if self._data_persists(inc):
            return
        # the LR of any record (a Lightning CSV logs it on rows of its own, without a loss)
        lr_logged = any(c[1] is not None for c in self._ctx) or self.state.last_lr is not None
        inc.cause = "optimizer"
        inc.evidence = why + ("" if lr_logged else "; the LR is not logged, so an LR change cannot be ruled out")
        if inc.alert is not None and inc.alert.key and inc.alert.key not in self.cause_moot:
            self.cause_moot.add(inc.alert.key)
            self._revised.append(inc.alert.key)

    @staticmethod
    def _cause_text(inc: _Incident) -> str:
        if not inc.cause:
            return ""
        return f"Likely cause: {_cause_name(inc)} ({inc.evidence})."

    def _cause_actions(self, inc: _Incident, step: int) -> list[str]:
        c = inc.cause
        if c == "lr" and inc.lr_jump:
            before, after, at = inc.lr_jump
            return [
                f"Restore the LR schedule: the LR went from {fmt(before)} to {fmt(after)} at step {at} "
                "(a config change, or a scheduler state not restored on resume)."
            ]
        if c == "fp16":
            return [advice.bf16()]
        if c == "optimizer":
            return [advice.optimizer_state(self.state)]
        if c == "data" and inc.persistent:
            return [
                f"Inspect the batches from step {inc.onset} on (the data loader, the shard or file read from "
                "there, the tokenizer): the loss stays up on a stable model, so the data changed; fix it "
                "before anything else."
            ]
        if c == "data":
            return [
                f"{SKIP_BATCH} at step {step}: a one-step spike with the grad norm points at "
                "bad data, not at the model."
            ]
        return []

    def _actions(self, inc: _Incident, onset: int, what: str = "the spike") -> list[str]:
        """The critical alerts' actions, the best-supported cause's first: a persistent
        data fault's own action leads (a rollback replays the same data) and the
        optimizer's remedies come last, for the case the data is clean."""
        cause = self._cause_actions(inc, onset)
        opt = [advice.lower_lr(self.state, peak=self._sched.peak), advice.clip(self.state)]
        if inc.cause == "data" and inc.persistent:
            return [
                *cause,
                advice.rollback(self.state, onset, what),
                *(f"If the data is clean: {a[0].lower()}{a[1:]}" for a in opt),
            ]
        if inc.cause == "lr" and inc.lr_jump:  # the schedule was fine before the jump: restoring it is the fix
            opt = opt[1:]
        return [advice.rollback(self.state, onset, what), *cause, *opt]

    # -- tracking an open incident -----------------------------------------------
    def _track(self, inc: _Incident, rec: StepRecord, x: float, spiking: bool) -> list[Alert]:
        out: list[Alert] = []
        base = inc.baseline
        if rec.step != inc.onset:
            g = _num(rec.grad_norm)
            if g is not None:
                inc.gns = (inc.gns + [g])[-DATA_GN:]
            inc.records += 1
            # 2x the baseline, or 2x the pre-spike window's upper quartile when its noise is
            # wider (settings.py, recovery_factor): a per-batch loss near zero is 2x a dip of its own noise most
            # of the time (dvclive_fabric_mnist: 0.02-0.25 batch losses, a 0.0017 local base)
            inc.high_run = inc.high_run + 1 if base > 0 and x > SUSTAIN_FACTOR * inc.level() else 0
            inc.hist = (inc.hist + [x])[-SUSTAIN_RECORDS:]
        if inc.excursion is None and inc.high_run >= SUSTAIN_RECORDS and base > 0 and x >= SUSTAIN_HOLD * inc.hist[0]:
            inc.excursion = rec.step
            out.append(self._excursion(inc, rec, x))
        inc.buf.append(x)
        if len(inc.buf) >= BLOCK:
            inc.meds = (inc.meds + [_median(inc.buf)])[-SETTLE_BLOCKS:]
            inc.buf = []
            level = self._settled(inc, SETTLE_BLOCKS)
            if level is not None:  # (also while every record still counts as a spike against
                # the pre-spike baseline: a loss settled at 1.4x is one, and that is the damage)
                return out + self._fail(inc, rec, x, "did not recover", damaged=level)
        if not spiking:
            inc.ok_run = inc.ok_run + 1 if x <= self._back_bar(base, inc.peak) else 0
            if rec.step != inc.onset:
                inc.since = (inc.since + [x])[-RECOVERY_RECORDS:]
        else:
            inc.since = []
        if rec.step != inc.said_at:
            inc.said_since.append(x)
        if inc.ok_run >= RECOVERY_RECORDS or (
            rec.step - inc.onset >= self.settings.recovery_steps and self._back_by_median(inc)
        ):
            inc.state = "recovered"
            self._resolve(inc)
            inc.end = rec.step
            self._incident = None
            self.recovered += 1
            took = rec.step - inc.onset
            self._settle_cause(inc, took)
            cause = f" {self._cause_text(inc)}" if inc.cause else ""
            return out + [
                Alert(
                    self.id,
                    Severity.INFO,
                    rec.step,
                    f"Loss recovered from the spike at step {inc.onset} (peak {fmt(inc.peak)} at step "
                    f"{inc.peak_step} vs baseline {fmt(base)}) in {took} steps.{cause}",
                    value=x,
                    baseline=base,
                    actions=[],
                    key=f"loss_spike_recovered:{inc.onset}",
                    cause=inc.cause,
                )
            ]
        if rec.step - inc.onset >= self.settings.recovery_steps:
            if base > 0 and x <= self._back_bar(base, inc.peak):
                return out  # this record is back at the baseline: "not recovered" waits for one that is not
            if base > 0 and inc.peak < DEADLINE_FAIL_RATIO * inc.level():
                # a rise under 2x (of the level the excursion rule doubles: a noisy window's upper quartile,
                # fresh58's per-batch DeePMD RMSE peaking at 2.6x a 0.117 baseline in a window scattering
                # 0.08-0.23): the deadline alone fails none (DEADLINE_FAIL_RATIO)
                return out
            if inc.records <= SUSTAIN_RECORDS and base > 0 and x < SUSTAIN_FACTOR * inc.level():
                # a sparse log: the deadline (in steps) came a record or two after the onset, and one
                # record of a noisy loss is no level: the median of SUSTAIN_RECORDS records after the
                # onset judges it (_back_by_median; fresh37's DeePMD lcurve, a per-batch RMSE every
                # 1,000 steps: 0.147 two records after a 2.6x spike, 1.29x a baseline whose own
                # records scatter 0.100-0.156, FAILed "has not recovered"); 2x the level the excursion rule
                # doubles (a noisy window's upper quartile: fresh58's DeePMD lcurves, a record 2.5x a low local
                # baseline two records after the onset, in a window that scatters 0.14-0.64, FAILed)
                return out
            if inc.noisy and x < SUSTAIN_FACTOR * inc.level():
                # a noisy window's loss (its spread is noise, not a descent): one record under 2x the level the
                # excursion rule doubles is its scatter, no failure (fresh58's per-batch DeePMD RMSE: 0.235 five
                # records after a 2.6x spike, 1.6x that level, FAILed "has not recovered"; the next were back)
                return out
            m = inc.meds
            if len(m) >= 2 and m[-1] > m[-2] * (1 + SETTLE_REL) and base > 0 and x > SUSTAIN_FACTOR * base:
                return out + self._fail(inc, rec, x, "turned into divergence", diverged=True)  # still climbing
            return out + self._fail(inc, rec, x, f"has not recovered {rec.step - inc.onset} steps later")
        return out

    def _delta(self) -> float:
        """The spike floor in loss units (settings.spike_min_delta), scaled down for a loss whose
        first value is under FLOOR_LEVEL: a bump of 0.05 is noise at a cross-entropy's scale, not at
        a regression's that starts at 0.01 (fresh40: a 36x burst from 0.0009 to 0.033 read "no
        spikes"; the same file x1000 FAILed)."""
        f = self._first
        d = self.settings.spike_min_delta
        return d * f / FLOOR_LEVEL if f is not None and f < FLOOR_LEVEL else d

    def _smooth_ok(self) -> bool:
        """The smooth-series rule (SMOOTH_RATIO) may look under the floor: never for a signed objective
        (its spikes are judged on a robust sd above its median, not on ratios)."""
        return not self.signed

    def _floor_gate(self, x: float, med: float) -> bool | None:
        """The spike tests' first gate (``_test``, ``_test_window``): None when ``x`` cannot be a spike (both
        rules need x >= 1.3 x the median, and a rise of the spike floor, ``_delta``, or the smooth-series
        rule's under it); else whether the rise is under the floor (then only that rule may say it)."""
        if med <= 0 or x < SIGMA_MIN_RATIO * med:
            return None
        small = x - med < self._delta()
        return None if small and not self._smooth_candidate(x, med) else small

    def _smooth_candidate(self, x: float, med: float) -> bool:
        """A rise under the spike floor (``_delta``) that may still be a spike: the baseline is under
        FLOOR_LEVEL and the rise is at least the floor scaled to that level (SMOOTH_RATIO's rule); the caller then
        asks a z of settings.sigma (6) on the log scale and SMOOTH_RATIO x."""
        return (
            self._smooth_ok()
            and med < FLOOR_LEVEL
            and x >= SMOOTH_RATIO * med
            and x - med >= self._delta() * med / FLOOR_LEVEL
        )

    def _back_bar(self, base: float, peak: float | None = None) -> float:
        """Back from a spike: within recovery_factor x the baseline, or within the spike floor above
        it (``_delta``: a loss that would not have been a spike there is back); and, for a baseline
        near zero at a cross-entropy's scale (under settings.spike_min_delta), within BACK_SHARE of
        the excursion above it (``peak``): a loss at 1e-10 that spikes to 1 and is back at 1e-4
        has recovered (fresh39's grokking runs, fresh28's TFT outlier batches at 0.005 -> 55 ->
        0.014: each recovered spike had stayed "open" and swallowed the next)."""
        bar = max(base * self.settings.recovery_factor, base + self._delta())
        if peak is not None and base < self.settings.spike_min_delta:
            bar = max(bar, base + BACK_SHARE * (peak - base))
        return bar

    def _back_since(self, inc: _Incident, x: float) -> bool:
        """The loss back at its level since the newest spiking record: the median of the
        RECOVERY_RECORDS records since then within recovery_factor x the baseline or the
        pre-spike window's upper quartile (``_back_by_median``'s bar). A single-batch loss
        scatters above 1.25x its median by its noise alone, so RECOVERY_RECORDS in a row
        under it may not come before its next spike (``_again``). Not a recovery: a noisy
        loss settled higher has such medians now and then. ``x``: the new spike's value (a
        blow-up needs fewer records back: BACK_MIN)."""
        h = inc.since
        if inc.baseline <= 0:
            return False
        bar = max(self._back_bar(inc.baseline, inc.peak), inc.noise_hi)
        # ... or, before a blow-up (BLOWUP_RATIO x the baseline: never a noisy loss's own), BACK_MIN
        # records in a row, every one of them back (a log written every 10 steps: 2.63 -> 339,967 at
        # 180 -> 2.61, 2.54 -> 339,316 at 210 was one spike: fresh20's BEV log)
        if len(h) >= RECOVERY_RECORDS and _median(h) <= bar:
            return True
        if h and self.unit.epochs() is not None and max(h) <= bar:
            # a log of one record an epoch: a whole epoch back at its level is back (fresh77's FER CNN: bursts
            # at epochs 66, 69 and 74 with the loss at its level between, read as one; ours)
            return True
        return x >= BLOWUP_RATIO * inc.baseline and len(h) >= BACK_MIN and max(h) <= bar

    def _back_by_median(self, inc: _Incident) -> bool:
        """At the recovery deadline: the median of the last SUSTAIN_RECORDS records is back
        within recovery_factor x the baseline (itself a median), or within the pre-spike
        window's own upper quartile (exp(mean + 0.674 sd) of its log-loss). A noisy loss (a
        per-batch loss near zero, a run logged every 100 steps: 5 records in the window) has
        records above 1.25x its median by its noise alone, so RECOVERY_RECORDS in a row under
        it may never come, though its level is back (issue 26: a healthy PaddleNLP workerlog,
        batch loss 0.0002..0.17, FAILed 'not recovered: loss 1.1x'). On a smooth loss the
        quartile is within 1.25x the median: nothing changes there."""
        h = inc.hist
        if len(h) < SUSTAIN_RECORDS or inc.baseline <= 0:
            return False
        # ... or within the scatter of such a median itself: MEDIAN_SE_Z standard errors of the median of
        # len(h) records of that noise (1.2533 sd / sqrt n) above the baseline (fresh25's MAML log, a
        # per-batch loss of log-sd ~0.4 every 100 steps: five records 500 steps after a 2.9x spike, median
        # 1.78 against a bar of 1.68, FAILed "has not recovered" on noise)
        spread = inc.baseline * math.exp(MEDIAN_SE_Z * 1.2533 * inc.noise_sd / math.sqrt(len(h)))
        return _median(h) <= max(self._back_bar(inc.baseline, inc.peak), inc.noise_hi, spread)

    def _settled(self, inc: _Incident, blocks: int) -> float | None:
        """The level the loss settled at, when the last ``blocks`` block medians since
        the onset agree within SETTLE_REL and it is still above recovery_factor x the
        baseline (and below SUSTAIN_FACTOR x: higher is an excursion, not a level)."""
        m = inc.meds[-blocks:]
        b = inc.baseline
        # (when the pre-spike window is noise, not a descent, its upper quartile and its median
        # bound "worse" too: a per-batch loss back at its own level after the 5-record dip it
        # was judged against is no damage: fresh5's seq2seq run, "settled at ~2.84, 1.96x its 1.45")
        rf = self.settings.recovery_factor
        bar = max(self._back_bar(b, inc.peak), max(inc.noise_hi, inc.window * rf) if inc.noisy else 0.0)
        if len(m) < blocks or b <= 0 or not (bar < m[-1] < b * SUSTAIN_FACTOR):
            return None
        return m[-1] if abs(m[-1] - m[0]) <= SETTLE_REL * m[0] else None

    def _excursion(self, inc: _Incident, rec: StepRecord, x: float) -> Alert:  # noqa: C901
        self.failed += 1
        if inc.cause == "data":
            self._not_data(
                inc,
                f"the loss stayed above {SUSTAIN_FACTOR:g}x its baseline for {inc.high_run} records "
                "(a bad batch's spike lasts a step or two)",
            )
        cause = f" {self._cause_text(inc)}" if inc.cause else ""
        return Alert(
            self.id,
            Severity.CRITICAL,
            rec.step,
            f"Loss above {SUSTAIN_FACTOR:g}x its baseline for {inc.high_run} records since the spike at step "
            f"{inc.onset}: {fmt(x)} vs {fmt(inc.baseline)} ({_times(x / inc.baseline)}x). A sustained excursion is "
            f"divergence in progress (llm-foundry's KillLossSpike stops the run here).{cause}",
            value=x,
            baseline=inc.baseline,
            actions=self._actions(inc, inc.onset),
            key=f"loss_spike_excursion:{inc.onset}",
            cause=inc.cause,
        )

    def _fail(
        self, inc: _Incident, rec: StepRecord, x: float, why: str, diverged: bool = False, damaged: float | None = None
    ) -> list[Alert]:
        inc.state = "diverged" if diverged else ("damaged" if damaged is not None else "failed")
        self._resolve(inc)
        inc.end = rec.step
        self._incident = None
        if inc.excursion is None:
            self.failed += 1
        self._settle_cause(inc, rec.step - inc.onset)
        # the new level becomes the baseline so one failure is not re-reported each step
        self._med.clear()
        self._logm.clear()
        self._delay.clear()
        self._loc.clear()
        if damaged is not None:
            # a loss settled at a worse level: that level is the reference from now on (the
            # rolling median against the pre-spike best would call it divergence again)
            self._recent.clear()
            self._best_med = self._best_step = self._best_iqm = None
        else:  # diverging or not recovered: the same incident until the loss is back
            self._paged, self._paged_ok = inc, 0
        b = inc.baseline
        if damaged is not None:
            msg = (
                f"Loss spike at step {inc.onset} {why}: the loss settled at ~{fmt(damaged)}, "
                f"{damaged / b:.2f}x its {fmt(b)} before the spike, and is not coming back: lasting damage."
            )
        elif b > 0:
            msg = f"Loss spike at step {inc.onset} {why}: loss {fmt(x)} vs {fmt(b)} before it ({_times(x / b)}x)."
        else:
            msg = f"Loss spike at step {inc.onset} {why}."
        if inc.cause:
            msg += f" {self._cause_text(inc)}"
        # one critical alert (one page) per incident: after the sustained-excursion
        # alert, how the incident ended is a warning that completes the story
        sev = Severity.CRITICAL
        if inc.excursion is not None:
            sev = Severity.WARNING
            msg += (
                f" (critical since step {inc.excursion}.)"
                if not msg.endswith(".")
                else f" Critical since step {inc.excursion}."
            )
        return [
            Alert(
                self.id,
                sev,
                rec.step,
                msg,
                value=x if damaged is None else damaged,
                baseline=b,
                actions=self._actions(inc, inc.onset),
                key=f"loss_spike_fail:{inc.onset}",
                cause=inc.cause,
            )
        ]

    def _divergence(self, rec: StepRecord) -> list[Alert]:
        if self._paged is not None or len(self._recent) < self.settings.window:
            return []
        cur = self._recent.get()
        assert cur is not None and rec.loss is not None  # (a full window; _update feeds a finite loss)
        if self._diverged_at is not None:
            # back below the recovery bar: the rule watches again (issue 26, fresh3: a LoRA run
            # that diverged, came back to its level for 300 steps, then climbed 3x again unsaid)
            if self._best_med is not None and back_from_divergence(cur, self._best_med, self.settings):
                return self._back(rec, cur, "rolling median")
            return []
        if self._best_med is None or cur < self._best_med:
            self._best_med, self._best_step = cur, rec.step
            self._best_iqm = self._recent.iqm()
            return []
        best = self._best_med
        if diverged(cur, best, self.settings) and self._middle_moved():
            self._diverged_at = rec.step
            if self._diverged_first is None:
                self._diverged_first = self._best_step or rec.step
                self._diverged_best = best
            inc = self._incident
            if inc is not None:
                m = inc.meds
                level = m[-1] if len(m) >= 2 and m[-1] <= m[-2] * (1 + SETTLE_REL) else None
                if level is not None and self._back_bar(inc.baseline, inc.peak) < level < inc.baseline * SUSTAIN_FACTOR:
                    return self._fail(inc, rec, rec.loss, "did not recover", damaged=level)
                return self._fail(inc, rec, rec.loss, "turned into divergence", diverged=True)
            self.failed += 1
            onset = self._best_step or rec.step
            return [
                Alert(
                    self.id,
                    Severity.CRITICAL,
                    rec.step,
                    f"Loss is diverging: rolling median {fmt(cur)} at step {rec.step} vs its best "
                    f"{fmt(best)} at step {onset} ({_times(cur / best)}x).",
                    value=cur,
                    baseline=best,
                    actions=self._climb_actions(onset),
                    key="loss_divergence",
                )
            ]
        return []

    def _back(self, rec: StepRecord, cur: float, what: str) -> list[Alert]:
        """The loss level (``what``) back within the recovery bar of its best after a divergence:
        the rule watches again (an info alert)."""
        self._diverged_at = None
        return [
            Alert(
                self.id,
                Severity.INFO,
                rec.step,
                f"Loss back from its divergence: {what} {fmt(cur)} at step {rec.step}, within "
                f"{self.settings.recovery_factor}x its best {fmt(self._best_med)}; watching for another.",
                value=cur,
                baseline=self._best_med,
                actions=[],
                key=f"loss_divergence_back:{rec.step}",
            )
        ]

    def _creep_alert(self, c: Climb) -> list[Alert]:
        """A slow sustained climb (creep.py): a warning, unless a spike or a divergence owns it
        (an open incident, a divergence said or a signed objective: their rules say it), or the
        loss is an RL run's or a GAN's (its loss rises as its data or its discriminator improve)."""
        if (
            self.signed
            or self.rl
            or self._incident is not None
            or self._paged is not None
            or self._diverged_at is not None
        ):
            return []
        self.creep = c
        ratio = c.level / c.low
        # at the divergence factor (and its floor in loss units) it is a divergence, said slowly
        # (the rolling median's rule, 1.5x its best, missed it: a short log, a low between windows)
        div = ratio >= self.settings.divergence_factor and c.level - c.low >= self.settings.spike_min_delta
        if div:
            self.failed += 1
            self.creep_div = True
        how = (
            f"a slow divergence ({_times(ratio)}x its low)"
            if div
            else f"no spike, not yet a divergence ({self.settings.divergence_factor}x)"
        )
        return [
            Alert(
                self.id,
                Severity.CRITICAL if div else Severity.WARNING,
                c.step,
                f"Loss creeping up: its level {fmt(c.level)} at step {c.step} is {ratio - 1:.0%} above "
                f"its low {fmt(c.low)} (step {c.low_step}) and has climbed since, over {c.records} records "
                + (
                    f"(higher at each of them: {c.rises} rises in a row)"
                    if c.rises
                    else f"({c.noise_units:.1f} noise units; Mann-Kendall z {c.rank_z:.1f})"
                )
                + f": {how}.",
                value=c.level,
                baseline=c.low,
                actions=[
                    "Compare with the validation loss: a training loss that climbs back is an LR too high for this "
                    "stage, a data order or mixture change, or a regularisation term that grows.",
                    *self._climb_actions(c.low_step),
                ],
                key="loss_creep",
            )
        ]

    def _climb_actions(self, onset: int) -> list[str]:
        return [
            advice.rollback(self.state, onset, "the climb"),
            advice.lower_lr(self.state, peak=self._sched.peak),
            advice.clip(self.state),
        ]

    def _climb_reset(self) -> None:
        """A new stretch for the short log's climb rule (the start, a resume); the objective's only."""
        self._climb = RunningLine() if self.parts is not None and not self.signed else None
        self._climb_mk = MannKendall() if self._climb is not None else None
        self._climb_low = self._climb_lr = None
        self._climb_first: int | None = None  # the step of the stretch's first value
        # the smallest / largest value after the stretch's low (JUMP_STAYED, JUMP_SPREAD)
        self._climb_min, self._climb_max = math.inf, -math.inf
        self._climb_last.clear()
        self._climb_start: list[float] = []  # the stretch's first STAYED_START values
        self._climb_logs: list[float] = []  # its log-values (a short log's: at most ``window``)
        self._climb_noise: float | None = None  # ... their noise, once the value after the low came
        self._climb_seen = 0  # values of the stretch so far
        self._climb_low_at = 0  # ... when its low came
        #: the value before the low (None: the low is the stretch's first), and the low's level once the value
        #: after it came: the median of the three (STAYED_START)
        self._climb_before: float | None = None
        self._climb_base: float | None = None
        #: the values in a row, newest last, at or above divergence_factor x the low's level (STAYED_START):
        #: (how many, their smallest, their largest, their newest divergence_short_min)
        self._climb_stay: tuple[int, float, float, deque] | None = None

    def _stay_update(self, x: float) -> None:
        """The run of values above the low's level (STAYED_START), with ``x`` the newest value."""
        base = self._climb_base
        if base is None:
            return
        if x < self.settings.divergence_factor * base:
            self._climb_stay = None
            return
        st = self._climb_stay
        if st is None:
            st = (0, math.inf, -math.inf, deque(maxlen=self.settings.divergence_short_min))
        st[3].append(x)
        self._climb_stay = (st[0] + 1, min(st[1], x), max(st[2], x), st[3])

    def _rose_and_stayed(self, low: tuple[float, int]) -> bool:
        """The rise from a learned low that stayed (STAYED_START): see the constant."""
        st = self._climb_stay
        if low[1] == self._climb_first or st is None or len(self._climb_start) < STAYED_START:
            return False
        n, lo, hi, newest = st
        base = self._climb_base
        assert base is not None  # (a run of them: counted against it)
        start = _median(self._climb_start)
        return (
            n
            >= max(self.settings.divergence_short_min, self._climb_low_at, (self._climb_seen - self._climb_low_at) / 2)
            and base <= STAYED_LEARNED * start
            and hi / lo < min(JUMP_SPREAD, lo / base)
            and _median(list(newest)) >= start
        )

    def _jumped(self, first: float) -> bool:
        """The jump that stayed, from a log's first value ``first`` (JUMP_STAYED): every value since at least
        JUMP_STAYED x it, and within JUMP_SPREAD x of each other, or the step up settings.sigma sds of their
        log-values or more (JUMP_NOISY)."""
        lo, hi = self._climb_min, self._climb_max
        if lo < JUMP_STAYED * first:
            return False
        if hi < JUMP_SPREAD * lo:
            return True
        after = self._climb_logs[1:]
        if len(after) < JUMP_NOISY * self.settings.divergence_short_min:
            return False
        _, sd = mean_std(after)
        return math.log(lo / first) >= self.settings.sigma * sd

    def _rose_clear(self, low: tuple[float, int]) -> bool:
        """The rise clear of the run's noise (STAYED_LEARNED's second form): see the constant."""
        st, base, noise = self._climb_stay, self._climb_base, self._climb_noise
        if low[1] == self._climb_first or st is None or base is None or noise is None:
            return False
        n, lo, hi, _ = st
        s = self.settings
        learned = self._climb_low_at > s.divergence_short_min and base <= STAYED_LEARNED * _median(self._climb_start)
        return (
            n >= s.divergence_short_min
            and lo >= (s.divergence_factor if learned else JUMP_STAYED) * base
            and hi / lo < min(JUMP_SPREAD, lo / base)
            and math.log(lo / base) >= s.sigma * max(noise, EARLY_SD_FLOOR)
        )

    def _climbing(self, rec: StepRecord, x: float) -> list[Alert]:
        """The divergence rule of a log too short for the rolling median's window (one of its
        first ``window`` values): a steady climb without a spike (settings.divergence_short_*;
        issue 26, fresh4 equicat: an epoch total 6.12 -> 13.44 over 10 epochs)."""
        s = self.settings
        c = self._climb
        mk = self._climb_mk
        if x <= 0 or c is None or mk is None:
            self._climb = self._climb_mk = None  # (a loss of 0: no ratio scale)
            return []
        if len(self._recent) >= s.window:
            self._climb = self._climb_mk = None  # the rolling median's rule from the next value on
        low = self._climb_low
        if low is not None and x < low[0]:
            # the climb is measured after the lowest loss: a run that learned first, then climbs
            # (fresh8's Whisper fine-tune: 0.83 -> 0.118, then 2.6x up as its LR warmed up) has
            # a line through all its values that proves no climb. A low that is not the log's
            # first value is left out (the minimum of noisy values regresses to their level:
            # a climb); the first value is the run's start, kept (a run that only ever rose)
            low = self._climb_low = (x, rec.step)
            c = self._climb = RunningLine()
            mk = self._climb_mk = MannKendall()
            self._climb_min, self._climb_max = math.inf, -math.inf
            self._climb_before = self._climb_last[-1] if self._climb_last else None
            self._climb_base = self._climb_stay = None
            self._climb_low_at = self._climb_seen + 1
        else:
            if self._climb_seen == self._climb_low_at and self._climb_before is not None and low is not None:
                self._climb_base = _median([self._climb_before, low[0], x])  # (the value after the low)
                self._climb_noise = diff_sd(self._climb_logs) if len(self._climb_logs) > 2 else None  # (to the low)
            self._stay_update(x)
            if low is None:
                low = self._climb_low = (x, rec.step)
                self._climb_first = rec.step
            else:
                self._climb_min = min(self._climb_min, x)
                self._climb_max = max(self._climb_max, x)
            c.update(math.log(x))
            mk.update(x)
        if not self._climb_last or x != self._climb_last[-1]:
            # (a value again, as written twice: a record repeated by a second writer or a tracker's
            # replay, is no new draw of the noise: its zero step would shrink the noise's MAD to 0)
            self._climb_logs.append(math.log(x))
        self._climb_last.append(x)
        self._climb_seen += 1
        if len(self._climb_start) < STAYED_START:
            self._climb_start.append(x)
        lr = _num(rec.lr)
        warm = False
        if lr is not None:
            # the LR still rising (it rose within the last CLIMB_LAST records): a warm-up, whose
            # loss may rise. (An LR held at its peak after a warm-up is not one: "at its largest
            # and above its first" would keep a constant-LR run's climb unsaid for good.)
            top, since = self._climb_lr or (lr, CLIMB_LAST)
            since = 0 if lr > top else since + 1
            self._climb_lr = (max(top, lr), since)
            warm = since < CLIMB_LAST
        level = _median(list(self._climb_last))
        if self._diverged_at is not None:
            # (a climb said by this rule, back under the recovery bar: the verdict says it came back)
            if self._best_med is not None and back_from_divergence(level, self._best_med, s):
                return self._back(rec, level, f"the median of the last {CLIMB_LAST} values")
            return []
        if c.n < s.divergence_short_min or warm or self.rl or self._incident is not None or self._paged is not None:
            return []
        if not diverged(level, low[0], s):
            return []
        b, se = c.slope()  # type: ignore[misc]  # (n >= divergence_short_min >= 3)
        rise = math.exp(b * (c.n - 1))
        # (after a low that is not the first value, a longer rank proof: CLIMB_AFTER_LOW_Z)
        rank_z = s.divergence_short_rank_z if low[1] == self._climb_first else CLIMB_AFTER_LOW_Z
        jumped = low[1] == self._climb_first and self._jumped(low[0])
        stayed = not jumped and self._rose_and_stayed(low)
        clear = not (jumped or stayed) and self._rose_clear(low)
        if not (jumped or stayed or clear) and (
            b < s.divergence_short_z * se or rise < s.divergence_factor or mk.z() < rank_z
        ):
            return []
        self._diverged_at = rec.step
        self._best_med, self._best_step = low
        self._best_iqm = None  # (a short log's low, no window's)
        if self._diverged_first is None:
            self._diverged_first = low[1]
            self._diverged_best = low[0]
        self.failed += 1
        proven = b >= s.divergence_short_z * se and rise >= s.divergence_factor and mk.z() >= rank_z
        if stayed and not proven:
            n, lo, _, newest = self._climb_stay  # type: ignore[misc]  # (stayed: a run of them)
            base = self._climb_base
            assert base is not None  # (a run of them: counted against it)
            return self._climb_alert(
                rec,
                level,
                base,
                low[1],
                f"Loss rose and stayed up: each of its last {n} values is at least "
                f"{_times(lo / base)}x its level at its low {fmt(base)} (step {low[1]}), the median of the "
                f"newest {len(newest)} {fmt(_median(list(newest)))} above the {fmt(_median(self._climb_start))} "
                "it began at: the run undid what it learned (divergence, not a spike it recovered from).",
            )
        if clear and not proven:
            n, lo, _, _ = self._climb_stay  # type: ignore[misc]  # (clear: a run of them)
            base = self._climb_base
            assert base is not None and self._climb_noise is not None  # (clear: both known)
            noise = max(self._climb_noise, EARLY_SD_FLOOR)
            return self._climb_alert(
                rec,
                level,
                base,
                low[1],
                f"Loss rose and stayed up: each of its last {n} values is at least {_times(lo / base)}x its "
                f"level at its low {fmt(base)} (step {low[1]}), {math.log(lo / base) / noise:.0f} units of its "
                "noise before the low above it: divergence, not a spike it recovered from.",
            )
        if jumped and not proven:
            return self._climb_alert(
                rec,
                level,
                low[0],
                low[1],
                f"Loss jumped and stayed up: every one of its {c.n - 1} values after its first "
                f"{fmt(low[0])} (step {low[1]}) is at least {_times(self._climb_min / low[0])}x it; the "
                f"median of the last {CLIMB_LAST} is {fmt(level)} ({_times(level / low[0])}x): divergence "
                "from the start, not a spike it recovered from.",
            )
        return self._climb_alert(
            rec,
            level,
            low[0],
            low[1],
            f"Loss is diverging: a steady climb, no spike: the median of its last {CLIMB_LAST} values "
            f"{fmt(level)} at step {rec.step} is {_times(level / low[0])}x its lowest {fmt(low[0])} (step {low[1]}), "
            f"and a line through its {c.n} values from there climbs {_times(rise)}x"
            + (f" ({b / se:.1f} standard errors" if se > 0 else " (")
            + f"; Mann-Kendall z {mk.z():.1f}).",
        )

    def _climb_alert(self, rec: StepRecord, level: float, base: float, low_step: int, msg: str) -> list[Alert]:
        """The short log's divergence, said once (critical): ``level`` against ``base``, rolled back to before the
        low at ``low_step``."""
        return [
            Alert(
                self.id,
                Severity.CRITICAL,
                rec.step,
                msg,
                value=level,
                baseline=base,
                actions=self._climb_actions(low_step),
                key="loss_divergence",
            )
        ]

    def on_resume(self, step: int) -> None:
        self.unit.on_resume()
        if self.parts is not None:
            self.parts.on_resume(step)
        self._paged, self._paged_ok = None, 0  # a restart from a checkpoint ends it
        self._lvl_after = None
        self._med.clear()
        self._logm.clear()
        self._delay.clear()
        self._recent.clear()
        self._best_med = self._best_step = self._best_iqm = None
        self._diverged_at = self._diverged_first = self._diverged_best = None
        self._climb_reset()
        if self._creep is not None:
            self._creep.reset()
        if self._incident is not None and self._incident.onset > step:
            # the spike is in the superseded part: the restart is the remedy
            self._incident.state = "recovered"
            self._resolve(self._incident)
            self.recovered += 1
            self._incident = None

    # ------------------------------------------------------------------ end
    def finalize(self) -> list[Alert]:
        out = self._finalize()
        if self.parts is not None:
            out += self.parts.finalize()
        return self._rl_cap(out) if self.rl and out else out

    def _finalize(self) -> list[Alert]:
        out = self._creep_pending
        self._creep_pending = []
        if self._creep is not None:
            hit = self._creep.finish()
            if hit is not None:
                out = out + self._creep_alert(hit)
        return out + self._finalize_incident()

    def _finalize_incident(self) -> list[Alert]:
        inc = self._incident
        last = self._last
        if inc is None or last is None:
            return []
        x = last.loss
        if x is None or inc.baseline <= 0 or inc.records < BLOCK:
            return []  # too few records since the onset to tell: still open at the end
        level = _median(list(self._recent.values())[-min(BLOCK, inc.records) :])
        if level > max(
            self._back_bar(inc.baseline, inc.peak), inc.noise_hi if inc.noisy else 0.0
        ):  # (as _back_by_median)
            return self._fail(
                inc,
                last,
                x,
                "had not recovered by the end of the log",
                damaged=level if level < inc.baseline * SUSTAIN_FACTOR else None,
            )
        return []

    @staticmethod
    def _incident_text(i: _Incident) -> str:
        what = f"at step {i.onset}"
        if i.peak_step != i.onset:
            what += f" (peak {fmt(i.peak)} at step {i.peak_step})"
        return what

    def _resolve(self, inc: _Incident) -> None:
        n = len(self.moot_keys)
        inc.resolve(self.moot_keys)
        if len(self.moot_keys) != n and inc.alert is not None and inc.alert.key is not None:
            self._revised.append(inc.alert.key)  # (an incident's alert always has its key)

    def revised(self) -> list[str]:
        out, self._revised = self._revised, []
        return out + self.parts.revised() if self.parts is not None else out

    def view(self, a: Alert) -> Alert:
        if self.parts is not None and a.key and a.key.startswith("component:"):
            return self.parts.view(a)
        drop = ((IF_NOT_RECOVERED,) if a.key in self.moot_keys else ()) + (
            (SKIP_BATCH,) if a.key in self.cause_moot else ()
        )
        if drop and any(x.startswith(drop) for x in a.actions):
            return replace(a, actions=[x for x in a.actions if not x.startswith(drop)])
        return a

    def result(self) -> CheckResult:
        r = self._result_all()
        if self.rl and r.status == Status.FAIL:
            return self._result(Status.WARN, f"{r.summary} ({self.rl_note})")
        return r

    def _result_all(self) -> CheckResult:
        r = self._own_result()
        said = self.parts.findings() if self.parts is not None else ""
        if not said:
            return r
        status = r.status if r.status in (Status.WARN, Status.FAIL) else Status.WARN
        own = "" if r.status in (Status.PASS, Status.SKIP) else f"{r.summary}; "
        return self._result(status, f"{own}loss components: {said}")

    def _own_result(self) -> CheckResult:
        if self.n == 0:
            return self._result(Status.SKIP, "no loss values in the log")
        if self.signed:
            how = (
                f"the loss goes below 0 ({self.n} values): a signed objective (PPO's policy loss, a "
                f"log-likelihood), judged on differences (>= {self.settings.sigma:g} robust sd above the median)"
            )
            sp = self.signed_spikes
            if not sp:
                return self._result(Status.PASS, f"no spikes; {how}")
            if self.parts is None:  # a loss term: its objective's line says how
                how = "signed, judged on differences"
            txt = ", ".join(
                f"{i[0]}" + (f" (peak {fmt(i[1])} at {i[2]})" if i[2] != i[0] else f" ({fmt(i[1])})") for i in sp[:4]
            ) + (f" (+{len(sp) - 4} more)" if len(sp) > 4 else "")
            return self._result(Status.WARN, f"{len(sp)} spike(s) at step {txt}; {how}")
        n_inc = len(self.incidents)
        bad = [
            i
            for i in self.incidents
            if i.state in ("failed", "diverged", "damaged") or (i.state == "open" and i.excursion is not None)
        ]
        if bad:
            i = bad[0]
            kind = {
                "diverged": "turned into divergence",
                "failed": "did not recover",
                "damaged": "did not recover: lasting damage",
                "open": "is a sustained excursion",
            }[i.state]
            more = f" ({len(bad) - 1} more)" if len(bad) > 1 else ""
            why = f"; likely {_cause_name(i)}" if i.cause else ""
            return self._result(Status.FAIL, f"spike {self._incident_text(i)} {kind}{more}{why}")
        if self._diverged_at is not None:
            return self._result(Status.FAIL, f"loss diverging since step {self._best_step}")
        c = self.creep
        creep = (
            f"loss creeping up: {c.level / c.low - 1:.0%} above its low {fmt(c.low)} (step {c.low_step}) by step {c.step}"
            if c is not None
            else ""
        )
        if creep and self.creep_div:
            return self._result(Status.FAIL, f"{creep}: a slow divergence")
        if self._diverged_first is not None:
            low, before = self._best_med, self._diverged_best
            if self._diverged_at is None and low is not None and before is not None and low <= NEW_LOWS * before:
                return self._result(
                    Status.WARN,
                    f"loss climbed from step {self._diverged_first}, came back and went on to new lows "
                    f"({fmt(low)} at step {self._best_step}, {fmt(before)} before the climb): a passing climb",
                )
            return self._result(Status.FAIL, f"loss diverged from step {self._diverged_first}, then came back")
        if creep and not n_inc:
            return self._result(Status.WARN, creep)
        if creep:
            creep = f"; {creep}"
        if n_inc:
            # the largest first when there are more than fit on the line
            shown = (
                self.incidents
                if n_inc <= 4
                else sorted(self.incidents, key=lambda i: -(i.peak / i.baseline if i.baseline > 0 else 0))[:3]
            )
            txt = ", ".join(str(i.onset) for i in shown)
            if n_inc > 4:
                txt = f"{txt} (largest; +{n_inc - 3} more)"
            causes = sorted({_cause_name(i) for i in self.incidents if i.cause})
            why = f"; likely {', '.join(causes)}" if causes else ""
            open_ = [i for i in self.incidents if i.state == "open"]
            done = n_inc - len(open_)
            if not open_:
                state = "all recovered" if n_inc > 1 else "recovered"
            elif done:
                state = f"{done} recovered, the one at step {open_[0].onset} still open"
            else:
                state = "still open at the end of the log"
            sustained = [i for i in self.incidents if i.excursion is not None]
            if sustained:
                state += f" (after a sustained excursion at step {sustained[0].onset})"
            return self._result(Status.WARN, f"{n_inc} spike(s) at step {txt}, {state}{why}{creep}")
        return self._result(Status.PASS, f"no spikes in {self.n} loss values")


def _cause_name(inc: _Incident) -> str:
    assert inc.cause is not None  # (called for an incident with a cause)
    if inc.cause == "data" and inc.persistent:
        return f"a data fault from step {inc.onset} on"
    return CAUSES[inc.cause]


def _ratio(x: float, b: float, z: float) -> str:
    """``N.Nx, Z sigma`` of a spike against its baseline (the sigma when finite)."""
    zs = f", {z:.1f} sigma" if math.isfinite(z) else ""
    return f"{_times(x / b) if b > 0 else 'inf'}x{zs}"


def _num(v) -> float | None:
    return v if v is not None and v == v else None


def _ctx_rows(fr, rows) -> list[tuple]:
    """(step, lr, grad norm, loss scale) of frame rows, as ``update`` records them."""
    steps = fr.step[rows].tolist()
    cols = []
    for name in ("lr", "grad_norm", "loss_scale"):
        c = fr.get(name)
        cols.append([None] * len(steps) if c is None else [_num(v) for v in c[rows].tolist()])
    return list(zip(steps, *cols))


def _local_base(med: float, loc, early: bool = True) -> float:
    """The spike baseline: the delayed window's median, or the median of the last
    LOCAL values when that is LOCAL_LAG times lower (see LOCAL)."""
    if not early or len(loc) < LOCAL:
        return med
    lm = _median(loc)
    return lm if lm * LOCAL_LAG < med else med


def _contaminated_z(x: float, window, std: float) -> float | None:
    """``x``'s z against the window's robust spread (1.4826 x the MAD of its log values, about their
    median) when the window's sd is CONTAMINATED x that spread or more: a window holding a run's first
    records (a Theano char-NER log opening at 3.1e8, 432, 137 before settling at 0.3: its 9.4x and
    27x spikes at records 62 and 69 were under 2.5 sd) or another outlier the baseline kept; None
    for a window whose sd is its spread (the moments' z stands), or too few positive values."""
    logs = [math.log(v) for v in window if v > 0]
    if len(logs) < CONTAMINATED_MIN:
        return None
    m = _median(logs)
    mad = 1.4826 * _median([abs(v - m) for v in logs])
    if not mad > 1e-12 or std < CONTAMINATED * mad:
        return None
    return (math.log(x) - m) / mad


def _detrended_sd(values) -> float | None:
    """Noise of the log-loss in the last EARLY_K ``values``, free of their trend: the
    larger of 1.4826 x the MAD of their first differences / sqrt 2 and the residual
    sd around their least-squares line (either alone underestimates the noise now and
    then, and a 6-sigma rule needs it not to). None with fewer than EARLY_MIN values."""
    v = [math.log(x) for x in list(values)[-EARLY_K:] if x > 0]
    n = len(v)
    if n < EARLY_MIN:
        return None
    mad = diff_sd(v)
    tb, vb = (n - 1) / 2, math.fsum(v) / n
    stt = math.fsum((i - tb) ** 2 for i in range(n))
    slope = math.fsum((i - tb) * (x - vb) for i, x in enumerate(v)) / stt
    ssr = math.fsum((x - vb - slope * (i - tb)) ** 2 for i, x in enumerate(v))
    return max(mad, math.sqrt(ssr / (n - 2)))

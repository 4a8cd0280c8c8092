"""The generic text reader: plain-text training logs made of ``name: value`` /
``name=value`` pairs.

One reader for the console formats that print a step and metrics on
one line: nanoGPT (``iter 5: loss 4.2082, time 1431.27ms``), llm.c
(``s:12 trl:9.79 lr:0.000011 norm:3.01``), Megatron-LM / Megatron-DeepSpeed
(``iteration 10/ 1500 | lm loss: 7.1E+00 | loss scale: 1.0 | grad norm: 1.2 |``),
torchtitan (``step: 5  loss: 7.9  grad_norm: 1.4``, ANSI colours), printed
Python dicts (``{'loss': 1.56, 'grad_norm': nan, ...}``, HF Trainer stdout),
and custom prints such as ``Step 12 -- Train loss: 2.61, Train Acc: 0.13``.
Lines without a step and a metric (banners, warnings, tracebacks) are normal
console output: they are counted as ``other_lines``, not as skipped.
DeepSpeed ``OVERFLOW!`` lines become overflow records.
"""

from __future__ import annotations

import copy
import math
import re
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from tsm_tui.core.frame import INT_FIELDS, Frame
from tsm_tui.core.record import StepRecord
from tsm_tui.core.sanitize import strip_ansi
from tsm_tui.core.numbers import int64
from tsm_tui.sources.epoch_steps import REPEATS, EpochCounter, EpochRepeats
from tsm_tui.sources.launches import may_hold_banner
from tsm_tui.sources.base import MAX_LINE, LineReader
from tsm_tui.sources.line_clock import DayClock, clock_column, line_clock
from tsm_tui.sources.fields import (
    COUNTER_KEYS,
    EVAL_SCOPES,
    STEP_KEYS,
    SYMBOL_KEY,
    foreign_names,
    field_for,
    loss_role,
    named_objective,
    normalise,
    phase_word,
    scale_of_log2,
    val_perplexity,
)
from tsm_tui.sources.text_groups import BATCH_HEADER, LineGroups, dict_counter
from tsm_tui.sources.jsonl import _loads as _json_loads, flatten as _flatten

# Every regex here must stay linear in the line's length: no two adjacent pieces may
# match the same characters unless one of them is possessive ("s:5 trl:" + 16k digits
# takes 16 s when the integer part's [\d,]* and a following \d* share the digits). tests/integration/test_hostile.py feeds 200k-char lines of such shapes.
#: (``nan.0`` / ``inf.0``: Lightning's progress bar prints a NaN loss so: train_loss_step=nan.0)
NUM = r"[-+]?(?:\d[\d,]*(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|(?:nan|NaN|inf|Inf)(?:\.0)?|Infinity|-inf)"
# the word's run is possessive (*+): what follows a maximal run is none of the chars
# the rest of the pattern could use ("(", " ", ":", "=", spaces), so giving chars
# back never yields a match; it only cost backtracking (36% of PAIR's time)
WORD = r"[A-Za-z_][\w./\-]*+(?:\([\w/%]+\))?"
# key: up to five words ("number of skipped iterations", "elapsed time per iteration (ms)")
# a key starts at a letter that no word character, '.', '/' or '-' precedes: a key
# never starts inside another (otherwise each start position of "a-a-a-...=x" runs
# to the line's end: quadratic, minutes for a 1 MiB line of them)
# (a clock is no number: "eta: 2:32:53", "time: 0:01:23" name none)
PAIR = re.compile(rf"(?<![\w./\-])({WORD}(?: {WORD}){{0,4}})\s*[:=]\s*({NUM})(?![\w.]|:\d)")
# a NumPy scalar's repr (NumPy >= 2 prints np.float64(0.352), not 0.352): the number it holds. verl's
# console prints its metrics dict so, one " - "-joined "key:value" per metric after "step:N"
# ("step:1 - global_seqlen/min:158003 - actor/pg_loss:np.float64(0.0204) - actor/grad_norm:np.float64(0.72)
# - actor/lr:np.float64(1e-06) - ..."); a printed dict's ('loss': np.float64(...)) is DICT_PAIR's too.
# Linear: it starts only at "np.", every run is possessive.
NP_SCALAR = re.compile(rf"(?<![\w.])np\.(?:float|int|uint)\d*+\(\s*+({NUM})\s*+\)")
#: pixelNeRF's trainer (its forks' too): "E 3 B 120 loss rc:0.021 rf:0.019 t:0.040  lr 0.0001", the epoch and
#: the batch as letters, the loss dict's coarse / fine terms and "t" their total; an evaluation's line after
#: "*** Eval: " (fresh39: "no training metrics recognised in the first 2.6 MiB"). Read as "epoch 3 batch 120
#: loss_rc: 0.021 loss_rf: 0.019 loss: 0.040 lr: 0.0001". Anchored, possessive: linear.
_PIXELNERF = re.compile(r"^(\*\*\* Eval: )?E (\d++) B (\d++) loss ((?:\w++:\S++\s++)++)lr(?:\s++(\S++))?")
_PIXELNERF_TERM = re.compile(r"(\w++):(\S++)")


def _pixelnerf(m: re.Match) -> str:
    terms = " ".join(f"{'loss' if k == 't' else 'loss_' + k}: {v}" for k, v in _PIXELNERF_TERM.findall(m.group(4)))
    lr = f" lr: {m.group(5)}" if m.group(5) else ""
    return f"{m.group(1) or ''}epoch {m.group(2)} batch {m.group(3)} {terms}{lr}"


#: the step in other languages, written in ASCII, before its number (fields.STEP_KEYS has them as keys):
#: Romanian / French "pas", Spanish "paso", Italian / Portuguese "passo", German "Schritt", Polish / Czech
#: "krok", Dutch "stap" (fresh54's "pas    20 | pierdere 3.0124 | lr 8.40e-04": the step patterns are English)
_FOREIGN_STEP = re.compile(r"\b(?:[Pp]as(?:so|o)?|[Ss]chritt|[Kk]rok|[Ss]tap)(?=\s*+[:=]?\s*+\d)")
#: full-width punctuation of a CJK log as the ASCII the pairs are read by (the names stay: fields.normalise)
_FULLWIDTH = str.maketrans({"：": ": ", "，": ", ", "；": "; ", "（": " (", "）": ") ", "｜": " | "})
# a framework's scalar tensor printed as it is (a print loop's "loss: tensor(0.6931, grad_fn=<NllLossBackward0>)",
# "tensor(2.31, device='cuda:0')", TF2's "tf.Tensor(8.074845, shape=(), dtype=float32)", fresh40): its number
# (a tensor of several numbers is not one). Linear: the arguments hold no parenthesis but an empty "()"
TENSOR_SCALAR = re.compile(rf"(?<![\w.])(?:tf\.Tensor|tensor|Tensor)\(\s*+({NUM})\s*+(?:,(?:[^()\n]|\(\))*+)?\)")
# a value printed as a one-element list or tensor ("loss: [0.4123]", "loss: tensor([0.4123])", numpy's
# "loss [0.4123]", ours: bench/shapes.py): the number, after a name (a float only: "Epoch [3]" stays as
# it is, a counter)
_ONE_FLOAT = r"[-+]?(?:\d++\.\d*+(?:[eE][-+]?\d++)?|\d++[eE][-+]?\d++|nan|inf)"  # (a float: never a counter)
ONE_LIST = re.compile(rf"(?<=[A-Za-z_()])(\s*+[:=]?\s*+)\[\s*+({_ONE_FLOAT})\s*+,?\s*+\]")
# an error that says the gradients' norm was not finite (TF's tf.clip_by_global_norm: "Found Inf or NaN
# global norm. : Tensor had Inf values"; PyTorch's clip_grad_norm_(error_if_nonfinite=True): "The total norm
# of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped"): the run's grad norm
# at its last step was Inf / NaN (fresh49's VAE-Tacotron: a crash the NaN check read "all finite")
NONFINITE_NORM = re.compile(r"Found Inf or NaN global norm|gradients from `?parameters`? is non-finite")
# a Caffe2 workspace blob printed as it is ("Tensor loss of type float. Dims: (): 2.36932", fresh32's MNIST
# tutorial, one a training iteration): its name and its scalar
CAFFE2_BLOB = re.compile(r"\bTensor (\w++) of type \w++\. Dims: \(\s*+\): ")
# a value before its name ("Epoch 0 @ 10:27 PM : 0.9816 C.E. Loss, 94.28% Accuracy", fresh50; "iter 3, 0.52
# loss"): rewritten name first; never when a number or a separator follows the name ("0.5 val loss 0.6",
# "0.99 losses=[0.4, 0.5]": the name's own), nor in Darknet's line (DARKNET: "5.44, 5.44 avg loss," its own)
VALUE_FIRST = re.compile(
    r"(?<![\w.:])([-+]?\d++\.\d++(?:[eE][-+]?\d++)?|nan|inf)\s++((?:[A-Za-z][\w.]*+\s++){0,3}?[A-Za-z_.]{0,40}[Ll]oss(?:es)?+)\b"
    r"(?!\s*+[:=(\[]|\s*+[-+.\d])"
)
# an arrow between a counter or a value and the name after it ("Epoch [3]--->loss: 0.51", "epoch 3 -> loss
# 0.5", "Epoch 3 => loss: 0.4", ours: fresh42's ReID log, bench/shapes.py): a separator ("4.78 -> 4.47"
# between two numbers, a change, stays)
ARROW_SEP = re.compile(r"\s*+(?:-++|=++)>\s*+(?=[A-Za-z])")
# a loss said in a sentence about its step: "The loss of epoch 3 is 0.52", "loss for step 100: 2.1",
# "Training loss after epoch 3 = 0.52", "Loss at epoch 3: 0.52", "Training Loss (epoch 3): 0.52", a print
# glued by string concatenation "The loss of epoch0is:", an iteration's word however spelt ("train loss of
# iteraction 2:0.7938", fresh124's miRNA GNN: "nothing readable")
# (fresh40's TF2 poetry model; "loss at step N" is read as it is): rewritten as "epoch 3, loss: 0.52".
# Linear: anchored at the word "loss", every run possessive, the number's end checked once
LOSS_OF = re.compile(
    rf"(?i)\b((?:(?:train(?:ing)?|val(?:idation)?|valid|test|eval|average|avg|mean|total)\s++)?loss)\s++"
    rf"(?:(?:of|for|in|after|at)\s++|\(\s*+)(epoch|step|iter[a-z]{{0,8}}+|batch)\s*+(\d{{1,12}}+)\s*+\)?\s*+"
    rf"(?:is\b\s*+[:=]?|[:=])\s*+({NUM})(?![\w.])"
)
# MindSpore's LossMonitor: "epoch: 1 step: 62, loss is 2.2797" (``<name> is <value>``), a field
# of its own: one word right after the line's start or a separator ("best acc is 0.33" is prose)
IS_PAIR = re.compile(rf"(?:^|[,;|]\s*+)({WORD}) is ({NUM})(?![\w.]|:\d)")
# ... and a loss named in words before "is", as a field of its own: Paddle's "avg loss so far is 0.1097",
# "train loss is 0.12", "val loss is 0.3" (bounded name: linear)
IS_FIELD = re.compile(
    rf"(?:^|[,;|])\s*+([A-Za-z][A-Za-z _]{{0,40}}?)\s++is\s++({NUM})(?![\d.]\d)\s*+(?=[,;|]|\.(?!\d)|$)"
)
# LOSS_OF's words between spaces, or its parenthesis: looked for before LOSS_OF runs (the guard's substrings
# "in " matched every "train loss" line)
_LOSS_OF_HINT = re.compile(r"\s(?:of|for|in|after|at)\s|\(")


def _loss_of(m: re.Match) -> str:
    """LOSS_OF's match as "epoch 3, loss: 0.52" (an iteration's word as "iter")."""
    word = m.group(2)
    if word[:4].lower() == "iter":
        word = "iter"
    return f"{word} {m.group(3)}, {m.group(1)}: {m.group(4)}"


# Deeplearning4j's ScoreIterationListener: "... ScoreIterationListener - Score at iteration 100 is 1.39" (its
# score is the network's loss; the step word and number are the step match's, gone from the text): fresh46
DL4J_SCORE = re.compile(rf"\bScore at\s++is ({NUM})(?![\w.])")
_EVAL_WORD = re.compile(r"\b(?:val|valid|validation|eval|dev)\b", re.I)
#: ... not a best-so-far or a target named so: prose ("best loss is 0.33", MindSpore's logs)
_NOT_CURRENT = re.compile(r"\b(?:best|min(?:imum)?|lowest|highest|max(?:imum)?|prev(?:ious)?|target|initial)\b", re.I)
# a dict repr: 'key': value
# (transformers >= 5 prints the values as strings: {'loss': '5.381', ...})
DICT_PAIR = re.compile(rf"'([^']+)':\s*'?(?:np\.float\d*\(|tensor\()?({NUM})")
# a JSON object's entry on a line of its own ('    "Loss": 0.33,' of a json.dumps(indent=4) under
# a step's header): a named number of the record it continues
JSON_ENTRY = re.compile(rf'^\s*+"({WORD})"\s*+:\s*+({NUM})\s*+,?\s*+$')
# space-separated metrics nanoGPT prints ("loss 4.2082", "train loss 4.23, val loss 4.25")
# ("norm 3.9078": llm.c's stdout prints the grad norm so)
SPACED = re.compile(
    rf"\b((?:train[ _]|val[ _]|lm[ _])?loss|lr|learning[ _]rate|(?:grad[ _])?norm|gnorm)\s+({NUM})(?![\w.])", re.I
)
# ... and any other loss a name and a space give its value ("gen_loss 0.628060, dis_loss 1.398",
# a DCGAN's TensorFlow loop): a whole token holding "loss" (filtered in _spaced_losses), then
# its number; linear: a token starts only after a non-token character, and is taken whole
TOKEN_SPACED = re.compile(rf"(?<![\w./\-])([A-Za-z][\w./\-]*+)\s++({NUM})(?![\w.])")
# step times printed with their unit (kept for the ranks check's straggler rule):
# nanoGPT "time 1431.27ms", modded-nanogpt "train_time:1234ms step_avg:246.80ms",
# llm.c "(took 1190.3 ms)" -> "<key>_ms"; Megatron "elapsed time per iteration (ms): 1000.0"
MS_PAIR = re.compile(rf"(?<![\w.])([A-Za-z_]\w*+)(?:\s*+[:=]\s*+|\s++)({NUM})\s?ms(?![\w.])")
MEGATRON_MS = re.compile(rf"(elapsed time per iteration \(ms\)):\s*+({NUM})(?![\w.])")
# a cheap necessary condition for SPACED on ASCII text, matched against the lowered
# line (re.I over an alternation is the slowest regex here: ~10x this one)
_SPACED_HINT = re.compile(
    r"(?:loss(?:_[a-z])?|lr|rate|norm|\b(?:mse|mae|nll|b?ce|cost|train|training|trn))\s+[-+.\dni]"
)
#: a dict assigned to a name of weights or coefficients (a model dump's ``weight_dict:
#: {'loss_ce': 2.0, 'loss_mask': 5.0, ...}``, ``loss_weights = {...}``): configuration, its
#: loss names are no losses (a detectron2 log's config print read as 120.0 losses at each launch)
_WEIGHTS_DICT = re.compile(r"(?:weights?|weight_dict|coef\w*|lambdas?|factors?|scales?)['\"]?\s*[:=]\s*$", re.I)


#: a group of values named by a loss word just before it: a printed dict (``losses: {'total': 0.07, 'l1': 0.05}``)
#: or bracketed pairs (``Loss: [total: 0.0739][L1: 0.0492][cycle: 0.0193]``, fresh118's Jittor VSR log: "nothing
#: readable"): its bare names are the loss's, "loss_total" its total and "loss_l1" a term (``loss_named``)
LOSS_GROUP = re.compile(r"(?<![\w/])loss(?:es)?(?:_dict)?['\"]?\s*+[:=]\s*+$", re.I)
LOSS_BRACKETS = re.compile(
    rf"(?<![\w/])loss(?:es)?\s*+[:=]\s*+((?:\[\s*+[A-Za-z][\w.-]{{0,30}}+\s*+:\s*+{NUM}\s*+\]\s*+){{2,16}})", re.I
)
BRACKET_PAIR = re.compile(rf"\[\s*+([A-Za-z][\w.-]{{0,30}}+)\s*+:\s*+({NUM})\s*+\]")


#: a group of "name value" pairs in braces, no colon (glue-factory's logger: "[E 0 | it 100] loss {total 1.250E+00,
#: last 6.716E-01, ...}", "[Validation] {match_recall 6.318E-01, ..., loss/total 1.967E+00}"; fresh123: "nothing
#: readable"): read as "name: value" pairs, a loss word's group as its loss's (``loss_named``)
SPACED_BRACES = re.compile(
    rf"(?:(?<![\w/])(loss(?:es)?)\s*+)?\{{((?:\s*+[A-Za-z][\w/.-]{{0,40}}+\s++{NUM}\s*+,){{0,63}}+"
    rf"\s*+[A-Za-z][\w/.-]{{0,40}}+\s++{NUM}\s*+)\}}",
    re.I,
)
_SPACED_PAIR = re.compile(rf"([A-Za-z][\w/.-]{{0,40}}+)\s++({NUM})")


def _spaced_braces(m: re.Match) -> str:
    pairs = _SPACED_PAIR.findall(m.group(2))
    return ", ".join(f"{k}: {v}" for k, v in (loss_named(pairs) if m.group(1) else pairs))


def loss_named(pairs: list) -> list:
    """The pairs of a group named by a loss word (LOSS_GROUP, LOSS_BRACKETS, SPACED_BRACES) as the loss's own
    ("total" -> "loss_total", "l1" -> "loss_l1"), when none of them is named as a loss already (CoreNet's
    ``loss: {'classification': 4.73, 'neural_augmentation': 0.08, 'total_loss': 4.81}`` names its total: as
    it is, its other keys no terms, as before)."""
    if any("loss" in k.lower() for k, _ in pairs):
        return pairs
    return [(f"loss_{k}", v) for k, v in pairs]


def _loss_brackets(m: re.Match) -> str:
    return " ".join(f"{k}: {v}" for k, v in loss_named(BRACKET_PAIR.findall(m.group(1)))) + " "


def weights_dict(line: str, i: int) -> bool:
    """The dict that starts at ``line[i]`` is assigned to a name of weights (_WEIGHTS_DICT), or is a
    configuration dump (CONFIG_VALUE)."""
    if _WEIGHTS_DICT.search(line, max(0, i - 48), i) is not None:
        return True
    n = 0
    for _ in CONFIG_VALUE.finditer(line, i):
        n += 1
        if n >= CONFIG_VALUES:
            return True
    return False


#: a printed dict with CONFIG_VALUES or more values that are words or booleans is a configuration
#: (a script's ``print(vars(args))``: ``{'model': 'lg_ind', 'rnn_type': 'gru', ..., 'lr': 0.001}``,
#: read as an LR-only record whose "no warm-up" failed a healthy GNN run: fresh17 GraphRetro), not
#: a step's metrics: a trainer's dict holds numbers (transformers >= 5 quotes them: '5.381'), at
#: most a mode word ({'mode': 'train', ...}) or None (ours)
CONFIG_VALUE = re.compile(r"'[^'\n]{1,64}+':\s*+(?:'(?![-+.\d]|nan'|inf')[^'\n]{0,256}+'|True\b|False\b)")
CONFIG_VALUES = 2


# step keys that name a step on their own (not "batch", "s", "it": config echoes have those)
NAMED_STEP_KEYS = frozenset(
    {
        "step",
        "steps",
        "global_step",
        "_step",
        "iteration",
        "iter",
        "num_updates",
        "current_steps",
        "train/step",
        "train/global_step",
        "trainer/global_step",
        "t_env",  # (PyMARL: "Recent Stats | t_env:  30592 | Episode:  624", the stats on the lines after)
        *COUNTER_KEYS,
    }
)
_STEP_HINT = re.compile(r"(?i)step|iter|update|batch|t_env")
#: counts beside a step key on a header line (PyMARL's "| Episode: 624"): no metric of the record
_HEADER_COUNTS = frozenset({"episode", "episodes", "epoch"})
# ... a counter's word, not a loss's name ("Epoch [1/5], Batch Loss: 10.75": a per-batch print, its epoch
# the only counter; EpochRepeats counts them)
_COUNTER_HINT = re.compile(r"(?i)(?:step|iter|update|batch)(?![\s_-]*+loss)")
# a number that ends a sentence: a print of "key: value." clauses ("epoch: 0. Minibatch: 100. Training
# loss: 1.2873549461364746.", a denoising auto-encoder's notebook log): the full stop after a number, before a
# space or the line's end, is punctuation (read as a space). A number only: not a word's digits ("resnet50."),
# not the last part of a dotted run ("v1.2.3.", "10.0.0.1.", "model.100.pt"), not an ellipsis ("1.5...");
# "1." (a float printed with no decimals) is 1 either way. Linear: a number starts after no word character
# or dot, its runs are possessive.
SENTENCE_STOP = re.compile(
    r"(?<![\w.])([-+]?(?:\d++(?:\.\d++)?+(?:[eE][-+]?\d++)?+|(?:nan|NaN|inf|Inf)(?![\w])))\.(?=\s|$)"
)
# (a step with thousands separators, "step 1,001", is 1001, not 1)
# ("#" before the counter: a TF1 LSTM's "Training iter #2000:   Batch Loss = 25.27", "Iter #5", "step #3";
# CIRKD's "Iters: 10/20000 || ...", with its total only: "Num Iters: 4425" is a plan; never a command
# line's flag: "--train-iters 500")
STEP = re.compile(
    r"(?<![\w/\-])(?:iteration|iters(?=\s*+[:=]\s*+\d++\s*+/)|iter|steps(?=\s++\d++,)|step|it|(?<!:)s|ep(?=\s*+[:=]))(?:\s*+[:=]\s*+|\s*+#\s*+|(?=[^\S ]*+ )\s++)"
    r"(\d{1,3}(?:,\d{3})++|\d++)(?:\s*/\s*(\d+))?(?![\d.])(?!(?:ms|s|secs?|mins?)\b)",
    re.I,
)
# ("Steps 10, Total time 1.94, ... Loss 1.008e+02": a plural before its count and a comma, fresh79's TF1 loop;
# "s" is no step inside a colon-separated spec: an extended XYZ header's "Properties=species:S:1:pos:R:3" printed
# in a MACE console's preamble read as step 1, and the epochs after it as a summary: fresh127, 1 of 500 read)
# a date and time alone before the message, as a logger writes it: nnU-Net's print_to_log_file
# ("2024-03-01 10:00:37.123457: train_loss -0.53"), "[2024-03-01 10:00:37] Epoch 3", "2024-03-01
# 10:00:37 - loss: 0.5". The message is read as the line: the line-start rules (an epoch
# header, a step-less loss, a column header) see it. Linear: anchored, fixed widths.
TIME_PREFIX = re.compile(
    # (or the day first / the month first, as HF's example scripts' logging.basicConfig datefmt
    # "%m/%d/%Y %H:%M:%S" writes it: "04/12/2022 15:25:49 - INFO - __main__ - global_steps 50 loss: 7.46")
    # (or the month and day alone, "%m-%d %H:%M:%S," then the message: fresh130's T2ICount logger)
    r"(?:\[?(?:\d{4}[-/]\d\d[-/]\d\d|\d\d/\d\d/\d{4}|[01]\d-[0-3]\d(?= \d\d:\d\d:\d\d,))[ T]\d\d:\d\d(?::\d\d(?:[.,]\d{1,9})?)?(?:Z|[+-]\d\d:?\d\d)?"
    # (a zone named inside the brackets: "[2026-04-15 01:06:27 UTC]", "[... 北京时间]"; or the logger's name and
    # level: glue-factory's "[07/26/2025 10:28:16 gluefactory INFO]", fresh123)
    r"(?:(?: [\w.-]{1,40}+)? (?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)(?=\])| [^\W\d_]{1,16}(?=\]))?\]?(?::| -| \||,)?"
    # (ST-GCN / mmskeleton's print_log: "[03.24.23|09:56:11] Training epoch: 0")
    r"|\[\d\d\.\d\d\.\d\d\|\d\d:\d\d:\d\d\]"
    # (the date's digits run together, "%Y%m%d-%H:%M:%S": fresh121's ShuffleFaceNet logger, "20200204-19:54:00
    # Train Epoch: 1/70 ...", read nothing)
    r"|(?:19|20)\d\d[01]\d[0-3]\d[-_ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?"
    # (the level first, a US date and a 12-hour clock, the bracket left open: fresh25's YOLO logger
    # "[INFO 12/08/2022 05:05:48 AM ########EPOCH 1/100 ########")
    r"|\[(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL) \d\d/\d\d/\d{4} \d\d:\d\d:\d\d(?: [AP]M)?\]?"
    # (the time as the line's first field: fresh35's ORPO loop, "time:2024-03-23, 04:31:58, iters:1000, ...")
    r"|(?:time|date|datetime|timestamp)\s*+[:=]\s*+\d{4}[-/]\d\d[-/]\d\d(?:,?[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?)?,)"
    # (or the level glued to the time's colon: the CS230 starter code's "%(asctime)s:%(levelname)s: %(message)s",
    # "2018-07-27 17:05:58,802:INFO: Epoch 1/10"; fresh121: 1 of 10 epochs read)
    r"(?:(?<=\])[ \t]*+|[ \t]++|(?<=:)(?=(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL):))"
    # ... and the logger's fields after it: Python logging's "- INFO -" / "- root - INFO -" /
    # "- INFO - __main__ -" (HF's example scripts: the level, then the logger's name) /
    # "[INFO]:", loguru's "| INFO     | __main__:train:58 -"; a second bracketed level when a logger
    # re-prints a script's own tagged lines (fresh63's CLoRA: "[2025-07-07 12:01:34,174] INFO: [INFO] loss: 2.86")
    r"(?:(?:[\w.]{1,40}(?::[\w.]{1,40})?\s++-\s++)?\[?(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\]?\s*+(?:[-|:]\s*+)?"
    r"(?:[\w.]{1,40}+\s++-\s++(?=[A-Za-z_]))?"
    r"(?:\[(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\]\s*+(?:[-|:]\s*+)?)?"
    r"(?:[\w.<>]++:[\w.<>]++:\d++\s++-\s++)?)?"
)
# a date and time in angle brackets inside a line, between its counter and its values: no value
ANGLE_TIME = re.compile(r"<\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?>")
# ... or a clock time after "@" ("Epoch 0 @ 10:27 PM : 0.98 C.E. Loss", fresh50): no value either
#: the run's elapsed time with a unit or as a clock, its name before or after it ("step 2000/5000 | loss 0.182 |
#: 179s elapsed", fresh99's tiny LM; "elapsed: 12.5s", "time elapsed 3.2 min", "Elapsed time: 0:03:12"): read as
#: "elapsed: <seconds>" (the pairs take no number with a unit glued to it, nor a clock), the record's time, so the
#: throughput check has a clock (a 28-minute stall between two records of that log was "no step time logged")
_DUR_UNIT = r"(ms|s|secs?+|seconds?+|m|mins?+|minutes?+|h|hrs?+|hours?+)"
ELAPSED = re.compile(
    r"(?<![\w./-])(?:(?:time[ _]elapsed|elapsed(?:[ _]time)?+)\s*+[:=]?\s*+"
    rf"(?:(\d++(?:\.\d++)?+)\s*+{_DUR_UNIT}|(\d++):(\d\d):(\d\d(?:\.\d++)?+))"
    rf"|(\d++(?:\.\d++)?+)\s*+{_DUR_UNIT}\s++elapsed)(?![\w.])",
    re.I,
)
_DUR_SECONDS = {"ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
#: a named number in seconds, the unit a word after it ("Cost: 715.7 sec", fresh130's T2ICount epoch line: the
#: epoch's duration was read as the run's objective, "a cost: no loss logged"): its name gets the unit, no metric's
SECONDS_PAIR = re.compile(rf"(?<![\w./-])([A-Za-z][\w]{{0,30}}+)\s*+[:=]\s*+({NUM})\s++(?:sec|secs|seconds)\b")


def _elapsed(m: re.Match) -> str:
    """ELAPSED's match as "elapsed: <seconds>"."""
    if m.group(3) is not None:
        secs = int(m.group(3)) * 3600 + int(m.group(4)) * 60 + float(m.group(5))
    else:
        v, unit = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(6), m.group(7))
        u = unit.lower()
        secs = float(v) * _DUR_SECONDS["ms" if u == "ms" else u[0]]
    return f"elapsed: {secs:g}"


#: a split's line with no step: its split word, a dash, a colon or a bar, then named numbers (simple-nmt's
#: "Validation - loss=3.5795e+00 ppl=35.86 best_loss=inf"; "TRAIN | Acc: 0.3260 | Loss: 1.8273" and "TEST  | Acc:
#: 0.5391 | Loss: 1.3037" under an "[Epoch 1] Dataset: QUICKDRAW | Method: LSTM" header, fresh105: prose, the losses
#: never read): every name after it is the split's ("validation_loss=3.5795e+00 validation_ppl=35.86 ...")
SPLIT_LEAD = re.compile(
    r"(train(?:ing)?+|valid(?:ation)?+|val|eval(?:uation)?+|test)(?:\s++(?:metrics|results|stats|set))?+\s*+[-:|]\s++"
    r"(?=[A-Za-z_]\w*+\s*+[=:]\s*+[-+.\d])",
    re.I,
)
_SPLIT_NAME = re.compile(r"(?<![\w./\-])([A-Za-z_][\w./\-]*+)(?=\s*+[:=])")


def _split_keys(m: re.Match, line: str) -> str:
    """SPLIT_LEAD's line with its split word before every name after it."""
    w = m.group(1).lower()
    return _SPLIT_NAME.sub(lambda n: f"{w}_{n.group(1)}", line[m.end() :])


#: names and values in turn between commas, no ":" or "=" (a NeRF trainer's "Step, 0, Loss, 0.1142, PSNR, 9.42,
#: StepTime, 5.42, TrainTime, 5.42,", fresh109: "no training steps found", 165 lines skipped): read as pairs
_ALT_NAME = re.compile(r"[A-Za-z_][\w./\-]{0,40}+(?: [A-Za-z_][\w./\-]{0,40}+){0,3}+")
_ALT_VALUE = re.compile(r"[-+]?(?:\d++(?:\.\d*+)?+|\.\d++)(?:[eE][-+]?\d++)?+|[-+]?(?:nan|inf)", re.I)


def _alternating(line: str) -> str:
    """``line`` as "name: value" pairs when it is names and values in turn between commas (at least two of
    each, a trailing comma allowed), else ``line`` as it is."""
    cells = [c.strip() for c in line.split(",")]
    if cells and not cells[-1]:
        cells.pop()
    if len(cells) < 4 or len(cells) % 2:
        return line
    names, values = cells[0::2], cells[1::2]
    if not all(_ALT_NAME.fullmatch(n) for n in names) or not all(_ALT_VALUE.fullmatch(v) for v in values):
        return line
    return ", ".join(f"{n}: {v}" for n, v in zip(names, values))


def _header_start(line: str) -> bool:
    """``line`` may be a column header (text_groups ``_column_header``): it starts with a step column's
    name (epoch, step, iter), a blank or a "#", or its names are apart by tabs (a header with no step
    column: bearpaw's pytorch-classification Logger, "Learning Rate\tTrain Loss\tValid Loss ...")."""
    return line[0] in " \tEeSsIi#" or "\t" in line


#: a norm written as its symbol, a name between bars then "=" (simple-nmt's "Epoch 1 - |param|=6.52e+02
#: |g_param|=2.04e+05 loss=4.2095e+00 ppl=67.32", fresh105: "no training metrics recognised"): the name's norm,
#: a gradient's (``g_``) the grad norm
NORM_BARS = re.compile(r"\|(\w{1,40}+)\|(?==)")


def _norm_bars(m: re.Match) -> str:
    name = m.group(1)
    return " grad_norm" if name == "g" or name.startswith(("g_", "grad")) else f" {name}_norm"


#: an epoch's summary glued to the number a progress bar's redraw ended with, no newline between (a Keras-style
#: bar's "... mean_acc: 0.797767Epoch [2/50],  Loss: 4.6121, Train_Acc: 0.8061,": fresh126's UAMFD consoles, read
#: 0 and 33 of their epochs)
GLUED_EPOCH = re.compile(r"(?<=\d)(?=(?:Epoch|EPOCH) ?[\[(:]? ?\d)")
#: a bar's records held at most while its postfix repeats (``_bar_hold``; ours: an epoch's bar of a few thousand
#: batches; a longer run of one value is given as it is)
BAR_HOLD = 10_000
#: a counter's word glued to its number at the line's start, a person re-ID trainer's print ("Epoch1 Time:178.1s
#: Data:47.8s Loss:5.5364 Xent:5.2602 Htri:0.2762 Acc:12.89%", fresh124: "nothing readable"): the word and number apart
GLUED_COUNTER = re.compile(r"(Epoch|epoch|EPOCH|Iter|iter|Iteration|iteration|Step|step)\d{1,9}+(?=[\s:,|]|$)")
AT_TIME = re.compile(r"\s*+@\s*+\d{1,2}:\d\d(?::\d\d(?:[.,]\d{1,9})?)?(?:\s*+[AaPp][Mm]\b)?")
# a bracketed counter leading the message, then named values: CLU's LoggingWriter
# (clu/metric_writers/logging_writer.py: "[%d]%s %s", Flax's examples, t5x, scenic), after absl's
# prefix: "I1205 10:00:00.000000 140 logging_writer.py:48] [100] learning_rate=0.0001,
# train_loss=2.3" or "[100] collection=eval loss=2.1" (its keys sorted); a PPO loop's "[ 201]
# ep=2010 r= 22.2 ..."; a progressive GAN's "[scale : iteration]", "[0 :  16100] loss G : 904.9"
CLU_STEP = re.compile(
    r"(?:^\s*+|(?<=\] ))\[\s*+(?:(\d++)\s*+:\s*+)?(\d++)\s*+\](?: collection=([\w./\-]++))?\s++"
    r"(?=[A-Za-z_][\w./\-]*+(?: [A-Za-z_][\w./\-]*+){0,3}\s*+[:=])"
)
# a progress line's counter after its percentage: "Training [===   ] 8.5% 5000/58874 | ... | loss=3.91"
# (a tqdm bar's "10%|###| 100/1000" has its bar between: BAR_COUNT / the bar reader's)
PERCENT_COUNTER = re.compile(r"(?<![\w.])\d{1,3}(?:\.\d++)?%\s++(\d++)/(\d++)(?![\d./])")
# an epoch and a counter within it (or a global one): "Epoch [1/5], Step [100/600]",
# "Epoch 3 | Batch 100/5000", mmengine "Epoch(train) [1][100/500]", timm
# "Train: 1 [ 100/500 ( 20%)]", PyTorch-GAN's "[Epoch 1/200] [Batch 50/938] [D loss: ...]". Whether the counter starts again at each epoch is
# seen at the first change of epoch (``_epoch_step``). Linear: it starts only at the
# word, every run is possessive, and the counter needs its "/total".
EPOCH_COUNTER = re.compile(
    r"(?<![\w/])(?:epoch(?:\(train\))?|train:)\s*+[:=]?\s*+\[?\s*+(\d++)(?:\s*+/\s*+(\d++))?\s*+\]?"
    r"[\s,|:\-\]\[]*+(?:(step|iter(?:ation)?|(?:mini-?)?batch|it)\b\s*+[:=]?\s*+)?[\[(]?\s*+(\d++)\s*+/\s*+(\d++)(?![\d.])",
    re.I,
)
# a batch counter with its total leading a line of metrics, within the epoch of the last epoch header
# (a custom loop's "Epoch 2/5" line, then "  Batch 10/1827 | Batch Energy: 3.2 | Batch Loss: 11.03"); the
# total is required ("batch 32" alone is a size)
BATCH_LEAD = re.compile(r"^\W*+batch\s*+[:=]?\s*+\[?\s*+(\d++)\s*+/\s*+(\d++)\s*+\]?(?![\d.])", re.I)
# the same with a bracketed epoch and no word (a custom trainer's "  [3/100] batch 50/5305 loss=-68.4"):
# groups as EPOCH_COUNTER's; the counter's word is required here
BRACKET_COUNTER = re.compile(
    r"(?<![\w/])\[\s*+(\d++)\s*+/\s*+(\d++)\s*+\]\s*+(step|iter(?:ation)?|(?:mini-?)?batch|it)s?\b\s*+[:=]?\s*+"
    r"(\d++)\s*+/\s*+(\d++)(?![\d.])",
    re.I,
)
# the epoch with its total, a colon, then the counter with its total and often its percentage, in one
# bracket and no word: ezpz / ai4sci trainers' "[0] [1/5: 5120 / 160145 (3%)] epoch=1.0000 dt=0.52
# batch_loss=0.0114" (the MNIST example's "[5120/60000 (9%)]" with its epoch inside; fresh111: "no training
# metrics recognised"). Groups as EPOCH_COUNTER's, the word empty. Linear: anchored at "[", possessive runs
EPOCH_COLON = re.compile(
    r"\[\s*+(\d++)\s*+/\s*+(\d++)\s*+:()\s*+(\d++)\s*+/\s*+(\d++)\s*+(?:\(\s*+\d++(?:\.\d++)?+\s*+%\s*+\)\s*+)?+\]"
)
# a counter with its total in brackets ending a line of named metrics: the PyTorch quickstart tutorial's
# "loss: 2.303864  [   64/60000]" (samples seen in the epoch; fresh120's MindSpore port, "2023-08-07 15:56:18 -
# loss: 4.521990  [  100/  437]" under "Epoch: 1" headers: "no training steps found"). Placed in the epoch of
# the last epoch header, or counted as epochs by its restarts (``_trail_counter``). Linear: anchored at the end
TRAIL_COUNTER = re.compile(r"\[\s*+(\d++)\s*+/\s*+(\d++)\s*+\]\s*+$")
# the epoch's number before its word, then a named number: MaxwellNet's logger "INFO [Train] 12 epoch. Loss:
# 397.46" (fresh120: "no training metrics recognised"); an ordinal too ("3rd epoch, loss=0.5"). Group 1 is
# the epoch. Linear: possessive runs, the name a bounded run
NUM_EPOCH = re.compile(
    r"(?:^|(?<=[\]\s]))(\d{1,9}+)(?:st|nd|rd|th)?+\s++epoch\b\.?+\s*+[,:|\-]?\s*+(?=[A-Za-z_][\w ]{0,40}+[:=]\s*+[-+.\d])",
    re.I,
)
# an epoch and a counter with no total: "Epoch: [1], step: [100], lr: ..." (PaddleNLP's
# logger), "Epoch 2 Step 300 loss 1.2", "Epoch 1, Global Batch 5, Training Loss: 33.2" (a qualifier
# before the counter's word); whether the counter starts again at each epoch is
# seen at the first change of epoch, and its epoch's length is then the counter's last
# value (``_epoch_step``). Linear as EPOCH_COUNTER.
EPOCH_STEP = re.compile(
    r"(?<![\w/])(?:epoch|ep(?=\s*+[:=]))\s*+[:=]?\s*+\[?\s*+(\d++)(?:\s*+/\s*+\d++)?\s*+\]?[\s,|:\-\[]*+"
    r"(?:(?:global|total|train(?:ing)?|optimi[sz]er)[ _])?(step|iter(?:ation)?|(?:mini-?)?batch|it)s?\b\s*+[:=]?\s*+"
    r"\[?\s*+(?:\d++\s*+-\s*+)?(\d{1,3}(?:,\d{3})++|\d++)\s*+\]?(?![\d./])",
    re.I,
)
# (MXNet's Speedometer prints a range, "Epoch[5] Batch [0-40]" (or "[20-40]" with auto_reset): its end
# is the batch count; read as 0, an epoch's 80 records fell on one step)
# an epoch, then a few words and no number, right before a counter (STEP) that is not a run's total: "epoch
# 97, skip iteration 21, loss nan" (a video SR trainer's warning, its records "Epoch[97/800](20/500): Loss:");
# not "epoch 3 ... global step 500". Searched only in the 64 characters before the counter (``_epoch_before``)
EPOCH_BEFORE = re.compile(
    r"(?<![\w/])epoch\s*+[:=]?\s*+\[?\s*+(\d++)\]?(?![\d.])[^\d\n]{0,40}+(?<![Gg]lobal )(?<![Tt]otal )$", re.I
)
# a counter "of" its epoch, the word first: GPT2-chitchat's logger and its forks ("batch 1 of epoch 1, loss
# 9.443, batch_acc 0.0, lr [0.0]", "train batch 5 of epoch 2, loss 3.1, accuracy 0.4"); groups: counter, epoch.
# The counter is placed in its epoch as EPOCH_STEP's is (``_epoch_step``). Linear: anchored at the word, possessive runs.
OF_EPOCH = re.compile(
    r"(?<![\w/])(?:(?:mini-?)?batch|step|iter(?:ation)?)\s++(\d++)\s++of\s++epoch\s++(\d++)(?![\d.])", re.I
)
# a counter with its total, then its epoch, the counter first: a print loop's "Batch: 10/6035 | epoch: 0/50 |
# loss: 10.11" (fresh78's GPT-2 medical QA, its words Chinese: "当前Batch：10/6035 | 当前epoch:0/50 | 当前损失值：...";
# read as a bare counter, every epoch "resumed at step 10"). Groups: word, counter, its total, epoch, epochs.
# Linear: anchored at the word, possessive runs, the separators a bounded run
COUNTER_EPOCH = re.compile(
    r"(?<![\w/])((?:mini-?)?batch|step|iter(?:ation)?)\s*+[:=]?\s*+\[?\s*+(\d++)\s*+/\s*+(\d++)\s*+\]?"
    r"[\s,|;\-]{1,8}+epoch\s*+[:=]?\s*+\[?\s*+(\d++)(?:\s*+/\s*+(\d++))?+(?![\d.])",
    re.I,
)
# ... or two bracketed numbers with no word: SwAV / DINO-style "Epoch: [3][50]\tLoss 4.2 (4.3)"
# (groups as EPOCH_STEP's, the word empty)
EPOCH_BRACKETS = re.compile(r"(?<![\w/])epoch\s*+[:=]?\s*+\[\s*+(\d++)\s*+\]()\s*+\[\s*+(\d++)\s*+\](?!\s*+/)", re.I)
# a counter after a phase word (DGCNN-style "Train 12, loss: 0.41, train acc: 0.9" / "Test 12, loss: 0.5"):
# the counter is the step; a test / validation phase's loss is a validation loss
PHASE_COUNTER = re.compile(
    r"(?<![\w/])(train(?:ing)?|test|val|valid(?:ation)?|eval)\s++(\d++)\s*+[,:|]\s*+(?=[A-Za-z])", re.I
)
# the epoch and the counter in one bracket, first in the message: the original I-JEPA / V-JEPA
# (facebookresearch) "[1,     0] loss: 7.679 masks: ...", a fork's "[1,     0/ 2562] - train_losses -
# ...", the PyTorch CIFAR-10 tutorial's "[1,  2000] loss: 2.213" (groups: epoch, counter, total)
PAIR_COUNTER = re.compile(
    r"(?:^|(?<=[:\s]))\[\s*+(\d++),\s*+(\d++)(?:\s*+/\s*+(\d++))?\s*+\](?=\s*+[-|:]?\s*+[A-Za-z])"
)
# a line that starts with two or more bracketed counters, then its metrics: the PyTorch DCGAN
# example's "[0/5][50/1583]\tLoss_D: 1.74\tLoss_G: 5.07", LEADS' "[66][66/1200][1/1] | loss: 1.9e+03 |
# loss_train: ..." (fresh17: "no training metrics recognised"). The first bracket is the epoch, the
# last one with a total the counter within it (``_lead_brackets``). Linear: anchored, possessive runs
LEAD_BRACKETS = re.compile(r"^\s*+((?:\[\s*+\d++(?:\s*+/\s*+\d++)?+\s*+\]\s*+){2,6}+)(?=[-|:\s]*+[A-Za-z])")
_BRACKET = re.compile(r"\[\s*+(\d++)(?:\s*+/\s*+(\d++))?+\s*+\]")
# a counter leading the line, then named metrics, where STEP finds none: a bare number ("100 loss: 2.31
# lr: 0.001", "#100 loss 2.31", "(100) loss: 2.31": a script's print(step, "loss:", loss); only on a line
# naming a loss) or a step word STEP does not take ("update 10, loss 2.3" of an RL loop, "global_step 10:
# loss 2.3", "Step[10/1000] loss=2.3", "Batch 10/1000 Loss 2.3" with no epoch header; an RL loop's
# "Episode 10 | Reward: 10.0 | Loss: 0.52": leading the line only, PyMARL's "t_env: N | Episode: M" names
# its step first; a CJK name after the counter, fresh118's Jittor log "[100/4018 (2.5%)]\t进度: [100/4018]\t...
# Loss: [total: 0.0739]..."). Group 1 is the word, 2 the count, 3 its total. Linear: anchored, possessive runs,
# no two pieces share characters
LEAD_COUNTER = re.compile(
    r"^\s*+[#(\[]?+\s*+(?:(global[ _]?steps?|update|n_iter|steps?|iter(?:ation)?|batch|episode) *+[:=#\[]?+ *+)?+"
    r"(\d{1,15}+)(?:\s*+/\s*+(\d{1,15}+))?+(?:\s++\([^()\n]{0,64}+\))?+(?:\s*+[)\]])?+(?:\s*+[:,|\-])?+\s++(?=[A-Za-z_\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])",
    re.I,
)
# a name and its qualifier in parentheses: "Autoencoder Loss (total): 230.668" (PAIR takes no key
# there: the ")" stands between the name and the value)
QUALIFIED = re.compile(rf"(?<![\w./\-])((?:{WORD} ){{1,4}})\(([\w/%]+)\)\s*+[:=]\s*+({NUM})(?![\w.]|:\d)")
# a name and a bracketed list of numbers: I-JEPA's "grad_stats: [nan 1.05e-01] (0.00e+00, inf)" (the
# first and last layers' grad norms, then the smallest and largest), "losses=[0.41, nan]"; a list is no
# metric of the line (which element is which is the logger's), but a NaN / Inf in it is a non-finite value
# of that name (a NaN layer norm makes the total grad norm NaN): read only then (_nonfinite_lists)
NAMED_LIST = re.compile(
    rf"(?<![\w./\-])({WORD})\s*+[:=]\s*+([\[(][^\])\n]{{0,400}}[\])](?:\s*+[\[(][^\])\n]{{0,400}}[\])])?)"
)
LIST_SPAN = 4096  # characters of a line looked at for such lists (a hostile line of brackets: bounded work; ours)
_NONFINITE_TOKEN = re.compile(r"(?<![\w.])[-+]?(?:nan|inf(?:inity)?)(?![\w.])", re.I)
# a bracketed phase tag before an epoch counter: PaddleClas' "[Eval][Epoch 1][Iter: 0/25]CELoss: ..." is
# a batch of the evaluation (its loss no training step's), "[Eval][Epoch 1][Avg]CELoss: ..., loss: 6.90"
# the evaluation's loss
#: a line that opens with an evaluation's tag in brackets and no step ("[Validation] {match_recall 6.3E-01, ...,
#: loss/total 1.967E+00}"): its losses are the evaluation's, at the last training step
EVAL_BRACKET = re.compile(r"\s*+\[(?:eval(?:uation)?|valid(?:ation)?|val|test)\]\s", re.I)
EVAL_TAG = re.compile(r"\[(?:eval|valid(?:ation)?|val|test)\]\s*+\[\s*+epoch", re.I)
# ... or a phase word leading the line before its epoch (Demucs / Dora's "- Valid | Epoch 1 | 2/3 | ... |
# Loss 0.2213", "- Valid Summary | Epoch 1 | Loss=0.2223"; "Test epoch 3: loss 0.5"): the same, an
# evaluation's batch (no record) or its summary (the validation loss at the last training step)
EVAL_LEAD = re.compile(
    r"^[\W_]*+(?:eval(?:uation)?|valid(?:ation)?|val|test(?:ing)?)\b(?!\s*+[:=]\s*+[-+.\d])[^\d\n]{0,24}?(?=epoch)",
    re.I,
)
# iteration-based runs: mmengine's "Iter(train) [ 100/1000]  lr: ...  loss: ...", mmcv's
# (mmseg / mmdet 2.x) "Iter [50/160000]\tlr: 9.997e-03, ..., loss: 3.5"
ITER_COUNTER = re.compile(r"(?<![\w/])iter(?:\(train\))?\s*+\[\s*+(\d++)\s*+/\s*+(\d++)\s*+\]", re.I)
# ESPnet2's trainer: "1epoch:train:101-200batch: iter_time=..., loss=36.2, ..." (the records of
# a range of batches within the epoch, said at its last one; groups as EPOCH_STEP's, no word)
ESPNET_EPOCH = re.compile(r"(?<![\w/])(\d++)epoch:train:\d++-()(\d++)batch:")
# Sockeye's (and MXNet-era NMT trainers') "E=0 B=50\ts/sec=309.73 ...\tppl=1457.87": the epoch and the batch
# counted over the run, upper case, one letter each (fresh81: "nothing readable"); groups as EPOCH_STEP's
EB_LETTERS = re.compile(r"(?<![\w/])E=(\d++)\s++()B=(\d++)(?![\d.])")
# glue-factory's trainer: "[E 0 | it 100] loss {total 1.250E+00, ...}" (the epoch's letter, then its iteration;
# fresh123: read as "it 100" alone, every epoch a launch); groups as EPOCH_STEP's
E_IT = re.compile(r"\[E (\d++) \| it ()(\d++)\]")
# a step printed abbreviated (LeRobot's ``format_big_number``: "step:1K", "step:50K", rounded
# to the nearest thousand): the suffix after STEP's digits (a lower-case "m" is minutes, "b" bytes)
STEP_SUFFIX = re.compile(r"[KkMB](?![\w.])")
_EPOCH_HINT = re.compile(
    r"(?i)epoch|(?<![\w/])e=\d++\s++b=\d|\[E \d++ \| it |(?<![\w/])ep\s*+[:=]\s*+\d++\s*+[,|]\s*+(?:batch|step|iter)|(?<![\w/])ep\s*+\d++\s*+(?:/\s*+\d|[:,|\]])|train:|iter\(|iter\s*+\[|\d\s*+\]\s*+(?:step|iter|batch|it)"
)
# an epoch with its total and no counter, the only step a per-epoch log has:
# "Epoch 3/120, loss=0.41, val_loss=0.45", "dino pretrain ep  1/25  loss=3.156" (``ep`` with a total),
# "Epoch 0 of 250 \t lr=[1e-05] \t loss=0.50" (fresh123's Slurm segmentation runs: "nothing readable")
# (read so while the file has shown no other step)
#: a line that opens with its epoch and no total, then a named value ("Epoch 1,train_rmse: 2.2065,...,Total Loss:
#: 4.7224", fresh109's CLDOT loss_log.txt; "[Epoch 2] train_loss=0.1396" after a clock, fresh112's Siamese log; not
#: "Epoch 5 completed | train_loss=..."): the line's own step, never the continuation of an earlier step line's
#: group (after "Epoch 49,test_rmse: 0.95" with no loss, every later line was folded into one record at 49)
EPOCH_LEAD = re.compile(r"\W{0,3}+epoch\s*+[:=#]?\s*+(\d++)\s*+[\])]?\s*+[,;|:\-]?\s*+[A-Za-z_][\w ]{0,40}?[:=]", re.I)
EPOCH_ONLY = re.compile(
    r"(?<![\w/])(?:epoch|ep(?=\s*+\d++\s*+/\s*+\d))\s*+[:=]?\s*+\[?\s*+(\d++)\s*+\]?\s*+(?:/|of(?=\s))\s*+\[?\s*+(\d++)\s*+\]?(?![\d.])",
    re.I,
)
# Keras's callbacks with verbose=1, their epoch zero-padded to 5 digits and no total ("Epoch 00003:
# val_acc improved from 0.69 to 0.70, saving model to w.hdf5", "... did not improve", "Epoch 00012:
# ReduceLROnPlateau reducing learning rate to 1e-05.", "Epoch 00030: early stopping"): no record, no epoch
# (read as epoch records of val_acc, the file's metric lines under "Epoch 1/100" were lost). Anchored.
KERAS_CALLBACK = re.compile(
    r"Epoch \d{5}: (?:\w+ (?:improved|did not improve)|ReduceLROnPlateau|early stopping|saving model)"
)
# ... or with no total, when a separator (a dash or two too: "Epoch 1 -- loss: 0.5") and a name follow (a hand-written loop's
# "Epoch 1, Loss: 0.003351, Test Loss: 0.011142", "Epoch 3 | loss 0.4", "Epoch 3: loss=0.4"),
# the epoch in parentheses ("Epoch: (656), Loss : 1.18 , acc: 96.97%", fresh27's NTM copy task),
# a closing bracket and a name ("[Epoch 3] train loss: 0.4"), a space and a loss ("epoch 3 loss 0.4", up
# to three words before it: "Epoch 1 average loss:  0.3384, average mel loss: 0.1814", Tacotron's),
# or a space and a "name=value" or "name:value" ("epoch 3 loss=0.4", "[epoch0] trian_loss=315.7"; not t5x's
# "Epoch 0 progress: 100/2000"; "Ep 3: loss=0.41", an "ep" before its separator);
# not a bar's "Epoch 1: 100%|..."); the same rule: only while no line named another step.
# An epoch with a batch counter ("Epoch 3, batch 100/600") is EPOCH_COUNTER's / EPOCH_STEP's,
# tried first: its step is the epoch's offset plus the batch (``_epoch_step``)
EPOCH_BARE = re.compile(
    r"(?<![\w/])(?:epoch_?+|ep(?=\s*+\d++\s*+[,|:\]]))\s*+[:=]?\s*+[\[(]?\s*+(\d++)(?:\s*+[\])])?(?:\s*+(?:[,|:]|--?+)\s*+(?=[A-Za-z])|\s++(?=[A-Za-z_][\w./\-]*+\s*+=)"
    r"|(?<=\])\s++(?=[A-Za-z])|\s++(?=(?:[A-Za-z]++[ _]){0,3}loss(?:_[a-z]{1,3})?\s*+[:=]?\s*+[-+.\dnNiI])"
    r"|\s*+(?=\[\s*+[A-Za-z][\w ]{0,40}+[:=]\s*+[-+.\dnNiI])"
    # a few words of the epoch's own, then a pipe ("Epoch 0003 in static KGE | Ave Loss: 8.85", fresh48)
    r"|\s++(?=(?:[A-Za-z][\w.]*+\s++){1,4}\|\s*+[A-Za-z])"
    # a name glued to its colon and a number ("Epoch1 Time:178.1s Data:47.8s Loss:5.5364", a person re-ID trainer's,
    # its counter apart by GLUED_COUNTER: fresh124)
    r"|\s++(?=[A-Za-z_][\w./\-]*+:[-+.\d]))",
    re.I,
)
# ... or with a phase word between the epoch and its metrics, the record's kind (a Python logging loop's
# "epoch: 0 start, learning rate: 0.01", "epoch: 0 end, loss: 2.166", "epoch: 0 validation, acc: 0.60,
# loss: 2.153"; "Epoch 3 train: loss=0.4", "epoch 3 [val] | loss 0.5"; TransReID's "Epoch[2] done. Loss: 8.670
# (Base: 7.850, ...), Acc: 2.708%, Lr: 2.03e-04"; "Epoch 1 finished -- Train loss: 0.5385 - Val loss: 0.9109 --
# Elapsed time: 16.1s", fresh25's UNet trainer): the epoch is the step, an evaluation
# phase's loss the validation loss (group 2 names the phase); the same rule, only while no line named another
# step. A word outside the list ("Epoch 0 progress: 100/2000", "epoch 3 saved to ckpt, size: 3") is no phase
# (or a participle, then "with": "Epoch 0 trained with loss: 0.0197. ...", "Epoch 0 evaluated with loss: 0.00034,
# dice score: ...", fresh127's lung U-Net: its validation losses unread, Over-fitting "no evaluation loss logged")
PHASE_WORDS = r"start(?:ed)?|begin|end(?:ed)?|done|finished|complete(?:d)?|summary|results?|stats|train(?:ing|ed)?|"
EVAL_PHASES = r"val(?:id(?:ation|ated)?)?|eval(?:uation|uated)?|test(?:ing|ed)?|dev"
EPOCH_PHASE = re.compile(
    rf"(?<![\w/])epoch_?+\s*+[:=]?\s*+\[?\s*+(\d++)(?:\s*+\])?\s++\[?({PHASE_WORDS}{EVAL_PHASES})\]?"
    r"(?:\s*+(?:[,|:.]|--?+)\s*+|\s++with\s++)(?=[A-Za-z])",
    re.I,
)
_EVAL_PHASE = re.compile(rf"(?:{EVAL_PHASES})$", re.I)
# a field naming the line's phase, an evaluation ("mode validation", "phase: val", "split=test")
PHASE_FIELD = re.compile(rf"(?<![\w/])(?:mode|phase|split)\s*+[:=]?\s*+(?:{EVAL_PHASES})\b", re.I)
# Darknet's (pjreddie's and AlexeyAB's YOLO trainer) line per iteration: "6001: 5.444418, 5.444418 avg,
# 0.000100 rate, 10.471825 seconds, 6001 images" (AlexeyAB: "... avg loss, ..., 64 images, 10.5 hours left"):
# the iteration, the batch's loss, its running average, the LR, the batch's seconds (fresh25: "nothing
# readable": a bare "N:" is no step and the names follow their values)
DARKNET = re.compile(rf"^\s*+(\d{{1,12}}+): ?({NUM}), ?({NUM}) avg(?: loss)?, ?({NUM}) rate(?:, ?({NUM}) seconds)?")
# RWKV-LM's train_log.txt (RWKV-v4 to v7, RWKV-PEFT, RWKV-infctx: trainer.py's on_train_epoch_end writes
# f"{epoch_begin + current_epoch} {epoch_loss:.6f} {exp(epoch_loss):.4f} {lr:.8f} {datetime.now()} {current_epoch}"
# after a "NEW RUN <timestamp>" line and its args dict): the mini-epoch (epoch_steps optimizer steps each) is
# the step, then its mean loss, the perplexity of it, the LR, the time, the epoch of this launch (fresh93's
# RWKV-PEFT log of 14 launches: "no training metrics recognised"). Anchored, possessive: linear.
RWKV_EPOCH = re.compile(
    rf"^(\d{{1,12}}+) ({NUM}) ({NUM}) ({NUM}) (\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d++)?) \d{{1,12}}+\s*+$"
)
# a tqdm bar with no postfix whose line a logger's record continues with no newline between (the bar's
# redraw and a log line on one terminal line: fresh96's SambaNova BERT console, "Iteration:  13%|█▎  |
# 321/2552 [05:02<32:00,  1.16it/s]2024-04-06 18:32:42,002 - ... - epoch:0|local_step:322|global_step:322|
# average_loss:9.01663|..."): the record is the rest of the line, its own step key its step (the bar's count,
# one behind, had made the steps 13-20). Only a bar that leads its line (a record's own line with a bar glued
# after it keeps its record). Linear: anchored, the description's run bounded, the others possessive.
BAR_GLUED = re.compile(
    r"^[^|\n]{0,40}\d{1,3}%\|[^|\n]{0,160}+\|\s*+\d++/\d++\s*+\[[^\]\n]{0,80}+(?<=it/s|s/it)\](?=\S)"
)
# torchtune's progress bar: "<epoch>|<global step>|Loss: <loss>:  0%|...| 5/1617 [...]"
TORCHTUNE_BAR = re.compile(rf"^\s*+(\d{{1,9}})\|(\d++)\|Loss:\s*+({NUM})")
# a "| name value |" field of a pipe-separated line (a custom trainer's "step 47700 | loss 1.4684 | lr
# 1.79e-04 | grad 0.075 | 113.4k tok/s"): a name of up to three words and a number, nothing else
PIPE_FIELD = re.compile(rf"\s*+([A-Za-z_][\w./\-]*+(?: [A-Za-z_][\w./\-]*+){{0,2}})\s++({NUM})\s*+")
# a count before its unit word, padded, as a progress table prints it ("|     1000/  100000 steps| 14071.82
# tokens/s| loss    5.53| acc: 0.188", a fairseq / OpenNMT-style table of a custom Transformer trainer): the
# count is the step, the total the planned steps; its cells are read as a pipe line's (PIPE_FIELD). Not a rate
# ("steps/s"). Linear: possessive runs, no two pieces share characters.
UNIT_COUNTER = re.compile(r"(?<![\w./])(\d++)\s*+/\s*+(\d++)\s*+(?:steps?|iter(?:ation)?s?|updates?)\b(?!\s*+/)", re.I)
# a cell of a comma-separated list after a step marker ("batch 1 of epoch 1, loss 9.443, batch_acc 0.0, lr [0.0]"):
# a name of up to three words and ":" or "=", or one word and a space ("best loss is 0.1" is prose) or a comma
# before a number (fresh25's U-Net: "epoch 1, phase train, step 10, loss_train, 0.833"), then a
# number or a bracketed list of numbers (the LR of each param group: the first is the LR, as LR_TUPLE reads it);
# the cell ends at a comma or the line's end. Linear: matched at one place at a time, a list's numbers atomic (a
# run of "1,1,1..." is read once, not retried)
COMMA_CELL = re.compile(
    rf"\s*+(?:({WORD}(?: {WORD}){{0,2}})\s*+[:=]\s*+|({WORD})(?:\s++|\s*+,\s*+(?=[-+.\d])))"
    rf"(?:\[\s*+((?>{NUM}))(?:\s*+,\s*+(?>{NUM}))*+\s*+\]|({NUM}))\s*+(?:,|$)"
)
# BasicSR's logger prints the LR of each param group as a tuple: "lr:(2.999e-05,)", CoreNet's as a
# list: "LR: [1e-06, 1e-06]" (the first group's is the LR)
LR_TUPLE = re.compile(rf"(?<![\w./\-])(lr|learning[ _]rate)\s*+[:=]\s*+[(\[]\s*+({NUM})\s*+[,\]]", re.I)
# a tqdm bar's count before its time bracket, and the rate that ends the bracket's fixed part
# ("Training progress:  10%|█   | 3000/30000 [00:37<05:33, 80.96it/s, Loss=0.0360670]")
BAR_COUNT = re.compile(r"(?<![\d/])(\d++)/(\d++)\s*+$")
BAR_RATE = re.compile(r"(?:it|s)/(?:s|it),\s*+")
BAR_EPOCH = re.compile(r"(?<![\w/])epoch\s*+[:=]?\s*+\[?\s*+(\d++)", re.I)
#: an evaluation's bar: its description names one ("eval:", "Validation", "val", "test")
BAR_EVAL = re.compile(r"\W*+(?:eval\w*+|valid\w*+|val|test\w*+)\b", re.I)
#: a step-less line that is a loss and nothing else ("Loss:  157.06", one per batch): a record
#: as a line of several named numbers is (below); another single number (an LR echo) is not
STEPLESS_LOSS = re.compile(
    r"^(?:(?:train(?:ing)?|mean|avg|average|running|epoch|batch)[ _]){0,2}loss\s*+[:=]", re.I
)  # (indented: a config's "  loss: 1.0"; two words: fresh27's NumPy CNN "train mean loss: 2.3026")
# ... or a space between them, the loss alone on its line (fresh25's YOLO logger: "Mean loss 864.39" once an
# epoch, no counter anywhere; counted once it repeats, as the lines above)
STEPLESS_SPACED = re.compile(
    rf"^((?:(?:train(?:ing)?|mean|avg|average|running|epoch|batch)[ _]){{0,2}}loss)\s++({NUM})\s*+$", re.I
)
#: repeated step-less lines of named numbers needed before they are records (ours: a summary
#: line or a config echo printed once or twice is no training log)
STEPLESS_MIN = 3
# key<TAB>value<TAB>key<TAB>value ... (a name, then a number)
_TAB_KEY = re.compile(r"[A-Za-z_][\w./\- ]*+")
_NUM_FULL = re.compile(NUM)
OVERFLOW = re.compile(rf"OVERFLOW!(?:.*?Attempted loss scale:\s*({NUM}),?\s*reducing to\s*({NUM}))?", re.I)
# NVIDIA apex amp's dynamic loss scaler (apex/amp/scaler.py: "Gradient overflow.  Skipping step, loss scaler
# {} reducing loss scale to {}"): a skipped fp16 step, the new scale (group 1; the first group is the scaler's index)
APEX_OVERFLOW = re.compile(rf"Gradient overflow\.\s++Skipping step, loss scaler \d++ reducing loss scale to ({NUM})")
# OpenAI improved- / guided-diffusion's fp16 trainer (fp16_util.MixedPrecisionTrainer): a step whose gradients
# overflowed is skipped and "Found NaN, decreased lg_loss_scale to 23.776" logged (the scale's log2; fresh73)
LG_OVERFLOW = re.compile(rf"Found NaN, decreased lg_loss_scale to ({NUM})")
# DeepSpeed's progress line "[Rank 0] step=10, skipped=4, lr=[...]": its ``skipped`` is the
# engine's running total (engine.skipped_steps), not the interval's; an RLHF run's two
# engines (actor, critic) print one line each per step
DS_PROGRESS = re.compile(r"\bstep=(\d++), skipped=(\d++)")
# things the log says about the run
PARAMS = re.compile(
    r"(?:number of parameters|num(?:ber)?[_ ]params|total params(?:eters)?|"
    r"parameters on \(tensor, pipeline\) model parallel rank \(0, 0\))\s*+[:=]?\s*+([\d.,]+)\s*([KMBkmb])?"
)
ARG = re.compile(r"^\s*(\w+)\s+\.{3,}\s+(\S+)\s*$")  # Megatron "  lr ........ 0.0003"
TOKENS_PER_ITER = re.compile(r"tokens per iteration will be:\s*([\d,]+)")

_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9}
_ARG_KEYS = {
    "train_iters": "total_steps",
    "lr_warmup_iters": "warmup_steps",
    "lr": "peak_lr",
    "global_batch_size": "batch_size",
    "seq_length": "seq_len",
    "clip_grad": "clip",
    "save_interval": "save_steps",
    "log_interval": "logging_steps",
    "adam_beta2": "beta2",
    "adam_eps": "eps",
}


TAGS_KEPT = 256  # names before an epoch remembered (_tag_launch; ours: a bound, a script trains a few models)
#: a log written by N processes that each print (DDP ranks with a logger on every rank) has each of its
#: prose lines N times: the first RANK_SAMPLE prose lines (no record; their time of day aside, as a rank's
#: clock differs by milliseconds) tell N once RANK_TEXTS texts with letters are seen, N when at least
#: RANK_SHARE of those texts came exactly N times (ours: PyISV's 4 ranks, "Run ID", "=== START EPOCH 0 ==="
#: 4 times each; a single process's banners come once or a varying number of times). A text's copies count
#: within RANK_NEAR lines of its first (ranks print a line at about the same time: their copies interleave or
#: come in blocks of a rank's few lines); one that comes again further on is a banner or a crash of each launch
#: (a relaunch loop prints the same traceback each time) and no evidence. Ours
RANK_SAMPLE = 64
RANK_NEAR = 16
RANK_TEXT = 256  # characters of a prose line compared (a bound: a 1 MiB line is no bigger a key)
RANK_TEXTS = 3
RANK_SHARE = 0.75
RANK_MAX = 64  # (ours: a bound on the ranks believed; a text more often than that is no rank's copy)
_WORD = re.compile(r"\w+")


def _tag(line: str, end: int) -> str:
    """The words of ``line`` before ``end`` (its epoch's number): what names the training a line is of
    (``LSTM_e1 Epoch 1:`` / ``Transformer_L2_e1 Epoch 1:``: four trainings of one epoch each, not four batches
    of epoch 1; fresh51's char-LM log of 16 trainings). A word is kept when it has more letters than digits,
    so a timestamp (``2024-01-01T12:00:01``), a clock or a counter before the epoch is no part of it."""
    out = []
    for w in line[: min(end, 96)].split():
        letters = sum(c.isalpha() for c in w)
        if letters > sum(c.isdigit() for c in w):
            out.append(w)
    return " ".join(out)


class KeyValueTextReader(LineGroups, LineReader):
    name = "text"
    priority = 5
    # set on first use (annotations only: nothing at run time)
    _ds: list[Any]  # DeepSpeed's skipped steps (``_ds_skipped``): [last step, engine index, engine -> last total]
    _rep: EpochRepeats  # records whose step is their epoch (``_epoch_repeats``)
    _sl_seen: dict[tuple[str, ...], int]  # stepless records (``_stepless``): sightings per key set
    # ... and the lines held (pairs, place) until their key set is seen STEPLESS_MIN times
    _sl_held: list[tuple[list, tuple[int, int | None, int] | None]]

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        probe = cls(path)
        probe.text_tap = None  # (a probe counts records: a crash line is none)
        hits = 0
        n = 0
        for ln in head[:400]:
            if not ln.strip():
                continue
            n += 1
            hits += len(probe.feed(ln))  # (a tqdm line's \r redraws are records each)
        if not hits:
            return 0.0
        return 0.3 + 0.4 * min(1.0, hits / 5)

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.other_lines = 0
        self._ctx_reset()
        self._own_steps = 0  # records whose line named their step
        #: records read from a progress bar's postfix (tqdm redraws: a running mean in Lightning's bar):
        #: a tracker's own history of the same run is the better series (analysis/session.py)
        self.bar_records = 0
        #: a bar's last values (epoch, pairs, records held while they repeat, the run began its epoch's bar): _bar_hold
        self._bar_run: list[Any] | None = None
        self._bar_epochal = False  # ... an epoch's held repeats were dropped: the bar shows its epoch's values
        self._bar_pairs: list = []  # the metrics of the last bar record (a finished bar drawn again: _bar_postfix)
        self._step_prev: int | None = None  # the last step a line named (``_note_step``)
        self._step_gap = 0  # the interval between the last two steps printed in full
        self._step_exact = False  # the last step was printed in full
        self._step_abbr = False  # the step being read was printed abbreviated
        #: a line's leading date / time of day, its records' ``clock`` (None: not read, the
        #: template probe: the clock's digits are free text, ``_frame`` adds its column)
        self._clock: DayClock | None = DayClock()
        self._prose: dict[str, tuple[int, int]] = {}  # prose texts: (times, first line; ``_ranks``)
        self._line_no = 0
        self._prose_n = 0
        self._nranks: int | None = None

    def feed(self, line: str) -> list[StepRecord]:
        own, recs, ep, other = self._own_steps, self.records, self.__dict__.get("_epoch_records"), self.other_lines
        out = self._feed(line)
        self._line_no += 1
        if self.other_lines == other + 1 and self._prose_n < RANK_SAMPLE:
            self._prose_note(line)
        if out and ep == recs and own == self._own_steps and self.__dict__.get("_epoch_records") == ep:
            if all(r.loss is None and r.grad_norm is None for r in out):
                # an evaluation's note of no step of its own after an epoch record ("  保存最佳模型
                # (val_loss=2.59)" after each best epoch): no per-batch print beside the epoch lines, which
                # stay the records (``_epoch_only``: fresh54's 100 epochs read as 1, its notes as 72 at step 1)
                self._epoch_records = self.records
        if out and self._clock is not None:
            # the line's own clock (line_clock.py)
            t = self._clock.at(line) if line[:1].isdigit() or line[:1] in "[ " else None
            if t is not None:
                for r in out:
                    r.clock = t
        return out

    def _feed(self, line: str) -> list[StepRecord]:
        if "\x1b" in line:
            line = strip_ansi(line)
        if len(line) >= GLUED_MIN and line[:1].isalpha():
            parts = _glued(line)
            if parts is not None:
                return [r for p in parts for r in self._feed(p)]
        if "\r" in line:
            # a bar's redraws, each read as a line; an empty piece ("\r" before the first
            # redraw) is no blank line (a blank line closes a group or a table of columns)
            parts = [p for p in line.split("\r") if p.strip()]
            if not parts:
                return self._line("")
            out: list[StepRecord] = []
            for part in parts:
                out += self._line_after_held(part)
            return out
        return self._line_after_held(line)

    def _line_after_held(self, line: str) -> list[StepRecord]:
        """``_line``'s records, after the bar's held ones (``_bar_hold``) when another line gives records: they
        were each batch's, and come first (its step order; a validation at the last step had overtaken them).
        An epoch's line glued to a number before it (GLUED_EPOCH) is a line of its own."""
        if "poch" in line and (g := GLUED_EPOCH.search(line, 1)) is not None:
            return self._line_after_held(line[: g.start()]) + self._line_after_held(line[g.start() :])
        got = self._line(line)
        run = self._bar_run
        if got and run is not None and run[2]:  # (_bar_hold gives records only with nothing held left)
            got, run[2] = run[2] + got, []
        return got

    def _line(self, line: str) -> list[StepRecord]:
        if line.startswith("wandb:"):
            # W&B's own console lines (its run history / run summary at exit: "wandb:  iter 3000",
            # "wandb: train/loss 0.02522", flushed among the program's lines): never a record. Read
            # as one, the summary's "iter 3000" between iter 2906 and 2907 made a resume (fresh15)
            return []
        if ("global norm" in line or "non-finite" in line) and NONFINITE_NORM.search(line) is not None:
            return self._nonfinite_norm(line)
        if "np." in line:
            line = NP_SCALAR.sub(r"\1", line)
        if "Dims: (" in line:
            line = CAFFE2_BLOB.sub(r"\1: ", line)
        if "[" in line and "]" in line and _one_list_hint(line):
            line = ONE_LIST.sub(r"\1\2", line)
        if "ensor(" in line:
            line = TENSOR_SCALAR.sub(r"\1", line)
        if ">" in line and ("->" in line or "=>" in line):
            line = ARROW_SEP.sub(" : ", line)
        if "oss" in line and _value_first_hint(line) and DARKNET.match(line) is None:
            line = VALUE_FIRST.sub(r"\2: \1", line)  # (no match: the line as it was)
        if "oss " in line and _LOSS_OF_HINT.search(line):
            line = LOSS_OF.sub(_loss_of, line)
        if line[:2] == "E " or line[:4] == "*** ":
            px = _PIXELNERF.match(line)
            if px is not None:
                line = _pixelnerf(px)
        if line[:1] in "EeIiSs" and (g := GLUED_COUNTER.match(line)) is not None:
            line = f"{g.group(1)} {line[g.end(1) :]}"  # ("Epoch1 Time:178.1s ... Loss:5.5364": the counter apart)
        if "poche" in line:  # (German's "Epoche 3, Verlust: 0.52": the other languages' words are non-ASCII)
            line = line.replace("Epoche", "Epoch").replace("epoche", "epoch")
        if ("as" in line or "chritt" in line or "rok" in line or "tap" in line) and _FOREIGN_STEP.search(line):
            line = _FOREIGN_STEP.sub("step", line)
        if "|g|" in line:  # (the gradient's norm as its symbol, between column bars: "| |g|  0.33 |")
            line = line.replace("|g|", " gnorm ")
        if "|=" in line:
            line = NORM_BARS.sub(_norm_bars, line)
        if line[:1].isalpha() and line.count(",") >= 3 and ":" not in line and "=" not in line:
            line = _alternating(line)
        if not line.isascii():
            if "：" in line or "，" in line:
                line = line.translate(_FULLWIDTH)  # (a Chinese log's "平均总损失：0.2961，扩散损失：0.1918")
            line = foreign_names(line)
        if "<" in line and ">" in line:
            line = ANGLE_TIME.sub(" ", line)  # (fresh27's SimCLR: "Epoch: 1\t<2021-11-28 01:09:18> loss: 8.36")
        if "@" in line:
            line = AT_TIME.sub("", line)
        if "][" in line:
            line = LOSS_BRACKETS.sub(_loss_brackets, line)
        if "{" in line and ":" not in line[line.find("{") :]:
            line = SPACED_BRACES.sub(_spaced_braces, line)
        if "lapsed" in line:
            line = ELAPSED.sub(_elapsed, line)
        if "sec" in line:
            line = SECONDS_PAIR.sub(r"\1_sec: \2", line)  # ("Cost: 715.7 sec": a duration, no objective)
        if line[:1].isdigit() or line[:1] == "[" or line.startswith(("time", "date")):
            t = TIME_PREFIX.match(line)
            if t is not None:  # (nnU-Net's "2024-03-01 10:00:37.123457: Epoch 3": the rest is the line)
                line = line[t.end() :]
        if ". " in line or line[-1:] == "." or ".\t" in line:
            line = _sentence_stops(line)
        if not line.strip():
            return self._blank() if self._open else []
        if self._summ is not None or "ummary" in line or line[:1] in _SECTION_FIRST:
            got = self._summary(line)  # (summary and evaluation sections: text_groups.py)
            if got is not None:
                return got
        if line.startswith("Epoch 0") and KERAS_CALLBACK.match(line):
            self.other_lines += 1  # (Keras's ModelCheckpoint / EarlyStopping / ReduceLROnPlateau says)
            return []
        pre: list[StepRecord] = []
        if self._open:  # a record spread over lines may be open (text_groups.py)
            taken, pre = self._before(line)
            if not taken:
                out = [] if _header_start(line) and self._column_header(line) else self._line1(line)
                if self._evalsec is not None and any(r.loss is not None for r in out):
                    # a training record: the evaluation is over (a config's "EVAL:" section, read as
                    # one's start, made an epoch's "done! Training loss: 0.024" a validation loss
                    # 100 training lines later: paddle_vinvl's workerlog)
                    self._evalsec = None
                pre = pre + out if pre else out
            self._ctx_sync()
            return pre
        if line[0] in "- " and self._table_start(line):
            return []
        if _header_start(line) and self._column_header(line):
            return []
        return self._line1(line)

    def _prose_note(self, line: str) -> None:
        """Count a prose line's text for ``_ranks`` (the first RANK_SAMPLE with letters)."""
        t = TIME_PREFIX.match(line) if line[:1].isdigit() or line[:1] == "[" else None
        text = (line[t.end() :] if t is not None else line).strip()[:RANK_TEXT]
        if sum(c.isalpha() for c in text[:64]) < 3:
            return  # (a rule of dashes, a bare number: no evidence)
        self._prose_n += 1
        n, first = self._prose.get(text, (0, self._line_no))
        if n >= 0:  # (-1: it came again far on, for good)
            self._prose[text] = (n + 1 if self._line_no - first <= RANK_NEAR else -1, first)

    def _ranks(self) -> int:
        """The processes printing this log (``RANK_*``): N > 1 when the prose seen so far came N times
        a text; 1 otherwise. Decided once RANK_TEXTS texts are seen (1 until then)."""
        k = self._nranks
        if k is not None:
            return k
        counts = [n for n, _ in self._prose.values() if n > 0]  # (-1: a text that came again far on)
        if len(counts) < RANK_TEXTS:
            return 1
        top = max(set(counts), key=counts.count)
        share = counts.count(top) / len(counts)
        k = self._nranks = top if 2 <= top <= RANK_MAX and share >= RANK_SHARE else 1
        return k

    def _ctx_on(self) -> None:
        self._open = True

    def _ctx_sync(self) -> None:
        self._open = (
            self._grp is not None
            or self._tbl is not None
            or self._evalsec is not None
            or self._carry is not None
            or self._cols is not None
        )

    def _named_steps(self) -> bool:
        return self._own_steps > 0

    @staticmethod
    def _step_of_line(line: str):
        """A step of the line's own (a step key, or an epoch and its counter or total)."""
        m = _step_match(line)
        if m is None and _EPOCH_HINT.search(line):
            m = (
                EPOCH_COUNTER.search(line)
                or ITER_COUNTER.search(line)
                or EPOCH_STEP.search(line)
                or EPOCH_ONLY.search(line)
            )
        if m is None and "atch" in line:
            m = BATCH_HEADER.match(line) or BATCH_LEAD.match(line)
        if m is None and "][" in line:
            m = LEAD_BRACKETS.match(line)
        if m is None and line[:1] in "Ee[( " and _EPOCH_HINT.search(line, 0, 24):
            m = EPOCH_LEAD.match(line)
        return m

    @staticmethod
    def _dict_pairs(text: str) -> list:
        """The pairs of a printed dict (``{'loss': 1.5, ...}``): DICT_PAIR's, for text_groups.py."""
        return DICT_PAIR.findall(text)

    def _cont_pairs(self, line: str) -> list:
        """The named numbers of a line that continues a record (no step of its own)."""
        t = line.lstrip(" \t-*>")
        if t[:1] in "VvEeTt" and (sl := SPLIT_LEAD.match(t)) is not None:
            # a split's line under a step's header (the CS230 starter code's "Epoch 3/10", then "- Train metrics:
            # accuracy: 0.662 ; loss: 0.917" and "- Eval metrics: ... ; loss: 1.217"): its names are the split's
            line = _split_keys(sl, t)
        pairs = PAIR.findall(line)
        if not pairs and '"' in line:
            pairs = JSON_ENTRY.findall(line)
        if not line.isascii() or _SPACED_HINT.search(line.lower()):
            pairs += SPACED.findall(line)
        return pairs

    def flush(self) -> list[StepRecord]:
        out = self._close_group() + self._release_repeats() + self._bar_release()
        if self._tbl is not None:
            out += self._table_record(self._tbl[0])
            self._tbl = None
        return out + super().flush()

    def idle(self) -> list[StepRecord]:
        return self._close_group() + super().idle()

    def _release_repeats(self) -> list[StepRecord]:
        rep = self.__dict__.get("_rep")
        if rep is None:
            return []
        copies = rep.rank_copies
        out = rep.release()
        self._rank_skips(copies)
        self.records += len(out)
        self._own_steps += len(out)
        return out

    def _line1(self, line: str) -> list[StepRecord]:
        """One line read as a line (the multi-line contexts aside)."""
        if "it/s]" in line or "s/it]" in line:
            g = BAR_GLUED.match(line)
            if g is not None and any(c.isdigit() for c in line[g.end() : g.end() + 64]):
                # (the bar before it has nothing to read: BAR_GLUED; a redraw's leftover, "]/s]", is no record)
                return self._line(line[g.end() :])
        if "OVERFLOW" in line:
            return self._overflow(line)
        if " rate," in line and " avg" in line:
            d = DARKNET.match(line)
            if d is not None:
                return self._darknet(d)
        if line[:1].isdigit() and line.count(" ") >= 5:
            r = RWKV_EPOCH.match(line)
            if r is not None:
                return self._rwkv(r)
        if "Gradient overflow" in line:
            a = APEX_OVERFLOW.search(line)
            if a is not None:
                return self._apex_overflow(a)
        if "Found NaN" in line:
            a = LG_OVERFLOW.search(line)
            if a is not None:
                return self._apex_overflow(a, log2=True)
        if "'" in line and "{" in line:
            i = line.find("{'")
            if i >= 0:
                got = self._dict_record(line, i)
                if got is not None:
                    return got
        if '{"' in line:
            rec = self._json_in_line(line)
            if rec is not None:
                return [rec]
        if "\t" in line:
            rec = self._tabbed(line)
            if rec is not None:
                return [rec]
        if "|Loss:" in line:
            t = TORCHTUNE_BAR.match(line)
            if t is not None:
                return self._bar_step(t)
        if "/s," in line or "/it," in line or ("%|" in line and ("it/s]" in line or "s/it]" in line)):
            got = self._bar_postfix(line)
            if got is not None:
                return got
        if _EPOCH_HINT.search(line):
            got = self._epoch_line(line)
            if got is not None:
                return got
        elif "pisode" in line and self._epoch_header(line):  # ("Starting episode 3/100" alone: text_groups.py)
            return []
        if ": " in line and "/" in line and "[" in line:
            c = EPOCH_COLON.search(line, 0, HEADER_PREFIX + 48)
            if c is not None and c.start() <= HEADER_PREFIX:
                return self._epoch_counted(line, c)
        if "," in line and "[" in line:
            p = PAIR_COUNTER.search(line, 0, HEADER_PREFIX + 16)
            if p is not None and p.start() <= HEADER_PREFIX:
                return self._pair_counter(line, p)
        if "] " in line:
            c = CLU_STEP.search(line, 0, HEADER_PREFIX + 16)
            if c is not None:
                got = self._clu(line, c)
                if got is not None:
                    return got
        if "][" in line:
            b = LEAD_BRACKETS.match(line)
            if b is not None:
                got = self._lead_brackets(line, b)
                if got is not None:
                    return got
        if "% " in line and "/" in line:
            c = PERCENT_COUNTER.search(line)
            if c is not None and c.start() <= HEADER_PREFIX:
                step = int64(c.group(1))
                if step is not None:
                    self.run_info.setdefault("total_steps", c.group(2))
                    self._no_template = True
                    return self._with_step(line, c, step)
        m = _step_match(line)
        if m is None and line[-1:] in "] " and "/" in line:
            t = TRAIL_COUNTER.search(line)
            if t is not None:
                got = self._trail_counter(line, t)
                if got is not None:
                    return got
        if m is None and "/" in line:
            c = UNIT_COUNTER.search(line, 0, HEADER_PREFIX + 64)
            if c is not None and c.start() <= HEADER_PREFIX:
                got = self._unit_counter(line, c)
                if got is not None:
                    return got
        if m is None and self._carry is not None and "atch" in line:
            b = BATCH_LEAD.match(line)
            if b is not None:  # "  Batch 10/1827 | Batch Loss: 11.03" under an "Epoch 2/5" header
                return self._batch_lead(line, b)
        if m is None:
            if self._eval_header(line) or (self._carry is not None and "atch" in line and self._batch_header(line)):
                return []
            c = LEAD_COUNTER.match(line)
            if c is not None and (c.group(1) or self._bare_ok() and _bare_counted(line, c.end())):
                got = self._lead_counter(line, c)
                if got is not None:
                    return got
            if line[:1] in "VvEeTt" and (sl := SPLIT_LEAD.match(line)) is not None:
                line = _split_keys(sl, line)  # ("Validation - loss=3.58": the split's loss)
            rec = self._named_step(line)
            if rec is not None:
                return [rec]
            got = self._info(line)
            if got:
                return got  # (a flavour's own step-less record: llm.c's "val loss X")
            got = self._stepless(line)
            if got is not None:
                return got
            self.other_lines += 1
            return []
        step = int64(m.group(1).replace(",", ""))
        if step is None:
            self.skip("step out of range")
            return []
        if m.end() == m.end(1) and STEP_SUFFIX.match(line, m.end()):
            step = self._abbreviated(step, int(_SUFFIX[line[m.end()].lower()]))
            if step is None:
                self.skip("step out of range")
                return []
            line = line[: m.end()] + line[m.end() + 1 :]  # (the suffix is no metric's text)
        if self._open:
            total = int64(m.group(2)) if m.group(2) else None
            if self._evalsec is not None and self._in_eval(total):
                if self._training_again(line, step, total):
                    self._evalsec = None  # (read below as the training line it is)
                else:
                    got = self._eval_record(line, m)
                    if got is not None:
                        return got
                    self._evalsec = None  # a step line with no metric: a training header, the evaluation is over
            if self._carry is not None:  # a counter within the epoch of the last header
                e, epochs = self._carry  # (with no total, the first epoch's last counter is its length)
                step = self._epoch_step(e, epochs, step, total)
                if step is None:
                    self.skip("step out of range")
                    return []
                return self._with_step(line, m, step, [("epoch", e)])
        if not m.group(2) and "/" in line:
            inner = STEP.search(line, m.end(), m.end() + 32)
            if inner is not None and inner.group(2):
                # an outer counter with no total, then a counter with one: the outer is an epoch, the inner
                # its batch (the ChineseNER family's "iteration:5 step:300/1044, NER loss: 2.3": about ten
                # records an "iteration" had collapsed onto its number, fresh32)
                n, per = int64(inner.group(1).replace(",", "")), int64(inner.group(2))
                s2 = self._epoch_step(step, None, n, per) if n is not None and per else None
                if s2 is None:
                    self.skip("step out of range")
                    return []
                self._no_template = True
                return self._with_step(line, inner, s2, [("epoch", str(step))])
        if m.group(2):
            self.run_info.setdefault("total_steps", m.group(2))
        if m.start() > 6 and _EPOCH_HINT.search(line, 0, m.start()):
            got = self._epoch_before(line, m, step)
            if got is not None:
                return got
        return self._with_step(line, m, step)

    def _epoch_before(self, line: str, m, n: int) -> list[StepRecord] | None:
        """A counter (STEP) after an epoch a few words before it, another shape than the log's record
        lines (a trainer's NaN warning "epoch 97, skip iteration 21, loss nan" beside its records
        "Epoch[97/800](20/500): Loss: ..."): the counter placed in its epoch as the records' are
        (``EpochCounter.place``: once they have shown it is a batch index and the epoch's length), the
        counter state unmoved; None when no epoch is there (the line is read with the counter alone)."""
        e = EPOCH_BEFORE.search(line, max(0, m.start() - 64), m.start())
        if e is None or e.start() > HEADER_PREFIX:
            return None
        ep = int64(e.group(1))
        if ep is None:
            return None
        self._no_template = True  # (the step depends on the records before: no template)
        c = self.__dict__.get("_ep")
        step = c.place(ep, n) if c is not None else n
        return self._with_step(line, m, step, [("epoch", e.group(1))])

    def _dict_record(self, line: str, i: int) -> list[StepRecord] | None:
        """A printed dict at ``i`` (its pairs, an LR list or tuple after it): at the step of the
        counter printed before it (``[Train 10/1882]``, ``Epoch: 1 [116/10000000], loss:``:
        text_groups.dict_counter), else the next record's; None when it holds no metric (or
        is a dict of loss weights: _WEIGHTS_DICT)."""
        if weights_dict(line, i):
            return []
        if line.find("}", i) < 0 and line[:i].rstrip().endswith("':"):
            # a dict nested in another, printed over lines ("'optim': {'lr': 1e-06," in verl's
            # pprint-ed Hydra config, under Ray's "(TaskRunner pid=..)" prefix): configuration
            self.other_lines += 1
            return []
        c = dict_counter(line, i)
        step = None
        if c is not None:
            e, n, total = c
            # (the total beside an epoch is no plan: CoreNet prints its 10,000,000-iteration cap)
            step = n if e is None else self._epoch_step(e, None, n, None)
            if step is None:
                self.skip("step out of range")
                return []
        elif (m := STEP.search(line, 0, i)) is not None:
            # (a step word before it, "Iter 100 losses: {...}", is its step, as a JSON object's: _json_in_line)
            step = int64(m.group(1).replace(",", ""))
            if step is None:
                self.skip("step out of range")
                return []
        pairs = DICT_PAIR.findall(line[i:])
        j = line.find("}", i)
        if LOSS_GROUP.search(line, max(0, i - 24), i) is not None:
            own = len(DICT_PAIR.findall(line, i, j + 1)) if j > 0 else len(pairs)
            pairs = loss_named(pairs[:own]) + pairs[own:]
        if j > 0 and ("[" in line[j:] or "(" in line[j:]):
            t = LR_TUPLE.search(line, j)  # CoreNet's "LR: [1e-06, 1e-06]"
            if t is not None:
                pairs.append(t.groups())
        rec = self.build(pairs, step=step)
        if rec is None:
            return None
        if c is not None:
            if c[0] is None:
                self.run_info.setdefault("total_steps", c[2])
            else:
                self._no_template = True  # (the step is no single number of the line)
            self._own_steps += 1
        elif step is not None:
            self._own_steps += 1
        return [rec]

    def _abbreviated(self, v: int, mult: int) -> int | None:
        """The step printed as ``v`` thousands (millions, ...), rounded: several records
        print the same "1K" (steps 1000, 1200, 1400 at a record every 200). The step is
        the last record's plus a whole number of the log's interval (learned from the
        steps before) that lands within the rounding of the printed value; with no
        interval known yet, or none that lands there (a restart), the printed value."""
        self._no_template = True  # (the step depends on the lines before: no template)
        x = int64(v * mult)
        if x is None:
            return None
        h = mult // 2
        prev, gap = self._step_prev, self._step_gap
        if prev is not None and gap > 0 and prev < x + h:
            k = max(1, -((prev - (x - h)) // gap))  # (ceil((x - h - prev) / gap), at least one)
            if prev + k * gap <= x + h:
                x = prev + k * gap
        self._step_abbr = True  # (taken by the record's _with_step)
        return x

    def _note_step(self, step: int, exact: bool) -> None:
        """A step read: two printed in full in a row give the log's interval, which
        places an abbreviated step (``_abbreviated``)."""
        prev = self._step_prev
        if exact and prev is not None and self._step_exact and step > prev:
            self._step_gap = step - prev
        self._step_prev, self._step_exact = step, exact

    def _training_again(self, line: str, step: int, total: int | None) -> bool:
        """A step line inside an evaluation section that is a training line: printed by the same format
        as the last training record (``_print_format``), its step past that record's, or before it with
        no total of its own (a new launch's "Epoch 0 | Total: nan" in one file, not an evaluation's
        counter "[1/50]", whose total is its own). A header that prints nothing of its own ("===
        Validation checkpoint ===" after each "step 25 | loss: 2.87" line) had opened a section from
        which every later training line was read as a validation at step 25 (fresh46's PINN log of 33
        launches: the last launch's section took the next 32); an evaluation at the training's step
        ("Validation:" then "step 300 | loss: 2.0" under "step 300 | loss: 1.5") stays one."""
        prev = self.__dict__.get("_train_line")
        if prev is None or step == self._last_step or step < self._last_step and total is not None:
            return False
        return _print_format(line) == _print_format(prev)

    def _eval_record(self, line: str, m) -> list[StepRecord] | None:
        """A step line inside an evaluation section: its loss is a validation loss at the
        last training step (the counter is the evaluation's); None when the line has no
        metric (a training step's header: the section is over)."""
        other = self.other_lines
        out = self._at_last_step(line, m)
        if out is None:
            self.other_lines = other
            self._grp = None
        return out

    def _at_last_step(self, line: str, m, pairs: list | None = None) -> list[StepRecord] | None:
        """The records of a step line read as validations at the last training step (the line's own
        counter is no training step: an evaluation section's, a phase's): each one's loss, however
        named, its validation loss; None when the line gives no record."""
        prev = self._last_step
        got = self._with_step(line, m, max(prev, 0), pairs, phase=False)
        self._last_step = prev
        if not got:
            return None
        self._own_steps -= len(got)
        out = []
        for r in got:
            val = r.val_loss if r.val_loss is not None else r.loss
            if val is None:
                self.records -= 1
                continue
            out.append(StepRecord(r.step, val_loss=val, source=r.source))
        return out

    def _with_step(self, line: str, m, step: int, pairs: list | None = None, phase: bool = True) -> list[StepRecord]:
        """The record of a line whose step ``m`` matched: its other pairs are the metrics."""
        if phase and (
            ("ode" in line or "hase" in line or "plit" in line)
            and PHASE_FIELD.search(line)
            or "Saving dict for global step" in line  # (TF Estimator's evaluation: "... eval_loss = 0.72, loss = 0.72")
        ):
            return self._phase_eval(line, m, pairs)
        abbr, self._step_abbr = self._step_abbr, False
        rest = line[: m.start()] + " " + line[m.end() :]
        pairs = (pairs or []) + PAIR.findall(rest)
        if rest.count("|") >= 2:
            pairs += _pipe_pairs(rest)
        if "," in line:
            pairs = _comma_cells(line, m.end(), pairs)
        if ":(" in rest or "=(" in rest:
            # (a list on a step line is not read: DeepSpeed's "step=1, skipped=0, lr=[1e-08, 1e-08]" of
            # two engines would become records of their own beside the run's)
            t = LR_TUPLE.search(rest)  # (the first: a hostile line repeats it)
            if t is not None:
                pairs.append(t.groups())
        if not rest.isascii() or _SPACED_HINT.search(rest.lower()):
            pairs += SPACED.findall(rest)
            pairs += _spaced_losses(rest, pairs)
        if "ms" in rest:
            pairs += _step_times(rest)
        if " is " in rest:
            pairs += IS_PAIR.findall(rest)
            if "Score at" in rest:
                pairs += [("loss", v) for v in DL4J_SCORE.findall(rest)]
            if "loss" in rest and not any("loss" in k.lower() for k, _ in pairs):
                pairs += _is_losses(rest)
        if " (" in rest:
            pairs = _qualified(rest, pairs)
        bad = (
            _nonfinite_lists(rest[:LIST_SPAN])
            if ("[" in rest or "(" in rest) and _NONFINITE_TOKEN.search(rest)
            else None
        )
        if bad:
            pairs += bad
        rec = self.build(pairs, step=step)
        if rec is None and bad:
            rec = self._nonfinite_record(step, bad)
        if rec is None:
            self.other_lines += 1
            if self._evalsec is None and _is_header(line, m):  # a step alone: its metrics may follow (text_groups.py)
                self._open_group(step, pairs)
            return []
        self._own_steps += 1
        self._note_step(step, not abbr)
        if phase and rec.loss is not None:
            self._train_line = line  # (its print format: _training_again; a "Checkpoint saved at epoch 50" is none)
        if rec.skipped is not None and "skipped=" in line and DS_PROGRESS.search(line):
            rec.skipped = self._ds_skipped(step, rec.skipped)
        if rec.loss is None and rec.val_loss is None and _is_megatron_train(line):
            rec.loss_missing = True
        return [rec]

    def _phase_eval(self, line: str, m, pairs: list | None) -> list[StepRecord]:
        """A step line that names its phase, an evaluation (PHASE_FIELD: "mode validation"): its loss is
        a validation loss at the last training step, never a training record (fresh29's EC trainer:
        65 "epoch 0 | global step 0 | mode validation | loss 2.0797" lines were training losses, the
        last, after "Best model stats:", a resume to step 0 that left the plateau check nothing)."""
        self._no_template = True
        return self._at_last_step(line, m, pairs) or []

    def _nonfinite_norm(self, line: str) -> list[StepRecord]:
        """NONFINITE_NORM's error: a grad norm of Inf (NaN when the line says NaN or neither) at the last
        step read, once a step (TF prints it twice: where it was raised, and after the traceback)."""
        self.other_lines += 1
        step = self._last_step
        if self.records == 0 or self.__dict__.get("_norm_said") == step:
            return []
        self._norm_said = step
        v = math.inf if "Inf values" in line else math.nan
        self.records += 1
        return [StepRecord(step, grad_norm=v, source=self.path)]

    def _nonfinite_record(self, step: int, bad: list[tuple[str, str]]) -> StepRecord:
        """The record of a line whose only numbers are named lists, one holding a NaN / Inf
        (``_nonfinite_lists``): those names, non-finite, at the line's step (the NaN check reads
        a gradient statistic's: components.nonfinite_grads)."""
        extra = {k: float(v) for k, v in bad}
        self._last_step = step
        self.records += 1
        return StepRecord(step, extra=extra, source=self.path)

    def _ds_skipped(self, step: int, total: int) -> int:
        """DeepSpeed's running total of skipped steps as the steps skipped since the same
        engine's last progress line (engines told apart by their order within a step)."""
        self._no_template = True  # (a difference of two lines: no template)
        st = getattr(self, "_ds", None)
        if st is None:
            st = self._ds = [None, 0, {}]  # last step, engine index within it, engine -> last total
        st[1] = st[1] + 1 if step == st[0] else 0
        st[0] = step
        prev = st[2].get(st[1])
        if len(st[2]) < 8:
            st[2][st[1]] = total
        elif st[1] in st[2]:
            st[2][st[1]] = total
        return total - prev if prev is not None and total >= prev else total

    def _bar_step(self, t) -> list[StepRecord]:
        """torchtune's bar: the global step and the loss (the bar's own counter is the
        epoch's batch, its rate and times are not metrics)."""
        rec = self._fixed_record(t.group(2), [("loss", t.group(3)), ("epoch", t.group(1))])
        return [rec] if rec is not None else []

    def _fixed_record(self, step: str, pairs: list) -> StepRecord | None:
        """The record of a line whose format fixes where each number is (torchtune's bar, darknet's line,
        RWKV-LM's): ``pairs`` at the step ``step`` spells; None when that step is out of range (a counted
        skip) or the pairs hold no metric. Such a line is no template's (its step is no single number)."""
        n = int64(step)
        if n is None:
            self.skip("step out of range")
            return None
        self._no_template = True
        return self.build(pairs, step=n)

    def _bar_postfix(self, line: str) -> list[StepRecord] | None:
        """A tqdm bar whose postfix holds metrics (``| 3000/30000 [00:37<05:33, 80.96it/s,
        Loss=0.0360670]``): a record at the bar's count (an epoch named before the bar makes
        it a counter within the epoch); the bar's own numbers (percent, times, rate) are not
        metrics; a redraw at the same count is the same step (not read again)."""
        i = line.rfind(" [")
        if i < 0:
            return None
        c = BAR_COUNT.search(line, 0, i)
        j = line.rfind("]")
        if c is None or j < i:
            return None
        r = BAR_RATE.search(line, i, j)
        pairs = PAIR.findall(line, r.end(), j) if r is not None else []
        if not pairs:
            # ... or in its description (tqdm's set_description: "Epoch 3 loss 0.4321:  45%|...")
            pairs = _bar_description_pairs(line, c.start())
            if not pairs:
                return None
        n, total = int64(c.group(1)), int64(c.group(2))
        if n is None or total is None:
            self.skip("step out of range")
            return []
        self._no_template = True
        if BAR_EVAL.match(line, 0, c.start()):
            # an evaluation's bar ("eval:  40%|...| 20/50 [..., loss=0.42]"): its postfix at the
            # end of the pass (the count at its total) is the validation loss at the last
            # training step; its redraws before that are no training records
            done = (self._last_step, total)  # (tqdm draws a finished bar twice: at its last update and at close)
            if n != total or self.records == 0 or self._last_step < 0 or done == self.__dict__.get("_eval_bar"):
                self.other_lines += 1
                return []
            self._eval_bar = done
            return self._validation_at(pairs, self._last_step)
        e = BAR_EPOCH.search(line, 0, c.start())
        at = (e.group(1) if e is not None else self._carry, n)
        last = self.__dict__.get("_bar_n")
        if n == total and last is not None and last[1] == total and last[0] != at[0] and pairs == self._bar_pairs:
            # a finished bar drawn again under the next epoch's label, its count and postfix the last
            # epoch's (Lightning names the new epoch before it resets the bar: "Epoch 11: 100%| 395/395
            # ... loss=1.82" after "Epoch 10: 100%| 395/395 ... loss=1.82"): no step of the new epoch
            # (read as its end, every epoch went back a whole epoch: fresh81's "resumed at step 445 after
            # reaching 790", 98 times)
            self._bar_n = at
            self.other_lines += 1
            return []
        if at == last or (n == 0 and total):
            # a redraw at the same count (of the same epoch) is the same step; a bar at 0 of N
            # is a bar (re)drawn before its first batch (Lightning resets the bar at each epoch's
            # end under the old epoch's label: "Epoch 0: 0/13" after "Epoch 0: 13/13"), no step
            self.other_lines += 1
            return []
        self._bar_n = at
        if e is not None:
            step = self._epoch_step(int(e.group(1)), None, n, total)
            if step is None:
                self.skip("step out of range")
                return []
            pairs.append(("epoch", e.group(1)))
        elif self._carry is not None:
            # a bar drawn anew each epoch under an epoch header ("===== Epoch 2/10 =====",
            # then "train:  0%| 1/200 [...]"): its count is a batch of that epoch, not a
            # step back at 1 (each epoch read as a new launch)
            ep, epochs = self._carry
            step = self._epoch_step(ep, epochs, n, total)
            if step is None:
                self.skip("step out of range")
                return []
            pairs.append(("epoch", str(ep)))
        else:
            step = self._bar_epochs(n, total)
        rec = self.build(pairs, step=step)
        if rec is None:
            self.other_lines += 1
            return []
        self._own_steps += 1
        self.bar_records += 1
        self._bar_pairs = pairs[:-1] if e is not None or self._carry is not None else pairs
        return self._bar_hold(rec, at[0], self._bar_pairs) if e is not None else [rec]

    def _bar_hold(self, rec: StepRecord, epoch, pairs: list) -> list[StepRecord]:
        """A bar's record (one that names its epoch), held while its postfix repeats the one before in the same
        epoch (BAR_HOLD). Values unchanged over an epoch's whole bar that change with the next epoch are the
        epoch's, drawn at each of its batches (Lightning's ``self.log(..., on_epoch=True, prog_bar=True)`` shows the last epoch's train_loss at
        every batch of the next: fresh123's probe run read each epoch's loss 28 times and warned "loss exactly
        0.706 for 20 records"): one record an epoch, its first, the held ones counted as other lines. Values that
        change within the epoch, or stay the same into the next (a loss stuck at NaN), were each batch's: the
        held records are given then, in order."""
        run = self._bar_run
        if run is not None and run[1] == pairs and len(run[2]) < BAR_HOLD:
            if run[0] == epoch:
                run[2].append(rec)
                return []
            held = run[2]  # (the same values into the next epoch: each batch's)
            self._bar_run = [epoch, pairs, [], False]
            return held + [rec]
        out: list[StepRecord] = []
        if run is not None and run[2]:
            if run[0] != epoch and run[3]:
                self._bar_drop(run[2])
            else:
                out = run[2]
        first = run is None or run[0] != epoch  # (this record opens its epoch's bar)
        self._bar_run = [epoch, pairs, [], first]
        return out + [rec]

    def _bar_drop(self, held: list[StepRecord]) -> None:
        """The held repeats of an epoch's values: no records (counted as other lines)."""
        self._bar_epochal = True
        self.other_lines += len(held)
        self._own_steps -= len(held)
        self.bar_records -= len(held)

    def _bar_release(self) -> list[StepRecord]:
        """At the end of the input: the held records, given, or dropped when the log has shown its bar's values
        to be an epoch's (``_bar_hold``) and the run held began its epoch."""
        run = self._bar_run
        if run is None or not run[2]:
            return []
        held, run[2] = run[2], []
        if run[3] and self._bar_epochal:
            self._bar_drop(held)
            return []
        return held

    def _bar_epochs(self, n: int, total: int) -> int:
        """The step of count ``n`` of a bar that names no epoch: ``n``, plus the lengths of the
        bars of the same total before it that finished (their count reached their total) when
        it starts again (``for epoch in range(E): for batch in tqdm(loader)``: each epoch's bar
        from 1 was read as a launch). A bar that stopped short and starts again is a relaunch
        (its steps go back). The total is the run's planned steps until a bar starts again."""
        last = self.__dict__.get("_bar_last")
        off = self.__dict__.get("_bar_off", 0)
        if last is not None and last[0] == last[1] == total and n < total:
            off = self._bar_off = off + total
            if self.run_info.get("total_steps") == total:
                del self.run_info["total_steps"]  # (one epoch's length, not the run's)
        self._bar_last = (n, total)
        if off == 0:
            self.run_info.setdefault("total_steps", total)
        return off + n

    def _stepless(self, line: str) -> list[StepRecord] | None:
        """A line without a step of its own (none of the above): a phase word and its counter
        (``Train 12, loss: 0.41``: the step; a test / validation phase's loss is a validation
        loss); a validation loss alone (``Validation loss: 1.99 | si_sdr: -2.25``) at the last
        step read; or, in a log that names no step anywhere, a line of named numbers with a loss
        (``LR: 0.000200, Acc: 59.3750, Loss: 0.8672``) once its names have come on STEPLESS_MIN
        lines: its order is its step (``step_source``)."""
        m = PHASE_COUNTER.search(line)
        if m is not None and m.start() <= HEADER_PREFIX:
            return self._phase_record(line, m)
        ppl = "erplexity" in line or "ppl" in line  # (a validation perplexity: fields.val_perplexity)
        if "oss" not in line and "OSS" not in line and not ppl:
            return None
        pairs = PAIR.findall(line)
        spaced = False
        if not pairs:
            m = STEPLESS_SPACED.match(line)
            if m is None:
                return None
            pairs, spaced = [(m.group(1), m.group(2))], True  # ("Mean loss 864.39": alone on its line)
        fields = [self.field(k) or ("val_loss" if ppl and val_perplexity(k) else None) for k, _ in pairs]
        # (an evaluation section's loss, or a line tagged as an evaluation's: glue-factory's "[Validation] {...,
        # loss/total 1.967E+00, ...}", fresh123)
        in_eval = (self._evalsec is not None or EVAL_BRACKET.match(line) is not None) and "loss" in fields
        # (an evaluation section's loss: ST-GCN's
        if ("val_loss" in fields and "loss" not in fields) or in_eval:  # "Eval epoch: 4" / "\tmean_loss: 5.99")
            if self.records == 0 or self._last_step < 0:
                return None
            bare = self.__dict__.get("_bare_records") == self.records
            series = self.__dict__.get("_sl_n") == self.records
            rec = self.build(pairs, step=self._last_step)
            if rec is None:
                return None
            if bare:  # (a validation between bare-count records: MAML's "[1/100000] mean test loss : 4.78 -> 4.47")
                self._bare_records = self.records
            if series:  # (... or between step-less ones: fresh27's NumPy CNN, "eval mean loss" after each epoch's
                self._sl_n = self.records  # "train mean loss" lines had ended the series at its first epoch)
            self._no_template = True
            val = rec.val_loss if rec.val_loss is not None else rec.loss if in_eval else None
            return [StepRecord(rec.step, val_loss=val, source=rec.source)] if val is not None else []
        if (
            (
                # (no loss field: two unmapped loss terms or more, a GAN's, the objective rule picks one;
                # "Best loss: 0.29, acc: 0.92" alone is a summary)
                "loss" not in fields
                and sum(("oss" in k or "OSS" in k) and f is None for (k, _), f in zip(pairs, fields)) < 2
            )
            # (indented under an epoch header: the BERT fine-tuning tutorial's "  Average training loss: 0.77" after
            # "======== Epoch 1 / 4 ========"; a config's indented "  loss: 1.0" is under none)
            or (len(pairs) < 2 and not spaced and not STEPLESS_LOSS.match(line.lstrip() if self._carry else line))
            or self.records != self.__dict__.get("_sl_n", 0)
            or not (spaced or _only_pairs(line))
        ):
            return None
        self._no_template = True
        keys = tuple(k for k, _ in pairs)
        seen = self.__dict__.get("_sl_seen")
        if seen is None:
            seen = self._sl_seen = {}
            self._sl_held = []
        cnt = seen.get(keys, 0) + 1
        if len(seen) < 64 or keys in seen:
            seen[keys] = cnt
        at = self._stepless_place()
        # (under an epoch header the line is that epoch's: read at once, its evaluation after it at its step; the
        # BERT tutorial's 4 epochs had lost their first two "Validation Loss" lines while the losses were held)
        need = 1 if at is not None else STEPLESS_MIN
        if cnt < need:
            self._sl_held.append((pairs, at))  # (at most STEPLESS_MIN - 1 per key set, 64 key sets)
            self.other_lines += 1
            return []
        held = [h for h in self._sl_held if tuple(k for k, _ in h[0]) == keys] if cnt == need else []
        if held:
            self._sl_held = [h for h in self._sl_held if tuple(k for k, _ in h[0]) != keys]
            self.other_lines -= len(held)
        out = []
        for p, place in held + [(pairs, at)]:
            step = None
            if place is not None:  # under an epoch header: the n-th such line of the epoch, placed in it
                step = self._epoch_step(place[0], place[1], place[2], None)
                p = p + [("epoch", str(place[0]))]
            rec = self.build(p, step=step)
            if rec is not None:
                out.append(rec)
        self._sl_n = self.records
        return out

    def _stepless_place(self) -> tuple[int, int | None, int] | None:
        """(epoch, epochs, n) of a step-less line under an epoch header (``Epoch 3`` alone on its
        line: the W&B sweep log's "Epoch 0" over six "Loss:  157.06" lines), n counting from 0 in
        the epoch; None with no header carried."""
        carry = self._carry
        if carry is None:
            return None
        last = self.__dict__.get("_sl_epoch")
        n = last[1] + 1 if last is not None and last[0] is carry else 0
        self._sl_epoch = (carry, n)
        return carry[0], carry[1], n

    def _phase_record(self, line: str, m) -> list[StepRecord] | None:
        step = int64(m.group(2))
        if step is None:
            self.skip("step out of range")
            return []
        last, n, other = self._last_step, self.records, self.other_lines
        got = self._with_step(line, m, step)
        if not any(r.loss is not None or r.val_loss is not None for r in got):
            # no loss: prose ("Test 1: passed, time: 0.5s"), not a phase's record
            self._last_step, self._own_steps, self.records, self.other_lines = (
                last,
                self._own_steps - len(got),
                n,
                other,
            )
            self._grp = None
            self._ctx_sync()
            return None
        self._no_template = True
        if m.group(1)[:2].lower() == "tr":
            return got
        self._own_steps -= len(got)
        return [
            StepRecord(r.step, val_loss=r.val_loss if r.val_loss is not None else r.loss, source=r.source)
            for r in got
            if r.val_loss is not None or r.loss is not None
        ]

    def describe(self) -> dict:
        """How the steps were taken when no line named one (``step_source``)."""
        d = super().describe()
        rep = self.__dict__.get("_rep")
        if rep is not None and rep.rank_copies and not rep.counting:
            d["step_source"] = (
                f"epochs: the log is printed by {self._nranks} processes (DDP ranks: every prose line "
                f"{self._nranks} times), an epoch's line once from each: the first of them is read"
            )
        elif rep is not None and rep.counting:
            d["step_source"] = (
                "line order: the log's lines name only their epoch, repeated on "
                f"{REPEATS} or more lines in a row (per-batch prints): the n-th such line "
                "from the first is step first epoch + n"
            )
        elif self.__dict__.get("_sl_n") and "_sl_epoch" in self.__dict__:
            d["step_source"] = (
                "epoch headers: the log's lines of named numbers name no step (the n-th such line under "
                "'Epoch E' is placed in epoch E, read at once)"
            )
        elif self.__dict__.get("_sl_n"):
            d["step_source"] = (
                "line order: the log's lines of named numbers name no step "
                f"(the n-th such line is step n; read once {STEPLESS_MIN} lines name the same numbers)"
            )
        return d

    def _epoch_only(self, line: str) -> list[StepRecord] | None:
        """``Epoch 3/120, loss=0.41`` (or ``Epoch 3, loss=0.41``): the epoch is the step,
        its total (if printed) the planned steps, while no line of the file has named a
        step of its own."""
        if _COUNTER_HINT.search(line) or STEP.search(line):
            return None
        m = EPOCH_ONLY.search(line) or EPOCH_PHASE.search(line) or EPOCH_BARE.search(line) or NUM_EPOCH.search(line)
        if m is None:
            return None
        if self.records != getattr(self, "_epoch_records", 0):
            # a record with a step of its own was read: an epoch line is a summary ... unless REPEATS
            # lines in a row name the same epoch and names with no such record between: per-batch
            # prints of a launch printed another way (fresh41: a first launch's "Epoch 1/5 | Batch 10 |
            # Loss" lines, then 29 launches of "Epoch 1/5 | Progreso: 0.1% | Loss": 2 of 2,338 read)
            names = tuple(k.lower() for k, _ in PAIR.findall(line, m.end()))
            if not any(self.field(k) == "loss" or loss_role(k) for k in names):
                return None  # (a loss's prints only: DDP ranks repeat an epoch's "Epoch=97, lr=1e-4" line)
            sig = (m.group(1), names)
            run: tuple[int, tuple, list[str]] | None = self.__dict__.get("_eo_run")
            if run is None or run[0] != self.records or run[1] != sig:
                run = (self.records, sig, [])
                self.__dict__["_eo_run"] = run
            run[2].append(line)
            if len(run[2]) < REPEATS:
                return None
            self._epoch_records = self.records
            self.__dict__["_eo_run"] = None
            out: list[StepRecord] = []
            for ln in run[2]:
                out += self._epoch_only(ln) or []
            return out
        e = int64(m.group(1))
        if e is None:
            self.skip("step out of range")
            return []
        if m.re is EPOCH_PHASE and _EVAL_PHASE.match(m.group(2)):
            return self._eval_phase(line, m, e)
        got = self._with_step(line, m, e, [("epoch", m.group(1))])  # (its step is an epoch: step_unit.py)
        if got:
            got = self._epoch_repeats(
                got, e, tuple(k.lower() for k, _ in PAIR.findall(line, m.end())), _tag(line, m.start(1))
            )
            self._epoch_records = self.records
            if m.re is EPOCH_ONLY and not self._rep.counting:
                self.run_info.setdefault("total_steps", m.group(2))
                self._plan_launch(got, e, m.group(2))
            self._no_template = True
        return got

    def _plan_launch(self, got: list[StepRecord], e: int, total: str) -> None:
        """``Epoch 1/10`` after an ``Epoch 10/10``: the training before ran to its own plan and one starts
        again from its first epoch (a notebook training its models one after another, Keras' ``fit()``
        called again): its first record is a launch (``launch``, as after a banner; what it is, a new run
        or the same model trained on, the launches rule tells from its losses). The plans may differ from
        launch to launch (the file's ``total_steps`` is its first)."""
        ended = self.__dict__.get("_plan_end", False)
        n = int64(total)
        self._plan_end = n is not None and n > 1 and e == n
        if ended and e <= 1:
            rec = next((r for r in got if r.has_metrics()), None)
            if rec is not None:
                rec.launch = True

    def _epoch_repeats(self, got: list[StepRecord], e: int, names: tuple, tag: str = "") -> list[StepRecord]:
        """Records whose step is their epoch, through EpochRepeats (epoch_steps.py): per-batch prints
        that name only their epoch counted, summaries beside them dropped; the counters kept true.
        ``tag``: the words before the epoch (``_tag``: a training's name, ``LSTM_e1 Epoch 1:``)."""
        rep = self.__dict__.get("_rep")
        if rep is None:
            rep = self._rep = EpochRepeats()
        was = rep.counting
        if tag and not was:
            self._tag_launch(got, e, tag)
        out: list[StepRecord] = []
        ranks = self._ranks()
        for rec in got:
            dup, copies = rep.duplicates, rep.rank_copies
            r = rep.take(rec, e, names, self.other_lines, tag, ranks)
            if rep.rank_copies != copies:
                self._rank_skips(copies)
                if r is None:
                    continue
            if r is None and rep.duplicates != dup:
                self.skip("the previous line printed again (a record of no step of its own)")
            elif r is None:
                self.other_lines += 1  # (an epoch summary beside per-batch records)
            else:
                out += r
        if rep.counting and not was:
            self.run_info.pop("total_steps", None)  # (the epochs, not the steps counted)
        n = len(out) - len(got)
        self.records += n
        self._own_steps += n
        if out:
            self._last_step = out[-1].step
        return out

    def _rank_skips(self, before: int) -> None:
        """Count the epoch lines EpochRepeats dropped as other ranks' copies since ``before``."""
        for _ in range(self._rep.rank_copies - before):
            self.skip(f"another rank's line of the same epoch (the log is printed by {self._nranks} processes)")

    def _tag_launch(self, got: list[StepRecord], e: int, tag: str) -> None:
        """A record whose epoch is at or below the last one's, under a name before its epoch never seen
        before (``Transformer_L4_e1 Epoch 1:`` after ``Transformer_L2_e1 Epoch 1:``), starts a new launch
        (``launch``, as after a banner): each training of a script that trains several models in turn.
        An evaluation's name (``Test Epoch 1:``) is none. At most TAGS_KEPT names are remembered."""
        seen = self.__dict__.get("_tags")
        last = self.__dict__.get("_tag_epoch")
        self._tag_epoch = e
        if seen is None:
            self._tags = {tag}
            return
        if tag in seen or len(seen) >= TAGS_KEPT or any(w in EVAL_SCOPES for w in _WORD.findall(tag.lower())):
            return
        seen.add(tag)
        if last is not None and e <= last:
            for rec in got:
                if rec.loss is not None:  # (a training's loss line: "END EPOCH 0: Learning rate" after
                    rec.launch = rec.named = True  # "END TRAIN LOOP EPOCH 0, Loss" is the same training's)
                    return

    def _eval_phase(self, line: str, m, e: int) -> list[StepRecord]:
        """An epoch's evaluation line (EPOCH_PHASE with an evaluation word): its loss, however named,
        is the validation loss at that epoch; no loss: no record (an accuracy alone is no training metric)."""
        self._no_template = True
        rest = line[m.end() :]
        got = self._validation_at(PAIR.findall(rest) or SPACED.findall(rest), e)
        if got:
            self._epoch_records = self.records
        return got

    def _epoch_line(self, line: str) -> list[StepRecord] | None:
        """A line whose step is an epoch and a counter (EPOCH_COUNTER, ITER_COUNTER),
        or an epoch alone (EPOCH_ONLY); an epoch header alone on its line carries its
        epoch to the lines after it (text_groups.py)."""
        if self._epoch_header(line):
            return []
        if "]" in line:
            t = EVAL_TAG.search(line, 0, HEADER_PREFIX + 16)
            if t is not None:
                return self._eval_tagged(line, t)
        t = EVAL_LEAD.match(line)
        if t is not None:
            return self._eval_tagged(line, t)
        m = EPOCH_COUNTER.search(line) or BRACKET_COUNTER.search(line) or EPOCH_COLON.search(line)
        if m is None:
            m = ITER_COUNTER.search(line)
            if m is None:
                s = (
                    EPOCH_STEP.search(line)
                    or EPOCH_BRACKETS.search(line)
                    or ESPNET_EPOCH.search(line)
                    or (EB_LETTERS.search(line) if "B=" in line else None)
                    or (E_IT.search(line, 0, HEADER_PREFIX + 24) if "[E " in line else None)
                )
                if s is None:
                    c = COUNTER_EPOCH.search(line)
                    if c is not None:
                        return self._counter_epoch(line, c)
                if s is None and " of " in line:
                    o = OF_EPOCH.search(line)
                    if o is not None:
                        got = self._of_epoch(line, o)
                        if got is not None:
                            return got
                return self._epoch_only(line) if s is None else self._epoch_counter(line, s)
            step = int64(m.group(1))
            if step is None:
                self.skip("step out of range")
                return []
            self.run_info.setdefault("total_steps", m.group(2))
            self._no_template = True
            return self._with_step(line, m, step)
        return self._epoch_counted(line, m)

    def _trail_counter(self, line: str, t: re.Match) -> list[StepRecord] | None:
        """A line of named metrics ending in a counter with its total (TRAIL_COUNTER): the record at the
        counter placed in the epoch of the last epoch header, or, with none, in the epoch its restarts count
        (a counter below the one before, to the same total, is the next epoch); None when no named number
        comes before it, a loss among them (a line that only ends in a bracket: ezpz's rank lines,
        "[I][ezpz/dist:1509:setup_torch] ['x3206c0s37b1n0'][1/7]", are no record)."""
        if "oss" not in line[: t.start()].lower() or PAIR.search(line, 0, t.start()) is None:
            return None
        n, per = int64(t.group(1)), int64(t.group(2))
        if n is None or per is None or per <= 0 or n > per:
            return None
        if self._carry is not None:
            e, epochs = self._carry
        else:
            last = self.__dict__.get("_trail")  # (epoch, last counter, its total)
            e, epochs = 0, None
            if last is not None:
                e = last[0] + (1 if n < last[1] and per == last[2] else 0)
            self._trail = (e, n, per)
        step = self._epoch_step(e, epochs, n, per)
        if step is None:
            self.skip("step out of range")
            return []
        self._no_template = True  # (the step depends on the lines before: no template)
        return self._with_step(line, t, step, [("epoch", e)])

    def _epoch_counted(self, line: str, m: re.Match) -> list[StepRecord]:
        """The line at the step of its epoch and counter (groups as EPOCH_COUNTER's: epoch, epochs,
        the counter's word, the counter, its total), placed by ``_epoch_step``."""
        e, n, per = int64(m.group(1)), int64(m.group(4)), int64(m.group(5))
        if e is None or n is None or per is None or per <= 0:
            self.skip("step out of range")
            return []
        step = self._epoch_step(e, int64(m.group(2)) if m.group(2) else None, n, per)
        if step is None:
            self.skip("step out of range")
            return []
        word = (m.group(3) or "").lower()
        if self._ep.mode is None and word and not word.endswith("batch") and not m.group(2):
            # "epoch 0, iteration 5/299" (NeMo): read as "iteration 5/299" always was, until
            # a new epoch shows whether the counter starts again
            self.run_info.setdefault("total_steps", per)
        self._no_template = True  # (the step is no single number of the line: no template)
        return self._with_step(line, m, step, [("epoch", m.group(1))])

    def _darknet(self, d) -> list[StepRecord]:
        """Darknet's line (DARKNET): the batch's loss, its running average, the LR and the batch's
        seconds at the iteration that leads it."""
        pairs = [("loss", d.group(2)), ("avg", d.group(3)), ("lr", d.group(4))]
        if d.group(5):
            pairs.append(("step_time", d.group(5)))
        rec = self._fixed_record(d.group(1), pairs)
        if rec is None:
            return []
        self._own_steps += 1
        return [rec]

    def _rwkv(self, r) -> list[StepRecord]:
        """RWKV-LM's mini-epoch line (RWKV_EPOCH): its mean loss and the LR at the mini-epoch that leads it
        (the perplexity is exp of the loss: nothing of its own), its time the record's clock."""
        rec = self._fixed_record(r.group(1), [("loss", r.group(2)), ("lr", r.group(4))])
        if rec is None:
            return []
        got = line_clock(r.group(5))  # (its time: a relaunch's lines are no copies of the last launch's)
        if got is not None:
            rec.clock = got[0]
        self._own_steps += 1
        return [rec]

    def _unit_counter(self, line: str, m) -> list[StepRecord] | None:
        """``|  1000/  100000 steps| ... | loss    5.53|`` (UNIT_COUNTER): the count is the step, its
        total the planned steps; None when the line holds no metric (prose that counts steps: read
        as any other line, never the header of a group)."""
        step = int64(m.group(1))
        if step is None:
            self.skip("step out of range")
            return []
        last, own, recs, other, grp = self._last_step, self._own_steps, self.records, self.other_lines, self._grp
        got = self._with_step(line, m, step)
        if not got:
            self._last_step, self._own_steps, self.records, self.other_lines = last, own, recs, other
            self._grp = grp
            self._ctx_sync()
            return None
        self.run_info.setdefault("total_steps", m.group(2))
        return got

    def _batch_lead(self, line: str, m) -> list[StepRecord]:
        """A line led by ``Batch n/N`` within the epoch of the last header: the counter placed in
        that epoch (``_epoch_step``), the line's other pairs its metrics."""
        carry = self._carry
        assert carry is not None
        e, epochs = carry
        n, per = int64(m.group(1)), int64(m.group(2))
        step = self._epoch_step(e, epochs, n, per) if n is not None and per else None
        if step is None:
            self.skip("step out of range")
            return []
        self._no_template = True
        return self._with_step(line, m, step, [("epoch", str(e))])

    def _eval_tagged(self, line: str, t) -> list[StepRecord]:
        """A line of an evaluation tagged so (EVAL_TAG): its batches are no record; its summary's
        loss (no counter) is the validation loss at the last training step."""
        self._no_template = True
        if EPOCH_COUNTER.search(line, t.start()) or self.records == 0 or self._last_step < 0:
            self.other_lines += 1
            return []
        return self._validation_at(PAIR.findall(line, t.end()), self._last_step)

    def _validation_at(self, pairs: list, step: int) -> list[StepRecord]:
        """``pairs`` at ``step`` as an evaluation's record: its validation loss, else its loss, as
        the validation loss; none (counted among the other lines) when it holds neither."""
        rec = self.build(pairs, step=step)
        if rec is None:
            self.other_lines += 1
            return []
        val = rec.val_loss if rec.val_loss is not None else rec.loss
        if val is None:
            self.records -= 1  # (built, not kept)
            self.other_lines += 1
            return []
        return [StepRecord(step, val_loss=val, source=rec.source)]

    def _clu(self, line: str, m) -> list[StepRecord] | None:
        """A line led by a bracketed counter (CLU_STEP): its step, its named values (not another
        step key: a PPO loop's ``steps=209.7`` is an episode's length), each named in its
        collection when one is given (``eval`` / ``train``: the field rules tell a validation
        loss); None when no metric is there (the line is read as any other). A ``[scale :
        iteration]`` counter starts again at each scale: placed as a batch in its epoch."""
        pairs = [p for p in PAIR.findall(line, m.end()) if normalise(p[0]) not in STEP_KEYS]
        if m.group(3):
            pairs = [(f"{m.group(3)}/{k}", v) for k, v in pairs]
        n, phase = int64(m.group(2)), m.group(1)
        e = int64(phase) if phase else None
        if n is None or (phase and e is None):
            self.skip("step out of range")
            return []
        saved = self._epoch_saved() if phase else None
        step = self._epoch_step(e, None, n, None) if e is not None else n
        rec = self.build(pairs, step=step) if step is not None else None
        if rec is None:
            if phase:  # no record: the counter's state is as it was
                self._epoch_undo(saved)
            if step is None:
                self.skip("step out of range")
                return []
            return None
        assert step is not None  # (a record is built only with a step)
        self._own_steps += 1
        self._no_template = True
        self._note_step(step, True)
        return [rec]

    def _pair_counter(self, line: str, m) -> list[StepRecord]:
        """``[epoch, counter]`` / ``[epoch, counter/total]`` (PAIR_COUNTER): the counter placed in
        its epoch (``_epoch_step``); a line with no metric after it is no record (a grad_stats
        line of lists, a config's ``[30, 60]``)."""
        e, n = int64(m.group(1)), int64(m.group(2))
        per = int64(m.group(3)) if m.group(3) else None
        if e is None or n is None or (m.group(3) and not per):
            self.skip("step out of range")
            return []
        last, own, recs, other = self._last_step, self._own_steps, self.records, self.other_lines
        saved = self._epoch_saved()
        step = self._epoch_step(e, None, n, per)
        if step is None:
            self.skip("step out of range")
            return []
        self._no_template = True
        got = self._with_step(line, m, step, [("epoch", m.group(1))])
        if not any(r.loss is not None or r.val_loss is not None or r.grad_norm is not None or r.extra for r in got):
            # no metric: undo (the counter's epoch state included), not a header of a group
            self._last_step, self._own_steps, self.records, self.other_lines = last, own, recs, other + 1
            self._epoch_undo(saved)
            self._grp = None
            self._ctx_sync()
            return []
        return got

    def _of_epoch(self, line: str, m) -> list[StepRecord] | None:
        """``batch n of epoch E, loss X, ...`` (OF_EPOCH): the counter placed in its epoch; None when
        the line holds no metric (prose: "saving the model at step 100 of epoch 2"), the state as it
        was (no placement, no group opened after it)."""
        last, own, recs, other, skipped = self._last_step, self._own_steps, self.records, self.other_lines, self.skipped
        saved, grp = self._epoch_saved(), self._grp
        got = self._epoch_counter(line, m, e_group=2, n_group=1)
        if got or self.skipped != skipped:
            return got
        self._last_step, self._own_steps, self.records, self.other_lines = last, own, recs, other
        self._epoch_undo(saved)
        self._grp = grp
        self._ctx_sync()
        return None

    def _counter_epoch(self, line: str, m) -> list[StepRecord]:
        """``batch n/N | epoch e[/E]`` (COUNTER_EPOCH): the counter placed in its epoch as EPOCH_COUNTER's is."""
        e, n, per = int64(m.group(4)), int64(m.group(2)), int64(m.group(3))
        step = None
        if e is not None and n is not None and per is not None and per > 0:
            step = self._epoch_step(e, int64(m.group(5)) if m.group(5) else None, n, per)
        if step is None:
            self.skip("step out of range")
            return []
        self._no_template = True  # (the step is no single number of the line: no template)
        return self._with_step(line, m, step, [("epoch", m.group(4))])

    def _epoch_counter(self, line: str, m, e_group: int = 1, n_group: int = 3) -> list[StepRecord]:
        """A line whose step is an epoch and a counter with no total (EPOCH_STEP; OF_EPOCH's
        "batch n of epoch e" names them the other way round: its groups are given)."""
        e, n = int64(m.group(e_group)), int64(m.group(n_group).replace(",", ""))  # ("iter: 1,000": BasicSR)
        if e is None or n is None:
            self.skip("step out of range")
            return []
        step = self._epoch_step(e, None, n, None)
        if step is None:
            self.skip("step out of range")
            return []
        self._no_template = True  # (the step is no single number of the line: no template)
        return self._with_step(line, m, step, [("epoch", m.group(e_group))])

    def _epoch_saved(self) -> EpochCounter | None:
        """A copy of the epoch counter's state (a few numbers), to undo a placement that read
        no record (``_epoch_undo``); None while there is none."""
        ep = self.__dict__.get("_ep")
        return None if ep is None else copy.deepcopy(ep)

    def _epoch_undo(self, saved: EpochCounter | None) -> None:
        """The epoch counter's state as ``_epoch_saved`` copied it (none then: none now)."""
        if saved is not None:
            self._ep = saved
        else:
            self.__dict__.pop("_ep", None)

    def _bare_ok(self) -> bool:
        """A bare leading count is the step only in a file whose records all came from such counts
        so far: in a log of other records, a number at a line's start is a wrapped line's tail
        (detectron2's "...: 0.1" / "465  focal_loss_1: 0.1197 ..." read as step 465)."""
        return self.records == self.__dict__.get("_bare_records", 0)

    def _lead_counter(self, line: str, m) -> list[StepRecord] | None:
        """LEAD_COUNTER: the count is the step (its total the planned steps); None when the line
        holds no metric (read on as any other line: never the header of a group)."""
        step = int64(m.group(2))
        if step is None:
            return None
        n, grp, other = self.records, self._grp, self.other_lines
        got = self._with_step(line, m, step)
        if self.records == n:  # (no metric: as if never tried; no group opened by it)
            self._grp, self.other_lines = grp, other
            return None
        if m.group(3):
            self.run_info.setdefault("total_steps", m.group(3))
        if not m.group(1):
            self._bare_records = self.records
        return got

    def _lead_brackets(self, line: str, m) -> list[StepRecord] | None:
        """LEAD_BRACKETS: the first bracket is the epoch (its total the planned epochs), the last
        one with a total the counter within it (a counter of 1 in 1, a full batch an epoch: the
        epoch is the step); None when no bracket after the first has a total."""
        got = [(int64(a), int64(b) if b else None) for a, b in _BRACKET.findall(m.group(1))]
        inner = next(((n, t) for n, t in reversed(got[1:]) if t is not None), None)
        e, epochs = got[0]
        if inner is None or e is None:
            return None
        n, per = inner
        if n is None or per is None:
            return None
        self._no_template = True  # (the step is no single number of the line)
        step = e if per == 1 else self._epoch_step(e, epochs, n, per)
        if step is None:
            self.skip("step out of range")
            return []
        return self._with_step(line, m, step, [("epoch", str(e))])

    def _epoch_step(self, e: int, epochs: int | None, n: int, per: int | None) -> int | None:
        """The step of counter ``n`` (of ``per``) in epoch ``e`` (sources/epoch_steps.py: a
        global step, or a batch index placed in its epoch); a planned total it shows is the
        run's unless one is known."""
        c = self.__dict__.get("_ep")
        if c is None:
            c = self._ep = EpochCounter()
        step, total = c.step(e, epochs, n, per)
        if total is not None:
            self.run_info.setdefault("total_steps", total)
        return step

    def _json_in_line(self, line: str) -> StepRecord | None:
        """A JSON object inside a text line (``2024-05-01 INFO metrics: {"step": 5, "loss": 2.3}``):
        its pairs, the step its own or the line's (STEP before it); none: not a record."""
        i = line.find('{"')
        j = line.rfind("}")
        if j < i:
            return None
        try:
            obj = _json_loads(line[i : j + 1])
        except (ValueError, RecursionError):
            return None
        if not isinstance(obj, dict):
            return None
        items = list(_flatten(obj).items())
        if any(normalise(str(k)) in NAMED_STEP_KEYS for k, _ in items):
            return self._metric_record(items)
        m = STEP.search(line, 0, i)
        if m is None:
            e = obj.get("epoch")
            if type(e) is int and e >= 0:  # (its epoch, a whole number, is its step: a DETR-style log line)
                self._no_template = True
                return self._metric_record(items + [("step", e)])
            return None
        step = int64(m.group(1).replace(",", ""))
        if step is None:
            self.skip("step out of range")
            return None
        return self.build(items, step=step)

    def _tabbed(self, line: str) -> StepRecord | None:
        """``step<TAB>12<TAB>loss<TAB>2.3``: names and numbers alternating, a step among them."""
        parts = [p.strip() for p in line.split("\t")]
        parts = [p for p in parts if p]
        if len(parts) < 4 or len(parts) % 2:
            return None
        keys, vals = parts[0::2], parts[1::2]
        if not all(_TAB_KEY.fullmatch(k) for k in keys) or not all(_NUM_FULL.fullmatch(v) for v in vals):
            return None
        items = list(zip(keys, vals))
        if not any(normalise(k) in NAMED_STEP_KEYS for k in keys):
            return None
        return self._metric_record(items)

    def _metric_record(self, items) -> StepRecord | None:
        """A record from pairs naming their own step, when it holds a loss, a validation
        loss or a grad norm (a step and an LR alone is a config echo)."""
        last = self._last_step
        rec = self.build(items)
        if rec is not None and rec.loss is None and rec.val_loss is None and rec.grad_norm is None:
            self.records -= 1
            self._last_step = last
            return None
        return rec

    def _named_step(self, line: str) -> StepRecord | None:
        """Any other line whose step is one of its named numbers (``global_step=5``,
        ``num_updates: 12``, ``train/step=3``; STEP_KEYS in fields.py) next to a metric."""
        if not _STEP_HINT.search(line):
            return None
        pairs = PAIR.findall(line)
        if not any(normalise(k) in NAMED_STEP_KEYS for k, _ in pairs):
            return None
        rec = self._metric_record(pairs)
        if rec is not None or self._evalsec is not None:
            return rec
        counts = [p for p in pairs if normalise(p[0]) in _HEADER_COUNTS]
        if len(pairs) - len(counts) == 1 and (counts or _only_pairs(line)):
            pairs = [p for p in pairs if p not in counts]
        if len(pairs) == 1 and normalise(pairs[0][0]) in NAMED_STEP_KEYS and (counts or _only_pairs(line)):
            # the step key alone on its line ("num of updates: 1000", then "ret loss: 3.34" and
            # "action loss: 0.24" on the lines after it): a header whose metrics follow (text_groups)
            v = pairs[0][1].replace(",", "")
            step = int64(v) if v.isdigit() else None
            if step is not None:
                self._open_group(step, [])
        return rec

    # -- replay fast path ------------------------------------------------------------
    def _templated(self) -> bool:
        """Lines are a pure function of their text for this reader (no subclass
        hook, no open generation block): templates apply."""
        cls = type(self)
        return (
            cls._line is KeyValueTextReader._line
            and cls.feed is KeyValueTextReader.feed
            and "_line" not in self.__dict__
        )

    def feed_chunk(self, data: bytes) -> list:
        """Runs of lines that share a skeleton (the same text, numbers aside)
        become Frames: one regex pass captures the numbers, orjson converts them.
        A skeleton becomes a template the second time it is seen, after probing
        the per-line parser (``learn_template``); everything else goes line by line."""
        if not self._templated():
            return super().feed_chunk(data)
        if not data:
            return []
        last_open = not data.endswith(b"\n")
        if not hasattr(self, "_tpls"):
            self._tpls: dict[bytes, object] = {}
            self._tpl: _Template | None = None
        tpl = self._tpl
        if (
            tpl is not None and not self.launch_pending and not self._open
        ):  # the usual case: every line fits the current template
            found = tpl.regex.findall(data)
            n = data.count(b"\n") + last_open
            # the other n - 1 lines take a byte each at least: no line is longer than len - n + 1
            if len(found) == n and (len(data) - n + 1 < MAX_LINE or max(map(len, data.split(b"\n"))) < MAX_LINE):
                fr = self._frame(tpl, found, data.split(b"\n", n - 1) if tpl.clocked else None)
                if fr is not None:
                    return [fr]
        lines = data.split(b"\n")
        if not last_open:
            lines.pop()
        self.banner_scan = may_hold_banner(data)
        try:
            return self._lines(lines, tpl, last_open)
        finally:
            self.banner_scan = True

    def _lines(self, lines: list[bytes], tpl, last_open: bool) -> list:
        out: list = []
        run: list = []
        run_lines: list[bytes] = []
        n = len(lines)
        for i, raw in enumerate(lines):
            # (a record spread over lines is open: its lines go through feed, text_groups.py)
            m = tpl.regex.fullmatch(raw) if tpl is not None and not self._open else None
            if (
                m is None
                and not self._open
                and self._templated()
                and len(raw) <= MAX_TEMPLATE_LINE
                and b"\0" not in raw
            ):
                sk = _skeleton(raw)
                got = self._tpls.get(sk)
                if got is None:  # first sighting: remember it, read the line as usual
                    if len(self._tpls) >= MAX_TEMPLATES:
                        self._tpls.clear()
                    self._tpls[sk] = 1
                elif got == 1:  # second sighting: learn the template
                    got = self._tpls[sk] = learn_template(type(self), self.path, raw) or 0
                if isinstance(got, _Template):
                    m = got.regex.fullmatch(raw)
                    if m is not None:
                        if tpl is not got:
                            out += self._flush_run(tpl, run, run_lines)
                            run, run_lines = [], []
                        tpl = self._tpl = got
            if m is not None and not self.launch_pending:
                run.append(m.groups())
                run_lines.append(raw)
                continue
            out += self._flush_run(tpl, run, run_lines)
            run, run_lines = [], []
            line = self.decode_line(raw, last_open and i == n - 1)
            out += self.take_line(line, self.feed(line))  # (a launch banner marks the next record)
        out += self._flush_run(tpl, run, run_lines)
        return out

    def _flush_run(self, tpl, run: list, run_lines: list[bytes]) -> list:
        if not run:
            return []
        if len(run) >= MIN_RUN:
            fr = self._frame(tpl, run, run_lines if tpl.clocked else None)
            if fr is not None:
                if fr.n >= 2:  # (the interval an abbreviated step after the run is placed by)
                    self._note_step(int(fr.step[-2]), True)
                self._note_step(int(fr.step[-1]), True)
                return [fr]
        out: list = []
        for raw in run_lines:
            out += self.feed(raw.decode("ascii"))
        return out

    def _frame(self, tpl, found: list, raws: list[bytes] | None = None) -> Frame | None:
        """The run as a Frame; None when a number is out of range (1e400: the lines
        go one by one, where it is a counted skip). ``raws``: the run's lines, when they
        start with a clock (``tpl.clocked``): the ``clock`` column, as ``feed`` reads it."""
        n = len(found)
        k = tpl.ncap
        flat = found if k == 1 else list(chain.from_iterable(found))
        try:
            vals = np.array(_orjson_loads(b"[" + b",".join(flat) + b"]"), dtype=np.float64)
        except (ValueError, TypeError):  # "+1.5", "007" (JSON has no such numbers), 1e400
            vals = np.array(list(map(float, flat)), dtype=np.float64)
            if not np.isfinite(vals).all():
                return None
        arr = vals.reshape(n, k)
        steps = arr[:, tpl.step_col].astype(np.int64)  # digit runs: exact below 2**53
        cols: dict[str, npt.NDArray[Any]] = {}
        for f in _NUMERIC:
            if f in tpl.cols:
                c = arr[:, tpl.cols[f]]
                cols[f] = c.astype(np.int64) if f in INT_FIELDS else c.copy()
            elif f in tpl.const:
                cols[f] = np.full(n, tpl.const[f], dtype=np.int64 if f in INT_FIELDS else np.float64)
        if raws is not None and self._clock is not None:
            col = clock_column(raws, self._clock)
            if col is None:  # (lines that do not line up: one by one, as feed reads them)
                at = self._clock.at
                col = np.array([at(r[:40].decode("ascii", "replace")) for r in raws], dtype=np.float64)
            cols["clock"] = col
        extra = {}
        for key in tpl.extra_keys:
            c = tpl.extra_cols[key]
            extra[key] = np.full(n, c[1]) if isinstance(c, tuple) else arr[:, c].copy()
        self.records += n
        self._last_step = int(steps[-1])
        if self.text_tap is not None:
            self.text_tap.ran_to(self._last_step)
        return Frame(steps, cols, extra, self.path)

    def _overflow(self, line: str) -> list[StepRecord]:
        m = OVERFLOW.search(line)
        if not m:
            self.other_lines += 1
            return []
        rec = StepRecord(step=max(self._last_step, 0), overflow=True, source=self.path)
        if m.group(2):
            try:
                rec.loss_scale = float(m.group(2))
            except ValueError:
                pass
        self.records += 1
        return [rec]

    def _apex_overflow(self, m, log2: bool = False) -> list[StepRecord]:
        """apex amp's "Gradient overflow.  Skipping step, ... reducing loss scale to X" (or
        guided-diffusion's "Found NaN, decreased lg_loss_scale to X", ``log2``: X is the scale's
        log2): an overflow record (the step skipped) at the last step read, with the new loss scale."""
        self._no_template = True  # (its step is the last line's)
        rec = StepRecord(step=max(self._last_step, 0), overflow=True, source=self.path)
        try:
            v = float(m.group(1).replace(",", ""))
            if log2:
                v = scale_of_log2(v)  # (inf past a float's range: no scale set, the overflow still one)
        except ValueError:
            v = math.nan
        if math.isfinite(v):  # ("1e400": no scale a scaler sets; the overflow is still one)
            rec.loss_scale = v
        self.records += 1
        return [rec]

    def _info(self, line: str) -> list[StepRecord] | None:
        """What a line without a step says about the run (parameter count, arguments);
        a flavour may return records of its own for such lines."""
        m = PARAMS.search(line)
        if m:
            try:
                v = float(m.group(1).replace(",", ""))
                if m.group(2):
                    v *= _SUFFIX[m.group(2).lower()]
                self.run_info.setdefault("params", v)
            except ValueError:
                pass
            return None
        m = ARG.match(line)
        if m and m.group(1) in _ARG_KEYS:
            key = _ARG_KEYS[m.group(1)]
            val = m.group(2)
            try:
                self.run_info.setdefault(
                    key, float(val) if key in ("peak_lr", "clip", "beta2", "eps") else int64(float(val))
                )
            except ValueError:
                pass
            return None
        if m and m.group(1) in ("fp16", "bf16") and m.group(2) == "True":
            self.run_info.setdefault("precision", m.group(1))
            return None
        m = TOKENS_PER_ITER.search(line)
        if m:
            self.run_info.setdefault("batch_tokens", float(m.group(1).replace(",", "")))
        return None


#: a step header's text before the step: a timestamp / logger prefix, short (ours)
HEADER_PREFIX = 80
_SECTION_FIRST = "TtVvEeA "  # first characters of a MetricLogger evaluation's lines (text_groups.MLOG_EVAL)


# what may follow a header's step besides named numbers: numbers and rate units, glued to the number or not
# (fresh124's RandLA-Net: "[TRAIN] Epoch 000 | batch 0010/9565 (  0.1%) | 0.539s/batch", its metrics on the
# next lines: "0.539s" had been a word, the step line no header, "too few records")
_UNITS = re.compile(
    r"[\d.,:;|()\[\]/%+-]++|(?:\b|(?<=\d))(?:[a-z]++/s(?:ec)?+|(?:s|ms|sec)/[a-z]++|s|ms|sec|secs)\b", re.I
)


def _sentence_stops(line: str) -> str:
    """The line with the full stop after each number that ends a sentence (SENTENCE_STOP) read as a
    space: ``epoch: 0. Minibatch: 100. Training loss: 1.287.`` is ``epoch: 0  Minibatch: 100  Training
    loss: 1.287 `` (the same length: positions in the line do not move)."""
    if SENTENCE_STOP.search(line) is None:
        return line
    return SENTENCE_STOP.sub(r"\1 ", line)


#: an ordinal's suffix after a step's number, the step word again ("1st step", "58035th step", a
#: "%dth step" print's "1th", "2th"), to the line's end. Anchored, linear.
ORDINAL_STEP = re.compile(r"(?:st|nd|rd|th)(?:\s++(?:step|iter(?:ation)?)s?)?\s*+[.:]?\s*+$", re.I)


def _is_losses(text: str) -> list:
    """The losses named in words before "is" (IS_FIELD): the training loss, a validation or a test
    loss as their words say."""
    out = []
    for name, v in IS_FIELD.findall(text):
        low = name.lower()
        if "loss" in low and not _NOT_CURRENT.search(low):
            out.append(("val_loss" if _EVAL_WORD.search(low) else "test_loss" if "test" in low else "loss", v))
    return out


def _is_header(line: str, m) -> bool:
    """A line whose step ends it, or is followed by named numbers only (``Step 100``,
    ``INFO global step: 100``, Knover's ``[train][1] progress: 1/1 step: 100, time: 6.1,
    speed: 16.4 steps/s``): not prose that names a step in passing (``saving checkpoint
    at iteration 600 to checkpoints``)."""
    if m.start() > HEADER_PREFIX or "OVERFLOW" in line:
        return False
    tail = line[m.end() :]
    if not any(c.isalpha() for c in tail):
        return True
    o = ORDINAL_STEP.match(tail)
    if o is not None and o.end() == len(tail):
        return True  # (a TF1 loop's "current step: 58035th step": the ordinal's suffix, the word again)
    tail = _UNITS.sub(" ", PAIR.sub(" ", tail))
    return not any(c.isalpha() for c in tail)


def _comma_cells(line: str, at: int, pairs: list) -> list:
    """``pairs`` and the cells (COMMA_CELL) of the comma-separated list that follows a step marker
    ending at ``at`` ("batch 1 of epoch 1, loss 9.443, batch_acc 0.0, lr [0.0]"): a name and its
    value apart by a space are read only there, where the line is that list and nothing else (every
    cell one, to the line's end: prose after a step, "step 5, saving the model to ckpt 3", gives none);
    a name ``pairs`` has already is not added again."""
    c = _LIST_START.match(line, at)
    if c is None:
        return pairs
    end = len(line.rstrip())
    pos = c.end()
    cells = []
    while pos < end:
        m = COMMA_CELL.match(line, pos)
        if m is None or m.end() <= pos:
            return pairs
        cells.append((m.group(1) or m.group(2), m.group(3) if m.group(3) is not None else m.group(4)))
        pos = m.end()
    if not cells:
        return pairs
    have = {k for k, _ in pairs}
    return pairs + [(k, v) for k, v in cells if k not in have]


_LIST_START = re.compile(r"\s*+,\s*+(?=[A-Za-z_])")


#: what a line's print format blurs: its numbers (and NaN / Inf) and its runs of spaces (a padded "step    100")
_FORMAT_NUM = re.compile(r"(?i)[-+]?(?:\d++(?:[.,:]\d++)*+(?:e[-+]?\d++)?|nan|inf)")
_FORMAT_SPACE = re.compile(r"\s++")


#: a line this long may hold records glued without a newline (``_glued``; ours: the shortest such record
#: line seen is ~60 characters, two of them more)
GLUED_MIN = 80
#: the words a record line starts with before its first number ("epoch: ", "Epoch [", "step ")
_GLUED_LEAD = re.compile(r"[A-Za-z][A-Za-z_ -]{2,30}?(?:[:=#]\s*+|\s*+\[\s*+|\s++)(?=\d)")


_FLOAT_ONLY = re.compile(rf"\s*+{_ONE_FLOAT}\s*+,?\s*+")  # (what ONE_LIST's brackets hold)


def _one_list_hint(line: str) -> bool:
    """A bracket holding one float (ONE_LIST's, found by str.find: the regex costs ~10 us a line, this
    ~0.5; every timestamped "[2024-05-01 ...]" line has brackets)."""
    i = line.find("[")
    while i >= 0:
        k = line.find("]", i + 1)
        if k < 0:
            return False
        if k - i < 40 and _FLOAT_ONLY.fullmatch(line, i + 1, k) is not None:
            return True
        i = line.find("[", i + 1)
    return False


def _value_first_hint(line: str) -> bool:
    """A "loss" not followed by its value or a separator (VALUE_FIRST may apply: "0.98 C.E. Loss,"); a line
    whose every "loss" is followed by one ("loss: 1.23", "loss 1.2", "losses=[") skips the regex."""
    i = line.find("oss")
    n = len(line)
    while i >= 0:
        j = i + 3
        if line.startswith("es", j):
            j += 2
        while j < n and line[j] == " ":
            j += 1
        if j >= n or line[j] not in ":=([-+.0123456789":
            return True
        i = line.find("oss", j)
    return False


def _glued(line: str) -> list[str] | None:
    """The records of a line that holds its own lead again right after a value ("epoch: 1/1000,
    train_loss: 6.84, train_acc: 0.3898epoch: 2/1000, train_loss: 6.41, ...": a loop that prints with
    ``end=""``, fresh50's log of 13 launches, 256 records on one line read as one), cut before each
    repeat; None when it holds none (the lead again after a word, "| best epoch 2", is the line's own)."""
    m = _GLUED_LEAD.match(line)
    if m is None:
        return None
    lead = m.group(0)
    cuts = []
    i = line.find(lead, m.end())
    while i > 0:
        j = i - 1
        while j > 0 and line[j] == " ":
            j -= 1
        if line[j].isdigit() or line[j] == "%":
            cuts.append(i)
        i = line.find(lead, i + len(lead))
    if not cuts:
        return None
    return [line[a:b] for a, b in zip([0, *cuts], [*cuts, len(line)])]


def _print_format(line: str) -> str:
    """``line`` with its numbers as "#" and its spaces as one: the print format it came from."""
    return _FORMAT_SPACE.sub(" ", _FORMAT_NUM.sub("#", line)).strip()


def _pipe_pairs(rest: str) -> list[tuple[str, str]]:
    """The ``| name value |`` fields of a pipe-separated line."""
    out = []
    for part in rest.split("|"):
        m = PIPE_FIELD.fullmatch(part)
        if m is not None:
            out.append((m.group(1), m.group(2)))
    return out


# what a line of named numbers holds besides them: separators, and a named number's capacity
# ("ntokens: 485.20/513": the tokens of the batch out of its 513 slots, read as its first number)
_SEPARATORS = re.compile(r"(?:[\s,;|\-\[\]()]++|(?<=\d)/\d++(?:\.\d++)?+)*+")


def _qualified(rest: str, pairs: list) -> list:
    """The pairs and each loss named with a qualifier (``Autoencoder Loss (total): 230.668``, QUALIFIED:
    PAIR takes none, the ")" stands between the name and its value); other qualified names
    (``elapsed time per iteration (ms)``) have readers of their own."""
    for n, q, v in QUALIFIED.findall(rest):
        key = f"{n.strip()} ({q})"
        if field_for(key) in ("loss", "val_loss") or loss_role(key) is not None:
            pairs.append((key, v))
    return pairs


def _spaced_losses(text: str, pairs: list) -> list:
    """The ``<name>loss<...> <number>`` pairs of ``text`` (TOKEN_SPACED) that ``pairs`` lacks, and those
    named as an objective goes by when no key says loss (``fields.named_objective``: "mse 0.031",
    "nll 2.28", "| train 1.1158 |"; the symbol "L" needs its "=")."""
    have = {k for k, _ in pairs}
    # (nor the tail word of a pair already read with the same value: MLX-LM's "Iter 200: Val loss 0.351" is
    # the pair "Val loss", its "loss 0.351" no training loss beside it: fresh63's 10 phantom spikes)
    tails = {(k.lower().rsplit(None, 1)[-1], v) for k, v in pairs if " " in k}
    spaced = [(k, v) for k, v in TOKEN_SPACED.findall(text) if k not in have and (k.lower(), v) not in tails]
    out = [(k, v) for k, v in spaced if "loss" in k.lower() or (k != SYMBOL_KEY and named_objective((k,)) is not None)]
    if any(phase_word(k) for k, _ in out + pairs):
        # a bare training split word's sibling: the bare evaluation split word ("| val 1.3227 (seg ...) |")
        out += [(k, v) for k, v in spaced if normalise(k) in EVAL_SCOPES]
    return out


def _nonfinite_lists(rest: str) -> list[tuple[str, str]]:
    """(name, its first NaN / Inf) of each named list of numbers (NAMED_LIST) in ``rest`` that
    holds one; a list of words or one number too long for a log line is none."""
    out = []
    for name, body in NAMED_LIST.findall(rest):
        bad = _NONFINITE_TOKEN.search(body)
        if bad is not None and not re.search(r"[A-Za-z]{2,}", _NONFINITE_TOKEN.sub("", body)):
            out.append((name, bad.group()))
    return out


def _bar_description_pairs(line: str, end: int) -> list:
    """The named numbers of a tqdm bar's description (the text before its percentage, up to
    ``end``, the bar's count): ``pbar.set_description(f"Epoch {e} loss {loss:.4f}")``, the way
    many a training loop shows its loss (``loss: 0.43``, ``train loss: 0.43 | lr: 1e-4``,
    AllenNLP's ``accuracy: 0.50, loss: 0.43 ||``)."""
    k = line.rfind("%|", 0, end)
    if k < 0:
        return []
    desc = line[:k].rstrip("0123456789. ").rstrip(":| ")
    pairs = PAIR.findall(desc)
    named = {normalise(n) for n, _ in pairs}
    return pairs + [(n, v) for n, v in SPACED.findall(desc) if normalise(n) not in named]


def _bare_counted(line: str, at: int) -> bool:
    """After a bare leading count (LEAD_COUNTER with no word), named numbers only, a loss among
    them ("100 loss: 2.31 lr: 0.001", "#100 loss 2.31"): not prose that starts with a number."""
    rest = line[at:]
    if "oss" not in rest and "OSS" not in rest:
        return False
    if "s" in rest or "%" in rest or "min" in rest or "h" in rest:
        rest = _UNIT.sub(r"\1", rest)  # ("| time : 4.9s", MAML's "[6300/100000] batch loss : 5.502 | time : 4.9s")
    if ": [" in rest:
        rest = _COUNTER_FIELD.sub("", rest)  # (a progress field, "progress: [100/4018]": no metric, no prose)
    return _SEPARATORS.fullmatch(TOKEN_SPACED.sub("", PAIR.sub("", rest))) is not None


#: a unit glued to a number (``4.9s``, ``120ms``, ``93.5%``): the number is a value all the same
_UNIT = re.compile(r"(\d)(?:ms|us|secs?|s|min|h|%)(?![\w.])")
_COUNTER_FIELD = re.compile(r"(?<![\w.])\w{1,40}+\s*+:\s*+\[\s*+\d++\s*+/\s*+\d++\s*+\]")


def _step_match(line: str):
    """STEP's match in ``line``: an ``Ep:`` counter only when no other step word follows it (an RL
    loop's "ep: 3, reward: 1.5, loss: 0.2, step: 30": the step is 30)."""
    m = STEP.search(line)
    if m is not None and m.group()[:2] in ("ep", "Ep", "EP"):
        later = STEP.search(line, m.end())
        if later is not None:
            return later
    return m


def _only_pairs(line: str) -> bool:
    """The line is named numbers and separators only (not prose, not a logger's message)."""
    return _SEPARATORS.fullmatch(PAIR.sub("", line)) is not None


def _step_times(rest: str) -> list[tuple[str, str]]:
    if "(ms)" in rest:
        return MEGATRON_MS.findall(rest)
    return [(k + "_ms", v) for k, v in MS_PAIR.findall(rest)]


def _is_megatron_train(line: str) -> bool:
    return "iteration" in line and "learning rate" in line and "|" in line


# -- replay fast path: line templates -------------------------------------------------------
# A standalone number in a line (not part of a word such as grad_2.0_norm)
# (a number followed by "ms" is one too: nanoGPT's "time 1431.27ms" is a step time)
_TOK = re.compile(rb"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?:(?![\w.])|(?=ms(?![\w.])))")
_DIGITS = re.compile(rb"\d+")
MIN_RUN = 16  # lines of one template worth a Frame
MAX_TEMPLATES = 256
# learning a template parses the line once per number in it: only lines a log's
# metric line could be (the longest real ones: ~600 bytes, ~20 numbers) are learnt;
# others go line by line (the same records)
MAX_TEMPLATE_LINE = 4096
MAX_TEMPLATE_NUMBERS = 64
_NUMERIC = ("loss", "grad_norm", "lr", "loss_scale", "tokens", "time", "epoch", "val_loss", "skipped", "nan_iters")


def _shape(tok: bytes) -> bytes:
    """A number's regex with its punctuation kept and each digit run free: the
    parsing regexes treat every digit alike and never count digits, so lines that
    differ only there parse alike."""
    return b"".join(re.escape(p) if i % 2 == 0 else rb"\d+" for i, p in enumerate(re.split(rb"(\d+)", tok)))


def _skeleton(line: bytes) -> bytes:
    return _TOK.sub(lambda m: b"\0" + _DIGITS.sub(b"0", m.group()), line)


def _bump(tok: bytes) -> bytes:
    """The same number shape with every digit changed (a probe value)."""
    return bytes((0x30 + (c - 0x30 + 3) % 10) if 0x30 <= c <= 0x39 else c for c in tok)


class _Template:
    """Lines with one skeleton: which captured number feeds which record field."""

    __slots__ = ("regex", "cols", "step_col", "const", "extra_keys", "extra_cols", "ncap", "clocked")

    def __init__(self, regex, cols, step_col, const, extra_keys, extra_cols, ncap, clocked=False) -> None:
        self.regex = regex
        self.clocked = clocked  # its lines start with a clock (line_clock.py): _frame reads it
        self.cols = cols  # field -> capture index
        self.step_col = step_col
        self.const = const  # field -> value the skeleton fixes
        self.extra_keys = extra_keys  # extra keys in the record's order
        self.extra_cols = extra_cols  # extra key -> capture index or ("const", value)
        self.ncap = ncap


def _sig(rec: StepRecord):
    return (
        tuple(f for f in _NUMERIC if getattr(rec, f) is not None),
        tuple(rec.extra or ()),
        rec.overflow,
        rec.loss_missing,
        rec.samples is not None,
    )


def learn_template(cls, path: str, line: bytes) -> _Template | None:
    """Probe the per-line parser: change one number at a time and see which field
    follows it. Numbers that change anything else (a key, the set of fields, the
    run facts) stay literal; a line that is not one plain step record gets None."""

    def parse(raw: bytes):
        probe = cls(path)
        probe.text_tap = None
        probe._clock = None  # (a clock's digits are free; _frame adds the line's clock as its own column)
        try:
            recs = probe.feed(raw.decode("ascii"))
        except UnicodeDecodeError:
            return None, None
        if getattr(probe, "_no_template", False):
            return None, None  # a step made of several numbers (epoch and counter)
        return (recs[0] if len(recs) == 1 else None), probe.run_info

    if b"\x1b" in line or b"\r" in line or not line.isascii() or len(line) > MAX_TEMPLATE_LINE:
        return None
    toks = list(_TOK.finditer(line))
    if len(toks) > MAX_TEMPLATE_NUMBERS:
        return None  # each number costs a parse of the whole line: "1,1,1,..." would be quadratic
    r0, info0 = parse(line)
    if r0 is None or r0.overflow or r0.loss_missing or r0.samples is not None:
        return None
    sig0 = _sig(r0)
    pieces: list[bytes] = []
    cols: dict[str, int] = {}
    extra_cols: dict[str, object] = {}
    step_col = None
    pos = 0
    ncap = 0
    for m in toks:
        tok = m.group()
        probe_tok = _bump(tok)
        ri, infoi = parse(line[: m.start()] + probe_tok + line[m.end() :])
        pieces.append(re.escape(line[pos : m.start()]))
        pos = m.end()
        role: str | tuple[str, str] | None = None
        if ri is not None and _sig(ri) == sig0 and infoi == info0:
            changed = [
                f
                for f in ("step",) + _NUMERIC
                if getattr(ri, f) != getattr(r0, f)
                and not (getattr(r0, f) != getattr(r0, f) and getattr(ri, f) != getattr(ri, f))
            ]
            xchanged = [k for k in (r0.extra or {}) if ri.extra[k] != r0.extra[k]]
            try:
                want = float(probe_tok)
            except ValueError:
                want = None
            if len(changed) + len(xchanged) == 0:
                role = "free"
            elif len(changed) + len(xchanged) == 1 and want is not None:
                if changed:
                    f = changed[0]
                    v = getattr(ri, f)
                    if (f == "step" and probe_tok.isdigit() and v == int(probe_tok)) or (f != "step" and v == want):
                        role = f
                elif ri.extra[xchanged[0]] == want:
                    role = ("extra", xchanged[0])
        if role is None:  # structural or unclear: keep the text as is
            pieces.append(re.escape(tok))
            continue
        if role == "free":
            pieces.append(_shape(tok))
            continue
        if role == "step" or role in INT_FIELDS:
            # int64 columns: at most 15 digits (exact in the float64 the values pass
            # through, never wrapping); a longer number goes line by line (a counted skip)
            if not tok.isdigit():
                return None
            pieces.append(rb"(\d{1,15})")
        else:
            pieces.append(b"(" + _shape(tok) + b")")
        if role == "step":
            if step_col is not None:
                return None
            step_col = ncap
        elif isinstance(role, tuple):
            extra_cols[role[1]] = ncap
        else:
            if role in cols:
                return None
            cols[role] = ncap
        ncap += 1
    pieces.append(re.escape(line[pos:]))
    if step_col is None:
        return None
    const = {f: getattr(r0, f) for f in _NUMERIC if getattr(r0, f) is not None and f not in cols}
    for k, v in (r0.extra or {}).items():
        extra_cols.setdefault(k, ("const", v))
    regex = re.compile(b"^" + b"".join(pieces) + b"$", re.M)
    clocked = line_clock(line[:40].decode("ascii")) is not None
    return _Template(regex, cols, step_col, const, tuple(r0.extra or ()), extra_cols, ncap, clocked)


try:
    from orjson import loads as _orjson_loads
except ImportError:  # pragma: no cover
    from json import loads as _orjson_loads  # type: ignore[assignment]  # (json's loads takes what orjson's is given here)

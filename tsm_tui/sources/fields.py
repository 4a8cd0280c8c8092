"""Field names frameworks use, mapped onto StepRecord fields.

Keys are normalised (lower case, spaces and dashes to ``_``) before lookup.
"""

from __future__ import annotations

import math
import re
from typing import TypeVar

#: counters whose name says they are one (a loop's "batch_index=640 loss=..."): step keys that
#: name a step on their own in a text line too (generic_text.NAMED_STEP_KEYS)
COUNTER_KEYS = frozenset(
    {"batch_index", "batch_idx", "iter_num", "global_iter", "global_iteration", "train_step", "num_of_updates"}
)
STEP_KEYS = {
    *COUNTER_KEYS,
    "step",
    "steps",
    "iter",
    "iteration",
    "iterations",
    "iters",  # ("time:2024-03-23, 04:31:58, iters:1000, iters_average_Loss:1.4231": fresh35's ORPO loop)
    "t_env",  # (PyMARL's "Recent Stats | t_env:  30592 | Episode:  624", its stats on the lines after: fresh44)
    # an RL run's environment steps, its step as SB3's total_timesteps is (OpenAI Spinning Up's progress.txt
    # "TotalEnvInteracts", its "total-env-interacts" and "Time Steps" forks, RLlib's "timesteps_total"; read by
    # their Epoch column, fresh58's five progress files had every event on another axis than the run's steps)
    "totalenvinteracts",
    "total_env_interacts",
    "time_steps",
    "timesteps_total",
    # the step in Romanian / French, Spanish, Italian / Portuguese, German, Polish / Czech, Dutch (see "pierdere")
    "pas",
    "paso",
    "passo",
    "schritt",
    "krok",
    "stap",
    "it",
    "s",
    "global_step",
    "_step",
    "current_steps",
    "trainer/global_step",
    "train/global_step",
    "num_updates",
    "update",
    "batch",
    "train/step",
    "total_timesteps",
    "time/total_timesteps",
    # OpenAI baselines' logger (DDPG / HER progress.csv: "total/steps" beside "total/epochs", "total/episodes";
    # fresh67's two DDPG runs read on the row index, every event 2,000x early)
    "total/steps",
    "total/timesteps",
}
ALIASES = {
    # loss
    "loss": "loss",
    "train_loss": "loss",
    "trloss": "loss",  # glued abbreviations ("Epoch: 01, trloss: 1.4891, ... valloss: 0.7609")
    "trainloss": "loss",
    # ... a counter's word glued to it, as "iter_loss" / "batch_loss" apart (fresh94's ConvLSTM loop:
    # np.savetxt-style "iterloss_log.txt", one float a line, "no training metrics recognised")
    "iterloss": "loss",
    "steploss": "loss",
    "batchloss": "loss",
    "epochloss": "loss",
    "loss_train": "loss",  # LitGPT's "loss train: 2.033, val: n/a"
    "lm_loss": "loss",
    "trl": "loss",
    "train/loss": "loss",
    "train_loss_step": "loss",
    "loss/train/total": "loss",
    "train/crossentropyloss": "loss",
    "reduced_train_loss": "loss",
    "train/ce_loss": "loss",
    "training_loss": "loss",
    "train/lm_loss": "loss",
    "train_lm_loss": "loss",
    "loss_step": "loss",
    "train/loss_step": "loss",
    "loss_total": "loss",
    "train/total_loss": "loss",
    "train/loss_total": "loss",
    "loss/total": "loss",
    # "trn" for train (DeePMD-kit's lcurve.out: "#  step  rmse_val  rmse_trn  rmse_e_val ...  lr", the
    # RMSE of the weighted energy / force loss on the training batch: its training objective's
    # measure; rmse_e_trn / rmse_f_trn are its terms)
    "trn_loss": "loss",
    # a hand-written loop's one-letter split before "loss" ("Epoch [3]--->Tloss: 2.31", fresh42's ReID log;
    # "tloss" / "vloss" beside each other in print loops)
    "tloss": "loss",
    "vloss": "val_loss",
    # the loss in German, French, Portuguese, Italian, Romanian, Dutch, Polish, Indonesian / Malay and
    # Spanish and Turkish written without their accents (the other languages' words: fields.foreign_names;
    # fresh54's Romanian char-LM "pas 20 | pierdere 3.01 | lr 8.4e-04 | |g| 0.33" read nothing)
    "verlust": "loss",
    "perte": "loss",
    "perda": "loss",
    "perdita": "loss",
    "pierdere": "loss",
    "verlies": "loss",
    "strata": "loss",
    "kerugian": "loss",
    "perdida": "loss",
    "kayip": "loss",
    # ... and the validation in Romanian, Italian, Spanish (the word alone names the validation loss:
    # "-> validare 0.5589 nats")
    "validare": "val_loss",
    "validazione": "val_loss",
    "validacion": "val_loss",
    # kohya-ss sd-scripts' bar postfix ("steps: 10%| 100/1000 [..., avr_loss=0.102]": its running
    # average, the only loss it prints); OpenNMT-py's "Step 100/200000; acc: 10.5; ppl: 500.2; xent: 6.2"
    "avr_loss": "loss",
    "xent": "loss",
    "loss_trn": "loss",
    "rmse_trn": "loss",
    # the loss over the logging interval, as printed (PointNet++ "mean loss: 2.89"): the training loss
    # when the record has no plain "loss" (a plain one is read first: fields.MEAN_LOSS, total_over)
    "mean_loss": "loss",
    "avg_loss": "loss",
    "average_loss": "loss",
    "running_loss": "loss",
    # TensorBoard tags: Keras (epoch_/batch_), Megatron-LM, torchtitan, NeMo
    "epoch_loss": "loss",
    "batch_loss": "loss",
    "lm_loss_training/lm_loss": "loss",
    "loss_metrics/global_avg_loss": "loss",
    "train/reduced_train_loss": "loss",
    # detectron2's events printer (the sum of its loss terms is the objective)
    "total_loss": "loss",
    # validation loss
    "val_loss": "val_loss",
    "rmse_val": "val_loss",
    "valloss": "val_loss",
    "validloss": "val_loss",
    "evalloss": "val_loss",
    "tel": "val_loss",
    "eval_loss": "val_loss",
    "validation_loss": "val_loss",
    "val/loss": "val_loss",
    "eval/loss": "val_loss",
    "valid_loss": "val_loss",
    "val_loss_epoch": "val_loss",
    "test_loss": "val_loss",
    "lm_loss_validation": "val_loss",
    "lm_loss_validation/lm_loss_validation": "val_loss",
    "epoch_val_loss": "val_loss",
    "val_iter_loss": "val_loss",  # (NVIDIA DLLogger 0.x, DeepLearningExamples Tacotron2 2019: per epoch)
    "lm_loss_value": "val_loss",
    "eval/lm_loss": "val_loss",
    "val/lm_loss": "val_loss",
    "eval_mean_loss": "val_loss",
    "val_mean_loss": "val_loss",
    "test_mean_loss": "val_loss",
    "eval_avg_loss": "val_loss",
    "val_avg_loss": "val_loss",
    "test_avg_loss": "val_loss",
    # gradient norm
    "grad_norm": "grad_norm",
    "grad_norms": "grad_norm",  # (robomimic's "Policy_Grad_Norms": the policy's total, ROLE_METRIC)
    "gnorm": "grad_norm",
    "grdn": "grad_norm",  # LeRobot's train log ("loss:2.215 grdn:49.836 lr:1.0e-05")
    "total_grad_norm": "grad_norm",
    "norm": "grad_norm",
    "optim/total_grad_norm": "grad_norm",
    "l2_norm/grad/global": "grad_norm",
    "train/grad_norm": "grad_norm",
    "grad_norm_total": "grad_norm",
    "gradient_norm": "grad_norm",
    "grad_l2_norm": "grad_norm",
    "grad_2.0_norm_total": "grad_norm",
    "grad_2_norm": "grad_norm",  # (Lightning's grad_norm(model, norm_type=2) logged by hand: fresh86's DiffWave CSVs)
    "grad_2_norm_total": "grad_norm",
    "grad_norm/total": "grad_norm",
    "train/gradient_norm": "grad_norm",
    "grad_2.0_norm/total": "grad_norm",
    "train/grad_2.0_norm_total": "grad_norm",
    # the mean over the logging interval (fresh23's TinyRefine CSV: grad_norm_avg every 100 steps)
    "grad_norm_avg": "grad_norm",
    "avg_grad_norm": "grad_norm",
    "grad_norm_mean": "grad_norm",
    "train_grad_norm": "grad_norm",  # (MAE's log.txt: the epoch's mean)
    "grad_gnorm": "grad_norm",  # (RLlib's learner_stats: the global norm of the gradients)
    "mean_grad_norm": "grad_norm",
    # the norm before clipping is the one that spikes (a custom loop's diagnostics.jsonl logs
    # grad_norm_pre_clip beside grad_norm_post_clip, which clipping holds at the threshold: not read)
    "grad_norm_pre_clip": "grad_norm",
    "grad_norm_before_clip": "grad_norm",
    "pre_clip_grad_norm": "grad_norm",
    "grad_norm_preclip": "grad_norm",
    "unclipped_grad_norm": "grad_norm",
    "grad_norm_unclipped": "grad_norm",
    # a bare "grad" beside a step's loss is its norm (a custom trainer's "| loss 1.47 | lr 1.8e-04 | grad 0.075 |")
    "grad": "grad_norm",
    # learning rate
    "lr": "lr",
    "learning_rate": "lr",
    "learning_rates": "lr",  # (a history's list of them: fresh114's GPT-2 QAT stats JSON)
    "lrs": "lr",
    "train/learning_rate": "lr",
    "optim/lr": "lr",
    "train/lr": "lr",
    "lr_abs": "lr",
    "lr-adam": "lr",
    "optim/learning_rate_group0": "lr",
    "current_lr": "lr",
    "cur_lr": "lr",
    "curr_lr": "lr",
    "current_learning_rate": "lr",  # nnU-Net's "Current learning rate: 0.00991"
    "epoch_learning_rate": "lr",
    "epoch_lr": "lr",
    # DETR / MAE / DeiT's log.txt prefixes each epoch's training averages with "train_" (fresh25)
    "train_lr": "lr",
    "train_learning_rate": "lr",
    "batch_learning_rate": "lr",
    # fp16
    "loss_scale": "loss_scale",
    "amp_scaler": "loss_scale",  # Coqui trainer's GradScaler scale ("| > amp_scaler: 1024.00000")
    "scale": "loss_scale",
    "loss_scaler": "loss_scale",
    "grad_scale": "loss_scale",
    "fp16_grad_scale": "loss_scale",
    "train_loss_scale": "loss_scale",
    "train/loss_scale": "loss_scale",
    "lg_loss_scale": "loss_scale",  # (its log2: LOG2_SCALE)
    "number_of_skipped_iterations": "skipped",
    "skipped": "skipped",
    "skipped_iterations": "skipped",
    "number_of_nan_iterations": "nan_iters",
    "nan_iterations": "nan_iters",
    # progress
    "tokens": "tokens",
    "consumed_tokens": "tokens",
    "num_tokens": "tokens",
    "num_input_tokens_seen": "tokens",
    "tokens_seen": "tokens",
    "total_tokens": "tokens",
    "train/tokens": "tokens",
    "throughput/total_tokens": "tokens",
    "epoch": "epoch",
    "epochs": "epoch",
    "train/epoch": "epoch",
    "time": "time",
    "timestamp": "time",
    "_timestamp": "time",
    "wall_time": "time",
    # (the seconds since the run began: a clock that starts at 0; generic_text.ELAPSED reads its spellings
    # with a unit. A duration per interval logged under the name falls as often as it rises: the throughput
    # check then takes it for no clock, as mmengine's ``time``)
    "elapsed": "time",
    "elapsed_time": "time",
    "time_elapsed": "time",
    "elapsed_s": "time",
    "elapsed_sec": "time",
}
#: a step's duration, as logs name it (Megatron's "elapsed time per iteration (ms)", nanoGPT's
#: "time 1234.5ms", modded-nanogpt's step_avg, llm.c / others' "dt"): seconds = value x scale
STEP_TIME_KEYS = (
    "elapsed time per iteration (ms)",
    "elapsed_time_per_iteration_ms",
    "step_time",
    "iter_time",
    "time_per_step",
    "dt",
    "dt_ms",
    "time_ms",
    "step_time_ms",
    "train/step_time",
    "took_ms",
    "step_avg_ms",
)
#: throughput, as logs name it (higher is faster): tokens / samples / iterations per second, MFU, TFLOP/s
RATE_KEYS = (
    "tokens_per_sec",
    "tokens_per_second",
    "tok/sec",
    "tok/s",
    "tokens/s",
    "tps",
    "throughput",
    "throughput/tokens_per_sec",
    "perf/throughput",
    "throughput per GPU (TFLOP/s/GPU)",
    "tflops",
    "TFLOPs",
    "mfu",
    "MFU",
    "samples_per_second",
    "samples/sec",
    "train_samples_per_second",
    "it/s",
    "iters_per_sec",
    "steps_per_second",
    "train_steps_per_second",
    "wps",
    "ups",
)


def step_time_key(keys) -> tuple[str, float] | None:
    """The logged step-duration key among ``keys`` and its scale to seconds."""
    for k in STEP_TIME_KEYS:
        if k in keys:
            return k, (1e-3 if k.endswith("ms") or "(ms)" in k else 1.0)
    return None


def rate_key(keys) -> str | None:
    """The logged throughput key among ``keys`` (higher is faster)."""
    for k in RATE_KEYS:
        if k in keys:
            return k
    return None


# prefixes that identify a field family (Lightning's LearningRateMonitor: lr-AdamW,
# lr-AdamW/pg1; Composer: lr-DecoupledAdamW/group0)
PREFIXES = (("lr-", "lr"), ("lr_", "lr"), ("learning_rate/", "lr"), ("lr/", "lr"))

_NORM = re.compile(r"[\s\-]+")


def normalise(key: str) -> str:
    """Lower case, runs of spaces and dashes as one "_"; a trailing ":" or "=" dropped (a
    tracker key copied from a print: W&B history's ``train loss:``, fresh7); an abbreviation's
    dot before a space dropped (``Avg. loss``: fresh17's MT fine-tune printed it so)."""
    k = key.strip().rstrip(":=：").rstrip().lower()
    if ". " in k:
        k = k.replace(". ", " ")
    if k and k[-1] >= "\u4e00":
        k = _cjk(k)
    if " per " in k and "loss" in k:
        k = _PER_UNIT.sub("", k)
    return _NORM.sub("_", k)


#: a loss named with the unit it is averaged over ("loss per token", GNTPP's "Train Negative Overall
#: Log-Loss per event: 4.14", fresh73: "nothing readable"): the loss itself
_PER_UNIT = re.compile(
    r" per (?:token|event|sample|example|char(?:acter)?|word|frame|item|instance|seq(?:uence)?|pixel|image|batch)s?$"
)


#: the words of a Chinese log's metric names, as the field table's (fresh41: "平均总损失：0.2961 |
#: 扩散损失：0.1918", "学习率"); longest first, each a word of its own after the swap
_CJK_WORDS = (
    ("梯度范数", " grad_norm "),
    ("损失值", " loss "),  # (fresh78's "当前损失值：10.113": the current loss's value)
    ("当前", " "),  # ("current": 当前Batch, 当前epoch)
    ("准确率", " acc "),
    ("正确率", " acc "),
    ("批次", " batch "),
    ("迭代", " iter "),
    ("步数", " step "),
    ("轮次", " epoch "),
    ("学习率", " lr "),
    ("学習率", " lr "),  # (Japanese, traditional Chinese)
    ("損失", " loss "),
    ("损失函数", " loss "),
    ("损失", " loss "),
    ("验证", " val "),
    ("训练", " train "),
    ("平均", " avg "),
    ("总", " total "),
    # (a progress field and its time left, a duration's unit glued to its number: fresh118's Jittor log,
    # "进度: [100/4018]\t预计剩余时间: 125.5分钟" -> "progress: [100/4018]\teta: 125.5min")
    ("预计剩余时间", " eta "),
    ("剩余时间", " eta "),
    ("进度", " progress "),
    ("分钟", " min "),
    ("小时", " h "),
    ("秒", " s "),
)


def _cjk(k: str) -> str:
    """``k`` with the Chinese words of a metric name as the field table's English ones."""
    for zh, en in _CJK_WORDS:
        if zh in k:
            k = k.replace(zh, en)
    return k.strip()


_CJK_RUN = re.compile(r"[\u4e00-\u9fff]++")


def _cjk_run(m: re.Match) -> str:
    words = _cjk(m.group()).split()
    return "_".join(words) if all(w.isascii() for w in words) else m.group()


#: the loss, epoch and step words of logs written in other languages, as English (a print loop's own
#: words: "Época 3, pérdida: 0.52", "Эпоха 3, потери: 0.52", "에폭 3, 손실: 0.52", "エポック 3, 損失: 0.52");
#: the ones written in ASCII are aliases (``verlust``, ``perte``, ``perda``, ``perdita``)
_FOREIGN = {
    "pérdida": "loss",
    "Pérdida": "Loss",
    "época": "epoch",
    "Época": "Epoch",
    "époque": "epoch",
    "Époque": "Epoch",
    "étape": "step",
    "Étape": "Step",
    "потери": "loss",
    "Потери": "Loss",
    "потеря": "loss",
    "Потеря": "Loss",
    "эпоха": "epoch",
    "Эпоха": "Epoch",
    "шаг": "step",
    "Шаг": "Step",
    "エポック": "epoch",
    "ステップ": "step",
    "손실": "loss",
    "에폭": "epoch",
    "에포크": "epoch",
    "스텝": "step",
}
_FOREIGN_RUN = re.compile("|".join(sorted(map(re.escape, _FOREIGN), key=len, reverse=True)))
#: an epoch counted in Chinese: "第3轮", "第 3 个 epoch", "第3代"
_CJK_EPOCH = re.compile(r"第\s*+(\d{1,9}+)\s*+(?:轮|代|个\s*+epoch\b)")


def foreign_names(line: str) -> str:
    """A line's Chinese metric names as the field table's English words, each one name ("Epoch 1,
    训练损失: 0.52, 验证损失: 0.61" -> "Epoch 1, train_loss: 0.52, val_loss: 0.61"), its epoch ("第3轮" ->
    "epoch 3"), and the loss, epoch and step words of other languages (_FOREIGN): the pairs are read by
    names that start with a Latin letter. A name with a word the table lacks stays as it is."""
    if "第" in line:
        line = _CJK_EPOCH.sub(r"epoch \1 ", line)
    line = _FOREIGN_RUN.sub(lambda m: _FOREIGN[m.group()], line)
    return _CJK_RUN.sub(_cjk_run, line)


#: loss keys that name one term of the objective (the language-model / cross-entropy term):
#: when a record logs a total beside one (Knover: ``lm_loss: 2.1, bow_loss: 3.0, loss: 5.1``),
#: the total is the loss whatever their order; alone (Megatron's ``lm loss``) it is the loss
PART_LOSS = frozenset({"lm_loss", "train/lm_loss", "train_lm_loss", "train/ce_loss", "train/crossentropyloss"})
#: a mean of the loss over the logging interval: the loss only when no plain one is logged
MEAN_LOSS = frozenset({"mean_loss", "avg_loss", "average_loss", "running_loss"})


#: loss keys of a held-out test set: the evaluation loss only in a source that logs no
#: validation loss (Lightning's metrics.csv holds ``val_loss`` per epoch and, after
#: ``trainer.test``, one ``test_loss`` row: read as one more evaluation it was "the last
#: evaluation, 2.3x the best"; fresh11's CIFAR classifier)
TEST_LOSS = frozenset({"test_loss", "test_mean_loss", "test_avg_loss", "test/loss"})


#: loss scales logged as their base-2 logarithm: OpenAI's improved- / guided-diffusion fp16 trainer's
#: ``lg_loss_scale`` (20 = 2**20); read as the scale itself
LOG2_SCALE = frozenset({"lg_loss_scale"})


def scale_of_log2(x: float) -> float:
    """The loss scale a logged log2 of it stands for: 2**x; inf past a float's range (1024 and up), NaN kept."""
    return 2.0**x if not x >= 1024 else math.inf


#: a loss split by one letter after it: ``loss_t`` / ``loss_v`` in one record are the training and the
#: validation loss (fresh67's ConvLSTM "epoch 0  loss_t 734.3  loss_v 720.3  loss_min 9999": exit 2). Only as a
#: pair: ``loss_v`` alone is an RL critic's value loss (Spinning Up's LossV), ``loss_t`` alone a loss at time t
LETTER_SPLIT = ("loss_t", "loss_v")


def letter_split(extra: dict) -> tuple[str, str] | None:
    """The (training, validation) keys of a LETTER_SPLIT pair among a record's unmapped numbers, or None."""
    keys = {normalise(k): k for k in extra}
    t, v = (keys.get(n) for n in LETTER_SPLIT)
    return (t, v) if t is not None and v is not None else None


def is_test_loss(key: str) -> bool:
    return normalise(key) in TEST_LOSS


def total_over(new: str, old: str) -> bool:
    """Both keys feed the loss: does ``new`` take the place of ``old`` (a total over a term,
    the step's own loss over an interval's mean)?"""
    o, n = normalise(old), normalise(new)
    if o in MEAN_LOSS:
        return n not in MEAN_LOSS and n not in PART_LOSS
    return o in PART_LOSS and n not in PART_LOSS and n not in MEAN_LOSS


#: an LR named with its scheduler (PaddleClas' ``lr(LinearWarmup): 0.00000204``, ``lr(Cosine)``)
_LR_SCHED = re.compile(r"^(?:lr|learning_rate)\([a-z]\w*\)$")


#: a metric an RL trainer names with the model it belongs to: verl's ``actor/grad_norm``, ``actor/lr``
#: (beside ``critic/grad_norm``, ``critic/lr`` of its value model), OpenRLHF's ``actor_lr`` /
#: ``train/actor_lr`` (beside ``critic_lr``), TRL's ``policy/...``, DeepSpeed-Chat's ``actor_...``.
#: The policy's (actor's) grad norm and LR are the run's: the model being trained for the task,
#: whose loss is the objective (ACTOR_KEYS); another model's (critic, value head, reward model)
#: are never the run's, whatever their order in a record (they stay extras, as its loss does:
#: MODEL_WORDS). Only the grad norm and LR (ROLE_FIELDS): the actor's losses are the objective
#: rule's (loss_role), its other names (entropy, kl, clipfrac) are not fields.
ROLE_METRIC = re.compile(r"^(?:train(?:ing)?/)?(?:actor|policy)[/_](.+)$")
ROLE_FIELDS = frozenset({"grad_norm", "lr"})


#: the first scope of a nested record's keys that only holds its metrics (a custom logger's
#: ``{"step": 10, "metrics": {"train": {"loss": 2.31}}}``, flattened ``metrics/train/loss``): no scope of
#: its own, the key is what it holds
CONTAINER_SCOPES = frozenset({"metrics", "metric", "scalars", "scalar", "logs", "log", "stats", "values"})


def _unwrapped(k: str) -> str:
    """A normalised key without its leading container scopes (CONTAINER_SCOPES)."""
    while "/" in k:
        head, rest = k.split("/", 1)
        if head not in CONTAINER_SCOPES or not rest:
            break
        k = rest
    return k


#: a Lightning stage's name as the scope of a metric: ``fit/`` is the training's (stable-pretraining's
#: LeJEPA CSVLogger: ``fit/loss_step``, ``fit/loss_epoch`` beside ``train/inet_probe_loss_step``, a probe's;
#: fresh83: "no loss values in the log")
STAGE_SCOPE = "fit/"


#: a source file's name (a warning's "...\\torch\\optim\\lr_scheduler.py:232: UserWarning": its line number
#: after a colon reads as a named number): no metric, whatever its name starts with (fresh121: an "lr" series
#: of 232s from "lr_scheduler.py", a warm-up peaking at a rate the run never had)
_SOURCE_FILE = re.compile(r"\.(?:py|pyx|pyi|ipynb|c|cc|cpp|cu|cuh|h|hpp|java|js|ts|rs|go|jl|lua|sh)$")


def field_for(key: str) -> str | None:
    """Which StepRecord field a log key feeds (``"step"`` for step keys), or None."""
    k = normalise(key)
    if "." in k and _SOURCE_FILE.search(k):
        return None
    if "/" in k and k.split("/", 1)[0] in CONTAINER_SCOPES:
        return field_for(_unwrapped(k))
    if k.startswith(STAGE_SCOPE):
        return field_for("train/" + k[len(STAGE_SCOPE) :])
    if k in STEP_KEYS:
        return "step"
    f = ALIASES.get(k) or ALIASES.get(k.replace("_", "-"))
    if f:
        return f
    if "learner_stats/" in k:
        # RLlib's progress.csv / result.json: "info/learner/<policy>/learner_stats/total_loss", ".../cur_lr"
        # (fresh34: the PPO trial read "LR not logged"; its total_loss beside policy_loss and vf_loss)
        return field_for(k[k.rindex("learner_stats/") + len("learner_stats/") :])
    if k.endswith("_losses"):  # a list's name: "train_losses", "val_losses" (a history of each;
        return field_for(k[:-2])  # a bare "losses" is a list of terms, its NaN said by its name)
    if "loss" in k and _TOTAL_WORDS.issuperset(_SEP.split(k)) and not _split_twice(k):
        return "loss"  # ("train_total_loss", "train_loss_total", "total_train_loss")
    if k.endswith(")") and _LR_SCHED.match(k):
        return "lr"
    if k[:1] in "apt":
        r = ROLE_METRIC.match(k)
        if r is not None:
            f = ALIASES.get(r.group(1))
            return f if f in ROLE_FIELDS else None
    for p, f in PREFIXES:
        if k.startswith(p):
            # lr-AdamW/pg2 etc: only the first param group
            return f if ("/pg" not in k or k.endswith("/pg1")) and "momentum" not in k else None
    if k.endswith("_step") and "norm" in k:
        # Lightning's granularity suffix on a grad norm logged with on_step=True ("grad_2_norm_step"; its
        # "_epoch" twin is the epoch's mean, no step's value: not read)
        if field_for(k[:-5]) == "grad_norm":
            return "grad_norm"
    f = _scoped(k) or _split_named(k)
    if f is None and _CAMEL.search(key):
        # a camelCase name ("MeanLoss" of the PyTorch Mario tutorial's MetricLogger, "TrainLoss",
        # "LearningRate"): the same name with its words apart
        return field_for(_CAMEL.sub("_", key))
    return f


def _split_twice(k: str) -> bool:
    """A split scope over a name that names a split again (HF's ``train/train_loss``: the run's
    average at its end, logged once, not a step's loss; ``_split_named`` says the same)."""
    if "/" not in k:
        return False
    *scopes, name = k.split("/")
    splits = TRAIN_SCOPES | EVAL_SCOPES
    return any(s in splits for s in scopes) and any(w in splits for w in name.split("_"))


#: the words of a name that says "the training loss, in total" in any order (icefall / k2 recipes
#: write "tot_loss"; a loop's "iters_average_Loss", fresh35: the loss averaged over its interval)
_TOTAL_WORDS = frozenset(
    {"train", "training", "total", "tot", "loss", "overall", "average", "avg", "mean", "running", "iters", "all", ""}
)

#: ``/``-separated scopes a tracker puts before a metric's name: the training model's
#: (Chainer's ``main/loss``, ``training/loss``) and evaluation's (Chainer's
#: ``validation/main/loss``, ``val/train/loss``-style nesting, ``test/...``); the trainer's own
#: (``trainer/loss``, ``trainer/lr``: fresh113's MDLM Lightning CSV read its epoch-level ``train/nll`` instead)
TRAIN_SCOPES = frozenset({"main", "train", "training", "tr", "trainer"})
EVAL_SCOPES = frozenset({"validation", "validate", "val", "valid", "eval", "evaluation", "test", "dev"})
#: a record whose split is a value of a key of its own (a custom JSONL's ``{"step": 50, "split": "val",
#: "loss": 4.51}`` beside ``"split": "train"`` at the same step; a CSV's ``epoch,phase,loss,acc`` of a
#: PyTorch tutorial loop; mmcv's ``"mode": "val"``): an evaluation split's metrics are read as if
#: scoped ``val/<key>`` (its loss the validation loss, never a second training loss at that step)
SPLIT_KEYS = frozenset({"split", "phase", "mode", "stage", "subset"})
_V = TypeVar("_V")
_EVAL_SPLITS = EVAL_SCOPES | {"evaluation", "testing", "validate"}


def eval_split(items) -> str | None:
    """The SPLIT_KEYS key of one record's (key, value) ``items`` that names an evaluation split, or None."""
    for k, v in items:
        if isinstance(v, str) and k.lower() in SPLIT_KEYS and v.strip().lower() in _EVAL_SPLITS:
            return k
    return None


def split_scoped(items: list[tuple[str, _V]]) -> list[tuple[str, _V]]:
    """``items`` (key, value) of one record, its metrics scoped ``val/`` when a SPLIT_KEYS key
    names an evaluation split (its step keys and the split key as they were); else unchanged."""
    k = eval_split(items)
    if k is not None:
        return [(n, x) if n == k or field_for(n) == "step" else (f"val/{n}", x) for n, x in items]
    return items


#: scopes that name the whole objective (Ludwig's ``combined/``: the sum over its output features)
TOTAL_SCOPES = frozenset({"combined", "total"})


#: a split written after the metric's name, as the PyTorch TensorBoard tutorial tags them (``Loss/train``,
#: ``Loss/test``; fresh98's tensorboardX export, ``<run>/Loss/train`` and ``<run>/Loss/validate``): read as
#: ``train/Loss``, ``test/Loss`` (never Chainer's ``main``: its ``main/loss`` is the scope first)
SPLIT_AFTER = frozenset(
    {"train", "training", "val", "valid", "validation", "validate", "eval", "evaluation", "test", "dev"}
)


def _scoped(k: str) -> str | None:
    """A name the table lacks, read as scopes over a name it has: every scope a training
    or evaluation word (anything else, ``ema/loss``, ``model_2/loss``, is another quantity).
    Training scopes keep the field; an evaluation scope makes a loss the validation loss
    and any other field nothing (an evaluation's LR or grad norm is not the run's)."""
    if "/" not in k:
        return None
    *scopes, name = k.split("/")
    if len(scopes) == 1 and name in SPLIT_AFTER and scopes[0] not in SPLIT_AFTER:
        return _scoped(f"{name}/{scopes[0]}")  # (the split after the metric's name: SPLIT_AFTER)
    f = ALIASES.get(name)
    if f is None or f == "val_loss" or not scopes or name.split("_", 1)[0] in TRAIN_SCOPES:
        return None  # (HF's TensorBoard train/train_loss is the run's average at its end, not a step's)
    if any(s not in TRAIN_SCOPES and s not in EVAL_SCOPES and s not in TOTAL_SCOPES for s in scopes):
        return None
    if any(s in EVAL_SCOPES for s in scopes):
        return "val_loss" if f == "loss" else None
    return f


#: words of a loss's name that say its granularity (Lightning's ``_step`` / ``_epoch`` suffixes,
#: Ludwig's ``batch_`` / ``epoch_`` prefixes) and a statistic over the logging interval
_GRAIN = frozenset({"step", "batch", "iter", "iteration", "epoch"})
_STAT = frozenset({"mean", "avg", "average", "running"})
#: a VAE's objective by its name: the ELBO (or its negative) is the total of its reconstruction and KL
#: terms (fresh46's ``loss_vae`` beside ``loss_recon`` and ``loss_kl``, fresh47's ``train_elbo_loss`` beside
#: ``train_recon_loss``: summed with its own terms they counted the reconstruction twice and read the
#: KL's ~280 as the loss); one such word and nothing but training / loss words
_MODEL_TOTAL = frozenset({"elbo", "nelbo", "negelbo", "vae"})


def epoch_train_loss(key: str) -> bool:
    """A training loss per epoch (Lightning's ``train_loss_epoch``, ``epoch_train_loss``,
    ``loss_epoch``): not the loss beside a per-step series (``_split_named``), the loss of a file
    that logs no other (a CSVLogger run with ``on_step=False``: fresh19's EEG transformer, its
    402 NaN epochs read "nothing judged")."""
    k = normalise(key)
    if "/" in k:
        return False
    words = k.split("_")
    # (one word more of any other kind: tensorboardX's "train_tensor_epoch_loss", fresh41's prior net,
    # its only loss; never an evaluation's, a step's or a batch's)
    other = [w for w in words if not (w in TRAIN_SCOPES or w in _GRAIN or w in _STAT or w == "loss")]
    return (
        words.count("loss") == 1
        and "epoch" in words
        and len(other) <= 1
        and not any(w in EVAL_SCOPES or not w.isalpha() for w in other)
        and not any(w in ("step", "batch", "iter") for w in words)
    )


def _split_named(k: str) -> str | None:
    """A loss whose name carries its split and granularity as words, in any order
    (Lightning's ``valid_loss_epoch`` / ``train_loss_step``, Ludwig's TensorBoard
    ``combined/batch_train_reg_mean_loss``, ``combined/epoch_validation_loss``): every word a
    split word (TRAIN_SCOPES / EVAL_SCOPES), a granularity (``_GRAIN``), a statistic over the
    interval (``_STAT``; Ludwig's ``reg_mean``: the regularised mean) or the one ``loss``, with only
    granularities after it; scopes before it training, evaluation or total ones. The rule:

    - an evaluation split per epoch (or of no granularity) is the validation loss; per batch or
      step it is not (Lightning's ``valid_loss_step``: one value per validation batch, its step
      restarting each epoch);
    - a training split per batch / step (or of no granularity) is the loss; per epoch it is not
      (a summary beside the per-batch series, Lightning's ``train_loss_epoch``, on its own axis:
      Ludwig's ``epoch_training_loss`` is logged at the epoch's number).
    """
    *scopes, name = k.split("/")
    if any(s not in TRAIN_SCOPES and s not in EVAL_SCOPES and s not in TOTAL_SCOPES for s in scopes):
        return None
    words = name.split("_")
    if words.count("loss") != 1:
        return None
    at = words.index("loss")
    before, after = words[:at], words[at + 1 :]
    split = grain = None
    for w in after:  # (a split after the word too: "loss_val", "loss_test_epoch" were terms of the objective)
        if w in EVAL_SCOPES or w in TRAIN_SCOPES:
            if split is not None or grain is not None:
                return None
            split = "eval" if w in EVAL_SCOPES else "train"
        elif w not in _GRAIN:
            return None
    for i, w in enumerate(before):
        if w in EVAL_SCOPES or w in TRAIN_SCOPES:
            if split is not None:
                return None
            split = "eval" if w in EVAL_SCOPES else "train"
        elif w in _GRAIN:
            grain = w
        elif not (w in _STAT or w in _MODEL_TOTAL or (w == "reg" and before[i + 1 : i + 2] == ["mean"])):
            return None  # (a VAE's "val_elbo_loss" is its validation loss: _MODEL_TOTAL)
    for w in after:
        if w in _GRAIN:
            grain = w
    if split is not None and any(s in TRAIN_SCOPES or s in EVAL_SCOPES for s in scopes):
        return None  # a split named twice: HF's train/train_loss is the run's average at its end
    if any(s in EVAL_SCOPES for s in scopes):
        split = "eval"
    if split is None and grain is None:
        return None  # (a bare statistic, "mean_loss": the alias table's)
    if split == "eval":
        return "val_loss" if grain in (None, "epoch") else None
    return None if grain == "epoch" else "loss"


def split_rank(key: str) -> int:
    """Where a metric of this name goes when several feed one field (the first wins): 0 for
    training and unscoped names, 1 validation, 2 test (a held-out test split is the
    validation loss only when no validation split is logged)."""
    words = set(re.split(r"[/_.]", normalise(key)))
    if "test" in words:
        return 2
    return 1 if words & EVAL_SCOPES else 0


#: a Unix time above this many seconds (the year 5138) is in milliseconds (DVCLive's ``timestamp``,
#: JavaScript's ``Date.now()``, Java's ``currentTimeMillis``); ours
TIME_MS = 1e11


def seconds(t: float) -> float:
    """A logged Unix time in seconds: milliseconds (above TIME_MS) divided by 1000."""
    return t / 1000.0 if t > TIME_MS else t


def overflowed(v) -> bool:
    """``v`` (whose ``to_float`` is infinite) is a finite number written too big for
    a float ("1e400", 400 digits), not an infinity spelled out ("inf", "Infinity")."""
    return isinstance(v, str) and "inf" not in v.lower()


def to_float(v) -> float | None:
    """A number from a log value: int/float, numeric strings (fairseq), NaN/Inf spellings."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        t = v.strip().replace(",", "")
        if not t:
            return None
        try:
            return float(t)
        except ValueError:
            low = t.lower().removesuffix(".0")  # (Lightning's progress bar: train_loss_step=nan.0)
            if low in ("nan", "-nan"):
                return math.nan
            if low in ("inf", "infinity", "+inf"):
                return math.inf
            if low in ("-inf", "-infinity"):
                return -math.inf
            return None
    return None


# -- the training objective when no total loss is logged -------------------------------------
# Logs that print several losses and no ``loss``: RLHF / PPO (DeepSpeed-Chat
# ``act_loss`` / ``cri_loss``, OpenRLHF ``policy_loss`` / ``critic_loss``, verl ``actor/pg_loss``),
# detection (Ultralytics ``results.csv``: ``train/box_loss``, ``train/cls_loss``, ``train/dfl_loss``).
# The rule (one definition, used by every reader through ``SourceReader.build`` and the JSONL
# fast path), in this order:
#   1. a total, when one is logged (``loss``, ``total_loss``, ... : ALIASES above);
#   2. else the actor's loss, when an RL log names one (a policy and its critic are two
#      models: their losses are never added);
#   3. else the sum of the training loss terms (``train/box_loss`` + ``train/cls_loss`` + ...;
#      one term alone is the objective itself).
#   A total may be named ``total`` alone (a detector's distillation loop: ``total=2.19 det=1.93
#   kd=0.52``; YOLOv5's ``total`` column): the loss of a record with a step of its own when no
#   ``loss`` is logged (TOTAL_KEYS; a printed dict of parameter counts has a ``total`` too).
# The other loss terms are checked too (the loss-spike rule per term, NaN/Inf in any term).
#: a total named without the word "loss": the objective of a record that logs no loss
#: (TabDDPM prints "Step 500/30000 MLoss: 0.0 GLoss: 0.2917 Sum: 0.2917": its multinomial and Gaussian
#: diffusion terms and their sum, fresh88: exit 2)
TOTAL_KEYS = frozenset({"total", "train/total", "train_total", "total_train", "sum"})


def total_key(key: str) -> bool:
    """``key`` names a total without the word "loss" (TOTAL_KEYS)."""
    return normalise(key) in TOTAL_KEYS


#: the actor's (policy's) loss of an RL log
ACTOR_KEYS = frozenset(
    {
        "act_loss",
        "ploss",  # a PPO loop's "ploss=-0.0165 vloss= 19.1"
        "actor_loss",
        "actor/loss",
        "actor/pg_loss",
        "actor/policy_loss",
        "policy_loss",
        "pg_loss",
        "train/actor_loss",
        "train/policy_loss",
        "train/pg_loss",
        "ppo/loss/policy",
        "loss/policy",
        "policy/loss",
    }
)
#: losses of another model of the run (critic, value head, reward model, a GAN's two nets):
#: checked alongside, never summed into the objective (GAN logs get no objective)
MODEL_WORDS = (
    "cri",
    "critic",
    "value",
    "vf",
    "reward",
    "rm",
    "d",
    "g",
    "disc",
    "discriminator",
    "gen",
    "generator",
    "dis",
)
#: a loss that is not a training term: validation / test, statistics over it, a scale, a share of
#: samples (``frac_loss_zero``: the share whose loss is 0, rising as the run learns; fresh39), a run's
#: summary of it (``summary/final_train_loss``, ``best_loss``: fresh65's CS336 LM named its objective so)
_NOT_TERM = re.compile(
    r"^(?:val|valid|validation|eval|test|dev)(?:[/_.]|$)|(?:^|[/_.])(?:val|valid|validation|eval|"
    r"test)[/_.]|(?:^|[_/.])(?:avg|mean|ema|running|smooth(?:ed)?|std|var|min|max|scale|scaler|"
    r"epoch|step|weight|coef|coeff|ratio|sum|total|all|ppl|perplexity|acc|accuracy|count|num|rate|"
    r"norm|grad|time|ms|scaling|factor|alpha|beta|gamma|lambda|lamda|temperature|temp|margin|eps|epsilon|"
    r"type|threshold|thresh|clip|init|start|warmup|decay|patience|interval|freq|every|fn|func|"
    r"function|config|cfg|frac|fraction|pct|percent|share|final|best|summary)(?:[_/.]|$)"
)
#: a mean / average of a named loss term over the update's minibatches, the word first (a PPO loop's
#: "train/mean value loss", "train/mean policy loss": every loss key of fresh62's pendulum run, whose
#: 627 W&B rows read as none): the term itself, as "train/value loss" is ("mean_loss", "loss_mean",
#: "ep_mean_loss": a statistic of the total, no term: ``_NOT_TERM``)
_MEAN_OF = re.compile(r"(^|[/_.])(?:mean|avg|average)_(?=[a-z][a-z0-9]*+_loss(?:es)?$)")
#: a word that names a hyperparameter or a quantity elsewhere (``_NOT_TERM``) right before the final
#: "loss" names what the loss is of: a diffusion model's noise-prediction ``train_eps_loss`` (fresh46:
#: its only loss, "0 steps with a training loss"), a capsule net's ``margin_loss``, a depth model's
#: ``grad_loss``, a surface's ``norm_loss``, crowd counting's ``count_loss``: a term of the objective
_QUALIFIER = re.compile(
    r"(^|[/_.])(?:eps|epsilon|margin|temperature|temp|alpha|beta|gamma|lambda|lamda|threshold|thresh|norm|"
    r"grad|time|count|num|rate|type)[_.](loss(?:es)?)$"
)
#: a ratio of two quantities, named with a word between them (``gn_over_loss``: the grad norm over the
#: loss; ``loss_per_token``, ``loss_div_tokens``; ``A/loss`` is ``loss_role``'s statistic-of-the-loss rule,
#: ``*_ratio`` is ``_NOT_TERM``'s): a statistic derived from the loss, never a term of the objective. A term
#: is a quantity the loss adds up; a ratio moves whenever its other quantity does (the grad norm's spikes
#: made ``gn_over_loss`` raise 35 loss-spike warnings on a nanoGPT-fork monitor log, fresh10), and a loss
#: per token summed with the record's terms counts the loss twice. ``per_token_loss`` (no word before
#: ``per``) is a loss computed per token: still a loss.
_RATIO = re.compile(r"[^/_.][/_.](?:over|per|div|divided_by)[/_.][^/_.]")
#: a loss by its word: ``loss``, or the name of the usual one (cross entropy, NLL: SCAN's W&B
#: history logs ``Self-labelling cross entropy`` and nothing else)
_TERM = re.compile(r"(?:^|[/_.])(?:loss(?:es)?|cross_?entropy|xent|nll)(?:[/_.]|$)")
#: Ultralytics YOLOv10's terms have no "loss" in their names: box / cls / dfl of its
#: one-to-many (``_om``) and one-to-one (``_oo``) heads, trained together (its loss is the
#: sum of both heads': ultralytics v10DetectLoss)
_YOLO10_TERM = re.compile(r"^train/(?:box|cls|dfl)_o[mo]$")
_SEP = re.compile(r"[/_.]")
_FILLER = frozenset({"train", "training", "tr", "loss", "losses", "ppo", "rlhf", ""})


#: loss names that carry no "loss" word: BasicSR's ``l_`` prefix (``l_pix``, ``l_mos``,
#: ``l_g_gan``, ``l_d_real``), a loss function's name (GluonCV ``CrossEntropy=``, ``SmoothL1=``,
#: ``RPN_SmoothL1``); camelCase is split first (``ObjLoss`` is ``obj_loss``)
_LOSS_FN = re.compile(r"(?:^|[/_.])(?:cross_?entropy|smooth_?l1|nll|bce)$")
_NAMED_LOSS = re.compile(r"^l_(?:[a-z]{2}|[gd]_[a-z])|" + _LOSS_FN.pattern)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _key(key: str) -> str:
    """``normalise`` with camelCase split (``SmoothL1`` -> ``smooth_l1``, ``ObjLoss`` -> ``obj_loss``)."""
    return normalise(_CAMEL.sub("_", key)) if not key.islower() else normalise(key)


#: a key only a reinforcement-learning run logs: a reward or an episode return (not DPO's
#: ``rewards/chosen``: a preference loss is a supervised one), a policy / value / critic /
#: actor loss, PPO's approx_kl or a ``ppo/`` scope (stable-baselines3, TRL, DeepSpeed-Chat,
#: OpenRLHF, verl names; ModuMorph's and Spinning Up's ``pi_loss`` / ``LossPi``); the value head's explained variance before / after an update
#: (AlphaZero_Gomoku and its forks: self-play, its loss rises as its data improves; fresh19)
_RL_KEY = re.compile(
    r"(?:^|[/_.])(?:reward|ep_rew_mean|ep_rew|episode_reward|episode_return|ep_ret|"
    r"policy_(?:gradient_)?loss|pg_loss|pi_loss|loss_pi|value_loss|vf_loss|critic_loss|cri_loss|actor_loss|"
    r"act_loss|approx_kl|ppo|ploss|vloss|explained_var_old|explained_var_new)(?:[/_.]|$)"
)


def rl_key(key: str) -> bool:
    """``key`` is one only a reinforcement-learning run logs (``_RL_KEY``)."""
    return _RL_KEY.search(_key(key)) is not None  # ("MeanReward": the Mario tutorial's MetricLogger)


def loss_role(key: str) -> str | None:
    """What a loss-like key is, for the objective rule and the per-term checks:
    ``"actor"``, ``"model"`` (another model's loss), ``"term"`` (a term of the objective),
    or None (not a training loss term: the total, a validation loss, an average, a scale ...)."""
    k = normalise(key)
    if "/" in k and k.split("/", 1)[0] in CONTAINER_SCOPES:
        return loss_role(_unwrapped(k))
    if k.startswith(STAGE_SCOPE):
        return loss_role("train/" + k[len(STAGE_SCOPE) :])
    if _MEAN_OF.search(k):
        return loss_role(_MEAN_OF.sub(r"\1", k, count=1))
    if k in ACTOR_KEYS:
        return "actor"
    if k.startswith("delta"):
        return None  # a loss's change over an update (Spinning Up's "DeltaLossPi", "DeltaLossV"), no term of it
    if _YOLO10_TERM.match(k):
        return "term"
    if k in ALIASES or k in STEP_KEYS or _scoped(k) or _split_named(k):
        return None
    if not _TERM.search(k):
        k = _key(key)
        if k in ALIASES or not (_TERM.search(k) or _NAMED_LOSS.search(k)):
            return None
    if _NOT_TERM.search(_QUALIFIER.sub(r"\1q_\2", _LOSS_FN.sub("_loss", k))):
        return None  # ("smooth_l1" is a loss's name, not a smoothed one; "eps_loss" a loss, not an epsilon)
    if _RATIO.search(k):
        return None  # a ratio with the loss (gn_over_loss, loss_per_token): derived, no term
    if "/" in k and ALIASES.get(k.rsplit("/", 1)[1]) in ("loss", "val_loss"):
        return None  # a statistic of the loss ("MovingWindowQuotient/train_loss", "ema/loss")
    words = [w for w in _SEP.split(k) if w not in _FILLER]
    if words[:1] == ["l"]:
        words = words[1:]  # (BasicSR's l_ prefix)
    if not words:
        return None  # a bare "loss" / "train/loss" not in ALIASES: a total
    if any(w in MODEL_WORDS for w in words):
        return "model"
    return "term"


# -- a GAN's two models -------------------------------------------------------------------------
# A GAN log prints the generator's and the discriminator's losses (CycleGAN ``D_A: .. G_A: ..
# cycle_A: .. idt_A: ..``, pix2pix ``G_GAN G_L1 D_real D_fake``, DCGAN ``Loss_D Loss_G``, BasicSR
# ``l_g_pix l_g_gan l_d_real``, a custom ``loss_G``). The rule: the objective is the generator's
# loss - its total when one is logged (``G``, ``loss_G``, ``g_loss``, ``errG``), else the sum of
# the generator's terms (``G_*`` keys, the record's other loss terms, and CycleGAN's ``cycle_*`` /
# ``idt_*`` terms, which its generator adds); the discriminator's keys are another model's
# losses (checked apart, never summed). A record is a GAN's when it has a generator key and a
# discriminator key, or a generator key that says "loss" (``loss_G``).
_GEN_WORDS = frozenset({"g", "gen", "generator", "netg"})
_DISC_WORDS = frozenset({"d", "dis", "disc", "discriminator", "netd"})
_GAN_FILLER = frozenset({"loss", "losses", "l", "err", "train", "training", "total", ""})
_GAN_SEP = re.compile(r"[/_.()]")
_GEN_TERMS = ("cycle", "idt", "identity")


def _gan_side(key: str) -> tuple[str, bool, bool] | None:
    """("g" / "d", is the side's total, says loss) for a GAN key, else None."""
    k = _key(key)
    low = k.replace("_", "")
    if low in ("errg", "errd"):
        return low[-1], True, True
    words = [w for w in _GAN_SEP.split(k) if w]
    rest = [w for w in words if w not in _GAN_FILLER]
    if not rest or len(words) > 5 or _NOT_TERM.search(k):
        return None  # (g_norm, d_lr, g_step: not a loss)
    side = "g" if rest[0] in _GEN_WORDS else "d" if rest[0] in _DISC_WORDS else None
    if side is None:
        return None
    lossy = len(rest) < len(words) and any(w in ("loss", "losses", "l", "err") for w in words)
    return side, len(rest) == 1, lossy


def gan_key(key: str) -> bool:
    """``key`` is a GAN's discriminator or generator loss (``Disc Loss``, ``loss_G``, ``errD``):
    a record with one is an adversarial run's, whose generator loss rises as its
    discriminator learns."""
    g = _gan_side(key)
    return g is not None and g[2]


#: key sets an ``ObjectiveKind`` remembers having looked at (bounded; ours)
KIND_KEYSETS = 256


class ObjectiveKind:
    """Whether a run's records name a reinforcement-learning objective (``rl_key``) or a GAN's
    (``gan_key``): objectives that may rise while the run learns. Each distinct key set is
    looked at once (at most KIND_KEYSETS remembered); the first kind found stays."""

    __slots__ = ("kind", "_seen")

    def __init__(self) -> None:
        self.kind: str | None = None  # "rl", "gan" or None
        self._seen: set[tuple] = set()

    def see(self, keys) -> str | None:
        if self.kind is not None:
            return self.kind
        ks = tuple(keys)
        if ks in self._seen:
            return None
        if len(self._seen) < KIND_KEYSETS:
            self._seen.add(ks)
        if any(rl_key(k) for k in ks):
            self.kind = "rl"
        elif any(gan_key(k) for k in ks):
            self.kind = "gan"
        return self.kind


def _model_total(key: str) -> bool:
    words = [w for w in _SEP.split(normalise(key)) if w not in _FILLER and w not in ("total", "neg")]
    return len(words) == 1 and words[0] in _MODEL_TOTAL


def key_roles(keys) -> dict[str, str]:
    """The loss roles of a record's extra keys (``loss_role`` per key), a GAN's recognised on the
    record: its generator's keys get ``"gen"`` (the total) or ``"gen_term"``, its discriminator's
    ``"model"``."""
    roles = {}
    sides = {}
    for k in keys:
        if total_key(k):
            roles[k] = "total"
            continue
        r = loss_role(k)
        if r is not None:
            roles[k] = "total" if r == "term" and _model_total(k) else r
        g = _gan_side(k)
        if g is not None:
            sides[k] = g
    gen = [k for k, g in sides.items() if g[0] == "g"]
    if not gen or not (any(g[0] == "d" for g in sides.values()) or any(sides[k][2] for k in gen)):
        return roles
    total = next((k for k in gen if sides[k][1]), None)
    for k, g in sides.items():
        roles[k] = "model" if g[0] == "d" else "gen" if k == total else "gen_term"
    if total is None:
        for k in keys:
            if k in sides:
                continue
            if roles.get(k) == "term" or (k not in roles and _key(k).split("_")[0] in _GEN_TERMS):
                roles[k] = "gen_term"
    return roles


def objective(roles: dict[str, str]) -> tuple[str, tuple[str, ...]] | None:
    """The objective of a record without a total loss, from its loss keys' roles (in the
    log's order): ``("actor", (key,))``, ``("sum", keys)`` (one term: ``("only", (key,))``),
    or None (no actor and no term: a GAN's two losses, a critic alone). A total named
    ``total`` (TOTAL_KEYS) comes first: ``("total", (key,))``."""
    total = [k for k, r in roles.items() if r == "total"]
    if total:
        return "total", (total[0],)
    actor = [k for k, r in roles.items() if r == "actor"]
    if actor:
        return "actor", (actor[0],)
    gen = [k for k, r in roles.items() if r == "gen"]
    if gen:
        return "gen", (gen[0],)
    gen = [k for k, r in roles.items() if r == "gen_term"]
    if gen:
        return "gen_sum", tuple(gen)
    terms = tuple(k for k, r in roles.items() if r == "term")
    if len(terms) > 1:
        return "sum", terms
    if terms:
        return "only", terms
    return None


#: a bare split word as the name of the training loss: a hand-written loop's "epoch 206 | train 1.1158 |
#: val 1.3227 | lr 3.91e-06", "Epoch 3: train 0.53, val 0.61", "epoch=1 train=2.33 val=2.43" (fresh43's
#: mass-flow emulator read nothing). A count is no loss ("train: 50000" samples, a bar's "train: 62%"): an
#: integer value is not read (``objective_value``), as the symbol "L" of a length
PHASE_OBJECTIVE = r"^(?:train|training|trn)$"
_PHASE_OBJECTIVE = re.compile(PHASE_OBJECTIVE)


def phase_word(key: str) -> bool:
    """``key`` is a bare training split word (PHASE_OBJECTIVE)."""
    return _PHASE_OBJECTIVE.match(_key(key)) is not None


def phase_val(objective: str, extra: dict) -> float | None:
    """Beside a bare training split word as the objective (PHASE_OBJECTIVE), the bare evaluation split
    word's value ("| train 1.1158 | val 1.3227 |"): the validation loss; else None."""
    if not phase_word(objective):
        return None
    for k, v in extra.items():
        if _key(k) in EVAL_SCOPES and not counted_name("train", v):
            return v
    return None


def counted_name(key: str, x: float) -> bool:
    """``x`` under ``key`` is a count, not the named objective's value: the symbol "L" at an integer
    from 8 on (a length), a bare split word at any integer ("train: 50000" samples, a bar's "train:
    0%|...": fresh46's diffusion capture read 110 losses of 0)."""
    if not x.is_integer():
        return False
    return (key == SYMBOL_KEY and x >= 8) or phase_word(key)


#: names a training objective goes by when no key says "loss" (a file that logs no loss, total or
#: term, anywhere), in order of preference: a cost (TF1-era tutorials' "Epoch: 0001 cost= 2.30",
#: "train_cost"; not a time's: "batch_cost", "reader_cost"), bits per dimension (PixelCNN, Glow),
#: a training error metric (a regression's or a least-squares fit's "RMSE: 0.57": mean squared
#: error, its root, mean absolute error), the loss's symbol "L" (a rate-distortion codec's "L=0.35
#: D=0.34 R=0.45 bpp"; an integer from 8 on there is a length, no loss: ``objective_value``), a
#: cross-entropy's short name ("step 10 ce 2.29 acc 0.41", "nll 2.28 kl 0.12"), a bare training split
#: word (PHASE_OBJECTIVE), an energy (a predictive-coding or energy-based model's objective: fresh60's PC
#: transformer prints "Batch 10/5258 | Batch Energy: 1.77 | Perplexity: 2e5" and nothing named loss; a
#: quantity's error is no energy: "energy_mae", "e_rmse" are error metrics of their own), and last a
#: perplexity (read as its log: ``SourceReader.objective_value``).
#: A validation / test one is none of them (a split word is no prefix here).
#: (ours, issue 26: fresh4's Fortran fit and compression logs were "nothing readable")
_PREFIX = r"^(?:(?:train|training|tr|avg|average|mean|total)[/_.])?"
PERPLEXITY = "a perplexity, read as its log, the cross-entropy"
_NAMED_OBJECTIVES = (
    (re.compile(_PREFIX + r"cost$"), "a cost"),
    (re.compile(_PREFIX + r"(?:bpd|bits_per_dim)$"), "bits per dimension"),
    (re.compile(_PREFIX + r"mse$"), "a training error metric"),
    (re.compile(_PREFIX + r"rmse$"), "a training error metric"),
    (re.compile(_PREFIX + r"mae$"), "a training error metric"),
    (re.compile(_PREFIX + r"(?:ce|nll|bce)$"), "a cross-entropy"),
    (re.compile(r"^(?:(?:train|training|tr|batch|avg|average|mean|total)[/_.])?(?:free_)?energy$"), "an energy"),
    (_PHASE_OBJECTIVE, "the training split's number"),
    # last: a training perplexity, the exp of the per-token cross-entropy: its log is that loss (fresh69's
    # NMTGMinor prints "Epoch 1, 100/1056; ; ppl: 2.1e151 ; lr: 1.0" and no loss: nothing was read)
    (re.compile(_PREFIX + r"(?:ppl|perplexity)$"), PERPLEXITY),
)
SYMBOL_KEY = "L"


def named_objective(keys) -> tuple[str, tuple[str, ...]] | None:
    """``("named", (key,))`` of the preferred name among ``keys`` a training objective goes by
    when no key says loss (``_NAMED_OBJECTIVES``), or None."""
    for k in keys:
        if epoch_train_loss(k):  # (a training loss per epoch, the file's only loss)
            return "named", (k,)
    normal = [(k, _key(k)) for k in keys]
    for rx, _ in _NAMED_OBJECTIVES:
        for k, n in normal:
            if rx.match(n):
                return "named", (k,)
    return ("named", (SYMBOL_KEY,)) if SYMBOL_KEY in keys else None


#: a validation perplexity: the exp of the validation cross-entropy, read as its log where a file logs no
#: validation loss (OpenNMT-py's "Validation perplexity: 74.75", Sockeye's "Validation-ppl=149.86": fresh81,
#: their over-fitting check SKIP "no evaluation / validation loss logged")
_VAL_PPL = re.compile(r"^(?:validation|valid|val|eval|evaluation|dev)[/_.](?:ppl|perplexity)$")


def val_perplexity(key: str) -> bool:
    """``key`` names a validation perplexity (_VAL_PPL)."""
    return _VAL_PPL.match(normalise(key)) is not None


def perplexity_named(key: str) -> bool:
    """``key`` names a training perplexity, an objective read as its log (_NAMED_OBJECTIVES)."""
    return _named_what(key) == PERPLEXITY


def _named_what(key: str) -> str:
    if epoch_train_loss(key):
        return "a training loss per epoch"
    n = _key(key)
    return next((what for rx, what in _NAMED_OBJECTIVES if rx.match(n)), "the loss's symbol")


def describe_objective(how: str, keys: tuple[str, ...], others: list[str]) -> str:
    """The objective rule's choice as the report says it."""
    also = f"; also checked: {', '.join(others[:6])}{' ...' if len(others) > 6 else ''}" if others else ""
    if how == "actor":
        return f"{keys[0]} (the actor's loss: no total logged){also}"
    if how == "sum":
        return f"sum of {' + '.join(keys)} (no total logged){also}"
    if how == "gen":
        return f"{keys[0]} (a GAN's generator loss: no total logged; the discriminator's checked apart){also}"
    if how == "gen_sum":
        return (
            f"sum of {' + '.join(keys)} (a GAN's generator terms: no total logged; the discriminator's "
            f"checked apart){also}"
        )
    if how == "only":
        return f"{keys[0]} (the only training loss logged){also}"
    if how == "named":
        return f"{keys[0]} ({_named_what(keys[0])}: no loss logged){also}"
    return f"{keys[0]} (the logged total){also}"

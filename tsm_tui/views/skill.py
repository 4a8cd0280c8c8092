"""``tsm-watch --print skill``: a SKILL.md that teaches a coding agent to use tsm-watch.

Agent Skills (the open SKILL.md format read by Claude Code, Codex, Copilot and others)
are a folder with a SKILL.md: YAML front matter (``name``, matching the folder's
name, and a ``description`` that says when to use it), then instructions. This one
tells an agent how to run the report, read its JSON, follow a live run, check a
config before a long run and go through the runs of a directory, what the exit
codes mean, and that the tool (and the agent on its behalf) only reads.

Everything an agent is told here is checked by tests/project/test_skill.py: every command in
a fenced block runs (with RUN, DIR, NAME and CONFIG filled in) and every JSON field
listed under "Reading the JSON" is in the output of the command its section names.
The check ids come from the detector registry, the exit codes from core/errors.py.
"""

from __future__ import annotations

import json

from tsm_tui.analysis.detectors import DETECTORS
from tsm_tui.core.errors import EXIT_CRITICAL, EXIT_OK, EXIT_USAGE

NAME = "training-stability-monitor"
DESCRIPTION = (
    "Check an ML training run for instabilities by reading its logs with tsm-watch (read-only): loss spikes "
    "and divergence, exploding or vanishing gradients, NaN/Inf, a bad LR schedule or missing warm-up, loss "
    "plateaus, fp16 loss-scale collapse, collapsed or repetitive model outputs, missing checkpoints; and a "
    "pre-flight check of a training config before a long run. Use when asked whether a training run is OK, "
    "why its loss spiked or diverged, what to do about it, or before launching a long run."
)

_BODY = """\
# Training stability monitor

`tsm-watch` reads the logs a training job already writes (Hugging Face Trainer, Lightning,
TensorBoard event files, MLflow, W&B console logs, Megatron / DeepSpeed, llm.c, nanoGPT, OLMo,
torchtitan, JSON Lines, CSV, plain console logs) and says, with numbers, whether the run is stable
and what to do about it. It is read-only: it never modifies the run, its files or its code. Work
the same way: run it, read its JSON, report the findings and the actions it proposes, and leave the
training code, configs and checkpoints alone unless the user asks you to change them.

If `tsm-watch` is not on PATH, tell the user: it installs with pip from the tsm-tui repository.

## Commands

RUN is a log file or a run directory, DIR a directory that holds several runs (a sweep,
`lightning_logs/`, `wandb/`, `mlruns/`), NAME one run of DIR (its path relative to DIR), CONFIG a
config file or the directory holding the run's configs. Prefer `--json`: one JSON object, no colour.

Is the run OK? The Training Stability Report as JSON:

```
tsm-watch RUN --report --json
```

The same report as text, for the user:

```
tsm-watch RUN --report
```

Every run under a directory, failing runs first, then one of them:

```
tsm-watch DIR --report --json
tsm-watch DIR --report --json --run NAME
```

Tell it what the logs do not say (planned steps, model size, tokens per step), so the LR and
batch-size checks can judge; these values win over the run's files:

```
tsm-watch RUN --report --json --total-steps 1500 --params 125M --batch-tokens 0.5M
```

A run that is still training: follow it and read alerts as JSON Lines as they happen. It runs until
stopped, so always bound it with `timeout` (exit code 124 then means "stopped by timeout", not an
error); it first prints what the history already holds:

```
timeout 120 tsm-watch RUN --follow --json
```

Before a long run: check its config (warm-up, peak LR against model size, batch size, clipping,
precision, logging, checkpoints, optimizer):

```
tsm-watch --preflight CONFIG --json
```

For CI logs: GitHub Actions annotations, or SARIF 2.1.0 for code scanning:

```
tsm-watch RUN --report --format github
tsm-watch RUN --report --format sarif
```

## Exit codes

- `{ok}`: no critical issue (no check FAILed).
- `{critical}`: critical issues found (a check FAILed). Not an error: read the JSON.
- `{usage}`: usage or input error (no such path, nothing readable); one line on stderr says why.

## Reading the JSON

### `tsm-watch RUN --report --json`

- `checks`: one entry per check, the core checks first.
- `checks[].id`: the check: {checks}.
- `checks[].status`: `"PASS"`, `"WARN"`, `"FAIL"`, or `"SKIP"` (could not judge: the reason is in
  `checks[].summary`).
- `checks[].summary`: one line with the numbers behind the status.
- `critical`: how many checks FAILed.
- `warnings`: how many checks WARNed.
- `actions`: what to do, most urgent first (each names steps, values and checkpoints).
- `alerts`: findings at a step, in log order.
- `alerts[].check`: the check that raised it.
- `alerts[].severity`: `"critical"`, `"warning"` or `"info"`.
- `alerts[].step`: the step as the log numbers it.
- `alerts[].message`: what happened, with the value against its baseline.
- `alerts[].actions`: what to do about this alert.
- `steps.last`: the last step logged.
- `steps.count`: the steps with a training loss.
- `files[].path`: every log file found.
- `files[].used`: true for the log the checks read.
- `files[].skipped_lines`: lines that could not be read.
- `run.checkpoints`: the checkpoints found on disk (rollback points).
- `sources`: which metric was read from which file and key.
- `sources.loss.file`: the file the training loss came from.
- `sources.loss.key`: its name in that file (JSON key, CSV column, TensorBoard tag, console label).
- `coverage.ran`: the checks that judged the run.
- `coverage.skipped`: the checks that could not judge it.
- `coverage.skipped[].reason`: why.
- `coverage.unread`: the metrics the log does not have.
- `coverage.nothing_judged`: true when no check could judge the training; then `critical` 0 does NOT
  mean the run is healthy: say so.

Values may be numbers, `null`, or the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.

### `tsm-watch DIR --report --json`

- `kind`: `"runs"` when the path holds several runs (one run: the object above).
- `runs`: one report object per run (the fields above).
- `runs[].run`: the run's path relative to DIR (give it to `--run`).
- `runs[].critical`: that run's FAILed checks.
- `critical`: the sum over all runs.

### `timeout 120 tsm-watch RUN --follow --json`

One JSON object per line.

- `event`: `"alert"`, `"status"` (a check changed status) or `"source"` (a note about the files).
- `check`: the check of an alert or a status change.
- `severity`: of an alert.
- `step`: of an alert or a status change.
- `message`: of an alert or a note.
- `actions`: of an alert.
- `status`: the new status of a check.
- `previous`: its status before.

### `tsm-watch --preflight CONFIG --json`

- `checks[].status`: `"PASS"`, `"WARN"`, `"FAIL"` or `"SKIP"`.
- `checks[].summary`: the finding, with numbers.
- `checks[].actions`: what to change in the config.
- `checks[].reference`: the published source of the rule.
- `config`: the values read (steps, warm-up, peak LR, batch, precision ...).
- `sources`: the file and key each value came from.
- `critical`: the checks that FAILed.

## How to answer

1. Lead with the verdict: FAIL checks first, with the step and the numbers from `checks[].summary`.
2. Give `actions` in order; they already name the checkpoint to roll back to, the LR to use and
   the steps to skip. Do not invent other fixes.
3. Say what could not be judged (`coverage.skipped`, `coverage.unread`), and pass the missing facts
   back with `--total-steps`, `--params`, `--batch-tokens` or `--config` if the user knows them.
4. A spike that recovered is normal (WARN); one that did not, or NaN/Inf, is FAIL.
"""


def text() -> str:
    """The SKILL.md."""
    checks = ", ".join(f'`"{d.id}"`' for d in DETECTORS) + ', `"ranks"` (several per-rank logs)'
    body = _BODY.format(ok=EXIT_OK, critical=EXIT_CRITICAL, usage=EXIT_USAGE, checks=checks)
    # (a JSON string is a YAML double-quoted scalar: the description's colons stay text)
    return f"---\nname: {NAME}\ndescription: {json.dumps(DESCRIPTION)}\n---\n\n{body}"

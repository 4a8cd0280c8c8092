"""Hostile configs (issue 32): every class the red-team pass found, in every mode.

A run directory is untrusted and so is every config in it. Each case is a config
that hung the tool, ate gigabytes or raised an internal error before (recursive
YAML aliases, deep TOML tables, integers no float holds, Megatron argument lists
that substitute or tokenise quadratically ...). In every mode it must end within
seconds, under 300 MB, with a one-line message (``--preflight`` on the file alone:
exit 2) or a note that names the file and what was ignored, and the run's logs
are still judged:

* ``--preflight FILE``, ``--preflight DIR`` (the file alone, and beside a good
  config), ``--config FILE`` with a run, the file inside a run dir given to
  ``--report``: in-process through ``cli.main`` (fast; time per case);
* the heaviest case of each class once more in a subprocess, its peak RSS read
  with ``os.wait4`` (the child's own, not the test process's);
* ``--follow`` for a few seconds, and the TUI through Textual's pilot, on run
  directories holding one case of each class in the config names the monitor reads.

``CASES`` is also what ``bench/config_bounds.py`` times (bench/RESULTS.md).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import pytest

from test_hostile import _laughs  # the "billion laughs" of issue 20
from tsm_tui import cli
from helpers.wait import pilot_until, poll_until

#: seconds a case may take in-process (issue 32: "ends within 5 s"), in CPU time: on the
#: shared 2-core machine the tests run on, the wall clock also counts the neighbours'
#: work (a 100,000-node YAML: 0.9 s of CPU, 3.5 s of wall time at a load of 7)
BOUND = 5.0
#: peak RSS of a whole ``tsm-watch`` process on a case (issue 32: "under 300 MB")
RSS_MB = 300
#: a subprocess adds an interpreter start (numpy, textual) on a shared, loaded machine:
#: generous, it only separates the classes (the cycles never ended, the rest took > 30 s)
SUBPROCESS_BOUND = 30.0

GOOD_LOG = "".join(f'{{"step": {i}, "loss": {4.0 - i * 0.001:.4f}, "lr": 0.0003}}\n' for i in range(1, 200))
GOOD_CONFIG = "learning_rate: 3.0e-4\nmax_steps: 1000\nwarmup_steps: 50\nglobal_batch_size: 8\nseq_length: 1024\n"
BIG = "1" + "0" * 400


@dataclass
class Case:
    id: str
    name: str  # the file's name: one the monitor reads in a run dir (CONFIG_NAMES), or a launch script
    text: str
    #: "refused": the whole file (one line names it and why); "ignored": a key (a note names it)
    outcome: str
    #: in the one-line message / the note
    says: str
    #: what pre-flight says when it differs (a value derived in the plan)
    plan_says: str | None = None
    #: the monitor reads it in a run dir (CONFIG_NAMES; launch scripts only by --config / pre-flight)
    in_run_dir: bool = True
    #: also in a subprocess with its peak RSS measured (the heaviest of each class)
    heavy: bool = False


CASES = [
    # 1. recursive YAML aliases (hung > 30 s and took 2.2 GB in every mode)
    Case("alias-cycle-map", "hparams.yaml", "a: &a {b: *a}\n", "refused", "recursive alias at line 1", heavy=True),
    Case("alias-cycle-seq", "config.yaml", "&a [*a]\n", "refused", "recursive alias at line 1"),
    Case("alias-cycle-key", "config.yaml", "&a {*a : 1}\n", "refused", "recursive alias at line 1"),
    Case(
        "alias-cycle-block",
        "hparams.yaml",
        GOOD_CONFIG + "model: &m\n  n_layer: 12\n  self: *m\n",
        "refused",
        "recursive alias at line 8",
    ),
    Case(
        "alias-cycle-merge",
        "config.yaml",
        GOOD_CONFIG + "base: &b\n  <<: *b\n  lr: 1\n",
        "refused",
        "recursive alias at line 7",
    ),
    Case("alias-bomb", "hparams.yaml", _laughs(), "refused", "alias bomb", heavy=True),
    Case(
        "yaml-flat-4mib",
        "hparams.yaml",
        "a: [" + "1," * 2_000_000 + "1]\n",
        "refused",
        "more than 100000 nodes",
        heavy=True,
    ),
    Case("yaml-two-documents", "config.yaml", GOOD_CONFIG + "---\n" + GOOD_CONFIG, "refused", "second YAML document"),
    # 2. deep TOML (RecursionError in every mode)
    Case(
        "toml-deep-table",
        "config.toml",
        "[" + ".".join(f"k{i}" for i in range(1000)) + "]\nx = 1\n",
        "refused",
        "more than 200 dotted parts at line 1",
    ),
    Case(
        "toml-dotted-5000",
        "config.toml",
        ".".join(f"k{i}" for i in range(5000)) + " = 1\n",
        "refused",
        "more than 200 dotted parts at line 1",
        heavy=True,
    ),
    Case(
        "toml-deep-inline",
        "config.toml",
        "a = " + "[" * 2000 + "]" * 2000 + "\n",
        "refused",
        "nested more than 200 levels deep",
    ),
    Case("json-deep", "config.json", "[" * 100_000 + "]" * 100_000, "refused", "nested more than 200 levels deep"),
    # 3. numbers no setting can hold (OverflowError / "cannot convert float infinity to integer")
    Case(
        "yaml-int-400-digits",
        "hparams.yaml",
        f"max_steps: {BIG}\nlearning_rate: 3.0e-4\n",
        "ignored",
        "max_steps = a 401-digit integer ignored",
    ),
    Case(
        "yaml-int-400-digits-negative",
        "hparams.yaml",
        f"max_steps: -{BIG}\nlearning_rate: 3.0e-4\n",
        "ignored",
        "max_steps = a 401-digit negative integer ignored",
    ),
    Case(
        "json-int-400-digits",
        "config.json",
        f'{{"max_steps": {BIG}, "learning_rate": 3e-4}}',
        "ignored",
        "max_steps = a 401-digit integer ignored",
    ),
    Case(
        "toml-int-400-digits",
        "config.toml",
        f"max_steps = {BIG}\nlearning_rate = 3e-4\n",
        "ignored",
        "max_steps = a 401-digit integer ignored",
    ),
    Case(
        "json-int-5000-digits",
        "config.json",
        f'{{"max_steps": {"9" * 5000}, "learning_rate": 3e-4}}',
        "ignored",
        "max_steps = inf ignored",
    ),
    Case(
        "yaml-int-5000-digits",
        "config.yaml",
        f"max_steps: {'9' * 5000}\nlearning_rate: 3.0e-4\n",
        "ignored",
        "max_steps = inf ignored",
    ),
    Case(
        "yaml-inf-nan-counts",
        "hparams.yaml",
        "max_steps: .inf\nwarmup_steps: .nan\nglobal_batch_size: .inf\nlearning_rate: 3.0e-4\n",
        "ignored",
        "max_steps = inf ignored",
    ),
    Case(
        "yaml-sexagesimal-4mib",
        "hparams.yaml",
        "max_steps: " + "1:" * 1_900_000 + "1\n",
        "ignored",
        "max_steps = inf ignored",
        heavy=True,
    ),
    Case(
        "negative-count",
        "config.yaml",
        GOOD_CONFIG.replace("global_batch_size: 8", "global_batch_size: -8"),
        "ignored",
        "global_batch_size = -8 ignored: a negative count",
    ),
    Case(
        "tokens-over-a-denormal",
        "config.yaml",
        "learning_rate: 3.0e-4\nbatch_tokens: 1.0e-320\ntotal_tokens: 1.0e18\nwarmup_tokens: 1.0e17\n",
        "ignored",
        "",
        plan_says="batch tokens = inf ignored: not a usable number",
    ),
    # 4. Megatron argument lists (hang, MemoryError, quadratic tokenising)
    Case(
        "args-20k-refs",
        "launch.sh",
        "A=" + "x" * 1000 + "\ntorchrun p.py --num-layers 2 --tokenizer " + "$A" * 20_000 + "\n",
        "refused",
        "expand to more than 4 MiB",
        in_run_dir=False,
    ),
    Case(
        "args-200k-refs",
        "launch.sh",
        "A=" + "x" * 1000 + "\ntorchrun p.py --num-layers 2 --tokenizer " + "$A" * 200_000 + "\n",
        "refused",
        "expand to more than 4 MiB",
        in_run_dir=False,
        heavy=True,
    ),
    Case(
        "args-4mib-token",
        "launch.sh",
        "torchrun p.py --num-layers 2 --lr 3e-4 --tok " + "a" * ((4 << 20) - 100) + "\n",
        "ignored",
        "",
        in_run_dir=False,
        heavy=True,
    ),
    Case(
        "args-1mib-quoted-token",
        "launch.sh",
        "torchrun p.py --num-layers 2 --lr 3e-4 --tok '" + "a b" * (1 << 18) + "'\n",
        "ignored",
        "",
        in_run_dir=False,
    ),
    Case(
        "args-1m-words",
        "launch.sh",
        "torchrun p.py --lr 3e-4 " + "--a 1 " * 600_000 + "\n",
        "refused",
        "more than 200000 words",
        in_run_dir=False,
    ),
    # 5. size
    Case("yaml-5mib", "config.yaml", "a: '" + "x" * (5 << 20) + "'\n", "refused", "more than the 4 MiB"),
    Case("toml-escapes-2mib", "config.toml", 's = "' + "\\n" * (1 << 20) + '"\n', "refused", "TOML of more than 1 MiB"),
]


def _write(tmp, case: Case, name: str | None = None) -> str:
    p = os.path.join(tmp, name or case.name)
    with open(p, "w", encoding="utf-8") as f:
        f.write(case.text)
    return p


def _run(argv, capsys) -> tuple[int, str, str, float]:
    """(rc, stdout, stderr, CPU seconds) of ``tsm-watch ARGV`` in this process."""
    t = time.process_time()
    rc = cli.main([str(a) for a in argv])
    dt = time.process_time() - t
    out = capsys.readouterr()
    return rc, out.out, out.err, dt


def _run_dir(tmp_path, *files: tuple[str, str]) -> str:
    d = tmp_path / "run"
    d.mkdir()
    (d / "metrics.jsonl").write_text(GOOD_LOG)
    for name, text in files:
        (d / name).write_text(text, encoding="utf-8")
    return str(d)


def _judged(report: dict) -> None:
    """The run's logs were read and every check is there."""
    ids = {c["id"] for c in report["checks"]}
    assert {"loss_spike", "lr_schedule", "nonfinite", "grad_norm"} <= ids, ids
    assert report["steps"]["count"] == 199


def _says(case: Case, texts) -> str:
    """The one note that names the case's file and says what it should."""
    hits = [t for t in texts if case.says in t and case.name in t]
    assert hits, (case.says, texts)
    return hits[0]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_preflight_file(case, tmp_path, capsys):
    p = _write(tmp_path, case)
    rc, out, err, dt = _run(["--preflight", p, "--json"], capsys)
    assert dt < BOUND, dt
    assert "Traceback" not in err and "internal error" not in err, err
    if case.outcome == "refused":
        assert rc == 2 and out == "", (rc, err)
        assert err.count("\n") == 1 and case.says in err and case.name in err, err  # one line names it
    else:
        assert rc in (0, 1), err
        plan = json.loads(out)
        want = case.plan_says or case.says
        if want:
            assert any(want in n for n in plan["notes"]), plan["notes"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_preflight_dir(case, tmp_path, capsys):
    alone = tmp_path / "alone"
    alone.mkdir()
    _write(str(alone), case)
    rc, out, err, dt = _run(["--preflight", alone, "--json"], capsys)
    assert dt < BOUND, dt
    assert "Traceback" not in err and "internal error" not in err, err
    if case.outcome == "refused":
        assert rc == 2 and err.count("\n") == 1 and case.says in err, err
    else:
        assert rc in (0, 1), err
    # beside a good config: named once, the plan made from the rest
    both = tmp_path / "both"
    both.mkdir()
    _write(str(both), case)
    (both / "train.yaml").write_text(GOOD_CONFIG)
    rc, out, err, dt = _run(["--preflight", both, "--json"], capsys)
    assert dt < BOUND, dt
    assert rc in (0, 1), err
    plan = json.loads(out)
    assert plan["config"]["peak_lr"] == 3e-4 and plan["config"]["total_steps"] == 1000
    want = case.plan_says or case.says
    if case.outcome == "refused":
        note = _says(case, plan["notes"])
        assert note.endswith(": ignored") and plan["notes"].count(note) == 1
    elif want and case.plan_says is None:
        assert any(want in n for n in plan["notes"]), plan["notes"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_config_flag(case, tmp_path, capsys):
    d = _run_dir(tmp_path)
    p = _write(str(tmp_path), case)
    rc, out, err, dt = _run([d, "--report", "--json", "--config", p], capsys)
    assert dt < BOUND, dt
    assert rc in (0, 1) and "Traceback" not in err, err
    rep = json.loads(out)
    _judged(rep)
    notes = rep["run"].get("config_notes", [])
    if case.says:
        note = _says(case, notes)
        assert notes.count(note) == 1
    if case.outcome == "refused":
        assert p not in rep["run"]["config_files"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_in_a_run_dir(case, tmp_path, capsys):
    d = _run_dir(tmp_path, (case.name, case.text))
    rc, out, err, dt = _run([d, "--report", "--json"], capsys)
    assert dt < BOUND, dt
    assert rc in (0, 1) and "Traceback" not in err, err
    rep = json.loads(out)
    _judged(rep)
    notes = rep["run"].get("config_notes", [])
    if case.in_run_dir and case.says:
        assert notes.count(_says(case, notes)) == 1
    # the text report names it once too, and still judges the run
    rc, out, err, dt = _run([d, "--report"], capsys)
    assert rc in (0, 1) and out.startswith("=== Training Stability Report ===") and "199 records" in out, out
    if case.in_run_dir and case.says:
        assert sum(1 for ln in out.splitlines() if ln.startswith("  note: ") and case.says in ln) == 1, out


# -- the heaviest of each class in a subprocess: wall time and the child's own peak RSS ----------

#: runs ``python -m tsm_tui`` and, at its exit, writes its own peak RSS (VmHWM, kB) and
#: CPU seconds to $TSM_HWM_FILE: a parent's wait4() ru_maxrss would include the RSS of
#: the process it was forked from (Linux keeps the pre-exec high-water mark), here pytest's
_HWM_MAIN = """import atexit, os, runpy
def _hwm():
    with open("/proc/self/status") as f:
        kb = next(ln.split()[1] for ln in f if ln.startswith("VmHWM"))
    t = os.times()
    with open(os.environ["TSM_HWM_FILE"], "w") as f:
        f.write(f"{kb} {t.user + t.system}")
atexit.register(_hwm)
runpy.run_module("tsm_tui", run_name="__main__", alter_sys=True)
"""


def measured(
    args: list[str], timeout: float = SUBPROCESS_BOUND, tree: str | None = None
) -> tuple[int | None, str, str, float, float, float | None]:
    """(rc, stdout, stderr, seconds, peak RSS in MB, CPU seconds) of ``python -m tsm_tui
    ARGS`` (``tree``: another source tree first on the path); rc None: killed at
    ``timeout`` (its peak then is the last VmHWM read while it ran, its CPU unknown)."""
    import tempfile

    env = dict(os.environ, NO_COLOR="1")
    if tree:
        env["PYTHONPATH"] = tree
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as hwm:
        env["TSM_HWM_FILE"] = hwm.name
        t = time.perf_counter()
        p = subprocess.Popen(
            [sys.executable, "-c", _HWM_MAIN, *map(str, args)], stdout=out, stderr=err, env=env, cwd=tree or None
        )
        polled = 0
        while p.poll() is None:
            try:
                with open(f"/proc/{p.pid}/status") as f:
                    polled = max(polled, int(next(ln.split()[1] for ln in f if ln.startswith("VmHWM"))))
            except (OSError, StopIteration, ValueError):
                pass
            if time.perf_counter() - t > timeout:
                p.kill()
                p.wait()
                break
            time.sleep(0.02)
        dt = time.perf_counter() - t
        killed = p.returncode is not None and p.returncode < 0 and dt > timeout
        reported = hwm.read().split()
        kb = max(polled, int(reported[0]) if reported else 0)
        cpu = float(reported[1]) if len(reported) > 1 else None
        out.seek(0)
        err.seek(0)
        return (
            (None if killed else p.returncode),
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            dt,
            kb / 1024,
            cpu,
        )


HEAVY = [c for c in CASES if c.heavy]


@pytest.mark.slow
@pytest.mark.parametrize("case", HEAVY, ids=lambda c: c.id)
def test_heavy_cases_in_a_process_of_their_own(case, tmp_path):
    p = _write(str(tmp_path), case)
    rc, out, err, dt, mb, _cpu = measured(["--preflight", p])
    assert dt < SUBPROCESS_BOUND and mb < RSS_MB, (dt, mb)
    assert "Traceback" not in err, err
    if case.outcome == "refused":
        assert rc == 2 and err.count("\n") == 1 and case.says in err, err
    else:
        assert rc in (0, 1), err
    if case.in_run_dir:
        d = _run_dir(tmp_path, (case.name, case.text))
        rc, out, err, dt, mb, _cpu = measured([d, "--report", "--json"])
        assert dt < SUBPROCESS_BOUND and mb < RSS_MB, (dt, mb)
        assert rc in (0, 1), err
        _judged(json.loads(out))


# -- live: --follow and the TUI on run dirs holding one case of each class -----------------------


def _live_dirs(top) -> list[tuple[str, list[Case]]]:
    """Run dirs under ``top`` whose config names hold one case each (a name holds one file)."""
    groups: list[list[Case]] = []
    for case in (c for c in CASES if c.in_run_dir and c.says):
        for g in groups:
            if all(o.name != case.name for o in g):
                g.append(case)
                break
        else:
            groups.append([case])
    out = []
    for i, g in enumerate(groups):
        d = top / f"run{i}"
        d.mkdir(parents=True)
        (d / "metrics.jsonl").write_text(GOOD_LOG)
        for c in g:
            (d / c.name).write_text(c.text, encoding="utf-8")
        out.append((d.name, g))
    return out


@pytest.mark.slow
def test_follow_names_each_config_once_and_judges_the_runs(tmp_path):
    """Every case a run dir can hold, one run per group, all followed by one process."""
    top = tmp_path / "runs"
    runs = _live_dirs(top)
    assert sum(len(g) for _, g in runs) >= 15
    out = tmp_path / "follow.out"
    t = time.perf_counter()
    with open(out, "w") as sink:
        p = subprocess.Popen(
            [sys.executable, "-m", "tsm_tui", str(top), "--follow", "--json"],
            stdout=sink,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:

            def done() -> bool:
                buf = out.read_text()
                judged = {json.loads(ln).get("run") for ln in buf.splitlines() if '"check": "nonfinite"' in ln}
                return len(judged) == len(runs) and all(c.says in buf for _, g in runs for c in g)

            poll_until(done, SUBPROCESS_BOUND, every=0.1)
        finally:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                raise
    assert time.perf_counter() - t < SUBPROCESS_BOUND
    events = [json.loads(ln) for ln in out.read_text().splitlines() if ln.startswith("{")]
    for run, group in runs:
        said = [e["message"] for e in events if e.get("event") == "source" and e.get("run") == run]
        for c in group:
            assert sum(1 for m in said if c.says in m and c.name in m) == 1, (run, c.id, said)  # named once
        checks = {e["check"] for e in events if e.get("event") == "status" and e.get("run") == run}
        assert {"loss_spike", "lr_schedule", "nonfinite"} <= checks, (run, checks)  # and judged
    assert "Traceback" not in p.stderr.read()


#: one case of each class a run dir can hold, each in its own config name
TUI_CASES = ["alias-cycle-map", "toml-dotted-5000", "json-int-400-digits", "negative-count"]


@pytest.mark.parametrize("mode", ["live", "finished"])
def test_the_tui_names_each_config_and_judges_the_run(tmp_path, mode):
    import asyncio

    from tsm_tui.core.options import Options
    from tsm_tui.views.tui import TsmApp

    group = [c for c in CASES if c.id in TUI_CASES]
    assert len({c.name for c in group}) == len(group) == len(TUI_CASES)
    d = _run_dir(tmp_path, *((c.name, c.text) for c in group))

    async def body():
        app = TsmApp.finished(d) if mode == "finished" else TsmApp.from_options(Options(path=d, bell=False))
        async with app.run_test(size=(120, 36), notifications=True) as pilot:

            def done() -> bool:
                notes = [n.message for n in app._notifications]
                mon = app.session.monitor
                return all(any(c.says in n for n in notes) for c in group) and mon is not None and mon.loss_steps == 199

            await pilot_until(pilot, done, SUBPROCESS_BOUND, every=0.1, fail=False)
            notes = [n.message for n in app._notifications]
            for c in group:
                assert sum(1 for n in notes if c.says in n and c.name in n) == 1, (c.id, notes)
            ids = {c.id for c in app.session.monitor.checks()}
            assert {"loss_spike", "lr_schedule", "nonfinite"} <= ids, ids
            assert app.session.monitor.loss_steps == 199

    asyncio.run(body())

"""What to do about a crash, by its cause, with the run's own numbers.

Each function returns sentences for one cause, checked against the run's
configuration (RunInfo): a run that already checkpoints its activations is not
told to. The text the crash line names (the rank, the worker, the allocation,
the scheduler's reason) comes from ``TextEvent.details``.
"""

from __future__ import annotations

from tsm_tui.analysis.advice import bf16, checkpoint_before
from tsm_tui.analysis.state import RunState
from tsm_tui.core.numbers import fmt
from tsm_tui.core.record import TextEvent


def resume(state: RunState, step: int | None) -> str | None:
    """Where to start again from: the newest checkpoint at or before the crash."""
    if step is None:
        return None
    ck = checkpoint_before(state, step + 1)
    if ck is not None:
        return f"Resume from {ck[1]} (step {ck[0]}), the last checkpoint before the crash at step {step}."
    if state.info.checkpoints:
        return (
            f"No checkpoint was saved before the crash at step {step}: the earliest one is "
            f"{state.info.checkpoints[0][1]}."
        )
    return None


def actions(ev: TextEvent, state: RunState, step: int | None, ranks_hint: str | None = None) -> list[str]:
    """The actions for a crash whose headline line is ``ev``."""
    d = ev.details or {}
    info = state.info
    out: list[str] = []
    c = ev.cause
    if c == "oom":
        bs = f" (the config says {info.batch_size})" if info.batch_size else ""
        out.append(
            f"Lower the per-device batch size{bs} and raise gradient accumulation to keep the same tokens per step."
        )
        if info.seq_len:
            out.append(f"Or shorten the sequence length (now {info.seq_len}).")
        else:
            out.append("Or shorten the sequence length (long samples set the peak).")
        if info.grad_checkpointing:
            out.append(
                "Activation checkpointing is already on: shard the optimizer state and gradients "
                "(ZeRO-2/3, FSDP) or offload them."
            )
        else:
            out.append(
                "Turn on activation checkpointing (HF gradient_checkpointing=True, Megatron "
                "--recompute-activations): memory for compute."
            )
        if "reserved" in ev.text and ("expandable_segments" in ev.text or "max_split_size_mb" in ev.text):
            out.append(
                "If reserved memory is far above allocated, set "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (fragmentation)."
            )
    elif c == "host_oom":
        out.append(
            "Host memory ran out (the OOM killer sends SIGKILL): lower DataLoader num_workers / "
            "prefetch_factor, stream the dataset instead of loading it whole, or ask the scheduler "
            "for more memory (Slurm --mem)."
        )
    elif c == "nccl":
        who = f"Rank {d['rank']}" if "rank" in d else "A rank"
        op = f" in {d['op']}" if "op" in d else ""
        t = f" after {fmt(int(d['timeout_ms']) / 1000)} s" if d.get("timeout_ms", "").isdigit() else ""
        out.append(
            f"{who} waited{op}{t} for a rank that never arrived: the culprit is the rank that stopped "
            "first (its log ends earlier, or it crashed: read its last lines)."
        )
        out.append(
            "Re-run with NCCL_DEBUG=INFO (and TORCH_DISTRIBUTED_DEBUG=DETAIL) to see which collective "
            "and which peer hung."
        )
        out.append(
            ranks_hint
            or "Look for a straggler: one rank's step time above the others' (the ranks check "
            "compares them when every rank's log is read)."
        )
    elif c == "cuda":
        t = ev.text.lower()
        if "ecc" in t or "xid" in t:
            out.append("An uncorrectable ECC error is a hardware fault: drain that node and resume elsewhere.")
        elif "device-side assert" in t:
            out.append(
                "A device-side assert is usually an index out of range (a label >= the number of "
                "classes / vocabulary size): re-run with CUDA_LAUNCH_BLOCKING=1 to find the kernel."
            )
        else:
            out.append(
                "Re-run with CUDA_LAUNCH_BLOCKING=1 to find the failing kernel (CUDA errors are "
                "reported asynchronously, the traceback may point elsewhere)."
            )
    elif c == "dataloader":
        who = (
            f"worker {d['worker']}" if "worker" in d else (f"the worker (pid {d['pid']})" if "pid" in d else "a worker")
        )
        sig = d.get("signal")
        out.append(
            f"The DataLoader's {who} died{' (' + sig + ')' if sig else ''}: re-run with num_workers=0 to "
            "get the real traceback and the sample it was loading (log the index in __getitem__)."
        )
        if sig in ("Killed", "SIGKILL") or "killed" in ev.text:
            out.append("Killed: host memory: fewer workers, a smaller prefetch_factor.")
        if "bus error" in ev.text.lower() or sig in ("Bus error", "SIGBUS"):
            out.append(
                "A bus error in a worker is shared memory running out: raise /dev/shm "
                "(docker --shm-size) or use fewer workers."
            )
    elif c == "fp16":
        out.append(bf16())
        out.append(
            "Or lower the peak LR and clip gradients: the loss scale fell to its floor because every step overflowed."
        )
    elif c == "disk":
        out.append(
            "A write failed (disk full or over quota): free space where checkpoints are written, "
            "delete partial checkpoint files, then resume."
        )
    elif c == "signal":
        out.append(
            "A native crash (segfault / abort): check the CUDA / NCCL / PyTorch versions against each "
            "other; faulthandler (python -X faulthandler) names the Python frame."
        )
    elif c == "hang":
        out.append(
            "The process dumped its stacks (a hang watchdog): if every rank waits in a collective, the "
            "rank that is not there is the culprit: compare the ranks' last lines and stacks."
        )
        out.append("Re-run with NCCL_DEBUG=INFO and TORCH_NCCL_TRACE_BUFFER_SIZE set to record the collectives.")
    elif c == "scheduler":
        why = (d.get("reason") or "").upper()
        if "TIME" in why or "RUNLIMIT" in why or "WALLTIME" in ev.text.upper():
            out.append(
                "The job hit its time limit: ask for more time, or save more often and requeue "
                "(Slurm --signal=USR1@120 lets the run checkpoint before the kill)."
            )
        elif "NODE" in why:
            out.append("A node failed: resume on other nodes (exclude the failed one).")
        elif "PREEMPT" in why:
            out.append("The job was preempted: requeue it (Slurm --requeue) and resume.")
        elif "MEM" in why:
            out.append("The scheduler's memory limit was reached: ask for more memory or lower num_workers.")
        else:
            out.append("The scheduler ended the job: see its reason above, then resume.")
    elif c == "interrupt":
        out.append("Stopped on purpose (Ctrl-C, an owner's kill): resume if that was not intended.")
    elif c == "launcher" and "got signal: 1" in ev.text:
        out.append(
            "torchrun got SIGHUP: the terminal it ran in closed. Run it under nohup, tmux or the "
            "scheduler, not an interactive shell."
        )
    elif c == "exit":
        out.append(
            "The tracker recorded a non-zero exit code: the error is in the run's console "
            "(W&B files/output.log or the job's stderr)."
        )
    else:
        name = ev.exception or "the error"
        out.append(f"Fix the cause of {name} (the line above and the traceback before it), then resume.")
    r = resume(state, step)
    if r is not None and c != "interrupt":
        out.append(r)
    return out

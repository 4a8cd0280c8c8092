"""The lines that say how a run ended (or nearly did): data, not code.

One row per kind of line: its id, its cause (the crash check's advice is per
cause), who prints it, the regular expression that finds it in a line (the
line's ANSI codes and rank / task / actor prefixes removed first), where it
counts, its level and where the text comes from (an issue thread or a log that
shows it verbatim, or a repository file that prints it; ``corpus:`` names a
labelled real log in ``bench/corpus/``).

``where``:

- ``"anywhere"``: the line says it by itself (an OOM message, the NCCL
  watchdog, Slurm's ``CANCELLED``); not inside a banner, a printed config or
  an argument dump (``sources/text_events.py`` decides that);
- ``"exception"``: only as the exception line that ends a Python traceback
  (``RuntimeError: ...`` printed alone is often a logged, handled error).

``level``: ``"fatal"`` (the process ends), ``"stopped"`` (ended on purpose: a
user's Ctrl-C, ``scancel``, the owner's kill) or ``"warning"`` (the run can go
on). A fatal line the run then survives is judged by the check (WARN).

Every regex is linear in the line's length (README "Reliability"): no two
adjacent pieces match the same characters unless the first is possessive, and
each starts with a literal, so ``search`` tries it only where that literal is.
``tests/integration/test_hostile.py`` runs every row on the hostile shapes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class CrashPattern:
    id: str
    cause: str
    framework: str
    regex: str
    source: str
    where: str = "anywhere"
    level: str = "fatal"
    #: what the line is, for a person ("CUDA out of memory")
    what: str = ""
    rx: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rx", re.compile(self.regex))


# causes (the crash check's actions are per cause):
# oom (accelerator memory), host_oom (RAM, the kernel's or the scheduler's OOM killer),
# nccl (collectives: timeouts, aborted communicators, store timeouts), cuda (device
# errors), dataloader (a worker died), fp16 (loss scale at its floor), disk (a write
# failed), signal (killed by a signal: segfault, abort, SIGKILL ...), scheduler (Slurm,
# LSF, PBS ended the job: time limit, node failure, preemption), launcher (torchrun,
# DeepSpeed, mp.spawn, accelerate report a child's failure), exit (a tracker recorded
# a non-zero exit code), interrupt (stopped on purpose), exception (anything else)
PATTERNS: tuple[CrashPattern, ...] = (
    # ---- accelerator memory ------------------------------------------------------------
    CrashPattern(
        "cuda_oom",
        "oom",
        "PyTorch (CUDA / ROCm caching allocator)",
        r"(?:CUDA|HIP) out of memory\b",
        "corpus:console/oumi_trl_sft_oom_step0 train.err:134; corpus:console/d2_devit_fewshot_triton_warnings; "
        "https://github.com/pytorch/pytorch/issues/138002 (HIP)",
        what="GPU out of memory",
    ),
    CrashPattern(
        "cuda_oom_runtime",
        "oom",
        "PyTorch (CUDA runtime errors, older releases)",
        r"CUDA error: ?out of memory\b|cuda runtime error \(2\) : out of memory",
        "https://github.com/facebookresearch/SlowFast/issues/702; https://github.com/bluer555/CR-GAN/issues/8; "
        "https://github.com/MVIG-SJTU/AlphaPose/issues/151",
        what="GPU out of memory",
    ),
    CrashPattern(
        "tf_oom",
        "oom",
        "TensorFlow",
        r"\bOOM when allocating tensor",
        "https://github.com/tensorflow/tensorflow/issues/17669",
        what="GPU out of memory",
    ),
    CrashPattern(
        "xla_oom",
        "oom",
        "JAX / XLA",
        r"RESOURCE_EXHAUSTED: (?:Out of memory|Failed to allocate)",
        "https://github.com/jax-ml/jax/issues/13428; https://github.com/google-deepmind/alphafold/issues/1023",
        what="accelerator out of memory",
    ),
    CrashPattern(
        "paddle_oom",
        "oom",
        "PaddlePaddle",
        r"Out of memory error on GPU \d",
        "corpus:console/paddle_knover_multiline_launches workerlog.0:30180",
        what="GPU out of memory",
    ),
    # ---- host memory -----------------------------------------------------------------
    CrashPattern(
        "cpu_alloc",
        "host_oom",
        "PyTorch (CPU allocator)",
        r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory)",
        "https://github.com/pytorch/pytorch/pull/20618; https://github.com/JingyunLiang/VRT/issues/49",
        what="host memory exhausted",
    ),
    CrashPattern(
        "memory_error",
        "host_oom",
        "Python",
        r"^(?:builtins\.)?MemoryError\b",
        "https://docs.python.org/3/library/exceptions.html#MemoryError",
        where="exception",
        what="host memory exhausted",
    ),
    CrashPattern(
        "slurm_oom_kill",
        "host_oom",
        "Slurm (cgroup OOM killer)",
        r"Detected \d++ oom[-_]kill event",
        "https://github.com/nextflow-io/nextflow/issues/5932; https://github.com/ArjunaCluster/ArjunaUsers/issues/52",
        what="killed by the OOM killer",
    ),
    CrashPattern(
        "srun_oom",
        "host_oom",
        "Slurm srun",
        r"srun: error: [\w.-]++: tasks? [\d,-]++: Out Of Memory",
        "https://github.com/hafs-community/HAFS/issues/101",
        what="killed by the OOM killer",
    ),
    CrashPattern(
        "lsf_memlimit",
        "host_oom",
        "LSF",
        r"^TERM_MEMLIMIT: job killed",
        "https://github.com/wheaton5/souporcell/issues/20",
        what="killed at the LSF memory limit",
    ),
    CrashPattern(
        "shell_killed",
        "host_oom",
        "bash (the job's shell; SIGKILL, usually the OOM killer)",
        r"^Killed$|line \d++: +\d++ Killed\b",
        "https://github.com/ArjunaCluster/ArjunaUsers/issues/52 ('Killed', 'line 28:  8156 Killed python3 ...')",
        what="killed (SIGKILL)",
    ),
    # ---- collectives -----------------------------------------------------------------
    CrashPattern(
        "nccl_watchdog",
        "nccl",
        "PyTorch ProcessGroupNCCL",
        r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=\d++, OpType=\w++",
        "https://github.com/NVIDIA/Megatron-LM/issues/1207; https://github.com/hiyouga/LlamaFactory/issues/7396",
        what="NCCL collective timed out",
    ),
    CrashPattern(
        "nccl_aborted",
        "nccl",
        "PyTorch ProcessGroupNCCL",
        r"NCCL communicator was aborted on rank \d",
        "https://github.com/zai-org/GLM-130B/issues/132",
        what="NCCL communicator aborted",
    ),
    CrashPattern(
        "nccl_down",
        "nccl",
        "PyTorch ProcessGroupNCCL",
        r"Some NCCL operations have failed or timed out",
        "https://github.com/sgl-project/sglang/issues/1693",
        what="NCCL operations failed or timed out",
    ),
    CrashPattern(
        "nccl_error",
        "nccl",
        "PyTorch c10d / NCCL",
        r"NCCL error in: [^,\n]++, [a-z]",
        "https://github.com/vllm-project/vllm/issues/10523; https://github.com/pytorch/pytorch/issues/111187",
        what="NCCL error",
    ),
    CrashPattern(
        "store_timeout",
        "nccl",
        "PyTorch c10d store / elastic rendezvous",
        r"DistStoreError: Socket Timeout|RendezvousTimeoutError|got error: Socket Timeout",
        "https://github.com/hiyouga/LlamaFactory/issues/6154; https://github.com/bytedance/HLLM/issues/20",
        what="distributed store timed out",
    ),
    # ---- device errors ---------------------------------------------------------------
    CrashPattern(
        "cuda_error",
        "cuda",
        "PyTorch (CUDA)",
        r"CUDA error: (?!out of memory)[A-Za-z]|cuda runtime error \(\d++\)|CUBLAS_STATUS_[A-Z]",
        "https://github.com/VITA-Group/TEGNAS/issues/19 (illegal memory access); "
        "https://github.com/yl4579/PL-BERT/issues/28 (device-side assert); "
        "https://github.com/tloen/alpaca-lora/issues/123 (ECC); https://github.com/clovaai/bros/issues/14 (cuBLAS)",
        what="CUDA error",
    ),
    # ---- data loading ----------------------------------------------------------------
    CrashPattern(
        "dataloader_died",
        "dataloader",
        "PyTorch DataLoader",
        r"DataLoader worker \(pid(?:\(s\))? \d",
        "https://github.com/pytorch/pytorch/issues/8976; corpus:console/custom_tse_resumes_dataloader_crash",
        what="a DataLoader worker died",
    ),
    CrashPattern(
        "dataloader_raised",
        "dataloader",
        "PyTorch DataLoader",
        r"Caught \w++ in DataLoader worker process \d",
        "corpus:console/d2_mask2former_crashes_then_run ('Caught ValueError in DataLoader worker process 0')",
        what="a DataLoader worker raised",
    ),
    CrashPattern(
        "dataloader_signal",
        "dataloader",
        "PyTorch DataLoader",
        r"Unexpected (?:bus error|segmentation fault) encountered in worker",
        "https://github.com/DengpanFu/LUPerson/issues/20; corpus:console/custom_tse_resumes_dataloader_crash",
        what="a DataLoader worker crashed",
    ),
    # ---- mixed precision -------------------------------------------------------------
    CrashPattern(
        "loss_scale_floor",
        "fp16",
        "DeepSpeed / fairseq",
        r"Current loss scale already at minimum|Minimum loss scale reached",
        "https://github.com/ymcui/Chinese-LLaMA-Alpaca/issues/534; https://github.com/facebookresearch/fairseq/issues/1529",
        what="fp16 loss scale at its minimum",
    ),
    # ---- disk ------------------------------------------------------------------------
    CrashPattern(
        "write_failed",
        "disk",
        "PyTorch serialization / OS",
        r"PytorchStreamWriter failed writing file|No space left on device|Disk quota exceeded",
        "corpus:console/hf_ds_bitdistiller_ckpt_write_crash llama-3.txt ('PytorchStreamWriter failed writing file data/3')",
        what="a checkpoint or log write failed",
    ),
    # ---- signals / aborts ------------------------------------------------------------
    CrashPattern(
        "fatal_python",
        "signal",
        "Python faulthandler",
        r"Fatal Python error: (?:Segmentation fault|Aborted|Bus error|Floating point exception|Illegal instruction)",
        "https://github.com/wusaifei/garbage_classify/issues/17; https://github.com/threestudio-project/threestudio/issues/369",
        what="the process crashed",
    ),
    CrashPattern(
        "shell_signal",
        "signal",
        "bash (the job's shell)",
        r"line \d++: +\d++ (?:Segmentation fault|Bus error|Aborted|Illegal instruction|Floating point exception)"
        r"|^(?:Segmentation fault|Bus error|Aborted|Illegal instruction|Floating point exception)"
        r"(?: \(core dumped\))?$",
        "corpus:console/custom_tse_resumes_dataloader_crash train.log:5783 ('line 3: 146734 Segmentation fault "
        "(core dumped) python train.py')",
        what="the process crashed",
    ),
    CrashPattern(
        "glibc_abort",
        "signal",
        "glibc",
        r"^(?:free\(\): invalid (?:pointer|size)|double free or corruption|malloc\(\): (?:memory corruption|corrupted)"
        r"|munmap_chunk\(\): invalid pointer|corrupted size vs\. prev_size)",
        "corpus:console/custom_tse_resumes_dataloader_crash train.log:5610 ('free(): invalid pointer'); "
        "https://github.com/THU-DA-6D-Pose-Group/GDR-Net/issues/16 ('malloc(): memory corruption')",
        what="memory corruption (abort)",
    ),
    CrashPattern(
        "cxx_terminate",
        "signal",
        "C++ runtime (libtorch)",
        r"terminate called after throwing an instance of '",
        "https://github.com/alibaba/Megatron-LLaMA/issues/14",
        what="the process aborted",
    ),
    # ---- schedulers ------------------------------------------------------------------
    CrashPattern(
        "slurm_cancelled",
        "scheduler",
        "Slurm slurmstepd",
        r"\*\*\* (?:JOB|STEP) [\w.]++ (?:ON [\w.-]++ )?CANCELLED AT \S++ DUE TO [A-Z]",
        "https://github.com/ZettaAI/zetta_utils/issues/671 (TIME LIMIT); "
        "https://github.com/SystemsGenetics/GEMmaker/pull/242 (PREEMPTION); https://github.com/marbl/canu/issues/1067",
        what="Slurm cancelled the job",
    ),
    CrashPattern(
        "slurm_scancel",
        "scheduler",
        "Slurm slurmstepd",
        r"\*\*\* (?:JOB|STEP) [\w.]++ (?:ON [\w.-]++ )?CANCELLED AT \S++ \*\*\*",
        "https://github.com/hafs-community/HAFS/issues/101 ('*** STEP 3495064.0 ON orion-01-01 CANCELLED AT ... ***')",
        level="stopped",
        what="the job was cancelled",
    ),
    CrashPattern(
        "srun_task",
        "scheduler",
        "Slurm srun",
        r"srun: error: [\w.-]++: tasks? [\d,-]++: (?:Exited with exit code [1-9]|Killed|Terminated"
        r"|Segmentation fault|Bus error|Aborted)",
        "https://github.com/desihub/desitarget/issues/628; https://github.com/hafs-community/HAFS/issues/101",
        what="a Slurm task failed",
    ),
    CrashPattern(
        "lsf_term",
        "scheduler",
        "LSF",
        r"^TERM_(?:RUNLIMIT|CPULIMIT|THREADLIMIT|SWAP|PROCESSLIMIT|REQUEUE_ADMIN|ADMIN|UNKNOWN|EXTERNAL_SIGNAL"
        r"|RMS|ZOMBIE|PREEMPT|CHKPNT|WINDOW|FORCE_ADMIN|RC_RECLAIM)\w*+: job killed",
        "https://github.com/cdanielmachado/carveme/issues/34 (TERM_THREADLIMIT)",
        what="LSF ended the job",
    ),
    CrashPattern(
        "sigterm_received",
        "scheduler",
        "PyTorch Lightning (its signal connector)",
        r"Received SIGTERM: \d++",
        "https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/pytorch/trainer/connectors/"
        "signal_connector.py (_sigterm_notifier_fn); corpus:fresh123/lightning_tqdm_fc_mlp_late_jump (glued to the "
        "last bar redraw)",
        level="stopped",
        what="the process received SIGTERM (a scheduler's time limit or preemption, or a kill)",
    ),
    CrashPattern(
        "lsf_owner",
        "scheduler",
        "LSF",
        r"^TERM_(?:OWNER|FORCE_OWNER): job killed",
        "corpus:console/lsf_painn_huge_flat_loss_killed dynamoFix_0.md:1533 ('TERM_OWNER: job killed by owner.')",
        level="stopped",
        what="the job's owner killed it",
    ),
    CrashPattern(
        "lsf_exit",
        "scheduler",
        "LSF job summary",
        r"^Exited with exit code [1-9]",
        "corpus:console/lsf_painn_huge_flat_loss_killed dynamoFix_0.md:1534; https://github.com/wheaton5/souporcell/issues/20",
        what="the job exited with an error",
    ),
    CrashPattern(
        "pbs_walltime",
        "scheduler",
        "PBS / Torque",
        r"PBS: job killed: (?:walltime|mem|vmem|cput) \d",
        "https://github.com/marbl/canu/issues/1214 ('=>> PBS: job killed: walltime 86415 exceeded limit 86400')",
        what="PBS killed the job at a limit",
    ),
    # ---- launchers -------------------------------------------------------------------
    CrashPattern(
        "elastic_failed",
        "launcher",
        "torchrun (torch.distributed.elastic)",
        r"failed \(exitcode: -?\d++\) local_rank: \d",
        "https://github.com/pytorch/pytorch/issues/123808; https://github.com/NVIDIA/Megatron-LM/issues/1880; "
        "corpus:console/llamafactory_torchrun_elastic_crash train.out:7318",
        what="a torchrun worker failed",
    ),
    CrashPattern(
        "child_failed",
        "launcher",
        "torchrun (torch.distributed.elastic)",
        r"ChildFailedError\b",
        "corpus:console/llamafactory_torchrun_elastic_crash train.out:7335",
        where="exception",
        what="a torchrun worker failed",
    ),
    CrashPattern(
        "elastic_signal",
        "launcher",
        "torchrun (torch.distributed.elastic)",
        r"SignalException: Process \d++ got signal: \d",
        "https://github.com/zai-org/ChatGLM2-6B/issues/238 (signal 1: the terminal closed); "
        "https://github.com/NVIDIA/nvidia-resiliency-ext/issues/18 (signal 15)",
        where="exception",
        what="torchrun got a signal",
    ),
    CrashPattern(
        "spawn_exited",
        "launcher",
        "torch.multiprocessing.spawn",
        r"process \d++ terminated with (?:signal SIG[A-Z]|exit code -?\d)",
        "https://github.com/lyu-yx/ACUMEN/issues/4; https://github.com/jishengpeng/ControlSpeech/issues/4",
        where="exception",
        what="a spawned worker died",
    ),
    CrashPattern(
        "deepspeed_launcher",
        "launcher",
        "DeepSpeed launcher",
        r"exits with return code = -?[1-9]",
        "https://github.com/deepspeedai/DeepSpeed/issues/3232; https://github.com/deepspeedai/DeepSpeed/issues/5302",
        what="a DeepSpeed worker failed",
    ),
    CrashPattern(
        "subprocess_failed",
        "launcher",
        "accelerate / subprocess",
        r"returned non-zero exit status -?\d",
        "https://github.com/kohya-ss/sd-scripts/issues/1354",
        where="exception",
        what="a launched process failed",
    ),
    # ---- hangs -------------------------------------------------------------------------
    CrashPattern(
        "faulthandler_dump",
        "hang",
        "Python faulthandler (dump_traceback_later, a hang watchdog)",
        r"^Stack \(most recent call first\):|^Timeout \(\d++:\d\d:\d\d\)!",
        "corpus:console/megatron_torchrun_ranks_collective_hang 3/stderr.log:15; "
        "https://docs.python.org/3/library/faulthandler.html#dumping-the-tracebacks-after-a-timeout",
        what="the process dumped its stacks (a hang)",
    ),
    # ---- stopped on purpose ------------------------------------------------------------
    CrashPattern(
        "keyboard_interrupt",
        "interrupt",
        "Python",
        r"^KeyboardInterrupt\b",
        "corpus:console/yolo11_stdout_keyboardinterrupt yolo_train.log:311",
        where="exception",
        level="stopped",
        what="stopped with Ctrl-C (KeyboardInterrupt)",
    ),
)

#: what a tracker's recorded exit code says, besides 0 (a normal end) and non-zero (a crash)
EXIT_CODES = {
    ("W&B", 255): (
        "interrupt",
        "stopped",
        "stopped with Ctrl-C (W&B records 255 for a KeyboardInterrupt)",
        "wandb/wandb@wandb/sdk/lib/exit_hooks.py (exc_handler: was_ctrl_c -> exit_code = 255)",
    ),
}

#: line prefixes that are not the line: a rank or task tag (torchrun ``[rank3]:``,
#: ``[default0]:``, srun ``--label`` ``3: ``, mpirun ``[1,3]<stderr>:``), a Ray actor
#: ``(TaskRunner pid=625502)``, an agent's ``stderr:`` (all possessive: linear)
PREFIX = re.compile(
    r"(?:\[rank\d++\]: ?|\[default\d++\]: ?|\[\d++,\d++\]<std(?:out|err)>: ?|\d{1,5}+: "
    r"|\((?:\w++ )?pid=\d++(?:, ip=[\d.]++)?\) ?|std(?:out|err): )*+"
)
#: what an exception line is: a dotted name ending like an exception class, then ``:``
#: and its message, or nothing (``KeyboardInterrupt``); the name's ending is checked in code
EXC_LINE = re.compile(r"([A-Za-z_][\w.]*+)(?:\([\w.]*+\))?(?::(?: .*+)?)?$")
EXC_ENDINGS = ("Error", "Exception", "Interrupt", "Exit", "Failure", "Fault", "Timeout", "Failed")

#: the words of a traceback: its header (Python, C++ / Paddle's, torch's ``Original
#: Traceback`` of a worker), the link lines between chained exceptions, its frames
TB_HEADER = re.compile(r"Traceback \(most recent call last\)|Error Message Summary:")
TB_CHAIN = ("During handling of the above exception", "The above exception was the direct cause")
#: a Python logger's WARNING level before the header: the traceback is a warning
#: (torch._dynamo ``[WARNING] Traceback``, ``WARNING:root:Traceback``)
TB_WARNING = re.compile(r"\bW(?:ARN(?:ING)?|arning)\b")

#: the cheap gate: lines that contain none of these words are not looked at further
#: (uppercase-initial words: the regex engine scans for their first letters in C)
GATE = re.compile(
    r"Error|ERROR|Exception|Traceback|Killed|Interrupt|Exit|CANCELLED|CUDA|HIP|OOM|RESOURCE_EXHAUSTED"
    r"|NCCL|Watchdog|Some NCCL|DataLoader|Caught|Unexpected|Current loss|Minimum loss|PytorchStream"
    r"|No space|Disk quota|Fatal|Segmentation|Bus error|Aborted|Illegal|Floating|TERM_|PBS:|Out of memory"
    r"|Out Of Memory|Detected|DefaultCPU|SignalException|ChildFailed|KeyboardInterrupt|MemoryError|Stack \("
    r"|Timeout \(|Received SIGTERM"
)
GATE_LOWER = (
    "srun: error",
    "slurmstepd",
    "(): ",
    "double free",
    "corrupted size",
    "terminate called",
    "exitcode",
    "return code",
    "exit status",
    "terminated with",
    "exit code",
    "oom",
)

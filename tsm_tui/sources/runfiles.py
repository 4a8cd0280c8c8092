"""The files of a run that are not logs: its configs and its checkpoints.

``RunFiles`` reads them for the report (once) and for the live loop (again
whenever the file system says they changed, and on a slow stat check anyway).
Checkpoints are found by name only, and only those that are the run's: in its
checkpoint directory and the directories that organise its files
(``sources.runs.owns_checkpoint``), never below another run's root; configs
through the one loader in ``sources.config``.
"""

from __future__ import annotations

import os

from tsm_tui.core.errors import InputError
from tsm_tui.core.settings import RunInfo
from tsm_tui.sources.checkpoints import checkpoint_step, find_checkpoints
from tsm_tui.sources.config import CONFIG_NAMES, ConfigError, apply_mapping, read_config_file, read_run_config
from tsm_tui.sources.runs import owns_checkpoint


def apply_config_file(info: RunInfo, config: str) -> tuple[bool, list[str]]:
    """``--config FILE`` into ``info``: (whether it was applied, what was ignored,
    one sentence each).
    A file that cannot be opened or holds no configuration is an input error; a
    config refused by its parser or a bound (a recursive alias, 100,000
    nodes ...) is said and left out: the run is judged without it."""
    try:
        m, _kind = read_config_file(config, named=True)
    except ConfigError as e:
        if e.unreadable:
            raise InputError(f"cannot read config {config}: {e.reason.removeprefix('cannot read: ')}") from None
        return False, [f"{e.reason}: ignored"]
    if not m:
        raise InputError(f"cannot read config {config}: not a JSON / YAML / TOML mapping")
    return True, apply_mapping(info, m, os.path.basename(config))


#: notes kept per run (ours: a config rewritten again and again with new bad values
#: must not grow memory; real runs have none)
MAX_NOTES = 100


def _copy_flags(flags: RunInfo) -> RunInfo:
    info = RunInfo()
    for name, origin in flags.origin.items():
        info.set(name, getattr(flags, name), origin, override=True)
    return info


class RunFiles:
    """Configs and checkpoints of one run rooted at ``root``.

    ``flags`` holds what the command line said (it wins over every file);
    ``config`` is ``--config FILE``; ``ckpt_dir``: where its checkpoints are
    (default ``root``; None: the run has no directory of its own, as a log among
    other runs' logs).
    """

    def __init__(
        self,
        root: str,
        flags: RunInfo | None = None,
        config: str | None = None,
        searched_dir: bool = True,
        exclude=(),
        ckpt_dir: str | None = "",
        also=(),
    ) -> None:
        self.root = os.path.abspath(root)
        #: more directories of the run (sibling loggers of one job): their checkpoints are its too
        self.also = tuple(os.path.abspath(a) for a in also)
        self.ckpt_dir = self.root if ckpt_dir == "" else (os.path.abspath(ckpt_dir) if ckpt_dir else None)
        #: roots of other runs below this one: their checkpoints are not ours
        self.exclude = tuple(os.path.abspath(e) for e in exclude)
        self.flags = _copy_flags(flags or RunInfo())  # a snapshot: what the command line said
        self.config = config
        self.searched_dir = searched_dir
        self._configs: dict = {}  # config files as loaded (read_run_config's cache)
        #: what was ignored in the configs ("config.yaml: recursive alias at line 1 ...:
        #: ignored"), each said once, in order; ``take_notes`` hands the new ones on
        self.notes: list[str] = []
        self._said = 0

    # -- configuration ---------------------------------------------------------
    def _dirs(self, primary: str | None) -> list[str]:
        dirs = [self.root]
        if primary:
            d = os.path.dirname(primary.rstrip(os.sep))
            if d != self.root and d.startswith(self.root + os.sep):
                dirs.append(d)  # Lightning's version_N/hparams.yaml, an MLflow run dir
        return dirs

    def read_info(self, primary: str | None = None, strict: bool = True) -> tuple[RunInfo, list[str]]:
        """A RunInfo from the flags, ``--config`` and the config files beside the
        logs (flags > --config > files); and the config files used. ``strict``:
        an unreadable ``--config`` raises InputError (else it is left out). What a
        config had that was ignored goes to ``notes``."""
        info = _copy_flags(self.flags)
        used: list[str] = []
        if self.config:
            try:
                applied, said = apply_config_file(info, self.config)
                for n in said:
                    self._note(self.config, n)
                if applied:
                    used.append(self.config)
            except InputError:
                if strict:
                    raise
        found: list[tuple[str, str]] = []
        for d in self._dirs(primary):
            used += [c for c in read_run_config(info, d, self._configs, found) if c not in used]
        for p, n in found:
            self._note(p, n)
        return info, used

    def _note(self, path: str, text: str) -> None:
        if path == self.config:
            where = path
        elif path.startswith(self.root + os.sep):
            where = os.path.relpath(path, self.root)
        else:
            where = os.path.basename(path)
        msg = f"{where}: {text}"
        if msg not in self.notes and len(self.notes) < MAX_NOTES:
            self.notes.append(msg)

    def take_notes(self) -> list[str]:
        """The notes not handed on yet (the live loop says each once)."""
        new = self.notes[self._said :]
        self._said = len(self.notes)
        return new

    def config_signature(self, primary: str | None = None) -> tuple:
        """(path, size, mtime) of every config file that ``read_info`` would read."""
        out = []
        paths = [self.config] if self.config else []
        for d in self._dirs(primary):
            paths += [os.path.join(d, n) for n in CONFIG_NAMES]
        for p in paths:
            try:
                st = os.stat(p)
            except OSError:
                continue
            out.append((p, st.st_size, st.st_mtime_ns))
        return tuple(out)

    # -- checkpoints -------------------------------------------------------------
    def add_exclude(self, root: str) -> None:
        """Another run was found below this one (live): its checkpoints are not ours."""
        root = os.path.abspath(root)
        if root not in self.exclude:
            self.exclude += (root,)

    def checkpoints(self) -> list[tuple[int, str]]:
        """(step, name relative to the checkpoint directory), ascending, one per step."""
        found = self._find(self.ckpt_dir)
        if self.also and self.ckpt_dir is not None:
            base = self.ckpt_dir
            names = dict(found)
            for d in self.also:
                if not (d + os.sep).startswith(base.rstrip(os.sep) + os.sep):
                    base = os.path.commonpath([base, d])
            for d in self.also:
                for step, name in self._find(d):
                    names.setdefault(step, os.path.relpath(os.path.join(d, name), base))
            found = sorted(names.items())
        return found

    def _find(self, d: str | None) -> list[tuple[int, str]]:
        if d is None or not os.path.isdir(d):
            return []
        try:
            # only into the directories that organise the run's own files (runs.owns_checkpoint):
            # a sub-directory of another name is another run's, or a run's that left no log
            return find_checkpoints(d, exclude=self.exclude, descend=lambda x: owns_checkpoint(os.path.join(x, "x")))
        except OSError:
            return []

    # -- file-system hints ----------------------------------------------------------
    def classify(self, path: str) -> str | None:
        """What a changed path means for this run: "config", "checkpoint" or None."""
        if any(path == e or path.startswith(e.rstrip(os.sep) + os.sep) for e in self.exclude):
            return None
        if (
            self.ckpt_dir is not None
            and path.startswith(self.ckpt_dir + os.sep)
            and not owns_checkpoint(os.path.relpath(path, self.ckpt_dir))
        ):
            return None
        name = os.path.basename(path.rstrip(os.sep))
        if name in CONFIG_NAMES or (self.config and os.path.abspath(path) == os.path.abspath(self.config)):
            return "config"
        if checkpoint_step(name, True) is not None or checkpoint_step(name, False) is not None:
            return "checkpoint"
        # a file written inside a checkpoint directory (the save in progress)
        parent = os.path.basename(os.path.dirname(path.rstrip(os.sep)))
        if parent and checkpoint_step(parent, True) is not None:
            return "checkpoint"
        return None

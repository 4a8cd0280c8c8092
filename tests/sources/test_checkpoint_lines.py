"""A log's "checkpoint saved" lines (``sources/checkpoint_lines.py``): real lines from the
corpus' logs, and lines that name a plan, a load or a failure, which are no save."""

from __future__ import annotations

import pytest

from tsm_tui.sources.checkpoint_lines import save_line

SAVES = [
    # fvcore / detectron2
    (
        "[12/22 22:32:27 fvcore.common.checkpoint]: Saving checkpoint to output/vitb/neu-det_10shot/model_0000199.pth",
        ("output/vitb/neu-det_10shot/model_0000199.pth", None),
    ),
    # Megatron-DeepSpeed
    (
        "saving checkpoint at iteration     500 to /home/sd/Megatron-DeepSpeed/checkpoints/qwen7b_tp4_baseline",
        ("/home/sd/Megatron-DeepSpeed/checkpoints/qwen7b_tp4_baseline", 500),
    ),
    # HF Trainer
    ("Saving model checkpoint to out/checkpoint-500", ("out/checkpoint-500", 500)),
    # flax's checkpoints.py through absl: a step, no path
    ("I1216 14:32:56.861886 139628846601088 checkpoints.py:120] Saving checkpoint at step: 1000", ("", 1000)),
    (
        "2024-08-13 11:15:42,571 - INFO - Checkpoint saved to /Users/u/equicat/output/checkpoint_epoch_5.pt",
        ("/Users/u/equicat/output/checkpoint_epoch_5.pt", None),
    ),
    ("saved checkpoints/base.pt (epoch 0, step 256)", ("checkpoints/base.pt", 256)),
    ("[Checkpoint] saved ./checkpoints/ckpt_step0047850.pt", ("./checkpoints/ckpt_step0047850.pt", 47850)),
    ("Saved checkpoint: ./checkpoints/checkpoint_0705000.pt", ("./checkpoints/checkpoint_0705000.pt", 705000)),
    (
        "Checkpoint is saved at checkpoints/darcy-FDM/darcy-pretrain-pino.pt",
        ("checkpoints/darcy-FDM/darcy-pretrain-pino.pt", None),
    ),
    # nanoGPT: the out_dir
    ("saving checkpoint to out-shakespeare-char", ("out-shakespeare-char", None)),
    ("The validation loss improved from inf to 1845.9. Saving model to model.h5", ("model.h5", None)),
    ("Model weights saved in output/pytorch_model.bin", ("output/pytorch_model.bin", None)),
    # no path named: a save all the same
    ("Saving model...", ("", None)),
    ("2025-12-07 19:00:48.028\tnode:0\tolmo.checkpoint:796\tINFO\tSaving model state...", ("", None)),
    ("Saved to out/model_final.pth", ("out/model_final.pth", None)),
    # a path before the message (a logger's file:line): the save's own path and step
    ("/opt/job/run.py:120: Saving checkpoint to /data/ckpt/step_500.pt", ("/data/ckpt/step_500.pt", 500)),
    ("2026-03-03 11:17:47,765 INFO: Saving models and training states.", ("", None)),
    # transformers 5.25's save bar (a real HF Trainer run, stdout under the default log level):
    # one save when it completes, its "1/1" no path (it read as "all saves to one file: 1/1")
    ("Writing model shards: 100%|██████████| 1/1 [00:00<00:00, 485.23it/s]", ("", None)),
    ("Saved 3/10 shards of the model", ("", None)),
]
NOT_SAVES = [
    "Checkpoints will be saved to /root/autodl-tmp/mmpretrain/work_dirs/convnext",
    "Loading checkpoint from out/checkpoint-500",
    "Resuming from checkpoint saved at out/checkpoint-500",
    "Failed to save checkpoint to /x/y",
    "Could not save the model to /x/y: disk full",
    "Save checkpoint every 500 steps",
    "  save_steps: 500",
    "save_strategy = steps",
    "W&B: saving run files",
    "Saved 128 samples to out/samples/",
    "step 100 loss 2.3 lr 1e-4",
    # OLMo: a save into the checkpoint folder that is no checkpoint (the folder's name is no checkpoint word)
    "2025-12-07 17:30:34.645\tnode:0\ttrain:105\tINFO\tSaving config to /home/u/OLMo/checkpoints/OLMo-1B/config.yaml",
    "Global data order indices saved to '/home/u/OLMo/checkpoints/OLMo-1B/train_data/global_indices.npy'",
    "Saving images to out/samples/x.png",
    # fairseq announces a save before it makes it (then "Saving checkpoint to ..." and "Saved checkpoint ...")
    "[2022-04-08 21:30:44,735][fairseq.checkpoint_utils][INFO] - Preparing to save checkpoint for epoch 10 @ 4791 updates",
    "Model will be saved to out/final",
    "Writing model shards:   0%|          | 0/1 [00:00<?, ?it/s]",  # (the same bar at its start)
]


@pytest.mark.parametrize("line,want", SAVES, ids=[s[0][:40] for s in SAVES])
def test_save_lines(line, want):
    assert save_line(line) == want


@pytest.mark.parametrize("line", NOT_SAVES)
def test_lines_that_are_no_save(line):
    assert save_line(line) is None


def test_a_save_report_is_no_training_step(tmp_path, capsys):
    """fresh9's Hydra run printed 'Checkpoint saved -> ckpt_best.pt (epoch N, loss X)' at every
    new best (the loss at the save) among its 'epoch N | loss X' lines: they read as 66 more
    training steps, and the best-so-far losses set the spike baseline ("did not recover" FAILs).
    A record's line that saves after its metrics, and the records a save line ends (a group
    of lines before it), stay records."""
    import json

    from tsm_tui.cli import main
    from tsm_tui.sources.checkpoint_lines import reports_a_save

    assert reports_a_save("[src.transfer][INFO] - Checkpoint saved → out/ckpt_best.pt  (epoch 12, loss 2.0709e+01)")
    assert not reports_a_save("step 1000 | loss 2.31 | saved checkpoint to out/ckpt-1000.pt")
    assert not reports_a_save("INFO: Saved Best Model to checkpoints/best.pth!")
    lines = []
    for e in range(1, 31):
        lines.append(
            f"[2026-03-22 22:13:{e % 60:02d},314][__main__][INFO] - epoch {500 * e:6d} | loss {0.3 / e:.4e} | lr 1.00e-04"
        )
        if e % 3 == 0:
            lines.append(
                f"[2026-03-22 22:13:{e % 60:02d},400][src.transfer][INFO] - Checkpoint saved → out/ckpt_best.pt  "
                f"(epoch {500 * e}, loss {0.3 / e:.4e})"
            )
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    assert main([str(tmp_path), "--json"]) in (0, 1)
    d = json.loads(capsys.readouterr().out)
    assert d["steps"]["count"] == 30 and (d["steps"]["first"], d["steps"]["last"]) == (500, 15000)
    assert d["run"]["checkpoints_logged"]["count"] == 10


def test_a_models_generated_sample_is_no_save(tmp_path, capsys):
    """fresh60's build-nanogpt run prints its model's samples among the steps ("rank 1 sample 0:
    Hello, I'm a language model, and I'm writing this ... in school"): the model's words, not the
    run's. The verb and "model" of a sample read as a save named "school" at the last step; a real
    save line beside them is still one."""
    import json

    from tsm_tui.cli import main

    lines = []
    for s in range(1, 401):
        lines.append(f"step {s:5d} | loss: {4.0 - s / 400:.6f} | lr 6.0000e-04 | norm: 0.3300 | dt: 1760.61ms")
        if s % 100 == 0:
            lines.append(
                f"rank 0 sample {s // 100}: Hello, I'm a language model, and I'm writing this with the kids in school"
            )
            lines.append("sample 1: Hello, I'm a language model, and we stored the weights in school")
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    assert main([str(tmp_path), "--json"]) in (0, 1)
    d = json.loads(capsys.readouterr().out)
    assert d["steps"]["count"] == 400
    assert not (d["run"].get("checkpoints_logged") or {}).get("count")
    lines.insert(250, "saving checkpoint to log/model_00250.pt")
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    assert main([str(tmp_path), "--json"]) in (0, 1)
    d = json.loads(capsys.readouterr().out)
    assert d["run"]["checkpoints_logged"]["count"] == 1

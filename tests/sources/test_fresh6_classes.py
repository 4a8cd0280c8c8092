"""Reader classes the third held-out set (``bench/corpus/fresh6``, notes/fresh6.md section 4)
showed missing: a qualified counter (``Global Batch 5``), a ``Batch n/N`` counter leading its
line under an ``Epoch e/E`` header, and ``ep`` for an epoch with its total. The lines are the
logs' shapes (their values made up); lines that must stay unread beside them."""

from __future__ import annotations

import math

from test_formats import read, write  # noqa: E402


def test_a_qualified_counter_after_the_epoch_is_the_step(tmp_path):
    # pylogging_t5_distill (private): logging's "%(asctime)s - %(levelname)s - %(message)s"
    text = "".join(
        f"2024-11-05 23:17:05,224 - INFO - Epoch {1 + i // 20}, Global Batch {5 * (i + 1)}, "
        f"Training Loss: {33 - i * 0.1:.4f}, Validation Loss: 11.8694, Validation Accuracy: 0.0000\n"
        for i in range(40)
    )
    _, recs, _ = read(write(tmp_path, "training.log", text))
    # the counter runs on across epochs (a global one): it is the step
    assert [r.step for r in recs] == list(range(5, 201, 5))
    assert recs[0].loss == 33.0 and recs[0].val_loss == 11.8694 and recs[-1].epoch == 2


def test_batch_counter_leading_its_line_is_placed_in_the_header_epoch(tmp_path):
    # pc_transformer_29_launches (private): "Epoch e/5" alone on its line, then the batches
    out = []
    for e in range(1, 4):
        out.append(f"Epoch {e}/5")
        out += [
            f"  Batch {b}/100 | Batch Energy: 3.2260 | Batch Loss: {11 - e - b / 100:.4f}  | Perplexity: 61766.2092"
            for b in range(10, 101, 10)
        ]
    out[5] = out[5].replace("Batch Loss: 9.5000", "Batch Loss: nan")  # (the log's NaN batches)
    _, recs, _ = read(write(tmp_path, "training.log", "\n".join(out) + "\n"))
    # 30 records, not 3: (epoch - 1) x 100 + batch
    assert [r.step for r in recs] == [100 * (e - 1) + b for e in range(1, 4) for b in range(10, 101, 10)]
    assert recs[0].loss == 9.9 and recs[0].epoch == 1 and recs[-1].epoch == 3
    assert math.isnan(recs[4].loss) and recs[4].step == 50
    # with no header a "Batch n/N" line is not taken for a step of its own; "batch 32" is a size
    _, recs, _ = read(
        write(tmp_path, "b.log", "".join(f"batch 32 | loss: {1 / s:.3f} | step {s}\n" for s in range(1, 30)))
    )
    assert [r.step for r in recs] == list(range(1, 30))


def test_ep_with_its_total_is_an_epoch(tmp_path):
    # dino_pretrain_collapse_then_finetune (private): print(f"dino pretrain ep {ep:2d}/{E}  loss={loss:.5f}")
    text = "".join(f"  dino pretrain ep {e:2d}/25  loss={3.15 + e / 100:.5f}\n" for e in range(1, 26))
    _, recs, reader = read(write(tmp_path, "ssl_dino_run.log", text))
    assert [r.step for r in recs] == list(range(1, 26)) and recs[0].loss == 3.16
    assert reader.run_info["total_steps"] in (25, "25")
    # "ep" with no total stays no counter (a word, "step" abbreviated elsewhere)
    text = "".join(f"rep {e} reps done, loss 0.5\n" for e in range(1, 6))
    fmt, recs, _ = read(write(tmp_path, "reps.log", text + "".join(f"step {s} loss {1 / s}\n" for s in range(1, 30))))
    assert [r.step for r in recs] == list(range(1, 30))


def test_a_phase_word_leading_the_line_is_an_evaluation(tmp_path):
    # fresh audio_sep_train_epoch_batches (private; Demucs / Dora's logger): the validation's
    # batches "- Valid | Epoch 1 | 1/3" were read as training counters of another length (86 of
    # its 86 steps read as 6, 63 records "stray"); its summary is the validation loss
    out = ["- Training..."]
    for e in range(1, 4):
        out += [
            f"- Train | Epoch {e} | {b}/573 | 1.45 it/sec | Loss {0.3 - e / 100 - b / 1e5:.4f} | Reco 0.2312 | Grad 0.1202"
            for b in (143, 286, 429, 572)
        ]
        out.append(f"- Train Summary | Epoch {e} | Loss={0.3 - e / 100:.4f} | Reco=0.1994 | Grad=0.0963")
        out += [f"- Valid | Epoch {e} | {b}/3 | 0.31 it/sec | Loss 0.2213 | Reco 0.2213 | Nsdr 3.922" for b in (1, 2)]
        out.append(f"- Valid Summary | Epoch {e} | Loss={0.25 - e / 100:.4f} | Reco=0.2223 | Nsdr=3.8 | Best=0.2223")
    _, recs, _ = read(write(tmp_path, "train_log.txt", "\n".join(out) + "\n"))
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == [573 * (e - 1) + b for e in range(1, 4) for b in (143, 286, 429, 572)]
    val = [(r.step, r.val_loss) for r in recs if r.val_loss is not None]
    assert val == [(572, 0.24), (573 + 572, 0.23), (2 * 573 + 572, 0.22)]
    # "val_loss: 0.3 epoch 2" and "Test 12, loss: 0.5" are not this rule's (a key; a phase counter)
    from tsm_tui.sources.generic_text import EVAL_LEAD

    assert EVAL_LEAD.match("val_loss: 0.3 epoch 2") is None and EVAL_LEAD.match("Test 12, loss: 0.5") is None
    assert EVAL_LEAD.match("Test epoch 3: loss 0.5") is not None

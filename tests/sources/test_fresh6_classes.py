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

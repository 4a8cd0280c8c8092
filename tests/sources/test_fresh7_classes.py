"""Reader classes the fourth held-out set (``bench/corpus/fresh7``, notes/fresh7.md section 4)
showed missing: a step key alone on its line with the losses on the lines after it, and a
tracker key copied from a print with its trailing colon."""

from __future__ import annotations

from tsm_tui.sources.fields import field_for, normalise

from test_formats import read, write  # noqa: E402


def test_a_step_key_alone_on_its_line_heads_the_losses_after_it(tmp_path):
    # decision_mamba_multiline_blocks (committed): an offline-RL trainer's print blocks
    blocks = []
    for k in range(1, 41):
        blocks.append(
            "============================================================\n"
            f"time elapsed: 0:{2 * k:02d}:03\nnum of updates: {1000 * k}\nret loss: {3.3 - k / 50:.5f}\n"
            f"action loss: {0.24 - k / 500:.5f}\nstate loss: 0.11723\nexp loss: 0.01384\n"
        )
    _, recs, reader = read(write(tmp_path, "output.log", "".join(blocks)))
    assert [r.step for r in recs] == [1000 * k for k in range(1, 41)]
    # no total: the sum of the terms (the objective rule), each term checked too
    assert abs(recs[0].loss - (3.28 + 0.238 + 0.11723 + 0.01384)) < 1e-9
    assert "sum of ret loss + action loss + state loss + exp loss" in reader.objective_note()
    # a step key alone with no metric after it stays nothing ("num of updates: 1000" then prose)
    text = "".join(f"num of updates: {1000 * k}\nsaving the replay buffer\n" for k in range(1, 30))
    text += "".join(f"step {s} loss {1 / s}\n" for s in range(1, 30))
    _, recs, _ = read(write(tmp_path, "p.log", text))
    assert [r.step for r in recs] == list(range(1, 30))


def test_a_key_with_a_trailing_colon_is_its_name():
    # wandb_0_12_gnn_flat_loss (private): wandb.log({"train loss:": ..., "validation loss:": ...})
    assert normalise("train loss:") == "train_loss" and field_for("train loss:") == "loss"
    assert field_for("validation loss:") == "val_loss" and field_for("lr=") == "lr"
    assert normalise(":") == ""

#!/bin/bash
# Megatron-LM GPT 1.3B (GPT-3 XL shape: 24 layers, d 2048, 1M-token batches,
# LR 2e-4) on 300B tokens: 512 x 2048 tokens per step, 286102 iterations.
GBS=512
SEQ=2048

torchrun --nproc_per_node 8 pretrain_gpt.py \
    --num-layers 24 --hidden-size 2048 --num-attention-heads 16 \
    --seq-length $SEQ --max-position-embeddings $SEQ \
    --micro-batch-size 4 --global-batch-size $GBS \
    --lr 2.0e-4 --min-lr 2.0e-5 --lr-decay-style cosine \
    --train-iters 286102 --lr-warmup-iters 2000 \
    --clip-grad 1.0 --weight-decay 0.1 \
    --adam-beta1 0.9 --adam-beta2 0.95 --adam-eps 1e-8 \
    --bf16 \
    --vocab-file gpt2-vocab.json --merge-file gpt2-merges.txt \
    --save /checkpoints/gpt-1.3b --load /checkpoints/gpt-1.3b --save-interval 1000 \
    --log-interval 1 --eval-interval 1000

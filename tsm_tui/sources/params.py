"""The parameter count of a model from its architecture config: the one counter
that pre-flight and the live checks share, so both say the same count for one config
(LLaMA-7B: 6.74B, where the rough 12*L*d^2 + V*d says 6.57e9).
"""

from __future__ import annotations

from tsm_tui.core.numbers import num

MAX_VALUE = 1e18  # above this a "count" is no model (n_layer: 1e308)

_LLAMA_LIKE = (
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "gemma",
    "gemma2",
    "gemma3_text",
    "olmo",
    "olmo2",
    "olmoe",
    "phi3",
    "internlm2",
    "yi",
    "deepseek",
    "deepseek_v2",
    "deepseek_v3",
    "baichuan",
    "cohere",
    "granite",
    "smollm3",
    "llama4_text",
    "ministral",
)
_LEARNED_POS = ("gpt2", "gpt_neo", "opt", "bert", "roberta", "gpt_bigcode", "biogpt", "xglm")
_BIAS = ("gpt2", "gpt_neo", "gpt_neox", "opt", "bloom", "gptj", "gpt_bigcode", "phi", "bert", "roberta", "starcoder2")


def count_params(cfg: dict, fw: str = "") -> tuple[float, str, list[str]] | None:
    """Parameters from an architecture description: (count, how, notes) or None.

    Embedding V*d (+ learned positions) + per layer: attention d*(H*hd) for Q,
    2*d*(KV*hd) for K/V (grouped-query attention), (H*hd)*d for the output;
    MLP with 3 matrices when gated (SwiGLU: silu / llama-like models / Megatron
    --swiglu) else 2, times the experts of an MoE; biases where the family has
    them; two norms per layer and a final one (weight only for RMSNorm); an
    untied output head adds V*d. LLaMA-7B's config gives 6,738,415,616 and
    GPT-2's 124,439,808, the published counts.
    """
    if not isinstance(cfg, dict):
        return None
    c = {str(k).lower().replace("-", "_"): v for k, v in cfg.items()}

    def g(*names):
        for n in names:
            if n in c and c[n] is not None and not isinstance(c[n], bool):
                x = num(c[n])
                if x is not None and x > 0:
                    return x
        return None

    L = g("num_hidden_layers", "n_layer", "num_layers", "n_layers")
    d = g("hidden_size", "n_embd", "d_model", "dim", "model_dim")
    if not L or not d:
        return None
    notes: list[str] = []
    mt = str(c.get("model_type") or "").lower()
    H = g("num_attention_heads", "n_head", "n_heads", "num_heads")
    kv = g("num_key_value_heads", "n_kv_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num")
    if fw == "megatron" and c.get("group_query_attention"):
        kv = g("num_query_groups") or kv
    hd = g("head_dim", "kv_channels", "d_head")
    if H and not hd:
        hd = d / H
    H = H or 1
    hd = hd or d
    kv = kv or H
    act = str(
        c.get("hidden_act") or c.get("activation_function") or c.get("activation_type") or c.get("activation") or ""
    ).lower()
    gated = (
        mt in _LLAMA_LIKE
        or act in ("silu", "swiglu", "swish", "geglu")
        or bool(c.get("swiglu"))
        or (mt.startswith("gemma"))
    )
    ff = g("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim", "d_ff", "moe_intermediate_size")
    if ff is None and g("mlp_hidden_size") and gated:
        ff = g("mlp_hidden_size") / 2  # OLMo's fused gate+up width
    if ff is None:
        ff = g("mlp_hidden_size") or ((8 * d / 3) if gated else 4 * d)
    V = g("embedding_size", "padded_vocab_size", "vocab_size", "n_vocab")
    if V is None:
        V = 50304
        notes.append("vocabulary size not in the config: assumed 50304 (GPT-2 BPE padded to 128)")
    if fw == "megatron":
        bias = not c.get("disable_bias_linear")
        rms = str(c.get("normalization") or "").lower() == "rmsnorm"
        learned = str(c.get("position_embedding_type") or "learned_absolute") == "learned_absolute" and not c.get(
            "use_rotary_position_embeddings"
        )
        tied = not c.get("untie_embeddings_and_output_weights")
    else:
        if "bias" in c and isinstance(c["bias"], bool):
            bias = c["bias"]
        else:
            bias = mt in _BIAS or (bool(c.get("n_embd")) and mt == "")
        rms = mt in _LLAMA_LIKE or "rms_norm_eps" in c or "rms" in str(c.get("layer_norm_type") or "")
        learned = (
            mt in _LEARNED_POS
            or (mt == "" and "n_embd" in c and "block_size" in c)
            or (mt == "" and "n_positions" in c)
        )
        tie = c.get("tie_word_embeddings", c.get("weight_tying", c.get("tie_embeddings")))
        tied = bool(tie) if isinstance(tie, bool) else mt not in _LLAMA_LIKE
    experts = g("num_local_experts", "n_routed_experts", "num_experts") or 1
    shared = g("n_shared_experts") or 0
    attn = d * H * hd + 2 * d * kv * hd + H * hd * d
    if bias:
        attn += H * hd + 2 * kv * hd + d
    elif mt.startswith("qwen2"):
        attn += H * hd + 2 * kv * hd  # q/k/v biases
    mlp = (3 if gated else 2) * d * ff + ((ff * (2 if gated else 1) + d) if bias else 0)
    mlp_total = mlp * (experts + shared) + (d * experts if experts > 1 else 0)
    norm = d if rms or (not bias and fw != "megatron" and mt == "") else 2 * d
    layer = attn + mlp_total + 2 * norm
    emb = V * d
    pos = 0.0
    if learned:
        pos = (g("max_position_embeddings", "n_positions", "block_size", "seq_length") or 0) * d
    total = L * layer + emb + pos + norm + (0 if tied else V * d)
    if not total <= MAX_VALUE:  # n_layer: 1e308 and the like: no parameter count
        return None
    how = (
        f"{int(L)} layers x d={int(d)}, ffn {int(ff)}{' gated' if gated else ''}, "
        f"{int(kv)}/{int(H)} KV heads, vocab {int(V)}{', tied' if tied else ''}"
    )
    return float(total), f"from the architecture ({how})", notes

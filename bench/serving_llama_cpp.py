"""The serving benchmark's llama.cpp row: the model of serving_model.py written as a GGUF file
(llama architecture, a dummy SPM vocabulary) by the `gguf` package, and run by llama.cpp
through llama-cpp-python's low-level API, the batch's sequences together in one llama_batch
per prefill and per decode step (n_seq_max sequences, one KV cache).

llama.cpp's `llama` rope rotates adjacent pairs (GPT-J); for a NeoX model the query and key
rows of each head are permuted as llama.cpp's own converter does, which gives the same
attention scores. Both packages are optional (the `bench` extra): `missing()` names what is
not installed."""

from __future__ import annotations

import ctypes
import importlib.util
import tempfile
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import torch
from serving_model import Batch, Config, Weights

NOTE = (
    "llama.cpp: llama-cpp-python's low-level API, the 8 sequences in one `llama_batch` per "
    "prefill and per decode step (`n_seq_max` 8), greedy argmax of its logits in numpy, "
    "`use_extra_bufts=False` (its AMX repacking of Q8_0 crashes on this CPU). F32 runs as Kiln "
    "and eager compute: a float32 KV cache and no flash attention (llama.cpp's CPU flash "
    "attention rounds through F16). F32+kvF16, F16 and Q8_0 run llama.cpp's default context: "
    "an F16 KV cache and flash attention `auto` (on)."
)

# F32+kvF16: F32 weights in llama.cpp's default context (F16 KV cache, flash attention).
PRECISIONS = ("F32", "F32+kvF16", "F16", "Q8_0")
_GGML_TYPE_F32 = 0
_FLASH_ATTN_DISABLED = 0


def missing() -> str:
    """What keeps the llama.cpp row from running, or '' when nothing does."""
    absent = [name for name in ("llama_cpp", "gguf") if importlib.util.find_spec(name) is None]
    if not absent:
        return ""
    return (
        f"{' and '.join(absent)} not installed (pyproject's `bench` extra: "
        '`CMAKE_ARGS="-DGGML_NATIVE=ON -DGGML_BLAS=OFF" pip install gguf==0.19.0 '
        "llama-cpp-python==0.3.36` builds llama.cpp from source in 4-12 minutes)"
    )


def gpt_j_rows(weight: torch.Tensor, heads: int) -> torch.Tensor:
    """Query or key rows reordered per head from NeoX's (i, i + d/2) pairs to adjacent ones."""
    rows, cols = weight.shape
    half = rows // heads // 2
    return weight.reshape(heads, 2, half, cols).transpose(1, 2).reshape(rows, cols)


def write_gguf(config: Config, weights: Weights, precision: str, path: Path) -> None:
    import gguf

    c = config
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_context_length(c.max_positions)
    writer.add_embedding_length(c.hidden)
    writer.add_block_count(c.layers)
    writer.add_feed_forward_length(c.intermediate)
    writer.add_rope_dimension_count(c.head_size)
    writer.add_head_count(c.heads)
    writer.add_head_count_kv(c.kv_heads)
    writer.add_layer_norm_rms_eps(c.epsilon)
    writer.add_rope_freq_base(c.rope_theta)
    writer.add_vocab_size(c.vocab)
    writer.add_file_type(
        {
            "F32": gguf.LlamaFileType.ALL_F32,
            "F16": gguf.LlamaFileType.MOSTLY_F16,
            "Q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
        }[precision]
    )
    # A SentencePiece vocabulary of the model's size: the three specials, the 256 byte tokens
    # (llama.cpp looks up the newline's), then placeholders. Tokens are fed as ids.
    token_type = gguf.TokenType
    tokens = ["<unk>", "<s>", "</s>", *[f"<0x{b:02X}>" for b in range(256)]]
    types = [token_type.UNKNOWN, token_type.CONTROL, token_type.CONTROL]
    types += [token_type.BYTE] * 256
    tokens += [f"\u2581t{i}" for i in range(len(tokens), c.vocab)]
    types += [token_type.NORMAL] * (c.vocab - len(types))
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * c.vocab)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)

    def matrix(name: str, weight: torch.Tensor) -> None:
        data = weight.contiguous().numpy()
        if precision == "F32":
            writer.add_tensor(name, data)
        elif precision == "F16":
            writer.add_tensor(name, data.astype(np.float16))
        else:
            kind = gguf.GGMLQuantizationType.Q8_0
            writer.add_tensor(name, gguf.quants.quantize(data, kind), raw_dtype=kind)

    def vector(name: str, weight: torch.Tensor) -> None:
        writer.add_tensor(name, weight.contiguous().numpy())

    matrix("token_embd.weight", weights.embedding)
    for i, layer in enumerate(weights.layers):
        q, k, v = torch.split(layer.qkv, [c.q_size, c.kv_size, c.kv_size])
        if c.is_neox:
            q, k = gpt_j_rows(q, c.heads), gpt_j_rows(k, c.kv_heads)
        gate, up = layer.gate_up.chunk(2)
        vector(f"blk.{i}.attn_norm.weight", layer.attn_norm)
        matrix(f"blk.{i}.attn_q.weight", q)
        matrix(f"blk.{i}.attn_k.weight", k)
        matrix(f"blk.{i}.attn_v.weight", v)
        matrix(f"blk.{i}.attn_output.weight", layer.out)
        vector(f"blk.{i}.ffn_norm.weight", layer.mlp_norm)
        matrix(f"blk.{i}.ffn_gate.weight", gate)
        matrix(f"blk.{i}.ffn_up.weight", up)
        matrix(f"blk.{i}.ffn_down.weight", layer.down)
    vector("output_norm.weight", weights.final_norm)
    matrix("output.weight", weights.lm_head)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


class LlamaCppRuntime:
    """llama.cpp decoding the batch: `prefill` clears the KV cache and runs every prompt in one
    batch, `decode` one token of every sequence."""

    def __init__(
        self,
        config: Config,
        weights: Weights,
        batch: Batch,
        precision: str,
        directory: str | None = None,
    ) -> None:
        import llama_cpp

        if precision not in PRECISIONS:
            raise ValueError(f"llama.cpp precision {precision!r}: pick one of {PRECISIONS}")
        self.name, self.precision = "llama.cpp", precision
        self.lib: Any = llama_cpp
        self.config, self.batch = config, batch
        self._tempdir = None if directory else tempfile.TemporaryDirectory()
        folder = Path(directory or self._tempdir.name)  # type: ignore[union-attr]
        folder.mkdir(parents=True, exist_ok=True)
        weight_type = precision.split("+")[0]
        path = folder / f"serving-{config.layers}x{config.hidden}-{precision}.gguf"
        write_gguf(config, weights, weight_type, path)

        lib = self.lib
        lib.llama_backend_init()
        lib.llama_log_set(_silent_log, ctypes.c_void_p())
        model_params = lib.llama_model_default_params()
        model_params.n_gpu_layers = 0
        model_params.use_extra_bufts = False
        self.model = lib.llama_model_load_from_file(str(path).encode(), model_params)
        if not self.model:
            raise RuntimeError(f"llama.cpp could not load {path}")
        n = batch.sequences
        per_sequence = 64 * -(-(batch.max_length + 1) // 64)
        context = lib.llama_context_default_params()
        context.n_ctx = n * per_sequence
        context.n_batch = batch.prefill_tokens
        context.n_seq_max = n
        if precision == "F32":
            # The same arithmetic as Kiln and eager: a float32 KV cache, and attention without
            # llama.cpp's CPU flash attention, which rounds through F16.
            context.type_k = context.type_v = _GGML_TYPE_F32
            context.flash_attn_type = _FLASH_ATTN_DISABLED
        self.ctx = lib.llama_init_from_model(self.model, context)
        if not self.ctx:
            raise RuntimeError("llama.cpp could not create a context")
        self.prompt = lib.llama_batch_init(batch.prefill_tokens, 0, 1)
        row = 0
        for s, prompt in enumerate(batch.prompts):
            for position, token in enumerate(prompt):
                self._set(self.prompt, row, token, position, s, position == len(prompt) - 1)
                row += 1
        self.prompt.n_tokens = row
        self.step = lib.llama_batch_init(n, 0, 1)
        self.step.n_tokens = n
        self.lengths = list(batch.lengths)
        self.tokens = torch.zeros(n, dtype=torch.long)
        self.last_logits = torch.empty(n, config.vocab)
        weakref.finalize(self, _free, lib, self.model, self.ctx, (self.prompt, self.step))

    @staticmethod
    def _set(batch: Any, row: int, token: int, position: int, sequence: int, out: bool) -> None:
        batch.token[row] = token
        batch.pos[row] = position
        batch.n_seq_id[row] = 1
        batch.seq_id[row][0] = sequence
        batch.logits[row] = out

    def set_threads(self, threads: int) -> None:
        self.lib.llama_set_n_threads(self.ctx, threads, threads)

    def _run(self, batch: Any) -> torch.Tensor:
        status = self.lib.llama_decode(self.ctx, batch)
        if status != 0:
            raise RuntimeError(f"llama_decode returned {status}")
        n = self.batch.sequences
        pointer = self.lib.llama_get_logits(self.ctx)
        logits = np.ctypeslib.as_array(pointer, shape=(n, self.config.vocab))
        self.last_logits = torch.from_numpy(logits)
        self.tokens = torch.from_numpy(logits.argmax(axis=1))
        return self.tokens

    def prefill(self) -> torch.Tensor:
        self.lib.llama_memory_clear(self.lib.llama_get_memory(self.ctx), True)
        self.lengths = list(self.batch.lengths)
        return self._run(self.prompt)

    def decode(self) -> torch.Tensor:
        for s, token in enumerate(self.tokens.tolist()):
            self._set(self.step, s, token, self.lengths[s], s, True)
            self.lengths[s] += 1
        return self._run(self.step)

    def logits(self) -> torch.Tensor:
        return self.last_logits


def _free(lib: Any, model: Any, ctx: Any, batches: tuple[Any, ...]) -> None:
    for batch in batches:
        lib.llama_batch_free(batch)
    lib.llama_free(ctx)
    lib.llama_model_free(model)


def _log_nothing(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
    """llama.cpp's log callback: its load messages would bury the report."""


def _make_silent_log() -> Any:
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    import llama_cpp

    return llama_cpp.llama_log_callback(_log_nothing)


_silent_log = _make_silent_log()

"""The serving benchmark's two in-process decoders of one model and batch (serving_model.py):

- KilnDecoder: every operation a kiln.call_op into preallocated buffers, as a serving engine
  calls its kernels: Kiln's rms_norm / fused_add_rms_norm (in place on the residual),
  rotary_embedding and reshape_and_cache on the row views of `qkv.split`, paged_attention over
  the flash-layout cache for decode, llama::custom_sdpa (causal) per sequence for prefill,
  silu_and_mul, aten::linear.out for the projections, and advance_step_flashattn for the next
  step's tokens, positions, lengths and slots.
- EagerDecoder: the same model in plain PyTorch: scaled_dot_product_attention (grouped-query,
  a padding mask in decode) over a contiguous KV cache [sequences, kv_heads, positions, head].

Both prefill the batch's prompts as one packed run of tokens and then decode the sequences
together, one token each per step, greedily. `laps`, when set, receives each section's thread CPU
time (the profile); `KilnDecoder.call` can be swapped for a timing wrapper of kiln.call_op."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import torch
import torch.nn.functional as F
from serving_model import Batch, Config, Weights

import kiln


class Laps:
    """Thread CPU time per named section: each `lap(name)` charges the time since the previous
    lap (or `start`) to `name`, so Python glue between operators lands in the section after it.
    The profile runs at 1 thread, where both decoders compute on the calling thread, and CPU
    time is what other work on a shared machine disturbs least."""

    def __init__(self) -> None:
        self.ns: dict[str, int] = defaultdict(int)
        self.last = 0

    def start(self) -> None:
        self.last = time.thread_time_ns()

    def lap(self, name: str) -> None:
        now = time.thread_time_ns()
        self.ns[name] += now - self.last
        self.last = now


class Decoder(Protocol):
    laps: Laps | None

    def prefill(self) -> torch.Tensor:
        """Runs the prompts; returns each sequence's next token [sequences] (a buffer the next
        call overwrites)."""
        ...

    def decode(self) -> torch.Tensor:
        """One step of every sequence on its last token; returns the next tokens."""
        ...

    def logits(self) -> torch.Tensor:
        """The last call's logits [sequences, vocab]."""
        ...


def _lap(laps: Laps | None, name: str) -> None:
    if laps is not None:
        laps.lap(name)


@dataclass(frozen=True)
class _Rows:
    """One phase's activations (prefill: every prompt token; decode: one row per sequence)."""

    residual: torch.Tensor  # [rows, hidden]
    normed: torch.Tensor  # [rows, hidden]
    h: torch.Tensor  # [rows, hidden]
    qkv: torch.Tensor  # [rows, qkv_rows]
    attn: torch.Tensor  # [rows, q_size]
    gate_up: torch.Tensor  # [rows, 2 * intermediate]
    act: torch.Tensor  # [rows, intermediate]

    @staticmethod
    def empty(config: Config, rows: int) -> _Rows:
        c = config
        return _Rows(
            residual=torch.empty(rows, c.hidden),
            normed=torch.empty(rows, c.hidden),
            h=torch.empty(rows, c.hidden),
            qkv=torch.empty(rows, c.qkv_rows),
            attn=torch.empty(rows, c.q_size),
            gate_up=torch.empty(rows, 2 * c.intermediate),
            act=torch.empty(rows, c.intermediate),
        )


class KilnDecoder:
    """The model on Kiln's operators, every buffer allocated once here: the paged caches (the
    batch's blocks), each phase's activations, and the decode step's inputs."""

    def __init__(self, config: Config, weights: Weights, batch: Batch) -> None:
        self.config, self.weights, self.batch = config, weights, batch
        self.block_tables = batch.block_tables
        self.call: Callable[..., Any] = kiln.call_op
        self.laps: Laps | None = None
        c, n = config, batch.sequences
        cache = (batch.num_blocks, c.block_size, c.kv_heads, c.head_size)
        self.key_caches = [torch.zeros(cache) for _ in range(c.layers)]
        self.value_caches = [torch.zeros(cache) for _ in range(c.layers)]
        # Prefill: the packed prompts, where their keys and values go, and which rows end them.
        self.prompt_tokens = batch.packed_tokens()
        self.prompt_positions = batch.packed_positions()
        self.prompt_slots = batch.prefill_slots()
        self.last_rows = batch.last_rows()
        self.prompt_lengths = torch.tensor(batch.lengths, dtype=torch.int32)
        self.spans = batch.spans()
        self.prefill_rows = _Rows.empty(c, batch.prefill_tokens)
        # Rotary embedding's outs in prefill: dense, as custom_sdpa reads them.
        self.prefill_q = torch.empty(batch.prefill_tokens, c.q_size)
        self.prefill_k = torch.empty(batch.prefill_tokens, c.kv_size)
        # Decode: the step's inputs, which advance_step_flashattn advances in place.
        self.rows = _Rows.empty(c, n)
        self.tokens = torch.zeros(n, dtype=torch.long)
        self.positions = torch.zeros(n, dtype=torch.long)
        self.seq_lens = torch.zeros(n, dtype=torch.int32)
        self.slots = torch.zeros(n, dtype=torch.long)
        self.sampled = torch.zeros(n, dtype=torch.long)
        self.logits_buffer = torch.empty(n, c.vocab)

    def logits(self) -> torch.Tensor:
        return self.logits_buffer

    def _layers(self, rows: _Rows, positions: torch.Tensor, slots: torch.Tensor) -> None:
        """The decoder layers over `rows.residual` (the embeddings), with attention either over
        the prompts (prefill: `rows` is the packed prompts) or over the paged cache."""
        c, w, call, laps = self.config, self.weights, self.call, self.laps
        prefill = rows is self.prefill_rows
        n = rows.residual.shape[0]
        call("kiln::rms_norm.out", rows.residual, w.layers[0].attn_norm, c.epsilon, out=rows.normed)
        _lap(laps, "norm")
        for i, layer in enumerate(w.layers):
            if i > 0:
                call(
                    "kiln::fused_add_rms_norm.out",
                    rows.h,
                    rows.residual,
                    layer.attn_norm,
                    c.epsilon,
                    out=(rows.normed, rows.residual),
                )
                _lap(laps, "norm")
            call("aten::linear.out", rows.normed, layer.qkv, None, out=rows.qkv)
            _lap(laps, "qkv_proj")
            q, k, v = torch.split(rows.qkv, [c.q_size, c.kv_size, c.kv_size], -1)
            # Decode rotates the row views in place (vLLM); prefill writes dense outs, which
            # custom_sdpa reads per sequence.
            q_out, k_out = (self.prefill_q, self.prefill_k) if prefill else (q, k)
            call(
                "kiln::rotary_embedding.out",
                positions,
                q,
                k,
                c.head_size,
                w.cos_sin,
                c.is_neox,
                out=(q_out, k_out),
            )
            _lap(laps, "rotary")
            key_cache, value_cache = self.key_caches[i], self.value_caches[i]
            kv_shape = (n, c.kv_heads, c.head_size)
            call(
                "kiln::reshape_and_cache",
                k_out.view(kv_shape),
                v.view(kv_shape),
                key_cache,
                value_cache,
                slots,
            )
            _lap(laps, "cache_write")
            if prefill:
                self._prompt_attention(q_out, k_out, v, rows.attn)
            else:
                call(
                    "kiln::paged_attention.out",
                    q.view(n, c.heads, c.head_size),
                    key_cache,
                    value_cache,
                    self.block_tables,
                    self.seq_lens,
                    c.head_size**-0.5,
                    None,
                    out=rows.attn.view(n, c.heads, c.head_size),
                )
            _lap(laps, "attention")
            call("aten::linear.out", rows.attn, layer.out, None, out=rows.h)
            _lap(laps, "o_proj")
            call(
                "kiln::fused_add_rms_norm.out",
                rows.h,
                rows.residual,
                layer.mlp_norm,
                c.epsilon,
                out=(rows.normed, rows.residual),
            )
            _lap(laps, "norm")
            call("aten::linear.out", rows.normed, layer.gate_up, None, out=rows.gate_up)
            _lap(laps, "gate_up_proj")
            call("kiln::silu_and_mul.out", rows.gate_up, out=rows.act)
            _lap(laps, "activation")
            call("aten::linear.out", rows.act, layer.down, None, out=rows.h)
            _lap(laps, "down_proj")

    def _prompt_attention(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, out: torch.Tensor
    ) -> None:
        """Causal attention of each prompt over itself (vLLM's prefill reads the new keys and
        values, not the cache). custom_sdpa takes [batch, tokens, heads, head_size] and grouped
        kv heads; `v` is a row view of qkv, which Kiln copies densely for it."""
        c, call = self.config, self.call
        for start, end in self.spans:
            tokens = end - start
            call(
                "llama::custom_sdpa.out",
                q[start:end].view(1, tokens, c.heads, c.head_size),
                k[start:end].view(1, tokens, c.kv_heads, c.head_size),
                v[start:end].view(1, tokens, c.kv_heads, c.head_size),
                0,
                None,
                0.0,
                True,
                c.head_size**-0.5,
                out=out[start:end].view(1, tokens, c.heads, c.head_size),
            )

    def _head(self, rows: _Rows) -> torch.Tensor:
        """The final norm and the logits of `rows.normed` (one row per sequence), then greedy
        sampling and the next step's inputs."""
        c, w, call, laps = self.config, self.weights, self.call, self.laps
        call("aten::linear.out", rows.normed, w.lm_head, None, out=self.logits_buffer)
        _lap(laps, "lm_head")
        call("aten::argmax.out", self.logits_buffer, -1, False, out=self.sampled)
        n = self.batch.sequences
        call(
            "kiln::advance_step_flashattn",
            n,
            n,
            c.block_size,
            self.tokens,
            self.sampled.view(n, 1),
            self.positions,
            self.seq_lens,
            self.slots,
            self.block_tables,
        )
        _lap(laps, "sample")
        return self.sampled

    def prefill(self) -> torch.Tensor:
        c, w, call, rows = self.config, self.weights, self.call, self.prefill_rows
        call("aten::embedding.out", w.embedding, self.prompt_tokens, out=rows.residual)
        _lap(self.laps, "embedding")
        self._layers(rows, self.prompt_positions, self.prompt_slots)
        # Only each prompt's last row needs the final norm and the head.
        last = self.rows
        call("aten::index_select.out", rows.h, 0, self.last_rows, out=last.h)
        call("aten::index_select.out", rows.residual, 0, self.last_rows, out=last.residual)
        call(
            "kiln::fused_add_rms_norm.out",
            last.h,
            last.residual,
            w.final_norm,
            c.epsilon,
            out=(last.normed, last.residual),
        )
        _lap(self.laps, "norm")
        self.seq_lens.copy_(self.prompt_lengths)
        return self._head(last)

    def decode(self) -> torch.Tensor:
        c, w, call, rows = self.config, self.weights, self.call, self.rows
        call("aten::embedding.out", w.embedding, self.tokens, out=rows.residual)
        _lap(self.laps, "embedding")
        self._layers(rows, self.positions, self.slots)
        call(
            "kiln::fused_add_rms_norm.out",
            rows.h,
            rows.residual,
            w.final_norm,
            c.epsilon,
            out=(rows.normed, rows.residual),
        )
        _lap(self.laps, "norm")
        return self._head(rows)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, epsilon: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + epsilon) * weight


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, is_neox: bool) -> torch.Tensor:
    """Rotary embedding of x [tokens, heads, head_size] with cos, sin [tokens, 1, head_size/2]:
    NeoX rotates (first half, second half) pairs, GPT-J adjacent ones."""
    if is_neox:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).flatten(-2)


class EagerDecoder:
    """The model in plain PyTorch, as eager code writes it: new tensors from every operation,
    and a contiguous KV cache per layer [sequences, kv_heads, positions, head_size]."""

    def __init__(self, config: Config, weights: Weights, batch: Batch) -> None:
        self.config, self.weights, self.batch = config, weights, batch
        self.laps: Laps | None = None
        c, n = config, batch.sequences
        cache = (n, c.kv_heads, batch.max_length, c.head_size)
        self.key_caches = [torch.zeros(cache) for _ in range(c.layers)]
        self.value_caches = [torch.zeros(cache) for _ in range(c.layers)]
        half = c.head_size // 2
        self.cos, self.sin = weights.cos_sin[:, :half], weights.cos_sin[:, half:]
        self.prompt_tokens = batch.packed_tokens()
        self.prompt_positions = batch.packed_positions()
        self.last_rows = batch.last_rows()
        self.sequence_index = torch.arange(n)
        self.lengths = torch.tensor(batch.lengths)
        self.tokens = torch.zeros(n, dtype=torch.long)
        self.last_logits = torch.empty(n, c.vocab)

    def logits(self) -> torch.Tensor:
        return self.last_logits

    def _layers(
        self, x: torch.Tensor, positions: torch.Tensor, mask: torch.Tensor | None
    ) -> torch.Tensor:
        """The decoder layers over the embeddings `x`: prefill (the packed prompts) when `mask`
        is None, else decode, each sequence attending to its cached positions where `mask`
        [sequences, 1, 1, span] is true."""
        c, w, laps = self.config, self.weights, self.laps
        n = x.shape[0]
        cos, sin = self.cos[positions].unsqueeze(1), self.sin[positions].unsqueeze(1)
        residual, h = x, rms_norm(x, w.layers[0].attn_norm, c.epsilon)
        _lap(laps, "norm")
        for i, layer in enumerate(w.layers):
            if i > 0:
                residual = residual + h
                h = rms_norm(residual, layer.attn_norm, c.epsilon)
                _lap(laps, "norm")
            qkv = F.linear(h, layer.qkv)
            _lap(laps, "qkv_proj")
            q, k, v = torch.split(qkv, [c.q_size, c.kv_size, c.kv_size], -1)
            q = rotate(q.view(n, c.heads, c.head_size), cos, sin, c.is_neox)
            k = rotate(k.view(n, c.kv_heads, c.head_size), cos, sin, c.is_neox)
            v = v.view(n, c.kv_heads, c.head_size)
            _lap(laps, "rotary")
            key_cache, value_cache = self.key_caches[i], self.value_caches[i]
            if mask is None:
                attn = torch.empty(n, c.heads, c.head_size)
                for s, (start, end) in enumerate(self.batch.spans()):
                    ks, vs = k[start:end].transpose(0, 1), v[start:end].transpose(0, 1)
                    key_cache[s, :, : end - start] = ks
                    value_cache[s, :, : end - start] = vs
                    _lap(laps, "cache_write")
                    out = F.scaled_dot_product_attention(
                        q[start:end].transpose(0, 1).unsqueeze(0),
                        ks.unsqueeze(0),
                        vs.unsqueeze(0),
                        is_causal=True,
                        scale=c.head_size**-0.5,
                        enable_gqa=True,
                    )
                    attn[start:end] = out[0].transpose(0, 1)
                    _lap(laps, "attention")
            else:
                key_cache[self.sequence_index, :, positions] = k
                value_cache[self.sequence_index, :, positions] = v
                _lap(laps, "cache_write")
                attn = F.scaled_dot_product_attention(
                    q.unsqueeze(2),
                    key_cache[:, :, : mask.shape[-1]],
                    value_cache[:, :, : mask.shape[-1]],
                    attn_mask=mask,
                    scale=c.head_size**-0.5,
                    enable_gqa=True,
                )
                _lap(laps, "attention")
            h = F.linear(attn.reshape(n, c.q_size), layer.out)
            _lap(laps, "o_proj")
            residual = residual + h
            h = rms_norm(residual, layer.mlp_norm, c.epsilon)
            _lap(laps, "norm")
            gate_up = F.linear(h, layer.gate_up)
            _lap(laps, "gate_up_proj")
            gate, up = gate_up.chunk(2, dim=-1)
            act = F.silu(gate) * up
            _lap(laps, "activation")
            h = F.linear(act, layer.down)
            _lap(laps, "down_proj")
        return residual + h

    def _head(self, hidden: torch.Tensor) -> torch.Tensor:
        h = rms_norm(hidden, self.weights.final_norm, self.config.epsilon)
        _lap(self.laps, "norm")
        self.last_logits = F.linear(h, self.weights.lm_head)
        _lap(self.laps, "lm_head")
        self.tokens = self.last_logits.argmax(-1)
        _lap(self.laps, "sample")
        return self.tokens

    def prefill(self) -> torch.Tensor:
        with torch.inference_mode():
            x = F.embedding(self.prompt_tokens, self.weights.embedding)
            _lap(self.laps, "embedding")
            hidden = self._layers(x, self.prompt_positions, None)
            self.lengths = torch.tensor(self.batch.lengths)
            return self._head(hidden[self.last_rows])

    def decode(self) -> torch.Tensor:
        with torch.inference_mode():
            positions = self.lengths.clone()
            self.lengths += 1
            span = int(self.lengths.max())
            mask = (torch.arange(span) < self.lengths[:, None]).view(-1, 1, 1, span)
            x = F.embedding(self.tokens, self.weights.embedding)
            _lap(self.laps, "embedding")
            return self._head(self._layers(x, positions, mask))

"""Real models, side by side in one process: a zoo of torchvision and transformers models with
random weights (batch 1, 224x224 images), each exported by ExecuTorch 1.5.1's exporter (plain
and XNNPACK-delegated) and by kiln.export, timed on identical inputs at each thread count:

- ``eager``: the module under torch.no_grad() (torch.set_num_threads);
- ``kiln``: Kiln on ExecuTorch's .pte, timed natively per run (kiln.set_num_threads);
- ``kiln/kx``: Kiln on kiln.export's .pte;
- ``et``: ExecuTorch's runtime (pybindings) on its own .pte;
- ``et+xnn``: ExecuTorch's runtime on the XNNPACK-delegated .pte (its threadpool resized);
- ``kiln/xnn``: Kiln on the XNNPACK-delegated .pte (its XnnpackBackend delegate runs the
  XNNPACK graphs on Kiln's kernels);
- ``ort``: ONNX Runtime (CPU, intra_op_num_threads) on torch.onnx.export(dynamo=True) of the
  same ExportedProgram;
- with ``--runners``, the int8 programs (PT2E with XNNPACKQuantizer): ``kiln/i8`` and ``et/i8``
  run ExecuTorch's undelegated int8 .pte, ``et+xnn/i8`` and ``kiln/xnn/i8`` its
  XNNPACK-delegated one.

Every runner's output is compared with eager's (max abs error, and that error relative to the
largest eager value). Output is markdown: a timing table per thread count (ms per run, ratio to
eager, Kiln's ratio to ET+XNNPACK), load times, correctness, and with --profile where Kiln's time
goes per operator. At one thread a run's time is the process's CPU time (every runner computes on
the calling thread), its median over the runs, so that other work on a shared machine does not
count; at more threads it is wall time, the best run. A runner that cannot export, load or run a
model is a cell naming why, with the full message in the notes under the table.

The extra packages (torchvision, transformers, torchao for XNNPACK's partitioner, onnxruntime...)
are installed by bench/setup.sh. Models whose package is missing are skipped with a note.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import io
import os
import platform
import re
import statistics
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch
from torch import nn

import kiln

IMAGE = (1, 3, 224, 224)
# The language models' prompt length, and the decode step's cache (prefilled up to the step).
TOKENS = 64
CACHE = 128
# A run's relative error above this is flagged in the correctness table.
REL_TOLERANCE = 1e-3

DEFAULT_RUNNERS = ("eager", "kiln", "kiln/kx", "et", "et+xnn", "kiln/xnn", "ort")
# The int8 programs of the same models (PT2E with XNNPACKQuantizer: per-channel int8 weights,
# static int8 activations), checked against the quantized module in eager PyTorch.
INT8_RUNNERS = ("kiln/i8", "et/i8", "et+xnn/i8", "kiln/xnn/i8")
RUNNERS = DEFAULT_RUNNERS + INT8_RUNNERS
TITLES = {
    "eager": "eager",
    "kiln": "Kiln (ET pte)",
    "kiln/kx": "Kiln (kiln.export)",
    "et": "ET",
    "et+xnn": "ET+XNNPACK",
    "kiln/xnn": "Kiln (XNNPACK pte)",
    "ort": "ONNX Runtime",
    "kiln/i8": "Kiln (ET int8 pte)",
    "et/i8": "ET int8",
    "et+xnn/i8": "ET+XNNPACK int8",
    "kiln/xnn/i8": "Kiln (XNNPACK int8 pte)",
}


# --- the zoo ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ZooModel:
    name: str
    needs: str  # the optional package the model comes from ("" for none)
    build: Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]
    note: str


def calibrate_batch_norm(module: nn.Module, shape: tuple[int, ...], batches: int = 4) -> None:
    """Sets batch-norm statistics from random batches: with random weights the default statistics
    (mean 0, variance 1) let activations shrink or grow layer after layer until the output is ~0
    or inf, where any comparison passes or none does."""
    norms = [m for m in module.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a cumulative average over the batches
    module.train()
    with torch.no_grad():
        for _ in range(batches):
            module(torch.randn(2, *shape[1:]))
    module.eval()


def _image_model(module: nn.Module, shape: tuple[int, ...] = IMAGE) -> Any:
    calibrate_batch_norm(module, shape)
    return module.eval(), (torch.randn(shape),)


class TinyCnn(nn.Module):
    """A mobilenet-style block in plain torch (the smoke test's model: needs no extra package):
    conv + batch norm + relu6, depthwise conv + batch norm + hardswish, pointwise conv + batch
    norm, residual add, pooling and a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16))
        self.depthwise = nn.Sequential(
            nn.Conv2d(16, 16, 3, 1, 1, groups=16, bias=False), nn.BatchNorm2d(16)
        )
        self.pointwise = nn.Sequential(nn.Conv2d(16, 16, 1, bias=False), nn.BatchNorm2d(16))
        self.head = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = nn.functional.relu6(self.stem(x))
        y = self.pointwise(nn.functional.hardswish(self.depthwise(x)))
        x = nn.functional.adaptive_avg_pool2d(x + y, 1)
        return self.head(torch.flatten(x, 1))


def _tiny_cnn() -> Any:
    return _image_model(TinyCnn(), (1, 3, 56, 56))


def _torchvision_schemas() -> None:
    """Defines torchvision::nms and qnms, which torchvision's Python module registers fake
    kernels for when it is imported (by the models here, or by transformers): the torchvision
    wheel that pairs with torch 2.13 is a CUDA build whose compiled ops do not load beside the
    CPU torch, so the schemas would not exist. The model definitions call no compiled op."""
    for name in ("nms", "qnms"):
        with contextlib.suppress(RuntimeError):  # defined already (by an earlier call)
            torch.library.define(
                f"torchvision::{name}",
                "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
            )


def _torchvision() -> Any:
    _torchvision_schemas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torchvision
    return torchvision


def _vision(name: str, **kwargs: Any) -> Callable[[], Any]:
    def build() -> Any:
        models = _torchvision().models
        return _image_model(models.get_model(name, weights=None, **kwargs))

    return build


class _Segmentation(nn.Module):
    """torchvision's segmentation models return a dict; a program returns tensors."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.model(x)["out"]
        return out


def _lraspp() -> Any:
    models = _torchvision().models.segmentation
    return _image_model(
        _Segmentation(models.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None))
    )


def _vit_tiny() -> Any:
    # ViT-Ti/16 (DeiT-tiny's size: 12 layers, width 192, 3 heads) from torchvision's own class:
    # vit_b_16 is 15x the work, which would make it most of the run.
    vision = _torchvision().models.vision_transformer
    module = vision.VisionTransformer(
        image_size=224, patch_size=16, num_layers=12, num_heads=3, hidden_dim=192, mlp_dim=768
    )
    # torchvision starts the classifier at zero: every output would be 0 and match anything.
    nn.init.normal_(module.heads.head.weight, std=0.05)
    return _image_model(module)


class _Logits(nn.Module):
    """A transformers model called on token ids, returning its logits or last hidden state."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        out = self.model(input_ids=input_ids, use_cache=False)
        result: torch.Tensor = out.logits if hasattr(out, "logits") else out.last_hidden_state
        return result


def _transformers() -> Any:
    _torchvision_schemas()  # transformers imports torchvision when it is installed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import transformers
    transformers.logging.set_verbosity_error()
    return transformers


def _token_ids(vocab: int, count: int = TOKENS) -> torch.Tensor:
    return torch.randint(0, vocab, (1, count), dtype=torch.long)


def _bert() -> Any:
    # BERT-small's size (4 layers, width 512, 8 heads, 2048 feed-forward), BERT's vocabulary.
    transformers = _transformers()
    config = transformers.BertConfig(
        hidden_size=512, num_hidden_layers=4, num_attention_heads=8, intermediate_size=2048
    )
    model = transformers.BertModel(config, add_pooling_layer=False).eval()
    return _Logits(model).eval(), (_token_ids(config.vocab_size),)


def _gpt2() -> Any:
    # GPT-2's architecture and vocabulary, 4 layers of width 256 (4 heads).
    transformers = _transformers()
    config = transformers.GPT2Config(n_layer=4, n_embd=256, n_head=4)
    model = transformers.GPT2LMHeadModel(config).eval()
    return _Logits(model).eval(), (_token_ids(config.vocab_size),)


def _llama_config() -> Any:
    # Llama's architecture (RMSNorm, rotary, SwiGLU, grouped-query attention) at a small size:
    # 4 layers of width 256, 4 query heads and 2 key/value heads, a 32000-token vocabulary.
    return _transformers().LlamaConfig(
        vocab_size=32000,
        hidden_size=256,
        intermediate_size=704,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
    )


def _llama() -> Any:
    config = _llama_config()
    model = _transformers().LlamaForCausalLM(config).eval()
    return _Logits(model).eval(), (_token_ids(config.vocab_size),)


class _DecodeStep(nn.Module):
    """One token through transformers' TorchExportableModuleWithStaticCache: the static KV
    cache is a set of buffers the step updates in place (index_copy_) at cache_position."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        executorch = _transformers().integrations.executorch
        self.step = executorch.TorchExportableModuleWithStaticCache(
            model, batch_size=1, max_cache_len=CACHE
        )

    def forward(self, input_ids: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.step(input_ids=input_ids, cache_position=cache_position)
        return logits


def _llama_decode() -> Any:
    transformers = _transformers()
    config = _llama_config()
    model = transformers.LlamaForCausalLM(config).eval()
    model.generation_config.use_cache = True
    model.generation_config.cache_implementation = "static"
    module = _DecodeStep(model).eval()
    # A cache as if TOKENS tokens came before: random keys and values in the first TOKENS slots.
    with torch.no_grad():
        for name, buffer in module.named_buffers():
            if "cache" in name:
                buffer.zero_()
                buffer[:, :, :TOKENS].normal_()
    position = torch.tensor([TOKENS], dtype=torch.long)
    return module, (_token_ids(config.vocab_size, 1), position)


class _RmsNorm(nn.Module):
    def __init__(self, width: int, epsilon: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(width))
        self.epsilon = epsilon

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.epsilon)
        return x * scale * self.weight


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


class _CachedLayer(nn.Module):
    """A Llama decoder layer for one token: its keys and values go into static caches (buffers)
    by index_copy_, and attention reads the whole cache under a mask of the filled positions."""

    def __init__(self, width: int, heads: int, kv_heads: int, hidden: int, cache: int) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head = heads, kv_heads, width // heads
        self.attention_norm = _RmsNorm(width)
        self.q = nn.Linear(width, width, bias=False)
        self.k = nn.Linear(width, kv_heads * self.head, bias=False)
        self.v = nn.Linear(width, kv_heads * self.head, bias=False)
        self.o = nn.Linear(width, width, bias=False)
        self.mlp_norm = _RmsNorm(width)
        self.gate = nn.Linear(width, hidden, bias=False)
        self.up = nn.Linear(width, hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)
        self.register_buffer("keys", torch.zeros(1, kv_heads, cache, self.head))
        self.register_buffer("values", torch.zeros(1, kv_heads, cache, self.head))

    def forward(
        self,
        x: torch.Tensor,
        position: torch.Tensor,
        cos: torch.Tensor,
        sin: torch.Tensor,
        mask: torch.Tensor,
    ) -> torch.Tensor:
        h = self.attention_norm(x)
        q = self.q(h).view(1, 1, self.heads, self.head).transpose(1, 2)
        k = self.k(h).view(1, 1, self.kv_heads, self.head).transpose(1, 2)
        v = self.v(h).view(1, 1, self.kv_heads, self.head).transpose(1, 2)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        self.keys.index_copy_(2, position, k)
        self.values.index_copy_(2, position, v)
        group = self.heads // self.kv_heads
        keys = self.keys.repeat_interleave(group, dim=1)
        values = self.values.repeat_interleave(group, dim=1)
        scores = q @ keys.transpose(-1, -2) / self.head**0.5 + mask
        attended = torch.softmax(scores, dim=-1) @ values
        x = x + self.o(attended.transpose(1, 2).reshape(1, 1, -1))
        h = self.mlp_norm(x)
        return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))


class CachedLlama(nn.Module):
    """A Llama-style decode step written by hand (the sizes of _llama_config), its KV cache in
    buffers: what a user writes when transformers' StaticCache does not export (see
    llama_decode_hf)."""

    def __init__(self, vocab: int = 32000, width: int = 256, layers: int = 4) -> None:
        super().__init__()
        heads, kv_heads, hidden = 4, 2, 704
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList(
            _CachedLayer(width, heads, kv_heads, hidden, CACHE) for _ in range(layers)
        )
        self.norm = _RmsNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        head = width // heads
        frequencies = 1.0 / 10000.0 ** (torch.arange(0, head, 2).float() / head)
        angles = torch.outer(torch.arange(CACHE).float(), frequencies)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())

    def forward(self, token: torch.Tensor, position: torch.Tensor) -> torch.Tensor:
        x = self.embed(token)
        cos = self.cos.index_select(0, position)
        sin = self.sin.index_select(0, position)
        filled = torch.arange(CACHE) <= position
        mask = torch.where(filled, 0.0, float("-inf")).view(1, 1, 1, CACHE)
        for layer in self.layers:
            x = layer(x, position, cos, sin, mask)
        logits: torch.Tensor = self.head(self.norm(x))
        return logits


def _cached_llama() -> Any:
    module = CachedLlama().eval()
    with torch.no_grad():
        for layer in module.layers:
            for cache in (layer.keys, layer.values):
                cache[:, :, :TOKENS].normal_()
    position = torch.tensor([TOKENS], dtype=torch.long)
    return module, (torch.randint(0, 32000, (1, 1), dtype=torch.long), position)


class _EtLlamaStep(nn.Module):
    """One token through ExecuTorch's own Llama transformer as its LLM export prepares it
    (export_llama --use_kv_cache --use_sdpa_with_kv_cache): llama::custom_sdpa over KV caches that
    llama::update_cache writes in place."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, tokens: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.model(tokens, {"input_pos": input_pos})
        return logits


def _et_llama_decode() -> Any:
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  llama:: with torch
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs
    from executorch.examples.models.llama.source_transformation.custom_kv_cache import (
        replace_kv_cache_with_custom_kv_cache,
    )
    from executorch.examples.models.llama.source_transformation.sdpa import (
        replace_sdpa_with_custom_op,
    )

    # The sizes of _llama_config (and CachedLlama): 4 layers of 256, GQA 4/2, FFN 704.
    args = ModelArgs(
        dim=256,
        hidden_dim=704,
        n_layers=4,
        n_heads=4,
        n_kv_heads=2,
        vocab_size=32000,
        max_seq_len=CACHE,
        max_context_len=CACHE,
        use_kv_cache=True,
        use_sdpa_with_kv_cache_op=True,
    )
    model = construct_transformer(args).eval()
    model = replace_kv_cache_with_custom_kv_cache(replace_sdpa_with_custom_op(model))
    module = _EtLlamaStep(model).eval()
    with torch.no_grad():
        for name, buffer in module.named_buffers():
            if "cache" in name:
                buffer[:, :TOKENS].normal_()  # [batch, positions, heads, dim]
    position = torch.tensor([TOKENS], dtype=torch.long)
    return module, (_token_ids(args.vocab_size, 1), position)


ZOO = (
    ZooModel("tiny_cnn", "", _tiny_cnn, "a mobilenet-style block, 1x3x56x56 (smoke test)"),
    ZooModel("mobilenet_v2", "torchvision", _vision("mobilenet_v2"), ""),
    ZooModel("mobilenet_v3_small", "torchvision", _vision("mobilenet_v3_small"), ""),
    ZooModel("resnet18", "torchvision", _vision("resnet18"), ""),
    ZooModel("resnet50", "torchvision", _vision("resnet50"), ""),
    ZooModel("efficientnet_b0", "torchvision", _vision("efficientnet_b0"), ""),
    ZooModel("regnet_y_400mf", "torchvision", _vision("regnet_y_400mf"), ""),
    ZooModel("vit_tiny", "torchvision", _vit_tiny, "ViT-Ti/16: 12 layers, width 192, 3 heads"),
    ZooModel("lraspp", "torchvision", _lraspp, "lraspp_mobilenet_v3_large, 21 classes"),
    ZooModel("bert", "transformers", _bert, f"BERT-small size (4x512, 8 heads), {TOKENS} tokens"),
    ZooModel("gpt2", "transformers", _gpt2, f"GPT-2, 4 layers x 256, {TOKENS} tokens"),
    ZooModel("llama", "transformers", _llama, f"Llama, 4 layers x 256, GQA 4/2, {TOKENS} tokens"),
    ZooModel(
        "llama_decode",
        "",
        _cached_llama,
        f"a hand-written Llama decode step (the sizes above), one token at position {TOKENS}, "
        f"a static KV cache of {CACHE} in buffers written by index_copy_",
    ),
    ZooModel(
        "llama_decode_hf",
        "transformers",
        _llama_decode,
        f"the Llama above through transformers' TorchExportableModuleWithStaticCache, one token "
        f"at position {TOKENS}, StaticCache of {CACHE}",
    ),
    ZooModel(
        "llama_decode_et",
        "",
        _et_llama_decode,
        f"the Llama above as ExecuTorch's LLM export writes it (its transformer, llama::custom_sdpa"
        f" and update_cache), one token at position {TOKENS}, KV caches of {CACHE}",
    ),
)


def zoo_model(name: str) -> ZooModel:
    for model in ZOO:
        if model.name == name:
            return model
    raise KeyError(f"no model {name!r} in the zoo: {', '.join(m.name for m in ZOO)}")


def missing_package(model: ZooModel) -> str:
    """Why the model cannot be built here ("" if it can)."""
    if not model.needs:
        return ""
    if importlib.util.find_spec(model.needs) is None:
        return f"{model.needs} is not installed; run bench/setup.sh"
    return ""


# --- exporters and runners -------------------------------------------------------------------


class Unavailable(Exception):
    """A runner that cannot run a model: its message is the table's cell and note."""


def _first_line(error: BaseException) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error)).strip()  # no terminal colours
    line = text.splitlines()[0] if text else ""
    return f"{type(error).__name__}: {line}"[:300]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silences the exporters' warnings and prints (torchao, onnx) around a call."""
    sink = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield


def _et_config(module: nn.Module) -> Any:
    # Buffers the program mutates (the KV cache) keep their initial values in the file. The pass
    # matches the graph's placeholder names, where a buffer "layers.0.keys" is "b_layers_0_keys".
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    buffers = [name.replace(".", "_") for name, _ in module.named_buffers()]
    return ExecutorchBackendConfig(passes=[InitializedMutableBufferPass(buffers)])


def export_et(module: nn.Module, program: Any) -> bytes:
    from executorch.exir import to_edge

    data: bytes = to_edge(program).to_executorch(_et_config(module)).buffer
    return data


def export_et_xnnpack(module: nn.Module, program: Any) -> bytes:
    try:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
            XnnpackPartitioner,
        )
        from executorch.exir import to_edge_transform_and_lower
    except ImportError as error:
        raise Unavailable(
            f"XNNPACK partitioner unavailable ({error}); run bench/setup.sh"
        ) from None
    edge = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    data: bytes = edge.to_executorch(_et_config(module)).buffer
    return data


def quantize_int8(module: nn.Module, inputs: tuple[torch.Tensor, ...]) -> tuple[Any, nn.Module]:
    """The int8 ExportedProgram of `module` and its eager quantized module: PT2E with ExecuTorch's
    XNNPACKQuantizer (symmetric per-channel weights, static activations calibrated on `inputs`
    and three random variations of them)."""
    try:
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
            XNNPACKQuantizer,
            get_symmetric_quantization_config,
        )
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    except ImportError as error:
        raise Unavailable(f"PT2E quantizer unavailable ({error}); run bench/setup.sh") from None
    config = get_symmetric_quantization_config(is_per_channel=True)
    prepared = prepare_pt2e(
        torch.export.export(module, inputs).module(), XNNPACKQuantizer().set_global(config)
    )
    prepared(*inputs)
    for _ in range(3):
        prepared(
            *(x * (1 + 0.1 * torch.randn_like(x)) if x.is_floating_point() else x for x in inputs)
        )
    quantized: nn.Module = convert_pt2e(prepared)
    return torch.export.export(quantized, inputs), quantized


def load_et_quantized_kernels() -> None:
    """ExecuTorch's quantized kernels, registered with its Python runtime (which links only the
    portable and optimized ones) and their out variants with torch, for its exporter."""
    import ctypes

    import executorch
    import executorch.kernels.quantized  # noqa: F401
    from executorch.runtime import Runtime

    Runtime.get()
    library = Path(next(iter(executorch.__path__))) / "lib" / "libexecutorch_kernels_quantized.so"
    ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)


def export_onnx(program: Any, inputs: tuple[torch.Tensor, ...]) -> bytes:
    try:
        import onnxruntime  # noqa: F401
        import onnxscript  # noqa: F401
    except ImportError as error:
        raise Unavailable(
            f"onnxruntime/onnxscript not installed ({error}); run bench/setup.sh"
        ) from None
    onnx_program = torch.onnx.export(program, inputs, dynamo=True, verbose=False)
    data: bytes = onnx_program.model_proto.SerializeToString()
    return data


class Runner:
    """Loads a model's artifact once; times runs at the thread count set by set_threads."""

    def set_threads(self, threads: int) -> None:
        raise NotImplementedError

    def run(self, inputs: tuple[torch.Tensor, ...]) -> torch.Tensor:
        raise NotImplementedError

    def time_ms(
        self, inputs: tuple[torch.Tensor, ...], runs: int, budget: float, cpu: bool
    ) -> float:
        """Up to `runs` timed runs, stopping once `budget` seconds are spent (a slow runner
        still gets one timed run); see _summary for the clock and the statistic. The caller ran
        the model once already (its output checked): that was the warm-up."""
        return _summary(lambda: self.run(inputs), runs, budget, cpu)


def _summary(run: Callable[[], Any], runs: int, budget: float, cpu: bool) -> float:
    """Milliseconds per run. On one thread (`cpu`): the median of the process's CPU time per
    run, which other work on a shared machine does not add to (every runner computes on the
    calling thread then). On more: wall time, the best run, the one least disturbed by other
    work competing for the cores."""
    clock = time.process_time_ns if cpu else time.perf_counter_ns
    samples: list[float] = []
    start = time.perf_counter()
    while len(samples) < runs:
        begin = clock()
        run()
        samples.append((clock() - begin) / 1e6)
        if time.perf_counter() - start > budget:
            break
    return statistics.median(samples) if cpu else min(samples)


class EagerRunner(Runner):
    def __init__(self, module: nn.Module) -> None:
        self.module = module

    def set_threads(self, threads: int) -> None:
        torch.set_num_threads(threads)

    def run(self, inputs: tuple[torch.Tensor, ...]) -> torch.Tensor:
        with torch.no_grad():
            out: torch.Tensor = self.module(*inputs)
        return out


class KilnRunner(Runner):
    def __init__(self, pte: bytes) -> None:
        try:
            self.program = kiln.load(pte, max_memory=None)
        except kiln.KilnError as error:
            raise Unavailable(f"refused at load: {_first_line(error)}") from None

    def set_threads(self, threads: int) -> None:
        kiln.set_num_threads(threads)

    def run(self, inputs: tuple[torch.Tensor, ...]) -> torch.Tensor:
        out: torch.Tensor = self.program.run(*inputs)[0]
        return out

    def time_ms(
        self, inputs: tuple[torch.Tensor, ...], runs: int, budget: float, cpu: bool
    ) -> float:
        # One native run a sample (Method::execute, no Python per run), as a C++ caller would
        # pay: the inputs stay bound across the samples.
        program = self.program
        with program._one_run():
            bound = program._bind(inputs)
            ms = _summary(lambda: program._native.time_execute(1), runs, budget, cpu)
            del bound
        return ms

    def profile(self, inputs: tuple[torch.Tensor, ...], runs: int) -> list[tuple[str, int, float]]:
        """Per operator: (name, instructions, ns per run), slowest first. Each instruction's
        time is its fastest over the runs: the one least disturbed by other work."""
        fastest: dict[int, tuple[str, int]] = {}
        for _ in range(runs):
            self.program.run(*inputs, profile=True)
            for row in self.program.last_profile():
                name = row.op or row.kind
                if row.index not in fastest or row.ns < fastest[row.index][1]:
                    fastest[row.index] = (name, row.ns)
        totals: dict[str, float] = {}
        counts: dict[str, int] = {}
        for name, ns in fastest.values():
            totals[name] = totals.get(name, 0.0) + ns
            counts[name] = counts.get(name, 0) + 1
        return sorted(
            ((name, counts[name], ns) for name, ns in totals.items()), key=lambda r: -r[2]
        )


# How many times ExecuTorch's threadpool was replaced: a method loaded before holds the old pool
# (XNNPACK's runtime keeps its pointer) and must be loaded again.
_et_pool_generation = 0


class ExecuTorchRunner(Runner):
    def __init__(self, pte: bytes) -> None:
        self.pte = pte
        self._load()

    def _load(self) -> None:
        from executorch.runtime import Runtime

        try:
            self.method = Runtime.get().load_program(self.pte).load_method("forward")
        except Exception as error:  # the runtime raises RuntimeError with its code
            raise Unavailable(f"refused at load: {_first_line(error)}") from None
        self.generation = _et_pool_generation

    def set_threads(self, threads: int) -> None:
        from executorch.extension.pybindings import portable_lib

        global _et_pool_generation
        if portable_lib._threadpool_get_thread_count() != threads:
            with _quiet():
                portable_lib._unsafe_reset_threadpool(threads)
            _et_pool_generation += 1
        if self.generation != _et_pool_generation:
            self.method = None
            gc.collect()
            self._load()

    def run(self, inputs: tuple[torch.Tensor, ...]) -> torch.Tensor:
        out: torch.Tensor = self.method.execute(list(inputs))[0]
        return out


class OrtRunner(Runner):
    def __init__(self, model: bytes) -> None:
        import onnxruntime

        self.model = model
        self.ort = onnxruntime
        self.session = self._session(1)
        self.names = [i.name for i in self.session.get_inputs()]

    def _session(self, threads: int) -> Any:
        options = self.ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        return self.ort.InferenceSession(self.model, options, providers=["CPUExecutionProvider"])

    def set_threads(self, threads: int) -> None:
        self.session = self._session(threads)
        self.names = [i.name for i in self.session.get_inputs()]

    def run(self, inputs: tuple[torch.Tensor, ...]) -> torch.Tensor:
        feeds = {name: x.numpy() for name, x in zip(self.names, inputs, strict=True)}
        return torch.from_numpy(self.session.run(None, feeds)[0])


# --- one model -------------------------------------------------------------------------------


@dataclass
class Result:
    model: str
    note: str = ""
    skipped: str = ""  # why the model was not run at all
    # runner -> ms per run, per thread count; or the reason the runner has no time
    ms: dict[int, dict[str, float]] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)
    load_ms: dict[str, float] = field(default_factory=dict)
    export_s: dict[str, float] = field(default_factory=dict)
    # runner -> (max abs error, relative error), the worst over the thread counts
    errors: dict[str, tuple[float, float]] = field(default_factory=dict)
    scale: float = 0.0  # the largest |eager output|
    # "kiln" / "kiln/kx" -> [(operator, instructions, ns per run)]
    profiles: dict[str, list[tuple[str, int, float]]] = field(default_factory=dict)


def _compare(out: Any, reference: torch.Tensor) -> tuple[float, float]:
    if not isinstance(out, torch.Tensor) or out.shape != reference.shape:
        shape = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        raise Unavailable(f"output shape {shape}, eager's {tuple(reference.shape)}")
    difference = (out.double() - reference.double()).abs().max().item()
    scale = reference.double().abs().max().item()
    return difference, difference / scale if scale else float("inf")


def _timed(action: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = action()
    return value, time.perf_counter() - start


def _median_load_ms(load: Callable[[], Any], repeats: int) -> tuple[Any, float]:
    samples = []
    value = None
    for _ in range(repeats):
        value = None
        gc.collect()
        value, seconds = _timed(load)
        samples.append(seconds * 1e3)
    return value, statistics.median(samples)


def measure(
    model: ZooModel,
    threads: Sequence[int],
    runs: int,
    budget: float,
    load_repeats: int = 3,
    profile_runs: int = 0,
    runners: Sequence[str] = DEFAULT_RUNNERS,
) -> Result:
    """Exports, loads, checks and times `model` on each runner and thread count."""
    result = Result(model.name, model.note)
    missing = missing_package(model)
    if missing:
        result.skipped = missing
        return result
    torch.manual_seed(0)
    with _quiet():
        module, inputs = model.build()
    # Weights as constants: ExecuTorch's exporter refuses in-place buffer updates (the KV cache)
    # beside parameters that require grad.
    module.requires_grad_(False)
    with torch.no_grad():
        reference = module(*inputs)
    result.scale = reference.abs().max().item()

    # The artifacts: one ExportedProgram for every exporter.
    artifacts: dict[str, bytes] = {}
    with _quiet():
        program, seconds = _timed(lambda: torch.export.export(module, inputs))
    result.export_s["torch.export"] = seconds
    exporters: dict[str, Callable[[], bytes]] = {
        "et": lambda: export_et(module, program),
        "et+xnn": lambda: export_et_xnnpack(module, program),
        "kiln/kx": lambda: kiln.export(program),
        "ort": lambda: export_onnx(program, inputs),
        "et/i8": lambda: export_et(module, int8_program()),
        "et+xnn/i8": lambda: export_et_xnnpack(module, int8_program()),
    }
    int8: dict[str, Any] = {}

    def int8_program() -> Any:
        if "program" not in int8:
            load_et_quantized_kernels()
            int8["program"], quantized = quantize_int8(module, inputs)
            with torch.no_grad():
                int8["reference"] = quantized(*inputs)
        return int8["program"]

    for name, export in exporters.items():
        users = {
            "et": ("kiln", "et"),
            "et+xnn": ("et+xnn", "kiln/xnn"),
            "et/i8": ("kiln/i8", "et/i8"),
            "et+xnn/i8": ("et+xnn/i8", "kiln/xnn/i8"),
        }.get(name, (name,))
        if not any(user in runners for user in users):
            continue
        try:
            with _quiet():
                artifacts[name], seconds = _timed(export)
            result.export_s[name] = seconds
        except Exception as error:
            reason = str(error) if isinstance(error, Unavailable) else _first_line(error)
            for user in users:
                result.unavailable[user] = f"export failed: {reason}"

    makers: dict[str, Callable[[], Runner]] = {
        "eager": lambda: EagerRunner(module),
        "kiln": lambda: KilnRunner(artifacts["et"]),
        "kiln/kx": lambda: KilnRunner(artifacts["kiln/kx"]),
        "et": lambda: ExecuTorchRunner(artifacts["et"]),
        "et+xnn": lambda: ExecuTorchRunner(artifacts["et+xnn"]),
        "kiln/xnn": lambda: KilnRunner(artifacts["et+xnn"]),
        "ort": lambda: OrtRunner(artifacts["ort"]),
        "kiln/i8": lambda: KilnRunner(artifacts["et/i8"]),
        "et/i8": lambda: ExecuTorchRunner(artifacts["et/i8"]),
        "et+xnn/i8": lambda: ExecuTorchRunner(artifacts["et+xnn/i8"]),
        "kiln/xnn/i8": lambda: KilnRunner(artifacts["et+xnn/i8"]),
    }
    loaded: dict[str, Runner] = {}
    for name in runners:
        if name in result.unavailable:
            continue
        try:
            with _quiet():
                loaded[name], result.load_ms[name] = _median_load_ms(makers[name], load_repeats)
        except Unavailable as error:
            result.unavailable[name] = str(error)
        except Exception as error:
            result.unavailable[name] = f"load failed: {_first_line(error)}"
    result.load_ms.pop("eager", None)

    for count in threads:
        times = result.ms.setdefault(count, {})
        for name, runner in list(loaded.items()):
            try:
                runner.set_threads(count)
                out = runner.run(inputs)
                # An int8 program answers what the quantized module answers in eager PyTorch.
                error = _compare(out, int8["reference"] if name in INT8_RUNNERS else reference)
                worst = result.errors.get(name, (0.0, 0.0))
                result.errors[name] = (max(worst[0], error[0]), max(worst[1], error[1]))
                times[name] = runner.time_ms(inputs, runs, budget, cpu=count == 1)
            except Unavailable as failure:
                result.unavailable[name] = str(failure)
                del loaded[name]
            except Exception as failure:
                result.unavailable[name] = f"run failed: {_first_line(failure)}"
                del loaded[name]
    torch.set_num_threads(max(threads))

    if profile_runs:
        kiln.set_num_threads(min(threads))
        for name in ("kiln", "kiln/kx"):
            runner = loaded.get(name)
            if isinstance(runner, KilnRunner):
                result.profiles[name] = runner.profile(inputs, profile_runs)
    return result


# --- tables ----------------------------------------------------------------------------------


class Notes:
    """Footnotes: each distinct reason once, numbered, cells say [n]."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    def cite(self, reason: str) -> str:
        if reason not in self.reasons:
            self.reasons.append(reason)
        return f"[{self.reasons.index(reason) + 1}]"

    def lines(self) -> list[str]:
        return [f"[{i}] {reason}" for i, reason in enumerate(self.reasons, 1)]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _ms(ms: float) -> str:
    return f"{ms:.2f}" if ms < 10 else f"{ms:.1f}"


def _ratio(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}x"


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x" if values else ""


def timing_table(results: Sequence[Result], count: int, runners: Sequence[str]) -> list[str]:
    shown = [r for r in runners if r != "eager"]
    header = ["model", "eager ms"] + [f"{TITLES[r]} ms (/eager)" for r in shown]
    kilns = [r for r in ("kiln", "kiln/kx") if r in shown]
    header += [f"{TITLES[r]} /XNN" for r in kilns]
    notes = Notes()
    rows = []
    over_eager: dict[str, list[float]] = {r: [] for r in shown}
    over_xnn: dict[str, list[float]] = {r: [] for r in kilns}
    for result in results:
        if result.skipped:
            continue
        times = result.ms.get(count, {})
        eager = times.get("eager")
        xnn = times.get("et+xnn")
        row = [result.model, _ms(eager) if eager else notes.cite(result.unavailable["eager"])]
        for name in shown:
            if name in times:
                ratio = times[name] / eager if eager else None
                if ratio is not None:
                    over_eager[name].append(ratio)
                row.append(f"{_ms(times[name])} ({_ratio(ratio)})")
            else:
                row.append(notes.cite(result.unavailable.get(name, "not run")))
        for name in kilns:
            if name in times and xnn:
                over_xnn[name].append(times[name] / xnn)
                row.append(_ratio(times[name] / xnn))
            else:
                row.append("")
        rows.append(row)
    rows.append(
        ["median", ""]
        + [f"({_median(over_eager[r])})" if over_eager[r] else "" for r in shown]
        + [_median(over_xnn[r]) for r in kilns]
    )
    title = (
        "Milliseconds per run, 1 thread (median CPU time of the process per run)"
        if count == 1
        else f"Milliseconds per run, {count} threads (wall time, best run)"
    )
    lines = [f"### {title}", "", *_table(header, rows)]
    if notes.reasons:
        lines += ["", *notes.lines()]
    return lines


def load_table(results: Sequence[Result], runners: Sequence[str]) -> list[str]:
    shown = [r for r in runners if r != "eager"]
    header = ["model", "export s (torch.export / ET / XNN / kiln / ONNX)"] + [
        f"{TITLES[r]} load ms" for r in shown
    ]
    notes = Notes()
    rows = []
    for result in results:
        if result.skipped:
            continue
        export = " / ".join(
            f"{result.export_s[k]:.1f}" if k in result.export_s else "-"
            for k in ("torch.export", "et", "et+xnn", "kiln/kx", "ort")
        )
        row = [result.model, export]
        for name in shown:
            if name in result.load_ms:
                row.append(_ms(result.load_ms[name]))
            else:
                row.append(notes.cite(result.unavailable.get(name, "not run")))
        rows.append(row)
    lines = ["### Export and load times", "", *_table(header, rows)]
    if notes.reasons:
        lines += ["", *notes.lines()]
    return lines


def correctness_table(results: Sequence[Result], runners: Sequence[str]) -> list[str]:
    shown = [r for r in runners if r != "eager"]
    header = ["model", "max abs eager out"] + [f"{TITLES[r]} abs / rel" for r in shown]
    notes = Notes()
    rows = []
    for result in results:
        if result.skipped:
            continue
        row = [result.model, f"{result.scale:.3g}"]
        for name in shown:
            if name in result.errors:
                absolute, relative = result.errors[name]
                flag = " **!**" if not relative <= REL_TOLERANCE else ""
                row.append(f"{absolute:.1e} / {relative:.1e}{flag}")
            else:
                row.append(notes.cite(result.unavailable.get(name, "not run")))
        rows.append(row)
    lines = [
        "### Correctness against eager (worst over the thread counts)",
        "",
        f"Max abs error / that error over eager's largest |output|; **!** marks a relative error "
        f"above {REL_TOLERANCE:g}.",
        "",
        *_table(header, rows),
    ]
    if notes.reasons:
        lines += ["", *notes.lines()]
    return lines


def profile_lines(results: Sequence[Result], top: int) -> list[str]:
    lines = ["### Where Kiln's time goes (profile at 1 thread, each instruction's fastest run)"]
    for result in results:
        for name, rows in result.profiles.items():
            total = sum(ns for _, _, ns in rows)
            lines += [
                "",
                f"**{result.model}**, {TITLES[name]}: {total / 1e6:.2f} ms in {len(rows)} "
                f"operators, {sum(n for _, n, _ in rows)} instructions",
                "",
            ]
            table = []
            for op, instructions, ns in rows[:top]:
                share = 100 * ns / total if total else 0.0
                table.append([op, str(instructions), f"{ns / 1e6:.3f}", f"{share:.1f}%"])
            lines += _table(["operator", "instructions", "ms", "share"], table)
    return lines


def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return (
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {cpu}, {os.cpu_count()} cores, "
        f"load average {load}; torch {torch.__version__}, Python {platform.python_version()}"
    )


def report(
    results: Sequence[Result], threads: Sequence[int], runners: Sequence[str], top: int
) -> str:
    lines = [f"Measured {machine_line()}.", ""]
    notes = [f"- {r.model}: {r.note}" for r in results if r.note and not r.skipped]
    notes += [f"- {r.model}: skipped, {r.skipped}" for r in results if r.skipped]
    if notes:
        lines += ["Models:", *notes, ""]
    for count in threads:
        lines += [*timing_table(results, count, runners), ""]
    lines += [*load_table(results, runners), ""]
    lines += [*correctness_table(results, runners), ""]
    if any(r.profiles for r in results):
        lines += [*profile_lines(results, top), ""]
    return "\n".join(lines)


def benchmark(argv: Sequence[str] | None = None) -> tuple[list[Result], str]:
    """Runs the command line `argv`: the results and the markdown report (also printed)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--models", help="comma-separated zoo names (default: all but tiny_cnn)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--runs", type=int, help="timed runs per runner (default 20; --quick 3)")
    parser.add_argument(
        "--budget", type=float, help="seconds of timed runs per runner (default 3; --quick 0.5)"
    )
    parser.add_argument(
        "--runners",
        default=",".join(DEFAULT_RUNNERS),
        help=f"comma-separated: {', '.join(RUNNERS)} (default: all but the int8 ones)",
    )
    parser.add_argument("--profile", action="store_true", help="Kiln's time per operator")
    parser.add_argument("--top", type=int, default=8, help="operators per profile")
    parser.add_argument("--quick", action="store_true", help="few runs, one load each")
    parser.add_argument("--output", help="also write the markdown to this file")
    options = parser.parse_args(argv)

    names = options.models.split(",") if options.models else [m.name for m in ZOO[1:]]
    try:
        models = [zoo_model(name.strip()) for name in names]
    except KeyError as error:
        parser.error(str(error.args[0]))
    threads = [int(t) for t in options.threads.split(",")]
    runners = [r.strip() for r in options.runners.split(",")]
    unknown = [r for r in runners if r not in RUNNERS]
    if unknown or "eager" not in runners:
        parser.error(f"--runners takes {', '.join(RUNNERS)} and must include eager")
    runs = options.runs or (3 if options.quick else 20)
    budget = options.budget or (0.5 if options.quick else 3.0)
    results = []
    for model in models:
        start = time.perf_counter()
        try:
            result = measure(
                model,
                threads,
                runs,
                budget,
                load_repeats=1 if options.quick else 3,
                profile_runs=(1 if options.quick else 5) if options.profile else 0,
                runners=runners,
            )
        except Exception as error:  # the model itself (eager or torch.export) fails
            traceback.print_exc(file=sys.stderr)
            result = Result(model.name, model.note, skipped=f"failed: {_first_line(error)}")
        results.append(result)
        summary = {
            count: {k: round(v, 2) for k, v in ms.items()} for count, ms in result.ms.items()
        }
        print(
            f"{model.name}: {time.perf_counter() - start:.0f} s; ms {summary}; "
            f"export s { {k: round(v, 1) for k, v in result.export_s.items()} }; "
            f"unavailable {result.unavailable or result.skipped or '-'}",
            file=sys.stderr,
            flush=True,
        )
        gc.collect()
    text = report(results, threads, runners, options.top)
    print(text)
    if options.output:
        with open(options.output, "w") as out:
            out.write(text + "\n")
    return results, text


def main() -> None:
    benchmark()


if __name__ == "__main__":
    main()

"""A serving-shaped benchmark: a Llama-architecture decoder (random weights, fixed seed; 4
layers, hidden 512, 8 query heads over 2 kv heads, SwiGLU 1408, vocabulary 32000) serving a
batch of 8 prompts of mixed lengths (17..200 tokens): one packed prefill, then greedy decode
steps of all 8 sequences together, at 1 and 2 threads, on

- ``kiln``: Kiln's paged LLM operators through kiln.call_op (serving_decoders.KilnDecoder);
- ``eager``: the same model in eager PyTorch with scaled_dot_product_attention and a
  contiguous KV cache (serving_decoders.EagerDecoder);
- ``llama.cpp``: llama-cpp-python on a GGUF of the same weights: F32 computed as Kiln does
  (float32 KV cache, no flash attention), F32 weights in llama.cpp's default context (F16 KV
  cache, flash attention), F16 and Q8_0 (serving_llama_cpp.py); skipped with a note when
  llama_cpp or gguf is not installed (pyproject's ``bench`` extra; llama-cpp-python builds
  llama.cpp from source in 4-12 minutes with ``CMAKE_ARGS="-DGGML_NATIVE=ON -DGGML_BLAS=OFF"``).

Before timing, the correctness check: Kiln's greedy tokens must equal eager's at every step
(and their logits agree within float rounding); llama.cpp's prefill logits are compared with
eager's (max abs difference) and its greedy tokens counted against eager's.

Timing is wall time in one process, the runtimes interleaved trial by trial (each trial a full
prefill and decode), medians over the trials; at 1 thread the table adds the process's CPU
time per decode step, which other work on a shared machine disturbs less. ``--profile`` adds
where a decode step's time goes, section by section, in Kiln and in eager, Kiln's time per
operator, and the decode projections alone (Kiln's linear.out against ATen's).

    python bench/serving.py [--steps 32] [--trials 5] [--threads 1,2] [--profile]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent))

import serving_llama_cpp  # noqa: E402
import torch  # noqa: E402
from serving_decoders import Decoder, EagerDecoder, KilnDecoder, Laps  # noqa: E402
from serving_model import TINY, Batch, Config, Weights, random_weights  # noqa: E402

import kiln  # noqa: E402

# Kiln's and eager's logits may differ by float32 rounding in a different summation order.
LOGIT_TOLERANCE = 1e-3


class Runtime(Protocol):
    name: str
    precision: str

    def set_threads(self, threads: int) -> None: ...

    def prefill(self) -> torch.Tensor: ...

    def decode(self) -> torch.Tensor: ...

    def logits(self) -> torch.Tensor: ...


class TorchRuntime:
    """A decoder of serving_decoders under a name, with its runtime's thread setting."""

    def __init__(self, name: str, decoder: Decoder) -> None:
        self.name, self.precision, self.decoder = name, "F32", decoder

    def set_threads(self, threads: int) -> None:
        torch.set_num_threads(threads)
        kiln.set_num_threads(threads)

    def prefill(self) -> torch.Tensor:
        return self.decoder.prefill()

    def decode(self) -> torch.Tensor:
        return self.decoder.decode()

    def logits(self) -> torch.Tensor:
        return self.decoder.logits()


@dataclass
class Generated:
    tokens: torch.Tensor  # [steps + 1, sequences]
    logits: list[torch.Tensor]  # per step [sequences, vocab]


def generate(runtime: Runtime, steps: int, keep_logits: bool = True) -> Generated:
    tokens, logits = [runtime.prefill().clone()], [runtime.logits().clone()]
    for _ in range(steps):
        tokens.append(runtime.decode().clone())
        if keep_logits:
            logits.append(runtime.logits().clone())
    return Generated(torch.stack(tokens), logits)


@dataclass
class Timings:
    prefill_s: list[float] = field(default_factory=list)
    decode_s: list[float] = field(default_factory=list)  # all steps of a trial
    decode_cpu_s: list[float] = field(default_factory=list)  # the same in process CPU time


def time_trial(runtime: Runtime, steps: int, timings: Timings) -> None:
    start = time.perf_counter()
    runtime.prefill()
    prefilled, prefilled_cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        runtime.decode()
    timings.prefill_s.append(prefilled - start)
    timings.decode_s.append(time.perf_counter() - prefilled)
    timings.decode_cpu_s.append(time.process_time() - prefilled_cpu)


@dataclass(frozen=True)
class Row:
    runtime: str
    precision: str
    threads: int
    prefill_tok_s: float
    decode_tok_s: float
    ms_per_token: float  # one decode step: each sequence's time per generated token
    cpu_ms_per_token: float | None  # the same in process CPU time, at 1 thread


def measure(
    runtimes: Sequence[Runtime], batch: Batch, threads: Sequence[int], trials: int
) -> list[Row]:
    """Per thread count: one warm-up trial each, then `trials` rounds in which every runtime
    runs one trial, in an order rotated each round."""
    rows = []
    for count in threads:
        for runtime in runtimes:
            runtime.set_threads(count)
            time_trial(runtime, batch.steps, Timings())
        timings = {id(runtime): Timings() for runtime in runtimes}
        for trial in range(trials):
            shift = trial % len(runtimes)
            for runtime in [*runtimes[shift:], *runtimes[:shift]]:
                runtime.set_threads(count)
                time_trial(runtime, batch.steps, timings[id(runtime)])
        for runtime in runtimes:
            prefill = statistics.median(timings[id(runtime)].prefill_s)
            decode = statistics.median(timings[id(runtime)].decode_s)
            cpu = statistics.median(timings[id(runtime)].decode_cpu_s)
            rows.append(
                Row(
                    runtime=runtime.name,
                    precision=runtime.precision,
                    threads=count,
                    prefill_tok_s=batch.prefill_tokens / prefill,
                    decode_tok_s=batch.sequences * batch.steps / decode,
                    ms_per_token=1e3 * decode / batch.steps,
                    cpu_ms_per_token=1e3 * cpu / batch.steps if count == 1 else None,
                )
            )
    return rows


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| runtime | precision | threads | prefill tok/s | decode tok/s | ms/token | "
        "CPU ms/token |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        cpu = "" if row.cpu_ms_per_token is None else f"{row.cpu_ms_per_token:.2f}"
        lines.append(
            f"| {row.runtime} | {row.precision} | {row.threads} | {row.prefill_tok_s:.0f} | "
            f"{row.decode_tok_s:.0f} | {row.ms_per_token:.2f} | {cpu} |"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class Check:
    runtime: str
    tokens_equal: int  # greedy tokens equal to eager's, out of `tokens`
    tokens: int
    prefill_max_diff: float  # max |logit - eager's| over the prefill's last rows
    decode_max_diff: float | None  # the same over every decode step, while tokens agree

    def line(self) -> str:
        decode = "" if self.decode_max_diff is None else f", decode {self.decode_max_diff:.3g}"
        return (
            f"| {self.runtime} | {self.tokens_equal}/{self.tokens} | "
            f"prefill {self.prefill_max_diff:.3g}{decode} |"
        )


def check(runtime: Runtime, reference: Generated, steps: int) -> Check:
    got = generate(runtime, steps)
    equal = got.tokens == reference.tokens
    # Logits are comparable while the two runs fed the same tokens.
    agreeing = int(equal.all(dim=1).long().cumprod(0).sum())
    diffs = [
        float((mine - theirs).abs().max())
        for mine, theirs in zip(got.logits[:agreeing], reference.logits[:agreeing], strict=False)
    ]
    return Check(
        runtime=f"{runtime.name} {runtime.precision}",
        tokens_equal=int(equal.sum()),
        tokens=equal.numel(),
        prefill_max_diff=float((got.logits[0] - reference.logits[0]).abs().max()),
        decode_max_diff=max(diffs[1:]) if len(diffs) > 1 else None,
    )


class CallTimes:
    """kiln.call_op with each call's thread CPU time added to its operator's total."""

    def __init__(self) -> None:
        self.ns: dict[str, int] = defaultdict(int)
        self.calls: dict[str, int] = defaultdict(int)

    def __call__(self, name: str, *args: Any, **kwargs: Any) -> Any:
        start = time.thread_time_ns()
        result = kiln.call_op(name, *args, **kwargs)
        self.ns[name] += time.thread_time_ns() - start
        self.calls[name] += 1
        return result


def profile_decoder(decoder: Decoder, steps: int, trials: int) -> dict[str, float]:
    """Microseconds per decode step in each section, the median over `trials` runs."""
    per_trial: dict[str, list[float]] = defaultdict(list)
    for _ in range(trials):
        decoder.laps = None
        decoder.prefill()
        laps = Laps()
        decoder.laps = laps
        for _ in range(steps):
            laps.start()
            decoder.decode()
        for name, ns in laps.ns.items():
            per_trial[name].append(ns / steps / 1e3)
    decoder.laps = None
    return {name: statistics.median(values) for name, values in per_trial.items()}


SECTIONS = (
    "embedding",
    "norm",
    "qkv_proj",
    "rotary",
    "cache_write",
    "attention",
    "o_proj",
    "gate_up_proj",
    "activation",
    "down_proj",
    "lm_head",
    "sample",
)


def section_weight_bytes(config: Config) -> dict[str, int]:
    """The weight bytes each projection section reads in one decode step (float32)."""
    c = config
    return {
        "qkv_proj": 4 * c.layers * c.qkv_rows * c.hidden,
        "o_proj": 4 * c.layers * c.hidden * c.q_size,
        "gate_up_proj": 4 * c.layers * 2 * c.intermediate * c.hidden,
        "down_proj": 4 * c.layers * c.hidden * c.intermediate,
        "lm_head": 4 * c.vocab * c.hidden,
    }


def profile(
    config: Config, weights: Weights, batch: Batch, trials: int
) -> tuple[str, dict[str, float], dict[str, float]]:
    """The decode profile at 1 thread: sections of Kiln and eager side by side, Kiln's time per
    operator, and the decode step's projections alone."""
    torch.set_num_threads(1)
    kiln.set_num_threads(1)
    kiln_decoder = KilnDecoder(config, weights, batch)
    eager_decoder = EagerDecoder(config, weights, batch)
    kiln_sections: dict[str, list[float]] = defaultdict(list)
    eager_sections: dict[str, list[float]] = defaultdict(list)
    for _ in range(trials):  # interleaved, one trial each per round
        for name, us in profile_decoder(kiln_decoder, batch.steps, 1).items():
            kiln_sections[name].append(us)
        for name, us in profile_decoder(eager_decoder, batch.steps, 1).items():
            eager_sections[name].append(us)
    kiln_us = {name: statistics.median(v) for name, v in kiln_sections.items()}
    eager_us = {name: statistics.median(v) for name, v in eager_sections.items()}
    weight_bytes = section_weight_bytes(config)
    lines = [
        "### Decode step by section, 1 thread (thread CPU us per step, median of trials)",
        "",
        "GB/s: the section's weight bytes read per step over its time. In the loop the "
        f"weights come from memory: the head's {weight_bytes['lm_head'] / 1e6:.0f} MB evicts "
        "the caches each step.",
        "",
        "| section | weights MB | Kiln | eager | Kiln / eager | Kiln GB/s | eager GB/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in SECTIONS:
        k, e = kiln_us.get(name, 0.0), eager_us.get(name, 0.0)
        mb = weight_bytes.get(name, 0) / 1e6
        rates = (f"{mb / k * 1e3:.1f} | {mb / e * 1e3:.1f}") if mb and k and e else " | "
        lines.append(
            f"| {name} | {f'{mb:.1f}' if mb else ''} | {k:.0f} | {e:.0f} | "
            f"{k / e if e else float('nan'):.2f} | {rates} |"
        )
    k_total, e_total = sum(kiln_us.values()), sum(eager_us.values())
    total_mb = sum(weight_bytes.values()) / 1e6
    lines.append(
        f"| **total** | {total_mb:.1f} | {k_total:.0f} | {e_total:.0f} | "
        f"{k_total / e_total:.2f} | {total_mb / k_total * 1e3:.1f} | "
        f"{total_mb / e_total * 1e3:.1f} |"
    )

    # Kiln's time inside kiln.call_op per operator; the rest of a section is Python glue.
    timer = CallTimes()
    kiln_decoder.call = timer
    kiln_decoder.prefill()
    timer.ns.clear()
    timer.calls.clear()
    for _ in range(batch.steps):
        kiln_decoder.decode()
    kiln_decoder.call = kiln.call_op
    lines += [
        "",
        "### Kiln's decode step by operator, 1 thread (thread CPU time inside kiln.call_op)",
        "",
        "| operator | calls per step | us per step | share |",
        "|---|---|---|---|",
    ]
    inside = sum(timer.ns.values())
    for name, ns in sorted(timer.ns.items(), key=lambda item: -item[1]):
        lines.append(
            f"| `{name}` | {timer.calls[name] // batch.steps} | {ns / batch.steps / 1e3:.0f} | "
            f"{100 * ns / inside:.0f}% |"
        )
    calls = sum(timer.calls.values()) // batch.steps
    lines.append(f"| all | {calls} | {inside / batch.steps / 1e3:.0f} | 100% |")
    lines += ["", *projections(config, weights, batch, trials)]
    return "\n".join(lines), kiln_us, eager_us


def projections(config: Config, weights: Weights, batch: Batch, trials: int) -> list[str]:
    """Each decode projection alone (one row per sequence), and the head at 1 and 16 rows:
    Kiln's aten::linear.out against torch's F.linear(out=), interleaved, and the weight bytes
    each reads per microsecond."""
    n = batch.sequences
    layer = weights.layers[0]
    cases: list[tuple[str, torch.Tensor, int]] = [
        ("qkv_proj", layer.qkv, n),
        ("o_proj", layer.out, n),
        ("gate_up_proj", layer.gate_up, n),
        ("down_proj", layer.down, n),
        ("lm_head", weights.lm_head, n),
        ("lm_head", weights.lm_head, 1),
        ("lm_head", weights.lm_head, 2 * n),
    ]
    lines = [
        "### Decode projections alone, 1 thread (median thread CPU us per call)",
        "",
        "| projection | rows | weight | Kiln linear.out | ATen linear | Kiln GB/s | ATen GB/s | "
        "Kiln / ATen |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, weight, rows in cases:
        x = torch.randn(rows, weight.shape[1])
        out = torch.empty(rows, weight.shape[0])
        repeats = max(1, int(2e6 // weight.numel()))

        def kiln_call(x: torch.Tensor = x, w: torch.Tensor = weight, o: torch.Tensor = out) -> None:
            kiln.call_op("aten::linear.out", x, w, None, out=o)

        def aten_call(x: torch.Tensor = x, w: torch.Tensor = weight, o: torch.Tensor = out) -> None:
            torch.nn.functional.linear(x, w, out=o)  # type: ignore[call-arg]

        k_us, a_us = interleaved(kiln_call, aten_call, repeats, 3 * trials)
        gb = weight.numel() * weight.element_size() / 1e3
        lines.append(
            f"| {name} | {rows} | {weight.shape[0]}x{weight.shape[1]} | {k_us:.1f} | "
            f"{a_us:.1f} | {gb / k_us:.1f} | {gb / a_us:.1f} | {k_us / a_us:.2f} |"
        )
    stream = torch.ones(64 << 20)  # 256 MB, far beyond the caches

    def read() -> None:
        stream.sum()

    sum_us, _ = interleaved(read, read, 1, trials)
    lines += [
        "",
        "Alone, the layers' weights stay in the caches between calls (the head's do not), "
        "unlike in the decode loop. For scale, one thread reads memory at "
        f"{stream.numel() * 4 / sum_us / 1e3:.1f} GB/s (torch.sum over 256 MB).",
    ]
    return lines


def interleaved(
    first: Callable[[], None], second: Callable[[], None], repeats: int, rounds: int
) -> tuple[float, float]:
    """Median microseconds (thread CPU time) per call of each, timed in alternating batches of
    `repeats`."""
    times: tuple[list[float], list[float]] = ([], [])
    for fn in (first, second):
        fn()
    for _ in range(rounds):
        for fn, out in zip((first, second), times, strict=True):
            start = time.thread_time_ns()
            for _ in range(repeats):
                fn()
            out.append((time.thread_time_ns() - start) / repeats / 1e3)
    return statistics.median(times[0]), statistics.median(times[1])


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="a tiny model (tests)")
    parser.add_argument("--steps", type=int, default=32, help="decode steps after the prefill")
    parser.add_argument("--trials", type=int, default=5, help="timed trials per runtime")
    parser.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2")
    parser.add_argument(
        "--runtimes", default="kiln,eager,llama.cpp", help="any of kiln, eager, llama.cpp"
    )
    parser.add_argument(
        "--precisions",
        default=",".join(serving_llama_cpp.PRECISIONS),
        help="llama.cpp's rows: F32 (as Kiln computes), F32+kvF16 (its default F16 KV cache and "
        "flash attention), F16, Q8_0",
    )
    parser.add_argument("--rope", choices=("neox", "gptj"), default="neox")
    parser.add_argument("--profile", action="store_true", help="where a decode step goes")
    parser.add_argument("--no-timing", action="store_true", help="the correctness check only")
    parser.add_argument("--gguf-dir", help="where to write the GGUF files (default: a temp dir)")
    return parser.parse_args(argv)


@dataclass
class Report:
    text: str
    checks: list[Check]
    rows: list[Row]
    notes: list[str]
    kiln_sections: dict[str, float] = field(default_factory=dict)
    eager_sections: dict[str, float] = field(default_factory=dict)


def benchmark(argv: Sequence[str] | None = None) -> Report:
    args = parse_args(argv)
    base = TINY if args.tiny else Config()
    config = Config(**{**base.__dict__, "is_neox": args.rope == "neox"})
    shortest, longest = (5, 40) if args.tiny else (17, 200)
    batch = Batch.make(config, shortest=shortest, longest=longest, steps=args.steps)
    weights = random_weights(config)
    threads = [int(t) for t in args.threads.split(",")]
    wanted = set(args.runtimes.split(","))
    notes: list[str] = []
    load_before = os.getloadavg()

    torch.set_num_threads(threads[0])
    kiln.set_num_threads(threads[0])
    eager = TorchRuntime("eager", EagerDecoder(config, weights, batch))
    reference = generate(eager, batch.steps)
    runtimes: list[Runtime] = []
    checks: list[Check] = []
    if "kiln" in wanted:
        kiln.reset_strided_copies()
        runtime: Runtime = TorchRuntime("kiln", KilnDecoder(config, weights, batch))
        checks.append(check(runtime, reference, batch.steps))
        copies = kiln.strided_copies()
        if copies:
            notes.append(
                "Kiln's strided-tensor copies in one prefill and decode (kiln.strided_copies()): "
                + ", ".join(f"`{op}` {n}" for op, n in sorted(copies.items()))
            )
        runtimes.append(runtime)
    if "eager" in wanted:
        runtimes.append(eager)
    if "llama.cpp" in wanted:
        missing = serving_llama_cpp.missing()
        if missing:
            notes.append(f"llama.cpp skipped: {missing}")
        else:
            for precision in args.precisions.split(","):
                runtime = serving_llama_cpp.LlamaCppRuntime(
                    config, weights, batch, precision, args.gguf_dir
                )
                checks.append(check(runtime, reference, batch.steps))
                runtimes.append(runtime)
            notes.append(serving_llama_cpp.NOTE)

    rows = [] if args.no_timing else measure(runtimes, batch, threads, args.trials)
    sections: tuple[dict[str, float], dict[str, float]] = ({}, {})
    profile_text = ""
    if args.profile:
        profile_text, *rest = profile(config, weights, batch, args.trials)
        sections = (rest[0], rest[1])
    load_after = os.getloadavg()

    lines = [
        f"## Serving-shaped decode ({datetime.now(timezone.utc):%Y-%m-%d})",
        "",
        f"Model: {config.layers} layers, hidden {config.hidden}, {config.heads} heads over "
        f"{config.kv_heads} kv heads of {config.head_size}, intermediate {config.intermediate}, "
        f"vocabulary {config.vocab}, {'NeoX' if config.is_neox else 'GPT-J'} rotary, "
        f"{config.parameters() / 1e6:.1f}M parameters (float32). Batch: {batch.sequences} "
        f"prompts of {', '.join(map(str, batch.lengths))} tokens ({batch.prefill_tokens} in "
        f"one packed prefill), then {batch.steps} greedy decode steps of all sequences. "
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, load average "
        f"{load_before[0]:.1f} before and {load_after[0]:.1f} after. Wall time, runtimes "
        f"interleaved, median of {args.trials} trials; ms/token is one decode step (each "
        "sequence's time per token).",
        "",
        "### Correctness against eager PyTorch (greedy tokens, max |logit difference|)",
        "",
        "| runtime | tokens equal | logits |",
        "|---|---|---|",
        *[c.line() for c in checks],
    ]
    if rows:
        lines += ["", "### Tokens per second", "", table(rows)]
    if notes:
        lines += ["", *[f"- {note}" for note in notes]]
    if profile_text:
        lines += ["", profile_text]
    return Report("\n".join(lines), checks, rows, notes, *sections)


def main(argv: Sequence[str] | None = None) -> int:
    report = benchmark(argv)
    print(report.text)
    kiln_check = next((c for c in report.checks if c.runtime.startswith("kiln")), None)
    if kiln_check is not None and kiln_check.tokens_equal != kiln_check.tokens:
        print("serving.py: Kiln's greedy tokens differ from eager's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

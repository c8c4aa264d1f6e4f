"""Exports model.py's decoder once with kiln.export, then decodes greedily with the program:
the prompt token by token, then `--steps` decode steps, each feeding the previous step's argmax.
Prints the tokens, the largest logit difference against reference.py (plain PyTorch, same
weights), and the mean step latency of both (thread CPU time, 1 thread).

    python decode.py [--backends portable | ascend,portable] [--steps 32] [--pte out.pte]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from model import Config, KilnDecoder, Weights, random_weights
from reference import ReferenceDecoder

import kiln

PROMPT = (1, 72, 101, 108, 108, 111, 44, 32)  # any tokens below Config.vocab
BLOCK_TABLE = (4, 1, 3)  # the sequence's cache blocks, out of order: paging is exercised
STEPS = 32

StepFn = Callable[[int, int], torch.Tensor]  # (token, position) -> logits [1, vocab]


@dataclass(frozen=True)
class Decoded:
    tokens: list[int]  # the generated tokens: the prefill's argmax, then one per decode step
    logits: torch.Tensor  # [len(tokens), vocab]: the logits each token is the argmax of
    step_ns: list[int]  # thread CPU time of each decode step's call


def step_inputs(config: Config, token: int, position: int) -> tuple[torch.Tensor, ...]:
    """The program's inputs for `token` at `position` of the sequence whose blocks are
    BLOCK_TABLE: where its key and value go, and how many tokens it attends to."""
    block = BLOCK_TABLE[position // config.block_size]
    slot = block * config.block_size + position % config.block_size
    return (
        torch.tensor([token]),
        torch.tensor([position]),
        torch.tensor([slot]),
        torch.tensor([BLOCK_TABLE], dtype=torch.int32),
        torch.tensor([position + 1], dtype=torch.int32),
    )


def generate(step: StepFn, prompt: Sequence[int], steps: int) -> Decoded:
    """Greedy decoding: the prompt one token per step, then `steps` steps on the argmax."""
    logits = step(prompt[0], 0)
    for position, token in enumerate(prompt[1:], start=1):
        logits = step(token, position)
    tokens, rows, step_ns = [int(logits.argmax())], [logits[0]], []
    for position in range(len(prompt), len(prompt) + steps):
        start = time.thread_time_ns()
        logits = step(tokens[-1], position)
        step_ns.append(time.thread_time_ns() - start)
        tokens.append(int(logits.argmax()))
        rows.append(logits[0])
    return Decoded(tokens, torch.stack(rows), step_ns)


def export_decoder(config: Config, weights: Weights, path: str | Path | None = None) -> bytes:
    """The decoder as a program, exported once: every step runs it with new step inputs."""
    return kiln.export(KilnDecoder(config, weights), step_inputs(config, 0, 0), path)


def program_step(config: Config, program: kiln.Program) -> StepFn:
    def step(token: int, position: int) -> torch.Tensor:
        (logits,) = program.run(*step_inputs(config, token, position))
        assert isinstance(logits, torch.Tensor)
        return logits

    return step


def decode_program(
    config: Config, data: bytes, backends: Sequence[str], steps: int = STEPS
) -> Decoded:
    """A freshly loaded program (empty caches) decoding PROMPT."""
    program = kiln.load(data, backends=tuple(backends))
    return generate(program_step(config, program), PROMPT, steps)


def decode_reference(config: Config, weights: Weights, steps: int = STEPS) -> Decoded:
    return generate(ReferenceDecoder(config, weights).step, PROMPT, steps)


def mean_us(step_ns: list[int]) -> float:
    return sum(step_ns) / len(step_ns) / 1000.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="portable", help="e.g. portable or ascend,portable")
    parser.add_argument("--steps", type=int, default=STEPS, help="decode steps after the prompt")
    parser.add_argument("--pte", help="also write the program here (for decode_main)")
    args = parser.parse_args(argv)
    config = Config()
    if not 1 <= len(PROMPT) + args.steps <= config.max_positions:
        parser.error(f"--steps must be in 1..{config.max_positions - len(PROMPT)}")
    torch.set_num_threads(1)
    weights = random_weights(config)
    try:
        data = export_decoder(config, weights, args.pte)
        program = decode_program(config, data, args.backends.split(","), args.steps)
    except kiln.KilnError as error:
        print(f"decode.py: {error}", file=sys.stderr)
        return 1
    reference = decode_reference(config, weights, args.steps)
    difference = float((program.logits - reference.logits).abs().max())
    print(f"prompt:    {' '.join(map(str, PROMPT))}")
    print(f"program:   {' '.join(map(str, program.tokens))}")
    print(f"reference: {' '.join(map(str, reference.tokens))}")
    print(f"tokens equal: {program.tokens == reference.tokens}")
    print(f"max |logit difference|: {difference:.3g}")
    kiln_us, eager_us = mean_us(program.step_ns), mean_us(reference.step_ns)
    print(
        f"decode step ({args.backends}, thread CPU time, 1 thread): program {kiln_us:.0f} us, "
        f"eager PyTorch reference {eager_us:.0f} us, ratio {kiln_us / eager_us:.2f}x"
    )
    return 0 if program.tokens == reference.tokens else 1


if __name__ == "__main__":
    sys.exit(main())

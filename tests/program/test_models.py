"""The models a Kiln user must be able to run: exported by ExecuTorch's exporter and by
kiln.export, run by kiln.load on the portable backend and on the emulated Ascend backend (with the
fallback to portable counted), each matching eager PyTorch at rtol 1e-4 / atol 1e-5."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from executorch_export import pte_bytes
from models import ZOO, ZooModel

import kiln

RTOL, ATOL = 1e-4, 1e-5
RUNS_OF_STATEFUL = 3

EXPORTERS: dict[str, Callable[[torch.nn.Module, tuple[torch.Tensor, ...]], bytes]] = {
    "executorch": pte_bytes,
    "kiln": lambda module, inputs: kiln.export(module, inputs),
}
BACKENDS = {"portable": ("portable",), "ascend": ("ascend", "portable")}


def _as_tuple(value: object) -> tuple[torch.Tensor, ...]:
    return value if isinstance(value, tuple) else (value,)  # type: ignore[return-value]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("exporter", sorted(EXPORTERS))
@pytest.mark.parametrize("model", ZOO, ids=[m.name for m in ZOO])
def test_model_matches_eager(model: ZooModel, exporter: str, backend: str) -> None:
    module, inputs = model.create()
    # Export from a copy: exporting must not disturb the module whose state is the reference.
    exported_from, _ = model.create()
    program = kiln.load(EXPORTERS[exporter](exported_from, inputs), backends=BACKENDS[backend])
    kiln.reset_fallback_stats()
    runs = RUNS_OF_STATEFUL if model.stateful else 1
    for run in range(runs):
        with torch.no_grad():
            expected = _as_tuple(module(*inputs))
        actual = program.run(*inputs, profile=True)
        assert len(actual) == len(expected)
        for got, want in zip(actual, expected, strict=True):
            torch.testing.assert_close(got, want, rtol=RTOL, atol=ATOL, msg=f"run {run}")
    # Calls on constants ran once at load ("folded"), batch norms and activations fused at load
    # did not run ("fused"); the others ran on the backends.
    served = {
        row.backend
        for row in program.last_profile()
        if row.op and row.backend not in ("folded", "fused")
    }
    if backend == "portable":
        assert served == {"portable"}
    else:
        # Ops with an Ascend kernel run there; the others fall back, and each fallback counts.
        fallbacks = sum(
            row.op != "" and row.backend == "portable" for row in program.last_profile()
        )
        assert served <= {"ascend", "portable"}
        recorded = sum(record[3] for record in kiln.fallback_records())
        assert recorded == fallbacks * runs

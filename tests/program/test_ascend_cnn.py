"""The zoo CNN on the emulated Ascend910B: its convolutions, batch norms and max pooling run on
Ascend kernels, from both exporters (no fallback for them)."""

from __future__ import annotations

import pytest
import torch
from executorch_export import pte_bytes
from models import ZOO

import kiln
import kiln.ascend

ASCEND_OPS = {
    "aten::convolution.out",
    "aten::_native_batch_norm_legit_no_training.out",
    "aten::max_pool2d_with_indices.out",
}


@pytest.mark.parametrize("exporter", ["executorch", "kiln"])
def test_cnn_layers_run_on_ascend(exporter: str) -> None:
    model = next(m for m in ZOO if m.name == "cnn")
    module, inputs = model.create()
    exported_from, _ = model.create()
    if exporter == "executorch":
        data = pte_bytes(exported_from, inputs)
    else:
        data = kiln.export(exported_from, inputs)
    # Unfused: fusion at load would fold the batch norms into the convolutions' weights.
    program = kiln.load(data, backends=("ascend", "portable"), fuse=False)
    previous = kiln.ascend.soc()
    kiln.ascend.set_soc("Ascend910B")
    try:
        actual = program.run(*inputs, profile=True)
    finally:
        kiln.ascend.set_soc(previous)
    with torch.no_grad():
        expected = module(*inputs)
    torch.testing.assert_close(actual[0], expected, rtol=1e-4, atol=1e-5)
    served = {(row.op, row.backend) for row in program.last_profile() if row.op in ASCEND_OPS}
    assert served == {(op, "ascend") for op in ASCEND_OPS}

"""Programs lowered with ExecuTorch 1.5.1's XNNPACK partitioner: Kiln's XnnpackBackend delegate
runs their float and int8 graphs on Kiln's kernels (NHWC convolutions and pooling included),
matching eager PyTorch and ExecuTorch's own runtime on the same file, on the portable backend and
on ascend-then-portable. Graphs it does not run (other node kinds) and damaged payloads are
refused at load, naming the node or what is wrong."""

from __future__ import annotations

import importlib.util
import re
import struct
from collections.abc import Callable

import pytest
import torch
from executorch_export import ExecuTorchMethod, quantized_module, xnnpack_pte_bytes
from models import zoo_model
from torch import nn

import kiln
from buildtools import REPO_ROOT, load_script

Inputs = tuple[torch.Tensor, ...]
Create = Callable[[], tuple[nn.Module, Inputs]]
Exported = dict[str, tuple[nn.Module, Inputs, bytes]]

RTOL = 1e-4
ATOL = 1e-4  # convolutions' and linears' sums in another order than eager's / XNNPACK's
BACKENDS = [("portable",), ("ascend", "portable")]


class MobileNetish(nn.Module):
    """mobilenet_v2's pieces: a strided stem with batch norm and ReLU6, an inverted residual
    (1x1 expand, 3x3 depthwise, 1x1 project, residual add), hardswish, average pooling, global
    average pooling and a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8))
        self.expand = nn.Conv2d(8, 24, 1)
        self.depthwise = nn.Conv2d(24, 24, 3, padding=1, groups=24)
        self.project = nn.Conv2d(24, 8, 1)
        self.pool = nn.AvgPool2d(2)
        self.head = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = nn.functional.relu6(self.stem(x))
        y = nn.functional.relu6(self.expand(x))
        y = nn.functional.relu6(self.depthwise(y))
        x = nn.functional.hardswish(x + self.project(y))
        x = self.pool(x)
        return self.head(x.mean(dim=(2, 3), keepdim=True).flatten(1))


class ManyNodes(nn.Module):
    """One of most float nodes the partitioner emits besides the models': element-wise binary
    and unary ones, clamp, a ceil-mode max pool, padding, slicing, concatenation, a permute that
    is no layout change, softmax, and batch matrix multiplication."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, stride=1, padding=1, dilation=1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        a = torch.maximum(x, y) - torch.minimum(x, y) / (y.abs() + 1.0)
        b = torch.sigmoid(a) * torch.tanh(-a) + torch.sqrt(a.abs())
        c = nn.functional.leaky_relu(b, 0.2) + nn.functional.elu(a, 0.5)
        c = torch.clamp(c, -0.75, 0.8) + torch.floor(x) + torch.ceil(y) + torch.exp(-x.abs())
        image = nn.functional.pad(c, (1, 2, 0, 1), value=0.25)
        image = nn.functional.max_pool2d(self.conv(image), 2, ceil_mode=True)
        sliced = torch.cat([image[:, 1:4], image[:, :2] * 2.0], dim=1)
        rows = c.flatten(2)  # [n, c, h*w]
        scores = torch.softmax(torch.bmm(rows, rows.permute(0, 2, 1)), dim=-1)
        return sliced, scores, nn.functional.gelu(c).permute(0, 2, 1, 3)


def _seeded(*shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(3)
    return tuple(torch.randn(shape, generator=generator) for shape in shapes)


def _own(build: Callable[[], nn.Module], *shapes: tuple[int, ...]) -> Create:
    def create() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
        torch.manual_seed(0)
        module = build().eval()
        for name, buffer in module.named_buffers():
            if "running_" in name:
                buffer.uniform_(0.5, 1.5)
        return module, _seeded(*shapes)

    return create


def _mobilenet_v2() -> tuple[nn.Module, Inputs]:
    # bench/models.py imports torchvision beside the CPU torch (its compiled ops do not load).
    bench = load_script(REPO_ROOT / "bench" / "models.py", "models_bench")
    torch.manual_seed(0)
    return bench._torchvision().models.mobilenet_v2().eval(), _seeded((1, 3, 224, 224))


MODELS: dict[str, Create] = {
    "mlp": zoo_model("mlp").create,
    "cnn": zoo_model("cnn").create,
    "transformer_block": zoo_model("transformer_block").create,
    "encoder_layer": zoo_model("encoder_layer").create,
    "two_in_two_out": zoo_model("two_in_two_out").create,
    "views_of_input": zoo_model("views_of_input").create,
    "mobilenetish": _own(MobileNetish, (2, 3, 16, 16)),
    "many_nodes": _own(ManyNodes, (2, 4, 5, 6), (2, 4, 5, 6)),
    "mobilenet_v2": _mobilenet_v2,
}


@pytest.fixture(scope="module")
def exported() -> Exported:
    """Each model's program, exported once per module when a test first needs it."""
    return {}


def _model(exported: Exported, name: str) -> tuple[nn.Module, Inputs, bytes]:
    if name == "mobilenet_v2" and importlib.util.find_spec("torchvision") is None:
        pytest.skip("torchvision is not installed (bench/setup.sh installs it)")
    if name not in exported:
        module, inputs = MODELS[name]()
        exported[name] = (module, inputs, xnnpack_pte_bytes(module, inputs))
    return exported[name]


def _outputs(value: object) -> tuple[torch.Tensor, ...]:
    return value if isinstance(value, tuple) else (value,)  # type: ignore[return-value]


@pytest.mark.parametrize("backends", BACKENDS, ids=lambda b: "+".join(b))
@pytest.mark.parametrize("name", list(MODELS))
def test_runs_like_eager_and_executorch(exported: Exported, name: str, backends: tuple) -> None:
    module, inputs, pte = _model(exported, name)
    program = kiln.load(pte, backends=backends)
    kinds = {row.kind for row in program.instructions()}
    assert "DelegateCall" in kinds
    with torch.no_grad():
        want = _outputs(module(*inputs))
    reference = ExecuTorchMethod(pte).run(*inputs)
    for run in range(2):  # the second run reuses the delegate's tensors
        got = program.run(*inputs)
        assert len(got) == len(want) == len(reference)
        for g, w, r in zip(got, want, reference, strict=True):
            torch.testing.assert_close(g, w, rtol=RTOL, atol=ATOL, msg=f"{name} run {run} eager")
            torch.testing.assert_close(g, r, rtol=RTOL, atol=ATOL, msg=f"{name} run {run} ET")


@pytest.mark.parametrize("name", ["cnn", "transformer_block"])
def test_a_half_precision_graph_runs_in_half(name: str) -> None:
    # ExecuTorch keeps the fp16 graph's convolution and linear weights in fp32 (XNNPACK converts
    # them): the delegate converts them once at load, and computes in Half as ExecuTorch does.
    module, inputs = zoo_model(name).create()
    with torch.no_grad():
        want = module(*inputs)
    module, inputs = module.half(), tuple(x.half() for x in inputs)
    pte = xnnpack_pte_bytes(module, inputs)
    got = kiln.load(pte).run(*inputs)[0]
    assert got.dtype == torch.float16
    reference = ExecuTorchMethod(pte).run(*inputs)[0]
    torch.testing.assert_close(got, reference, rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(got.float(), want, rtol=1e-2, atol=1e-2)


def test_new_inputs_are_bound_at_each_run(exported: Exported) -> None:
    module, inputs, pte = _model(exported, "cnn")
    program = kiln.load(pte)
    for seed in range(3):
        x = torch.randn(inputs[0].shape, generator=torch.Generator().manual_seed(seed))
        with torch.no_grad():
            torch.testing.assert_close(program.run(x)[0], module(x), rtol=RTOL, atol=ATOL)


def test_instructions_and_profile_name_the_delegate(exported: Exported) -> None:
    _, inputs, pte = _model(exported, "transformer_block")
    program = kiln.load(pte)
    program.run(*inputs, profile=True)
    rows = program.last_profile()
    delegated = [row for row in rows if row.kind == "DelegateCall"]
    assert len(delegated) == 5 and {row.op for row in delegated} == {"XnnpackBackend"}
    # The layer norms the partitioner leaves run as kernel calls between the delegate calls.
    assert any(row.op == "aten::native_layer_norm.out" for row in rows)
    assert "XnnpackBackend" in str(rows)


def test_a_stateful_program_keeps_its_buffer_across_runs() -> None:
    module, inputs = zoo_model("accumulator").create()
    program = kiln.load(xnnpack_pte_bytes(module, inputs))
    for run in range(3):
        with torch.no_grad():
            want = module(*inputs)
        torch.testing.assert_close(program.run(*inputs)[0], want, msg=f"run {run}")


# The int8 graphs of the XNNPACK quantizer (per-channel int8 weights; activations static or
# dynamic, per token, as XNNPACK quantizes them). The many_nodes model is left out of the dynamic
# ones: ExecuTorch's partitioner declares an NHWC value's consumers with NCHW dims there, and its
# own runtime fails on the file too.
QUANTIZED = ["mlp", "cnn", "transformer_block", "encoder_layer", "two_in_two_out", "mobilenetish"]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", QUANTIZED)
def test_an_int8_graph_runs_like_executorch(name: str, dynamic: bool) -> None:
    module, inputs = MODELS[name]()
    quantized = quantized_module(module, inputs, [inputs], dynamic=dynamic)
    pte = xnnpack_pte_bytes(quantized, inputs)
    got = kiln.load(pte).run(*inputs)
    reference = ExecuTorchMethod(pte).run(*inputs)
    for g, r in zip(got, reference, strict=True):
        step = float(r.max() - r.min()) / 255  # about one int8 step over the output's range
        assert step > 0, "a degenerate output checks nothing"
        if dynamic:  # float outputs: only float sums in another order differ
            torch.testing.assert_close(g, r, rtol=0, atol=step / 4)
        else:
            # Integer arithmetic (XNNPACK's) and float sums rounded onto the same grid (Kiln's)
            # part where a sum lands on a rounding boundary; most values match to float precision.
            torch.testing.assert_close(g, r, rtol=0, atol=step)
            close = torch.isclose(g, r, rtol=1e-5, atol=1e-6).float().mean().item()
            assert close >= 0.5, f"only {close:.0%} of the outputs match ExecuTorch's"


def test_an_int8_graph_runs_on_the_ascend_backend() -> None:
    module, inputs = MODELS["cnn"]()
    pte = xnnpack_pte_bytes(quantized_module(module, inputs, [inputs]), inputs)
    portable = kiln.load(pte).run(*inputs)[0]
    program = kiln.load(pte, backends=("ascend", "portable"))
    torch.testing.assert_close(program.run(*inputs)[0], portable, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("per_row", [False, True], ids=["groups-of-32", "rows"])
def test_4_bit_weights_run_like_executorch(per_row: bool) -> None:
    # torchao's int8 dynamic activations with 4-bit weights (the LLM export's 8da4w): XNNPACK's
    # QBINT4, two integers to a byte with a bfloat16 scale per group; a group of a whole row is
    # how the partitioner writes per-channel 4-bit weights too.
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig, quantize_
    from torchao.quantization.granularity import PerAxis, PerGroup

    torch.manual_seed(0)
    module = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 7, bias=False)).eval()
    config = Int8DynamicActivationIntxWeightConfig(
        weight_dtype=torch.int4, weight_granularity=PerAxis(0) if per_row else PerGroup(32)
    )
    quantize_(module, config)
    inputs = (torch.randn(3, 128),)
    pte = xnnpack_pte_bytes(module, inputs)
    got = kiln.load(pte).run(*inputs)[0]
    reference = ExecuTorchMethod(pte).run(*inputs)[0]
    torch.testing.assert_close(got, reference, rtol=1e-5, atol=1e-6)


def test_a_node_kind_it_does_not_run_is_refused_naming_it() -> None:
    module = nn.Sequential(nn.Conv2d(3, 4, 1), nn.PReLU(4)).eval()
    pte = xnnpack_pte_bytes(module, (torch.randn(1, 3, 4, 4),))
    with pytest.raises(kiln.KilnError) as error:
        kiln.load(pte)
    assert error.value.code == "NotSupported"
    pattern = r"instruction 0 \(XnnpackBackend\): node \d+ \(PRelu\): Kiln's XNNPACK delegate"
    assert re.search(pattern, str(error.value)), str(error.value)


def _payload_start(pte: bytes) -> int:
    start = pte.find(b"XH00") - 4
    assert start > 0
    return start


@pytest.mark.parametrize(
    ("edit", "code", "pattern"),
    [
        # The graph's offset (header bytes 10..14) past the payload.
        (
            lambda b, at: b[: at + 10] + struct.pack("<I", 1 << 30) + b[at + 14 :],
            "InvalidProgram",
            "places the graph .* outside",
        ),
        # The graph's identifier "XN01" damaged.
        (lambda b, at: b[: at + 36] + b"ZZ" + b[at + 38 :], "InvalidProgram", "verifier rejects"),
        # The header's magic damaged: then it is read as a graph without a header.
        (lambda b, at: b[: at + 4] + b"YH00" + b[at + 8 :], "InvalidProgram", "verifier rejects"),
    ],
    ids=["graph-offset", "graph-identifier", "header-magic"],
)
def test_a_damaged_payload_is_refused(
    exported: Exported, edit: Callable, code: str, pattern: str
) -> None:
    _, _, pte = _model(exported, "mlp")
    with pytest.raises(kiln.KilnError, match=pattern) as error:
        kiln.load(edit(pte, _payload_start(pte)))
    assert error.value.code == code

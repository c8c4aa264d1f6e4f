"""Programs whose weights live in a data file beside the .pte (a .ptd, ExecuTorch's "external
constants"): exported by ExecuTorch and by kiln.export, loaded from a path (mapped) or bytes, run
on Kiln and on ExecuTorch's own runtime, folded and fused at load like inline constants, run by
kiln_runner --data, and every bad data file refused with a message naming the file, the tensor
and the fix."""

from __future__ import annotations

import struct
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import ptd_edit
import pte_edit
import pytest
import torch
from executorch_export import ExecuTorchMethod, external_pte_bytes, pte_bytes
from models import zoo_model
from test_runner import run_runner

import kiln
from kiln._export.data_file import NamedTensor, serialize_data_file

RTOL, ATOL = 1e-4, 1e-5
MODELS = ("mlp", "cnn", "transformer_block")


@dataclass(frozen=True)
class Exported:
    """A zoo model exported by ExecuTorch with external constants, and inline for comparison."""

    module: torch.nn.Module
    inputs: tuple[torch.Tensor, ...]
    pte: Path
    ptd: Path
    inline: bytes

    def expected(self) -> torch.Tensor:
        with torch.no_grad():
            out: torch.Tensor = self.module(*self.inputs)
        return out


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Exported]:
    directory = tmp_path_factory.mktemp("external")
    models = {}
    for name in MODELS:
        module, inputs = zoo_model(name).create()
        pte, ptd = external_pte_bytes(zoo_model(name).create()[0], inputs)
        (directory / f"{name}.pte").write_bytes(pte)
        (directory / f"{name}.ptd").write_bytes(ptd)
        inline = pte_bytes(zoo_model(name).create()[0], inputs)
        models[name] = Exported(
            module, inputs, directory / f"{name}.pte", directory / f"{name}.ptd", inline
        )
    return models


# --- running them -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", MODELS)
def test_external_weights_match_eager_from_a_path_and_from_bytes(
    exported: dict[str, Exported], name: str
) -> None:
    model = exported[name]
    mapped = kiln.load(model.pte, data=model.ptd)
    copied = kiln.load(model.pte.read_bytes(), data=model.ptd.read_bytes())
    expected = model.expected()
    entries = ptd_edit.decode(model.ptd.read_bytes()).table.namedData
    for program in (mapped, copied):
        assert program.external_tensors == len(entries) > 0
        torch.testing.assert_close(program.run(*model.inputs)[0], expected, rtol=RTOL, atol=ATOL)
    assert torch.equal(mapped.run(*model.inputs)[0], copied.run(*model.inputs)[0])


@pytest.mark.parametrize("name", MODELS)
def test_folding_and_fusion_treat_external_constants_as_inline_ones(
    exported: dict[str, Exported], name: str
) -> None:
    """Every call on constants folds, every batch norm and activation fuses, as with the same
    model's constants inside the .pte; and the results are the same bits."""
    model = exported[name]
    external = kiln.load(model.pte, data=model.ptd)
    inline = kiln.load(model.inline)
    assert external.folded == inline.folded
    assert external.instructions() == inline.instructions()
    if name == "mlp":  # the two weight transposes
        assert external.folded.instructions == 2
    if name == "cnn":  # conv + batch norm, twice; the stem's relu
        assert external.folded.fused_batch_norms == 2 and external.folded.fused_activations >= 1
    if name == "transformer_block":  # qkv, proj, ff1, ff2
        assert external.folded.instructions >= 4
    assert torch.equal(external.run(*model.inputs)[0], inline.run(*model.inputs)[0])


@pytest.mark.parametrize("name", MODELS)
def test_executorch_runs_the_same_files_to_the_same_results(
    exported: dict[str, Exported], name: str
) -> None:
    model = exported[name]
    reference = ExecuTorchMethod(model.pte.read_bytes(), data_path=model.ptd).run(*model.inputs)
    ours = kiln.load(model.pte, data=model.ptd).run(*model.inputs)
    torch.testing.assert_close(ours[0], reference[0], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", MODELS)
def test_kiln_export_writes_a_data_file_executorch_runs(tmp_path: Path, name: str) -> None:
    module, inputs = zoo_model(name).create()
    ptd = tmp_path / "weights.ptd"
    pte = kiln.export(zoo_model(name).create()[0], inputs, data_path=ptd)
    assert len(pte) < len(kiln.export(zoo_model(name).create()[0], inputs)) // 2
    keys = {e.key.decode() for e in ptd_edit.decode(ptd.read_bytes()).table.namedData}
    # Each weight under its parameter's name (those the export did not fold into another).
    assert keys & {n for n, _ in module.named_parameters()}
    with torch.no_grad():
        expected = module(*inputs)
    ours = kiln.load(pte, data=ptd).run(*inputs)
    theirs = ExecuTorchMethod(pte, data_path=ptd).run(*inputs)
    torch.testing.assert_close(ours[0], expected, rtol=RTOL, atol=ATOL)
    torch.testing.assert_close(theirs[0], expected, rtol=RTOL, atol=ATOL)


def test_entries_are_found_in_any_order(exported: dict[str, Exported], tmp_path: Path) -> None:
    """Exporters write the entries in the order the program names them, which the lookups
    expect first; any other order loads the same."""
    model = exported["transformer_block"]
    file = ptd_edit.decode(model.ptd.read_bytes())
    file.table.namedData.reverse()
    reordered = tmp_path / "reordered.ptd"
    reordered.write_bytes(ptd_edit.encode(file))
    program = kiln.load(model.pte, data=reordered)
    expected = kiln.load(model.pte, data=model.ptd).run(*model.inputs)[0]
    assert torch.equal(program.run(*model.inputs)[0], expected)


def test_initial_data_of_a_mutable_buffer_comes_from_the_data_file(tmp_path: Path) -> None:
    """A planned tensor marked EXTERNAL (ExecuTorch's external mutable weights) starts from its
    data file entry: Method::load copies it into the planned memory."""
    module, (x,) = zoo_model("accumulator").create()
    pte = pte_edit.decode(pte_bytes(module, (x,)))
    buffer = next(
        v.val
        for v in pte.plan.values
        if getattr(v.val, "allocationInfo", None) is not None and v.val.dataBufferIdx > 0
    )
    info = pte_edit.pte.ExtraTensorInfoT()
    info.fullyQualifiedName = "total"
    info.location = pte_edit.pte.TensorDataLocation.EXTERNAL
    buffer.extraTensorInfo = info
    start = torch.full((3, 4), 5.0)
    ptd = tmp_path / "state.ptd"
    ptd.write_bytes(serialize_data_file([NamedTensor("total", start.numpy().tobytes(), 6, (3, 4))]))
    program = kiln.load(pte_edit.encode(pte), data=ptd)
    torch.testing.assert_close(program.run(x)[0], (start + x) * 2)
    torch.testing.assert_close(program.run(x)[0], (start + 2 * x) * 2)


def _rss_anon_kib() -> int:
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("RssAnon")))


def test_a_mapped_data_file_is_read_in_place_not_copied(tmp_path: Path) -> None:
    """kiln.load(path, data=path) maps the data file: its 32 MiB of weights stay file pages (the
    process's anonymous memory barely grows), while data=bytes copies them."""
    torch.manual_seed(0)
    module = torch.nn.Linear(2048, 4096).eval()
    x = torch.randn(2, 2048)
    ptd = tmp_path / "big.ptd"
    pte = kiln.export(module, (x,), data_path=ptd)
    weights_kib = ptd.stat().st_size // 1024
    assert weights_kib > 32 * 1024
    before = _rss_anon_kib()
    mapped = kiln.load(pte, data=ptd)
    torch.testing.assert_close(mapped.run(x)[0], module(x).detach(), rtol=RTOL, atol=1e-4)
    assert _rss_anon_kib() - before < weights_kib // 4
    contents = ptd.read_bytes()
    before = _rss_anon_kib()
    copied = kiln.load(pte, data=contents)
    assert _rss_anon_kib() - before > weights_kib * 9 // 10
    assert torch.equal(copied.run(x)[0], mapped.run(x)[0])


# --- kiln_runner --data -----------------------------------------------------------------------


def test_runner_takes_the_data_file(
    native_build: Path, exported: dict[str, Exported], tmp_path: Path
) -> None:
    model = exported["cnn"]
    (x,) = model.inputs
    x.numpy().tofile(tmp_path / "x.bin")
    args = (model.pte, tmp_path / "x.bin", "--output-dir", tmp_path)
    result = run_runner(native_build, *args, "--data", model.ptd)
    assert result.returncode == 0, result.stderr
    expected = model.expected()
    actual = np.fromfile(tmp_path / "output0.bin", dtype=np.float32).reshape(expected.shape)
    torch.testing.assert_close(torch.from_numpy(actual), expected, rtol=RTOL, atol=ATOL)
    assert "fused: 1 activations, 2 batch norms" in result.stdout

    without = run_runner(native_build, *args)
    assert without.returncode == 1
    assert "keeps its data in a separate data file (.ptd), and none was given" in without.stderr
    assert "kiln_runner --data FILE" in without.stderr

    missing = run_runner(native_build, *args, "--data", tmp_path / "nowhere.ptd")
    assert missing.returncode == 1 and f"cannot read {tmp_path / 'nowhere.ptd'}" in missing.stderr

    inline = tmp_path / "inline.pte"
    inline.write_bytes(model.inline)
    unused = run_runner(native_build, inline, tmp_path / "x.bin", "--data", model.ptd)
    assert unused.returncode == 0, unused.stderr
    assert f"warning: {inline} keeps all its data inside" in unused.stderr


# --- what is refused, and how ------------------------------------------------------------------


def test_external_weights_without_a_data_file_say_to_pass_one(
    exported: dict[str, Exported],
) -> None:
    with pytest.raises(kiln.KilnError) as error:
        kiln.load(exported["mlp"].pte)
    assert error.value.code == "InvalidArgument"
    message = str(error.value)
    assert "value 0 (Tensor 'fc1.weight') keeps its data in a separate data file" in message
    assert "kiln.load(pte, data=...)" in message


def test_an_external_tensor_without_a_name_is_an_invalid_program(
    exported: dict[str, Exported],
) -> None:
    pte = pte_edit.decode(exported["mlp"].pte.read_bytes())
    pte.plan.values[2].val.extraTensorInfo.fullyQualifiedName = ""
    with pytest.raises(kiln.KilnError, match="value 2 .* has no name") as error:
        kiln.load(pte_edit.encode(pte), data=exported["mlp"].ptd)
    assert error.value.code == "InvalidProgram"


def test_a_data_file_the_program_does_not_need_is_accepted_with_a_warning(
    exported: dict[str, Exported],
) -> None:
    model = exported["mlp"]
    with pytest.warns(UserWarning, match="keeps all its data inside: the data file .* not used"):
        program = kiln.load(model.inline, data=model.ptd)
    torch.testing.assert_close(
        program.run(*model.inputs)[0], model.expected(), rtol=RTOL, atol=ATOL
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kiln.load(model.pte, data=model.ptd)  # used: no warning


def test_an_unreadable_data_path_is_access_failed(exported: dict[str, Exported]) -> None:
    with pytest.raises(kiln.KilnError, match="cannot read .*nowhere.ptd") as error:
        kiln.load(exported["mlp"].pte, data="nowhere.ptd")
    assert error.value.code == "AccessFailed"


Edit = Callable[[ptd_edit.PtdFile], None]


def _set(path: str, value: object) -> Edit:
    """An edit setting attribute `path` ("segment:fc1.weight.size", "entry:fc1.weight.key", or
    "table.version") of the decoded file."""

    def edit(file: ptd_edit.PtdFile) -> None:
        where, _, attribute = path.rpartition(".")
        kind, _, key = where.partition(":")
        target = {"segment": file.segment, "entry": file.entry}[kind](key) if key else file.table
        if attribute == "sizes":
            target = target.tensorLayout
        setattr(target, attribute, value)

    return edit


# (edit of the decoded file, error code, message); the messages name the file, and the tensor
# where one is at fault.
TABLE_DAMAGE: dict[str, tuple[Edit, str, str]] = {
    "missing key": (
        _set("entry:fc1.weight.key", b"fc1.weights"),
        "NotFound",
        r"value 0 \(Tensor 'fc1.weight'\): data file '{file}' has no entry 'fc1.weight' "
        r"\(it has 4 entries\): give the .ptd file exported with this program",
    ),
    "segment too small": (
        _set("segment:fc1.weight.size", 4),
        "InvalidProgram",
        r"value 0 \(Tensor 'fc1.weight', 2048 bytes\): its entry in data file '{file}' holds "
        r"only 4 bytes",
    ),
    "segment out of the file": (
        _set("segment:fc2.bias.offset", 1 << 20),
        "InvalidProgram",
        r"data file '{file}': segment 3 \(offset 1048576, 32 bytes\) runs past the file's",
    ),
    "segment end overflows": (
        _set("segment:fc2.bias.offset", 2**64 - 16),
        "InvalidProgram",
        r"data file '{file}': segment 3 \(offset 18446744073709551600, 32 bytes\) runs past",
    ),
    "bad segment index": (
        _set("entry:fc1.bias.segmentIndex", 9),
        "InvalidProgram",
        r"data file '{file}': entry 1 \('fc1.bias'\) names segment 9 of 4",
    ),
    "another shape": (
        _set("entry:fc2.weight.sizes", [32, 8]),
        "InvalidProgram",
        r"value 2 \(Tensor 'fc2.weight'\) is Float\[8, 32\] in the program, but data file "
        r"'{file}' holds Float\[32, 8\] .*: the files come from different exports",
    ),
    "newer version": (
        _set("table.version", 1),
        "NotSupported",
        r"data file '{file}': format version 1 is newer than the version 0 Kiln reads",
    ),
}


@pytest.mark.parametrize("damage", sorted(TABLE_DAMAGE))
def test_damaged_data_file_tables_are_refused(
    exported: dict[str, Exported], tmp_path: Path, damage: str
) -> None:
    edit, code, message = TABLE_DAMAGE[damage]
    file = ptd_edit.decode(exported["mlp"].ptd.read_bytes())
    edit(file)
    bad = tmp_path / "bad.ptd"
    bad.write_bytes(ptd_edit.encode(file))
    with pytest.raises(kiln.KilnError, match=message.format(file=bad)) as error:
        kiln.load(exported["mlp"].pte, data=bad)
    assert error.value.code == code


H = ptd_edit
# (damage to the file's bytes, message); every one is InvalidProgram.
BYTE_DAMAGE: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "truncated": (
        lambda b: b[: len(b) // 2],
        r"the header puts the segment data at offset \d+, \d+ bytes, outside the file's \d+ "
        r"bytes after its \d+-byte flatbuffer \(truncated\?\)",
    ),
    "tiny": (lambda b: b[:20], r"20 bytes is too short for a .ptd data file"),
    "identifier": (lambda b: b[:4] + b"XX01" + b[8:], r'not a .ptd data file: .*"FT01"'),
    "magic": (lambda b: b[:8] + b"FH02" + b[12:], r'the header magic "FH01" is missing'),
    "header length": (
        lambda b: H.with_header_field(b, H.LENGTH, 8, width=4),
        r"header length 8 is outside \[40, \d+\]",
    ),
    "flatbuffer offset": (
        lambda b: H.with_header_field(b, H.FLATBUFFER_OFFSET, 2**64 - 1),
        r"the header puts the flatbuffer at offset 18446744073709551615",
    ),
    "segment base overflows": (
        lambda b: H.with_header_field(b, H.SEGMENT_BASE, 2**64 - 16),
        r"the header puts the segment data at offset 18446744073709551600",
    ),
    "segment data size": (
        lambda b: H.with_header_field(b, H.SEGMENT_DATA_SIZE, len(b)),
        r"the header puts the segment data at offset \d+, \d+ bytes, outside the file's",
    ),
    "garbage table": (
        lambda b: b[:56] + bytes(range(256)) * ((len(b) - 56) // 256 + 1),
        r"the FlatBuffers verifier rejects its \d+-byte table of contents",
    ),
}


@pytest.mark.parametrize("damage", sorted(BYTE_DAMAGE))
def test_damaged_data_file_bytes_are_refused(
    exported: dict[str, Exported], tmp_path: Path, damage: str
) -> None:
    mutate, message = BYTE_DAMAGE[damage]
    bad = tmp_path / "bad.ptd"
    bad.write_bytes(mutate(exported["mlp"].ptd.read_bytes()))
    with pytest.raises(kiln.KilnError, match=f"data file '{bad}': {message}") as error:
        kiln.load(exported["mlp"].pte, data=bad)
    assert error.value.code == "InvalidProgram"


def test_the_program_given_as_its_own_data_file_is_named_as_such(
    exported: dict[str, Exported],
) -> None:
    model = exported["mlp"]
    with pytest.raises(kiln.KilnError, match="this is a .pte program, not a data file") as error:
        kiln.load(model.pte, data=model.pte)
    assert error.value.code == "InvalidProgram"


def test_a_data_file_of_another_model_is_refused_by_name(exported: dict[str, Exported]) -> None:
    with pytest.raises(kiln.KilnError, match="has no entry 'fc1.weight'") as error:
        kiln.load(exported["mlp"].pte, data=exported["cnn"].ptd.read_bytes())
    assert error.value.code == "NotFound"
    assert "data file '<bytes>'" in str(error.value)


def test_the_header_layout_is_executorchs(exported: dict[str, Exported]) -> None:
    """The fields the loader reads are where ExecuTorch writes them (kiln.export's writer and
    ptd_edit rely on the same)."""
    data = exported["mlp"].ptd.read_bytes()
    assert data[4:8] == b"FT01" and data[8:12] == b"FH01"
    length, offset, size, base, data_size = struct.unpack_from("<IQQQQ", data, 12)
    assert (length, offset) == (40, 48)
    assert base % 128 == 0 and base >= offset + size and base + data_size <= len(data)

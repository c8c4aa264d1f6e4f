"""Kiln's Ascend C emulator: its native tests (correct kernels, one broken kernel per rule),
its environment settings, the dtype rules that must fail at compile time, and the launch report
docs/ascend.md shows."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from emu_kernels import compile_kernel
from gtest_runs import GTestRun, run_gtest

from buildtools import REPO_ROOT, load_script


@pytest.fixture(scope="module")
def emu_build(native_build: Path) -> Path:
    """The native build, which has the emulator's test executable (KILN_ASCEND=emu)."""
    return native_build


def _run_tests(build: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(build / "tests/native/ascend_emu/ascend_emu_tests"), *env.pop("args", "").split()],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )


# Every GoogleTest test of tests/native/ascend_emu (ascend_emu_tests), as Suite.Name. A test
# added, renamed or deleted there must be added, renamed or deleted here too.
EMULATOR_TESTS = (
    "EmuCorrectKernelTest.AddHalfWithAPaddedTailAndItsLaunchReport",
    "EmuCorrectKernelTest.AddFloatOn310PWithHostPadding",
    "EmuCorrectKernelTest.ReduceSumAndArgMaxPerBlock",
    "EmuCorrectKernelTest.CastBFloat16ThroughFloatAndToInt32",
    "EmuCorrectKernelTest.StridedAndPaddedCopies",
    "EmuCorrectKernelTest.PipeResetReleasesTheUbAndStaleTensors",
    "EmuCorrectKernelTest.CompareAndSelectComputeLeakyRelu",
    "EmuMatmulTest.MultiCoreHalfGemmWithBiasAndTails",
    "EmuMatmulTest.RefusesTilingsTheSocCannotHold",
    "EmuMatmulTest.RefusesInconsistentTilings",
    "EmuMatmulTest.L1ReserveOfTheMatmulApiOn910B",
    "EmuMatmulTest.NdRowStrideBeyond65535",
    "EmuMatmulTest.EndExactlyOnce",
    "EmuMatmulTest.UbWorkspaceOn310P",
    "EmuPrecisionTest.HalfRoundsAfterEveryOperation",
    "EmuPrecisionTest.ReduceSumHalfAddsInTheDevicesOrder",
    "EmuPrecisionTest.ReduceSumOrderOfRepeatsPerSoc",
    "EmuPrecisionTest.CastRoundModes",
    "EmuPrecisionTest.CastModeRules",
    "EmuPrecisionTest.SaturationModeOn310P",
    "EmuPrecisionTest.BFloat16RoundsTiesToEven",
    "EmuCannRuleTest.CastFloatToHalfRoundModesPerSoc",
    "EmuCannRuleTest.CastToInt32NamesItsRounding",
    "EmuCannRuleTest.CastFloatToFloatOnlyOn910B",
    "EmuCannRuleTest.CastInt32ToFloatRoundsToNearestOn310P",
    "EmuCannRuleTest.CastInt8ToHalfTakesCastNoneOnly",
    "EmuCannRuleTest.CompareCountIsWholeRepeats",
    "EmuCannRuleTest.CompareInt32IsEqualityOn910BOnly",
    "EmuCannRuleTest.DataCopyBlockCountFitsTwelveBits",
    "EmuCannRuleTest.DataCopyBlockLenFitsSixteenBits",
    "EmuCannRuleTest.DataCopyPadBlockLenFitsTwentyOneBits",
    "EmuBoundsRuleTest.UbAccessOutOfBounds",
    "EmuBoundsRuleTest.PartialOverlapOfVectorOperands",
    "EmuBoundsRuleTest.GmAccessOutsideTheGlobalTensorRange",
    "EmuBoundsRuleTest.GmAccessPastTheDeviceAllocation",
    "EmuBoundsRuleTest.GmSetValuePastTheRange",
    "EmuBoundsRuleTest.OverlappingGmWritesBetweenBlocks",
    "EmuBoundsRuleTest.ReductionWorkTensorInsideItsSource",
    "EmuQueueRuleTest.CorrectUseOfTheQueues",
    "EmuQueueRuleTest.AllocTensorWithNoFreeBuffer",
    "EmuQueueRuleTest.DeQueOnAnEmptyQueue",
    "EmuQueueRuleTest.EnQuePastTheDepth",
    "EmuQueueRuleTest.FreeTensorTwice",
    "EmuQueueRuleTest.FreeTensorOfAnotherQueue",
    "EmuQueueRuleTest.UseAfterFree",
    "EmuQueueRuleTest.UseWhileQueued",
    "EmuQueueRuleTest.WriteThroughAStaleTensor",
    "EmuQueueRuleTest.MoreThanEightBuffersPerPosition",
    "EmuQueueRuleTest.InitBufferTwice",
    "EmuSocAndCopyRuleTest.BlockDimZero",
    "EmuSocAndCopyRuleTest.BlockDimAboveTheCoreCountRunsInRounds",
    "EmuSocAndCopyRuleTest.BFloat16On310P",
    "EmuSocAndCopyRuleTest.DataCopyPadOn310P",
    "EmuSocAndCopyRuleTest.SocProfiles",
    "EmuSocAndCopyRuleTest.UbCapacity",
    "EmuSocAndCopyRuleTest.MisalignedUbSlice",
    "EmuSocAndCopyRuleTest.DataCopyLengthNotAWholeNumberOf32ByteBlocks",
    "EmuSocAndCopyRuleTest.MisalignedGmAddress",
    "EmuSyncRuleTest.ScalarWriteReadByTheVectorUnit",
    "EmuSyncRuleTest.VectorResultReadByGetValue",
    "EmuSyncRuleTest.ScalarWritesCopiedOutThroughAVecoutQueue",
    "EmuSyncRuleTest.CopiedInBytesReadByGetValue",
    "EmuSyncRuleTest.CopyIntoATBufReadByTheVectorUnit",
)

# The emulator shuffles blocks by seed: the tests must pass in any block order.
SEEDS = ["", "1", "0xdecafbad"]


@pytest.fixture(scope="module")
def emulator_runs(
    emu_build: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], GTestRun]:
    """One run of ascend_emu_tests per seed, shared by the items below."""
    runs: dict[str, GTestRun] = {}
    reports = tmp_path_factory.mktemp("ascend_emu_tests")

    def run_for(seed: str) -> GTestRun:
        if seed not in runs:
            runs[seed] = run_gtest(
                emu_build / "tests/native/ascend_emu/ascend_emu_tests",
                reports / f"seed{len(runs)}.json",
                {"KILN_ASCEND_EMU_SEED": seed},
            )
        return runs[seed]

    return run_for


@pytest.mark.parametrize("name", EMULATOR_TESTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_emulator_test_passes_in_any_block_order(
    emulator_runs: Callable[[str], GTestRun], seed: str, name: str
) -> None:
    emulator_runs(seed).assert_passed(name)


@pytest.mark.parametrize("seed", SEEDS)
def test_emulator_tests_are_the_expected_ones(
    emulator_runs: Callable[[str], GTestRun], seed: str
) -> None:
    emulator_runs(seed).assert_ran_exactly(EMULATOR_TESTS)


def test_environment_selects_soc_and_seed(emu_build: Path) -> None:
    result = _run_tests(
        emu_build, args="--print-config", KILN_ASCEND_SOC="Ascend310P3", KILN_ASCEND_EMU_SEED="7"
    )
    assert result.stdout.strip() == "soc=Ascend310P seed=7"
    default = _run_tests(
        emu_build, args="--print-config", KILN_ASCEND_SOC="", KILN_ASCEND_EMU_SEED=""
    )
    assert default.stdout.startswith("soc=Ascend910B ")


def test_unknown_soc_is_reported_not_ignored(emu_build: Path) -> None:
    result = _run_tests(emu_build, args="--print-config", KILN_ASCEND_SOC="Ascend910A")
    assert result.stdout.startswith("soc=Ascend910B ")
    assert "KILN_ASCEND_SOC=Ascend910A is not a known SoC" in result.stderr


def _compiler(build: Path) -> str:
    cache = (build / "CMakeCache.txt").read_text()
    found = re.search(r"^CMAKE_CXX_COMPILER:\w+=(.+)$", cache, re.MULTILINE)
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        (
            "auto t = buf.Get<bfloat16_t>(); Add(t, t, t, 16);",
            "Add takes half, float, int16_t or int32_t operands",
        ),
        ("auto t = buf.Get<int32_t>(); Exp(t, t, 8);", "Exp takes half or float operands"),
        (
            "auto t = buf.Get<half>(); Adds(t, t, 2.0f, 16);",
            "Adds: the scalar must have the tensor's type",
        ),
        (
            "Cast(buf.Get<bfloat16_t>(), buf.Get<half>(), RoundMode::CAST_RINT, 16);",
            "Cast: the vector unit does not convert this source/destination type pair",
        ),
        (
            "auto t = buf.Get<int32_t>(); ReduceSum(t, t, t, 8);",
            "ReduceSum takes half or float operands",
        ),
        (
            "using I = matmul::MatmulType<TPosition::GM, CubeFormat::ND, int32_t>;"
            " matmul::Matmul<I, I, I> mm;",
            "Matmul: inputs must be half, bfloat16_t or float",
        ),
    ],
)
def test_unsupported_dtype_is_a_compile_error(
    emu_build: Path, tmp_path: Path, statement: str, message: str
) -> None:
    returncode, stderr = compile_kernel(tmp_path, statement, _compiler(emu_build))
    assert returncode != 0
    assert message in stderr, stderr[-3000:]


def test_supported_dtypes_compile(emu_build: Path, tmp_path: Path) -> None:
    statement = (
        "auto h = buf.Get<half>(); auto f = buf.Get<float>()[128];"
        " auto i = buf.Get<int32_t>()[192]; Add(h, h, h, 16); Exp(f, f, 8);"
        " Cast(f, h, RoundMode::CAST_NONE, 16); Mins(i, i, 3, 8);"
    )
    returncode, stderr = compile_kernel(tmp_path, statement, _compiler(emu_build))
    assert returncode == 0, stderr[-3000:]


def _launch_report() -> ModuleType:
    return load_script(REPO_ROOT / "bench/ascend/report.py", "ascend_launch_report")


def test_docs_launch_report_is_current() -> None:
    report = _launch_report()
    documented = report.docs_table((REPO_ROOT / "docs/ascend.md").read_text())
    assert documented == report.table(report.DOCS_SOC), (
        "docs/ascend.md's launch report is out of date: "
        "python bench/ascend/report.py --update-docs docs/ascend.md"
    )

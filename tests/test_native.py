"""Native builds driven from pytest: runtime unit tests, the add_lib demo, a custom op."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from gtest_runs import GTestRun, run_gtest

from buildtools import REPO_ROOT, run

# Every GoogleTest test of tests/native/runtime (runtime_tests), as Suite.Name. A test added,
# renamed or deleted there must be added, renamed or deleted here too.
RUNTIME_TESTS = (
    "CallOperatorTest.ADeclinedCallRunsOnThePortableKernel",
    "CallOperatorTest.WithoutFallbackADeclineIsNotSupportedWithTheKernelsReason",
    "CallOperatorTest.ADeclineWithNoOtherBackendIsNotSupported",
    "CallOperatorTest.ABackendWithoutAKernelIsACountedFallback",
    "DelegateTest.AProgramCallingAnUnregisteredDelegateIsRefusedNamingIt",
    "DelegateTest.ARegisteredDelegateRunsEachExecuteAndIsDestroyedWithTheMethod",
    "DelegateTest.AFailingInitFailsTheLoadWithItsMessage",
    "DelegateTest.ADelegateThatWouldWriteAnInputIsRefused",
    "DelegateTest.NamesAreRegisteredOnce",
    "KernelRuntimeContextTest.KeepsTheFirstFailureWithTheOpName",
    "KernelRuntimeContextTest.AllocatesTempMemoryOnlyFromItsAllocator",
    "KernelRuntimeContextTest.TryAllocateTempReturnsNullWithoutFailing",
    "HeapAllocatorTest.ReusesItsBlocksInOrderAfterReset",
    "LastErrorTest.EachThreadReadsItsOwnMessage",
    "LastErrorTest.ALongMessageIsCutAtACharacterBoundary",
    "LastErrorTest.TheRegistryWritesIt",
    "LastErrorTest.AProgramLoadWritesIt",
    "LastErrorTest.OpeningAMissingFileWritesIt",
    "LastErrorTest.AMindSporeAotCallWritesIt",
    "LastErrorTest.AMindSporeFailureOnItsThreadReachesTheCallersThread",
    "LastErrorTest.AReportedMindSporeFailureIsHandedOverWithoutALogLine",
    "LoopingMethod.StopsAtItsInstructionBudgetNamingTheInstruction",
    "LoopingMethod.StopsAtTheDefaultBudget",
    "LoopingMethod.StopsWhenCancelledFromAnotherThread",
    "HalfTest.EveryNonNanValueRoundTripsThroughFloat",
    "HalfTest.RoundsTiesToEven",
    "HalfTest.OverflowsToInfinityPastTheLargestFiniteValue",
    "HalfTest.RoundsIntoAndBelowTheSubnormals",
    "HalfTest.KeepsNan",
    "BFloat16Test.RoundsTiesToEven",
    "BFloat16Test.KeepsNanAndExactValues",
    "MissingOperatorsTest.ReportsMissingOperatorsAndLogsThem",
    "MissingOperatorsTest.ReportsAKernelKeyWithoutKernel",
    "PrimOps.ArithmeticKeepsIntsAndFollowsPythonsRounding",
    "PrimOps.RoundingGivesInts",
    "PrimOps.ComparisonsAndLogicGiveBools",
    "PrimOps.OverflowDivisionByZeroAndWrongTagsAreErrors",
    "PrimOps.SymSizeAndNumelReadTheTensorsShape",
    "PrimOps.LocalScalarDenseReadsTheOneElement",
    "PrimOps.EtViewInfersASizeAndSharesTheBytes",
    "PrimOps.EtCopyIndexStacksRows",
    "PrimOps.AreFoundByNameWithOrWithoutDefault",
    "RandomGeneratorTest.MatchesPhiloxKnownAnswers",
    "RandomGeneratorTest.ReservesConsecutiveRangesAndRestartsOnSeeding",
    "RandomGeneratorTest.ContextUsesItsGeneratorOrTheDefault",
    "RandomGeneratorTest.SetRandomSeedSeedsTheDefaultGenerator",
    "RegistryTest.RegisteringATableAgainIsANoOp",
    "RegistryTest.FindsTheKeyedKernelAndFallsBackToTheDefaultKey",
    "RegistryTest.CountsFallbacksToAnotherBackend",
    "RegistryTest.FindsTheKernelKeyedByAStackOfFloatTensors",
    "RegistryTest.KeysAnInPlaceStackByItsArgumentsNotItsReturnSlot",
    "RegistryTest.ADuplicateNamesBothOriginsAndRegistersNothing",
    "RegistryTest.RefusesAnUnsortedTable",
    "ResizeTest.StaticShapeTakesOnlyItsOwnShape",
    "ResizeTest.DynamicBoundTakesShapesWithinItsCapacity",
    "ResizeTest.RefusesShapesWhoseSizeProductOverflows",
    "ResizeTest.ResizeOrFailNamesBothShapes",
    "ResultTest.HoldsAValue",
    "ResultTest.HoldsAnError",
    "ResultTest.OkAsAnErrorBecomesInternal",
    "SetInputTest.RefusesACopiedTensorWithBytesButNoData",
    "SetInputTest.RefusesABoundTensorWithBytesButNoData",
    "SetInputTest.TakesATensorWithData",
    "UnboxTest.AcceptsMatchingArguments",
    "UnboxTest.RefusesAWrongArgumentCount",
    "UnboxTest.NamesTheArgumentWithTheWrongTag",
    "UnboxTest.TakesAListOrNoneForAnOptionalDoubleList",
    "UnboxTest.CountsTheReturnSlotsAfterTheArguments",
    "UnboxTest.RefusesAnUnknownScalarType",
    "WriteMaskTest.RefusesWritingAnInputThroughAMiddleArgument",
    "WriteMaskTest.TakesAnInputAsAnArgumentTheKernelOnlyReads",
    "WriteMaskTest.WithoutAMaskTheNameRuleSeesNoWriteInTheMiddle",
    "ConstantFolding.RunsACallOnConstantsOnceAtLoadAndSkipsItAtEveryRun",
    "ConstantFolding.OffRunsEveryCallAtEachRunWithTheSameResults",
    "ConstantFolding.KeepsOnlyTheResultsThatRunsRead",
    "ConstantFolding.LeavesABufferUpdatedInPlaceToEveryRun",
    "ConstantFolding.LeavesAValueTwoCallsWriteToEveryRun",
    "ConstantFolding.LeavesAValueReadBeforeItsWriteToEveryRun",
    "ConstantFolding.LeavesCallsAfterAJumpToEveryRun",
    "ConstantFolding.LeavesAResultAViewSharesToEveryRun",
    "ConstantFolding.FoldsAResultWhoseBytesAViewOfALaterTensorReads",
    "ConstantFolding.FoldsAResultOnBytesAViewOfTheInputReadsBeforeIt",
    "ConstantFolding.LeavesAResultAViewOfTheInputReadsAfterItToEveryRun",
    "ConstantFolding.AKernelsTemporariesLastForItsCallOnly",
    "ConstantFolding.ATensorACallReturnsLastsUntilTheNextRun",
    "ConstantFolding.LeavesACallDrawingRandomNumbersToEveryRun",
    "ConstantFolding.LeavesWhatPassesTheMemoryBoundToEveryRunAndSaysSo",
    "ConstantFolding.AKernelFailingOnConstantsFailsTheLoadNamingTheCall",
    "DataFile.FindsEachKeyInItsSegment",
    "DataFile.RefusesNullAndMisalignedMemory",
    "DataFile.RefusesSegmentsWhoseEndWrapsAround",
    "DataFile.RefusesAHeaderWhoseSegmentEndWrapsAround",
    "DataFile.CutsLongNames",
    "DataFile.LookupsInTheFilesOrderExamineOneEntryEach",
    "Fusion.AKernelTakingTheClampRunsTheActivationAndTheRunSkipsIt",
    "Fusion.AKernelNotTakingTheClampLeavesTheActivationToRunInPlace",
    "Fusion.OffKeepsEveryActivation",
    "Fusion.AnOutOnTheCallsInputMovesOntoTheCallsOut",
    "Fusion.NotWhenTheOutIsOnTheCallsInputAndTheCallsOutIsReusedWhileItLives",
    "Fusion.AnOutMovedOntoTheCallsOutLetsAnInPlaceActivationReadItLast",
    "Fusion.AViewOfTheOutsBytesReadAfterItsTensorRewritesThemLetsItFuse",
    "Fusion.NotWhenAViewReadsTheOutsBytesWhileTheyHoldIt",
    "Fusion.NotWhenAnotherInstructionReadsTheOut",
    "Fusion.NotWhenTheOutIsAMethodOutput",
    "Fusion.NotWhenAJumpLandsOnTheActivation",
    "Fusion.AJumpElsewhereLeavesTheFusion",
)


# Every GoogleTest test of tests/native/threads (thread_pool_tests): kiln::PthreadPool and
# parallel_for.
THREAD_POOL_TESTS = (
    "PthreadPoolTest.RunsEveryTaskOnce",
    "PthreadPoolTest.UsesMoreThanTheCallingThread",
    "PthreadPoolTest.OneThreadRunsInlineAndZeroIsRefused",
    "PthreadPoolTest.MoreThreadsWithoutPthreadpoolIsNotSupported",
    "PthreadPoolTest.MovesOwnership",
    "ParallelForTest.RunsInlineWithoutAPoolOrBelowTwoGrains",
    "ParallelForTest.ChunksTileTheRangeOnePerThreadOnAlignedBoundaries",
)


# Every GoogleTest test of tests/native/kernels (kernel_row_tests): the kernels' shared loops.
KERNEL_ROW_TESTS = (
    "BFloat16RowsTest.ArithmeticAgreesInlineAndInChunks",
    "BFloat16RowsTest.PredicatesAgreeInlineAndInChunks",
    "BFloat16RowsTest.AnExactFloatScalarAgreesInlineAndInChunks",
    "ConvertRowsTest.DoubleMeetsHalfAndBFloat16ThroughFloat",
    "ConvertRowsTest.Int64MeetsHalfAndBFloat16ThroughFloat",
    "ConvertRowsTest.TheIsaRowsGiveTheScalarConvertersBits",
    "HalfRowsTest.ArithmeticAgreesInlineAndInChunks",
    "HalfRowsTest.SelectsAgreeInlineAndInChunks",
    "ExtremeNanTest.FloatMaxAndMin",
    "ExtremeNanTest.DoubleMaxAndMin",
    "ExpSumTest.FloatRowsInBothVersions",
    "HalfRunTotalTest.SumsGiveTheFloatRunsBits",
    "HalfRunTotalTest.ProductsGiveTheFloatRunsBits",
)


# Each GoogleTest executable of the native build, with every test it must run.
GTEST_BINARIES = {
    "tests/native/runtime/runtime_tests": RUNTIME_TESTS,
    "tests/native/threads/thread_pool_tests": THREAD_POOL_TESTS,
    "tests/native/kernels/kernel_row_tests": KERNEL_ROW_TESTS,
}


@pytest.fixture(scope="module")
def gtest_runs(
    native_build: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], GTestRun]:
    """One run of each executable, made when a test first asks for it."""
    runs: dict[str, GTestRun] = {}

    def run_of(binary: str) -> GTestRun:
        if binary not in runs:
            report = tmp_path_factory.mktemp(Path(binary).name) / "report.json"
            runs[binary] = run_gtest(native_build / binary, report)
        return runs[binary]

    return run_of


@pytest.mark.parametrize(
    ("binary", "name"),
    [(binary, name) for binary, names in GTEST_BINARIES.items() for name in names],
)
def test_native_unit_test(gtest_runs: Callable[[str], GTestRun], binary: str, name: str) -> None:
    gtest_runs(binary).assert_passed(name)


@pytest.mark.parametrize("binary", GTEST_BINARIES)
def test_native_unit_tests_are_the_expected_ones(
    gtest_runs: Callable[[str], GTestRun], binary: str
) -> None:
    gtest_runs(binary).assert_ran_exactly(GTEST_BINARIES[binary])


def test_native_tests_without_googletest_fail_to_configure_naming_the_package(
    tmp_path: Path,
) -> None:
    result = run(
        [
            "cmake",
            "-S",
            str(REPO_ROOT),
            "-B",
            str(tmp_path / "build"),
            "-G",
            "Ninja",
            f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
            "-DKILN_BUILD_TESTS=ON",
            "-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON",  # as on a machine without GoogleTest
        ],
        check=False,
    )
    assert result.returncode != 0
    message = " ".join(result.stderr.split())
    assert "KILN_BUILD_TESTS=ON needs GoogleTest, which was not found." in message, message
    assert "Install libgtest-dev (apt-get install libgtest-dev" in message, message


def test_add_lib_demo_adds_through_the_registry(native_build: Path) -> None:
    result = run([str(native_build / "examples/add_lib/add_lib_demo")])
    # a = [[1,2,3],[4,5,6]], b = [10,20,30] broadcast, alpha = 2
    assert "[21, 42, 63]" in result.stdout
    assert "[24, 45, 66]" in result.stdout
    assert "portable kernel (functions.yaml:" in result.stdout


def test_custom_op_through_cmake_api(native_build: Path) -> None:
    result = run([str(native_build / "tests/native/custom_op/custom_op_demo")])
    lines = result.stdout.splitlines()
    assert "boxed: 6 12 18" in lines
    assert "typed: 21 42 63" in lines
    assert "mul: 10 40 90" in lines
    assert (
        "bad: InvalidProgram: kiln_custom::scaled_add.out: argument 1 (b) expected Tensor, got Int"
        in lines
    )


# What tests/native/op_forms/op_forms_demo prints, in both modes: each custom op in a form
# ExecuTorch's YAML uses besides out variants, called boxed and typed, and refused inputs.
OP_FORMS_LINES = (
    "boxed scale_: Ok 2 4 6",
    "boxed scale_ returns self: yes",
    "typed scale_: Ok 1 2 3",
    "typed scale_ returns self: yes",
    "bad scale_: InvalidProgram: forms::scale_: argument 0 (self) expected Tensor, got Int",
    "boxed update_cache: Ok 0 7 8 0",
    "typed update_cache: Ok 0 7 7 8",
    "overrun update_cache: InvalidArgument: forms::update_cache: 2 values from position 3 "
    "overrun a cache of 4",
    "boxed weighted_sum None: Ok 6",
    "boxed weighted_sum list: Ok 7",
    "typed weighted_sum None: Ok 6",
    "typed weighted_sum list: Ok 7",
    "bad weighted_sum: InvalidProgram: forms::weighted_sum.out: argument 1 (weights) expected "
    "ListDouble or None, got Int",
    "boxed doubled: Ok 2 4 6",
    "boxed doubled is new: yes",
    "typed doubled: Ok 4 8 12",
    "no slot doubled: InvalidProgram: forms::doubled: expected 1 argument and 1 return slot, "
    "got 1 value",
)


def test_custom_ops_in_place_written_input_optional_floats_and_functional(
    native_build: Path,
) -> None:
    result = run([str(native_build / "tests/native/op_forms/op_forms_demo")])
    assert tuple(result.stdout.splitlines()) == OP_FORMS_LINES


def test_dtype_selective_library_runs_its_dtypes_and_refuses_others(native_build: Path) -> None:
    result = run([str(native_build / "tests/native/dtype_selective/dtype_selective_demo")])
    lines = result.stdout.splitlines()
    assert "float add: Ok 11 22 33" in lines
    assert (
        "double add: NotSupported: aten::add.out: argument 0 (self) has dtype Double, which this "
        "library's dtype selection leaves out (selected: Float); add the dtype to the selection "
        "(et_kernel_metadata, or a model that uses it) or build the library without "
        "DTYPE_SELECTIVE_BUILD" in lines
    )
    assert any(
        line.startswith("typed double mm: NotSupported: mm: this library's dtype selection")
        for line in lines
    )
    # Half's dedicated loops compiled away; the general converting path still computes it.
    assert "typed half add: Ok 3 4 -6" in lines
    assert "typed float relu: Ok 1.5 0 0.25" in lines
    assert (
        "typed half relu: NotSupported: relu.out: this library's dtype selection compiled the "
        "kernel without dtype Half; add it to the selection or build without "
        "DTYPE_SELECTIVE_BUILD" in lines
    )

"""The Ascend backend's emulator: which SoC kernels run against, and what each launch did.

Kiln's Ascend kernels run in its checking emulator of the Ascend C API unless Kiln was built with
CANN. `kiln.call_op(..., backend="ascend")` runs them; these functions choose the SoC profile
(Ascend910B: 192 KiB UB, 48 vector cores, bfloat16; Ascend310P: 256 KiB UB, no bfloat16), read
the per-launch reports an Ascend developer tunes against, and seed the order blocks run in.
"""

from __future__ import annotations

from typing import Any

from kiln import _C


def _emulator() -> Any:
    if not hasattr(_C, "ascend_soc"):
        raise RuntimeError(
            "this kiln build has no Ascend emulator; rebuild with -DKILN_ASCEND=emu (the default)"
        )
    return _C


def soc() -> str:
    """The SoC profile kernels run against, e.g. "Ascend910B"."""
    return str(_emulator().ascend_soc())


def set_soc(name: str) -> None:
    """Selects the SoC profile ("Ascend910B" or "Ascend310P", or a variant such as
    "Ascend910B3") for this thread's later launches; ValueError for others."""
    _emulator().ascend_set_soc(name)


def seed() -> int:
    """The seed of the order in which the emulator runs a launch's blocks on this thread."""
    return int(_emulator().ascend_seed())


def set_seed(seed: int) -> None:
    """Seeds the order in which the emulator runs this thread's later launches' blocks (the
    device runs them in any order). A kernel whose result depends on the order is wrong; an
    overlap error names the seed it ran under, and setting that seed replays the order."""
    _emulator().ascend_set_seed(seed)


def launch_history() -> list[dict[str, Any]]:
    """This thread's launches since the last clear: kernel, blocks, ub_high_water_bytes,
    gm_to_ub_bytes, ub_to_gm_bytes (vector path), gm_to_l1_bytes, l0c_to_gm_bytes (cube path),
    vector_instructions, cube_instructions."""
    return list(_emulator().ascend_launch_history())


def clear_launch_history() -> None:
    _emulator().ascend_clear_launch_history()

"""kiln.manual_seed: seeds the generator Kiln's random kernels (rand, randn, native_dropout)
draw from."""

from __future__ import annotations

from kiln import _C, _aten

_SEED_RANGE = (-(2**63), 2**64 - 1)


def manual_seed(seed: int) -> None:
    """Seeds Kiln's default random generator (kiln::set_random_seed): after manual_seed(s), the
    same sequence of calls gives the same values. Kiln's numbers are its own (Philox4x32-10),
    not torch's; torch.manual_seed does not affect them.

    The ATen-mode extension's kernels (backend="aten") are libtorch's, which draw from libtorch's
    default CPU generator, i.e. torch's: this seeds that one as well (now if the extension is
    loaded, else when it loads). A negative seed is taken modulo 2**64, as torch.manual_seed
    does."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if not _SEED_RANGE[0] <= seed <= _SEED_RANGE[1]:
        raise ValueError(f"seed must be in [-2**63, 2**64 - 1], got {seed}")
    value = seed % 2**64
    _C.set_random_seed(value)
    _aten.set_random_seed(value)

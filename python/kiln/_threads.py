"""kiln.set_num_threads / kiln.get_num_threads: how many threads Kiln's kernels run on."""

from __future__ import annotations

from kiln import _C

# kiln::PthreadPool::kMaxThreads, checked here too so that counts beyond int64 get the same
# ValueError as the native check.
MAX_THREADS: int = _C.MAX_THREADS


def set_num_threads(num_threads: int) -> None:
    """Runs Kiln's kernels on ``num_threads`` threads, the calling one included: ``call_op`` and
    Program runs borrow one process-wide pool (kiln::PthreadPool). The default is 1: the
    application decides how many cores Kiln may take. Large elementwise ops, reductions over
    rows, softmax, the norms, the gemm and convolution split their work over the pool; results
    are the same as on one thread (docs/threads.md). The ATen backend's kernels are libtorch's
    and follow ``torch.set_num_threads`` instead.

    Raises ValueError outside [1, MAX_THREADS] (MAX_THREADS is kiln::PthreadPool::kMaxThreads:
    threads beyond the cores only add cost, and the bound stops a typo from asking the system
    for millions of threads), and KilnError (code NotSupported) for more than one thread in a
    Kiln built without pthreadpool (KILN_THREADS=OFF)."""
    if isinstance(num_threads, bool) or not isinstance(num_threads, int):
        raise TypeError(f"num_threads must be an int, got {type(num_threads).__name__}")
    if num_threads < 1:
        raise ValueError(f"num_threads must be at least 1, got {num_threads}")
    if num_threads > MAX_THREADS:
        raise ValueError(f"num_threads must be at most {MAX_THREADS}, got {num_threads}")
    _C.set_num_threads(num_threads)  # a refusal raises KilnError with the pool's code


def get_num_threads() -> int:
    """The number of threads Kiln's kernels run on (kiln.set_num_threads; 1 by default)."""
    return _C.get_num_threads()

"""kiln.export: a PyTorch module -> an ExecuTorch program (.pte) that Kiln and ExecuTorch run.

The stages, one module each, run by ``pipeline``:

- ``lowering``: the torch.export graph -> out-variant calls over numbered tensors (``graph``),
  with ``out_calls`` (out-variant arguments, typed by ``arguments``), ``constants`` (stored
  bytes, calls computed at export), ``operators`` / ``portable_ops`` (which operators a program
  may call) and ``nodes`` (nodes in error messages);
- ``planning``: memory arena offsets;
- ``emitting``: values, instructions, constant and mutable data;
- ``serialization``: flatbuffer (flatc's object API, ``schema``), extended header, segments.

``cli`` is the ``kiln-export`` command.
"""

from kiln._export.pipeline import export

__all__ = ["export"]

"""kiln.export: a PyTorch module -> an ExecuTorch program (.pte) that Kiln and ExecuTorch run.

The stages, one module each: ``lowering`` (torch.export graph -> out-variant calls, checked
against ``operators``), ``planning`` (memory arena offsets), ``emitting`` (values, instructions,
constants) and ``serialization`` (flatbuffer, extended header, segments); ``pipeline`` runs them.
"""

from kiln._export.pipeline import export

__all__ = ["export"]

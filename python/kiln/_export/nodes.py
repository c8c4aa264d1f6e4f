"""Graph nodes in messages: which operator a node calls and where the model's source made it."""

from __future__ import annotations

import os
import re

import torch

from kiln._errors import ExportError


def op_name(op: torch._ops.OpOverload) -> str:
    """``aten::add.Tensor``, ``aten::relu`` (the default overload unnamed)."""
    overload = op._overloadname
    return op._schema.name if overload == "default" else f"{op._schema.name}.{overload}"


def where(node: torch.fx.Node) -> str:
    """`` (at model.py:12)``: the last line of the user's code in the node's stack trace."""
    trace = node.meta.get("stack_trace")
    if not isinstance(trace, str):
        return ""
    frames = [
        (path, line)
        for path, line in re.findall(r'File "([^"]+)", line (\d+)', trace)
        if not path.startswith("<") and f"{os.sep}torch{os.sep}" not in path
    ]
    if not frames:
        return ""
    path, line = frames[-1]
    return f" (at {os.path.basename(path)}:{line})"


def node_error(node: torch.fx.Node, what: str, problem: str) -> ExportError:
    """``node 'x' (at model.py:12) calls <what>: <problem>``."""
    return ExportError(f"node '{node.name}'{where(node)} calls {what}: {problem}")

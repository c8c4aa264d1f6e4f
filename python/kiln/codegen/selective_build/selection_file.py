"""The selected_operators.yaml that ``python -m kiln.codegen.oplist`` writes: the union of root ops,
operator YAMLs, earlier selection files and programs (.pte or torch.export).

The output is the format torchgen.selective_build.SelectiveBuilder reads; a program's dtypes go
to et_kernel_metadata as kernel keys (an op also selected by a source without dtypes, that no
call of the program uses, or whose dtypes cannot be told, keeps every dtype). A .pte program's
XnnpackBackend delegate calls add the operators Kiln's delegate calls; a delegate call to another
backend is a warning on stderr, since what it runs is not Kiln's to select.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import yaml

from kiln.codegen.errors import UserError
from kiln.codegen.model.entries import YamlFile
from kiln.codegen.model.schemas import AtenSchemas
from kiln.codegen.selective_build.program_ops import program_ops
from kiln.codegen.selective_build.selector import parse_root_ops


def _operator_entry(source: str) -> dict[str, object]:
    return {
        "is_root_operator": True,
        "is_used_for_training": False,
        "include_all_overloads": False,
        "debug_info": [source],
    }


def _model_operators(
    paths: Sequence[str], operators: dict[str, dict[str, object]], any_dtype: set[str]
) -> dict[str, list[str]]:
    """Adds the programs' ops; returns their kernel keys, except for ops in ``any_dtype``."""
    keys: dict[str, set[str]] = {}
    for path in paths:
        found = program_ops(path)
        if found.unmapped:
            listed = "; ".join(f"{op}: {why}" for op, why in sorted(found.unmapped.items()))
            raise UserError(
                path,
                None,
                f"the program uses ops Kiln cannot run as out variants ({listed})",
                "rewrite the model without them, or declare custom out-variant ops for them in a "
                "custom_ops.yaml and select those with --root-ops",
            )
        for backend, where in found.other_delegates:
            print(
                f"{path}: warning: {where} calls delegate '{backend}', which Kiln does not run "
                "itself; the selection holds none of its operators (a runner must register it "
                f'with kiln::register_delegate("{backend}", ...))',
                file=sys.stderr,
            )
        for name, op_keys in found.keys.items():
            operators.setdefault(name, _operator_entry(path))
            keys.setdefault(name, set()).update(k.native_string() for k in op_keys)
    return {
        name: sorted(k)
        for name, k in sorted(keys.items())
        if k and "default" not in k and name not in any_dtype
    }


def _read_selection_file(path: str) -> dict[str, Any] | None:
    """A selected_operators.yaml's content, checked by SelectiveBuilder; None for an op YAML."""
    with open(path, encoding="utf-8") as stream:
        try:
            data = yaml.safe_load(stream)
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            raise UserError(
                path, mark.line + 1 if mark else None, f"YAML error: {error}", "fix the syntax"
            ) from None
    if not isinstance(data, dict) or not {"operators", "include_all_operators"} & set(data):
        return None
    from torchgen.selective_build.selector import SelectiveBuilder

    try:
        SelectiveBuilder.from_yaml_dict(data)
    except Exception as error:  # torchgen raises assertion and value errors for bad content
        raise UserError(
            path,
            None,
            f"not a valid selected_operators.yaml: {error or type(error).__name__}",
            "write the format torchgen.selective_build.SelectiveBuilder reads (operators:, "
            "include_all_operators:, et_kernel_metadata:)",
        ) from None
    return data


def selection(
    root_ops: str | None,
    ops_yamls: Sequence[str],
    include_all: bool,
    models: Sequence[str] = (),
) -> dict[str, object]:
    """The selected_operators.yaml content for the union of the sources."""
    operators: dict[str, dict[str, object]] = {}
    for name in parse_root_ops(root_ops or ""):
        operators.setdefault(name, _operator_entry("--root-ops"))
    schemas = AtenSchemas()
    selected_keys: dict[str, set[str]] = {}  # from selection files, with dtypes
    keyed_sources: dict[str, str] = {}
    for path in ops_yamls:
        chosen = _read_selection_file(path)
        if chosen is None:
            for op in YamlFile.from_yaml(path, schemas).ops:
                operators.setdefault(op.name, _operator_entry(f"{path}:{op.source.line}"))
            continue
        include_all = include_all or bool(chosen.get("include_all_operators"))
        metadata: dict[str, list[str]] = chosen.get("et_kernel_metadata") or {}
        names: dict[str, object] = chosen.get("operators") or {}
        for name in names:
            if name in metadata:
                selected_keys.setdefault(name, set()).update(metadata[name])
                keyed_sources.setdefault(name, path)
            else:
                operators.setdefault(name, _operator_entry(path))
    # Ops named by a source without dtypes keep every dtype, even when a model also uses them.
    any_dtype = set(operators)
    et_kernel_metadata = _model_operators(models, operators, any_dtype)
    for name, keys in selected_keys.items():
        operators.setdefault(name, _operator_entry(keyed_sources[name]))
        if name not in any_dtype:
            et_kernel_metadata[name] = sorted(set(et_kernel_metadata.get(name, [])) | keys)
    return {
        "build_features": [],
        "custom_classes": [],
        "include_all_non_op_selectives": False,
        "include_all_operators": include_all,
        "kernel_metadata": {},
        "et_kernel_metadata": dict(sorted(et_kernel_metadata.items())),
        "operators": dict(sorted(operators.items())),
    }

"""python -m codegen.missing_ops (kiln-missing-ops): what a library lacks, why, and the fix.

Exit codes: 0 nothing missing (warnings allowed), 1 something missing, 2 bad usage or unreadable
input. --json prints a stable document for tools; otherwise a table for people.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from codegen.diagnose import (
    CAUSES,
    Diagnosis,
    Finding,
    Manifest,
    Need,
    defined_symbols,
    describe_key,
    needs_from_model,
    needs_from_selection,
    summarize,
)
from codegen.errors import CliParser, UserError
from codegen.model.entries import YamlFile
from codegen.model.schemas import AtenSchemas
from codegen.selective_build.selector import parse_root_ops

PROG = "python -m codegen.missing_ops"
JSON_VERSION = 1


def _parser() -> argparse.ArgumentParser:
    parser = CliParser(prog=PROG, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--library", metavar="L", required=True, help="<lib>.manifest.json")
    parser.add_argument("--ops", metavar="A,B", help="ops needed, e.g. aten::add.out,mul.out")
    parser.add_argument(
        "--model", metavar="P", action="append", default=[], help="torch.export program"
    )
    parser.add_argument(
        "--selected-ops", metavar="Y", action="append", default=[], help="selection YAML"
    )
    parser.add_argument("--backend", choices=("portable", "ascend"), default="portable")
    parser.add_argument(
        "--functions-yaml", metavar="F", help="where to look for unselected kernels"
    )
    parser.add_argument(
        "--custom-ops-yaml", metavar="F", help="where to look for unselected kernels"
    )
    parser.add_argument(
        "--kernel-libs", metavar="LIB", nargs="+", help="built kernel libraries to check with nm"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def _needs(options: argparse.Namespace) -> list[Need]:
    needs: list[Need] = []
    if options.ops:
        needs += [Need(name, (), "--ops") for name in parse_root_ops(options.ops)]
    for path in options.selected_ops:
        needs += needs_from_selection(path)
    for path in options.model:
        needs += needs_from_model(path)
    if not needs:
        raise UserError(PROG, None, "nothing to check", "pass --ops, --model or --selected-ops")
    return needs


def _yamls(options: argparse.Namespace, manifest: Manifest) -> list[YamlFile]:
    given = [p for p in (options.functions_yaml, options.custom_ops_yaml) if p]
    paths = given or [p for p in manifest.yaml_paths if os.path.exists(p)]
    schemas = AtenSchemas()
    return [YamlFile.from_yaml(path, schemas) for path in paths]


def diagnose(options: argparse.Namespace) -> tuple[Manifest, list[Finding]]:
    manifest = Manifest.load(options.library)
    needs = _needs(options)
    symbols = defined_symbols(options.kernel_libs) if options.kernel_libs else None
    diagnosis = Diagnosis(manifest, _yamls(options, manifest), options.backend, symbols)
    findings: list[Finding] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for need in needs:
        if (need.name, need.keys) in seen:
            continue
        seen.add((need.name, need.keys))
        findings += diagnosis.check(need)
    return manifest, findings


def render_json(manifest: Manifest, backend: str, findings: list[Finding]) -> str:
    document = {
        "version": JSON_VERSION,
        "library": manifest.library,
        "manifest": manifest.path,
        "backend": backend,
        "summary": summarize(findings),
        "findings": [
            {
                "op": f.op,
                "cause": f.cause,
                "severity": f.severity,
                "key": f.key,
                "backends_searched": list(f.backends_searched),
                "needed_by": f.source,
                "message": f.message,
                "fix": list(f.fix),
            }
            for f in findings
        ],
    }
    return json.dumps(document, indent=2, sort_keys=True)


def render_table(manifest: Manifest, backend: str, findings: list[Finding]) -> str:
    counts = summarize(findings)
    lines = [
        f"library {manifest.library} ({manifest.path}), backend {backend}: "
        f"{counts['missing']} missing, {counts['warnings']} warnings"
    ]
    for index, finding in enumerate(findings, 1):
        label = "MISSING" if finding.severity == "missing" else "warning"
        key = f" [{describe_key(finding.key)}]" if finding.key else ""
        lines.append("")
        lines.append(f"{index}. {label} {finding.op}{key} — {CAUSES[finding.cause]}")
        lines.append(f"   {finding.message}")
        if finding.source:
            lines.append(f"   needed by: {finding.source}")
        for fix in finding.fix:
            fix_lines = fix.splitlines()
            lines.append(f"   fix: {fix_lines[0]}")
            lines += [f"        {line}" for line in fix_lines[1:]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        options = _parser().parse_args(argv)
        manifest, findings = diagnose(options)
    except UserError as error:
        print(error.render(), file=sys.stderr)
        return 2
    render = render_json if options.json else render_table
    print(render(manifest, options.backend, findings))
    return 1 if summarize(findings)["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())

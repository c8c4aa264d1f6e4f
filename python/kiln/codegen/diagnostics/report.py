"""How missing_ops shows its findings: a stable JSON document for tools, or a table for people."""

from __future__ import annotations

import json

from kiln.codegen.diagnostics.diagnosis import CAUSES, Finding, describe_key, summarize
from kiln.codegen.diagnostics.manifest import Manifest

JSON_VERSION = 1


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

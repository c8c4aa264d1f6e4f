"""Keeps the last result of each benchmark in build/bench-history.json so every run prints its
figures next to the previous build's."""

from __future__ import annotations

import json
from pathlib import Path

HISTORY = Path(__file__).resolve().parent.parent / "build" / "bench-history.json"


def compare(name: str, value: float, unit: str) -> str:
    """Records `value` under `name` and returns a line with the change since the last record."""
    history = json.loads(HISTORY.read_text()) if HISTORY.exists() else {}
    previous = history.get(name)
    history[name] = value
    HISTORY.parent.mkdir(parents=True, exist_ok=True)
    HISTORY.write_text(json.dumps(history, indent=2, sort_keys=True))
    if previous is None:
        return f"{name:40} {value:12.3f} {unit:4} (no previous run)"
    ratio = value / previous if previous else float("inf")
    return f"{name:40} {value:12.3f} {unit:4} previous {previous:.3f} ({ratio:.2f}x)"

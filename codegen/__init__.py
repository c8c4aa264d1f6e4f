"""Kiln's code generator: functions.yaml / custom_ops.yaml + a selection -> C++ registration code.

Run ``python -m codegen --help``; see docs/codegen.md.
"""

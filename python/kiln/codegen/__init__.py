"""Kiln's code generator: functions.yaml / custom_ops.yaml + a selection -> C++ registration code.

Three command lines, each a thin module here: ``cli`` (``python -m kiln.codegen``),
``oplist`` (``python -m kiln.codegen.oplist``) and ``missing_ops``
(``python -m kiln.codegen.missing_ops``). Beside them ``library`` joins the packages into one
resolved library, ``errors`` holds the one exception users see and ``output`` writes files only
when they change. Packages, in dependency order: ``model`` (the YAML data model), ``api``
(schemas -> C++), ``selective_build`` (selection), ``dest`` (the generated files' text),
``diagnostics`` (missing-operator reports). Importing any of it loads neither torch nor the
extension kiln._C: CMake runs the codegen before the extension exists. See docs/codegen.md.
"""

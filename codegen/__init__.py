"""``python -m codegen ...`` in a Kiln source tree, as the docs long spelled it: each module here
runs its namesake under ``kiln.codegen``, where the generator lives. Not shipped in the wheel, so
an installed Kiln claims no top-level ``codegen`` of a user's environment; installed, run
``python -m kiln.codegen`` (or ``kiln-codegen``)."""

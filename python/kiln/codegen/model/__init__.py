"""The YAML data model: strict YAML loading with file:line, and the frozen operator entries.

``parse`` (YAML nodes that keep their line), ``entries`` (``YamlFile`` / ``OpEntry`` /
``KernelEntry``), ``aliases`` (``type_alias`` / ``dim_order_alias`` -> kernel keys),
``kernel_keys`` (the ``v1/<dtype>;<dim order>`` format), ``backends`` (the backend list, read from
runtime/kernel/backends.def), ``schemas`` (ATen schemas from torchgen, cached), ``schema_types``
(normalised schema types, the supported list), ``identifiers`` (C++ names the YAML may use),
``op_names`` (a bare operator name is ATen's; the kiln package uses it too, so this package's
``__init__`` stays import-free). It imports nothing from the rest of the generator: ``api``,
``dest``, ``selective_build`` and ``diagnostics`` build on it.
"""

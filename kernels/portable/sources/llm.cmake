# Kiln's LLM-serving operators (custom_ops.yaml, namespace kiln; docs/custom_ops.md).
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_advance_step_flashattn.cpp
  cpu/op_fused_add_rms_norm.cpp
  cpu/op_gelu_and_mul.cpp
  cpu/op_paged_attention.cpp
  cpu/op_reshape_and_cache.cpp
  cpu/op_rms_norm.cpp
  cpu/op_rotary_embedding.cpp
  cpu/op_silu_and_mul.cpp
  cpu/op_weight_int8_linear.cpp
  cpu/util/llm.cpp
  cpu/util/rms_norm.cpp
)

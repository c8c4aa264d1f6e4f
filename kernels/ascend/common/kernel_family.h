// Ascend kernel families described once: the X-macro conventions from which both builds generate
// a family's `extern "C" __global__ __aicore__` entries (here), their host declarations and its
// launch switch (launch.h).
//
// A family with prefix F (KILN_BINARY, ...) describes itself in op_<family>/<family>_kernels.h:
//
//   #define F_PARAMS(P) P(x), P(y), P(tiling)   its GM parameters, in order
//   #define F_KERNELS(X, F)                      one X(F, ...) row per entry:
//     X(F, kiln_f_half, DeviceDtype::Half, ALL, half)
//          entry name   host key           where  template arguments of F_RUN
//
// The host key is what the launch function compares its key with (any expression, parenthesized
// if it holds a comma). `where` is ALL, or 910B for entries that exist on Ascend910B (arch 2201)
// only: bfloat16 and the float cube. The family's kernel source defines F_RUN, its runner
// template, then KILN_ASCEND_DEFINE_KERNELS(F) defines every entry as
//
//   extern "C" __global__ __aicore__ void entry(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
//     F_RUN<template arguments>(x, y, tiling);
//   }
//
// Pure preprocessor: included by device code (bisheng, or the emulator) and host code alike.
#pragma once

// KILN_ASCEND_ON_<where>(code...): `code` where this compilation has the entries of `where`.
// Device passes know the arch; host code of a CANN build knows the SoC it was configured for
// (KILN_ASCEND_SOC_HAS_BF16); emulated builds have every entry and check the SoC at run time.
#define KILN_ASCEND_ON_ALL(...) __VA_ARGS__
#if defined(__NPU_ARCH__)
#if __NPU_ARCH__ == 2201
#define KILN_ASCEND_ON_910B(...) __VA_ARGS__
#else
#define KILN_ASCEND_ON_910B(...)
#endif
#elif !defined(KILN_ASCEND_CANN) || defined(KILN_ASCEND_SOC_HAS_BF16)
#define KILN_ASCEND_ON_910B(...) __VA_ARGS__
#else
#define KILN_ASCEND_ON_910B(...)
#endif

// What F_PARAMS(P) becomes, by P: entry parameters, arguments, host pointers, ACL's pointers.
#define KILN_ASCEND_GM_PARAM(name) GM_ADDR name
#define KILN_ASCEND_ARG(name) name
#define KILN_ASCEND_HOST_PARAM(name) uint8_t* name
#define KILN_ASCEND_ACL_PARAM(name) void* name

// Device code: every entry of family F (after F_RUN is defined).
#define KILN_ASCEND_DEFINE_KERNELS(F) F##_KERNELS(KILN_ASCEND_DEFINE_KERNEL_, F)
#define KILN_ASCEND_DEFINE_KERNEL_(F, entry, key, where, ...)         \
  KILN_ASCEND_ON_##where(extern "C" __global__ __aicore__ void entry( \
      F##_PARAMS(KILN_ASCEND_GM_PARAM)) { F##_RUN<__VA_ARGS__>(F##_PARAMS(KILN_ASCEND_ARG)); })

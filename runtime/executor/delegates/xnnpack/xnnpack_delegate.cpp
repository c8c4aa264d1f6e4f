#include "runtime/executor/delegates/xnnpack/xnnpack_delegate.h"

#include <cstdio>

#include "runtime/executor/delegates/xnnpack/xnnpack_builder.h"
#include "runtime/executor/delegates/xnnpack/xnnpack_payload.h"
#include "runtime/executor/kernel_fallback.h"
#include "runtime/platform/last_error.h"

namespace kiln {

namespace {

using xnnpack::Runner;
using xnnpack::RunStep;

class XnnpackDelegate final : public Delegate {
 public:
  Result<void*> init(DelegateInitContext& context) const override {
    char where[128];
    std::snprintf(where, sizeof(where), "method '%s': instruction %zu (XnnpackBackend)",
                  context.method_name(), context.instruction());
    Result<XnnPayload> payload = read_xnn_payload(context.payload(), where);
    if (!payload.ok()) return payload.error();
    Result<Runner*> runner = xnnpack::GraphBuilder(context, *payload).build();
    if (!runner.ok()) return runner.error();
    return static_cast<void*>(*runner);
  }

  Error execute(void* handle, KernelRuntimeContext& ctx, Span<EValue*> args,
                bool may_reset_temp) const override {
    Runner& runner = *static_cast<Runner*>(handle);
    KILN_RETURN_IF_ERROR(bind(runner, args));
    bool temps_held = !may_reset_temp, clamp_taken = false;
    for (size_t s = 0; s < runner.num_steps; ++s) {
      RunStep& step = runner.steps[s];
      if (step.num_kernels == 0) {  // a view follows its base's bytes
        step.view->set_storage(step.base->mutable_data(), step.base->nbytes());
        continue;
      }
      if (step.skip_if_clamped && clamp_taken) continue;
      ctx.reset_failure();
      const Error error = run_with_fallback(
          ctx, {step.kernels, step.num_kernels, runner.first_backend}, step.stack,
          step.offers_clamp ? &step.clamp : nullptr, &temps_held, &step.served, &clamp_taken);
      if (error != Error::Ok || ctx.failure_state() != Error::Ok) {
        KILN_SET_ERROR("node %u (%s, %s): %s", step.node, step.kind,
                       step.kernels[step.served]->name,
                       ctx.failure_message()[0] ? ctx.failure_message() : to_string(error));
        return error != Error::Ok ? error : ctx.failure_state();
      }
    }
    return Error::Ok;
  }

 private:
  // Binds the call's arguments to the graph's external values: their bytes may move from run to
  // run (inputs bound in place), their dtype and size were checked at init and cannot change but
  // for a dynamic input, which the graph's static shapes cannot take.
  static Error bind(Runner& runner, Span<EValue*> args) {
    for (size_t e = 0; e < runner.num_externals; ++e) {
      const xnnpack::ExternalBinding& binding = runner.externals[e];
      const Tensor& given = args[binding.arg]->toTensor();
      if (given.nbytes() != binding.tensor->nbytes()) {
        KILN_SET_ERROR(
            "argument %u has %zu bytes, the XNNPACK graph's static shapes %zu (Kiln's XNNPACK "
            "delegate runs static shapes only)",
            binding.arg, given.nbytes(), binding.tensor->nbytes());
        return Error::InvalidArgument;
      }
      binding.tensor->set_storage(given.mutable_data_ptr(), given.nbytes());
    }
    return Error::Ok;
  }
};

}  // namespace

const Delegate& xnnpack_delegate() {
  static const XnnpackDelegate kDelegate;
  return kDelegate;
}

}  // namespace kiln

// kiln._C's Ascend emulator controls: the SoC profile kernels run against, the block shuffle
// seed, and the per-launch reports (blocks, UB high-water mark, bytes moved, instructions).
#include "ascend_bindings.h"

#include <pybind11/stl.h>

#include "kernels/ascend/emu/emulator.h"

namespace kiln::python {

void bind_ascend(pybind11::module_& m) {
  namespace py = pybind11;
  namespace emu = kiln::ascend::emu;
  m.def("ascend_soc", [] { return std::string(emu::soc().name); });
  m.def("ascend_set_soc", [](const std::string& name) {
    if (!emu::set_soc(name)) {
      throw py::value_error("unknown Ascend SoC '" + name + "'; use Ascend910B or Ascend310P");
    }
  });
  m.def("ascend_seed", [] { return emu::seed(); });
  m.def("ascend_set_seed", [](uint64_t seed) { emu::set_seed(seed); });
  m.def("ascend_launch_history", [] {
    py::list reports;
    for (const kiln::ascend::KernelReport& report : emu::launch_history()) {
      py::dict entry;
      entry["kernel"] = report.kernel;
      entry["blocks"] = report.blocks;
      entry["ub_high_water_bytes"] = report.ub_high_water_bytes;
      entry["gm_to_ub_bytes"] = report.gm_to_ub_bytes;
      entry["ub_to_gm_bytes"] = report.ub_to_gm_bytes;
      entry["gm_to_l1_bytes"] = report.gm_to_l1_bytes;
      entry["l0c_to_gm_bytes"] = report.l0c_to_gm_bytes;
      entry["vector_instructions"] = report.vector_instructions;
      entry["cube_instructions"] = report.cube_instructions;
      reports.append(entry);
    }
    return reports;
  });
  m.def("ascend_clear_launch_history", [] { emu::clear_launch_history(); });
}

}  // namespace kiln::python

#include "program_bindings.h"

#include <pybind11/stl.h>

#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend_names.h"
#include "kiln_error.h"
#include "runtime/core/dim_order.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/data_file.h"
#include "runtime/executor/heap_memory.h"
#include "runtime/executor/method.h"
#include "runtime/executor/prim_ops.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/platform/clock.h"
#include "runtime/platform/last_error.h"
#include "runtime/platform/log.h"
#include "runtime/platform/mapped_file.h"
#include "sigint_cancels.h"
#include "thread_settings.h"

namespace py = pybind11;

namespace kiln::python {
namespace {

[[noreturn]] void raise(Error error, const std::string& message) {
  raise_kiln_error(error, message);
}

// A name from the program file as Python text: printable() escapes bytes that are not UTF-8.
std::string text(const char* name) {
  if (name == nullptr) return "";
  const size_t length = std::strlen(name);
  std::string out(length * 4 + 1, '\0');
  out.resize(printable(name, length, out.data(), out.size()));
  return out;
}

// A caller's tensor bound as an input: its metadata lives here, its data stays the caller's.
struct BoundTensor {
  std::array<SizesType, kTensorDimensionLimit> sizes{};
  std::array<DimOrderType, kTensorDimensionLimit> dim_order{};
  std::array<StridesType, kTensorDimensionLimit> strides{};
  std::optional<TensorImpl> impl;
};

// Owns the program's bytes (the mapped file, or a 64-byte aligned copy of the caller's bytes, as
// constants need 16), its data file's likewise, the Program, the Method and its heap memory. Not
// copyable: the Method points into all of them.
class LoadedProgram {
 public:
  // The program's data file (.ptd), when it has one: a path, mapped, or the file's bytes.
  struct DataSource {
    std::optional<std::string> path;
    std::optional<py::bytes> bytes;
  };

  static std::unique_ptr<LoadedProgram> from_file(const std::string& path,
                                                  const std::string& method_name,
                                                  const std::vector<std::string>& backend_names,
                                                  std::optional<size_t> max_memory,
                                                  bool fold_constants, bool fuse,
                                                  const DataSource& data) {
    auto loaded = std::unique_ptr<LoadedProgram>(new LoadedProgram(backend_names));
    loaded->file_.emplace(map(path));
    loaded->open_data(data);
    loaded->load(static_cast<const uint8_t*>(loaded->file_->data()), loaded->file_->size(),
                 method_name, max_memory.value_or(HeapMethodMemory::kUnbounded), fold_constants,
                 fuse);
    return loaded;
  }

  static std::unique_ptr<LoadedProgram> from_bytes(const py::bytes& data,
                                                   const std::string& method_name,
                                                   const std::vector<std::string>& backend_names,
                                                   std::optional<size_t> max_memory,
                                                   bool fold_constants, bool fuse,
                                                   const DataSource& data_file) {
    auto loaded = std::unique_ptr<LoadedProgram>(new LoadedProgram(backend_names));
    const std::string_view view = data;
    loaded->bytes_ = aligned_copy(view, "the program");
    loaded->open_data(data_file);
    loaded->load(loaded->bytes_.get(), view.size(), method_name,
                 max_memory.value_or(HeapMethodMemory::kUnbounded), fold_constants, fuse);
    return loaded;
  }

  // Tensor values whose bytes come from the data file (0 without one).
  size_t num_external_tensors() const { return program_->num_external_tensors(); }

  // (code, message) of a failed Method::load, ("Ok", "") otherwise; the missing-operator
  // report stays readable either way.
  py::tuple load_status() const { return py::make_tuple(to_string(load_status_), load_error_); }

  py::list missing_operators() const {
    py::list report;
    for (const MissingOperator& entry : missing_) {
      report.append(py::make_tuple(entry.index, text(entry.name), entry.key ? entry.key : "",
                                   to_string(entry.cause)));
    }
    return report;
  }

  Method& method() {
    if (!method_) raise(load_status_, load_error_);
    return *method_;
  }

  // (kind, dtype code, sizes, dim order, dynamic) of input `index`; kind is the tag name, a
  // tensor's sizes are the largest it takes (a dynamic input's bounds).
  py::tuple input_meta(size_t index) {
    const EValue& value = method().input(checked_index(index, method().num_inputs(), "input"));
    const py::tuple meta = value_meta(value);
    if (!value.isTensor()) return py::make_tuple(meta[0], meta[1], meta[2], meta[3], false);
    const ArrayRef<SizesType> bounds = method().input_max_sizes(index);
    const bool dynamic = value.toTensor().shape_dynamism() != TensorShapeDynamism::Static;
    return py::make_tuple(meta[0], meta[1], std::vector<int64_t>(bounds.begin(), bounds.end()),
                          meta[3], dynamic);
  }

  void set_tensor_input(size_t index, uintptr_t data, const std::vector<int64_t>& sizes, int dtype,
                        const std::vector<int64_t>& dim_order) {
    checked_index(index, method().num_inputs(), "input");
    if (sizes.size() > kTensorDimensionLimit || dim_order.size() != sizes.size()) {
      raise(Error::InvalidArgument, "input " + std::to_string(index) + ": bad tensor metadata");
    }
    int64_t numel = 1;
    for (const int64_t size : sizes) numel *= size;
    if (data == 0 && numel != 0) {  // a meta tensor: Method::set_input would copy from null
      raise(Error::InvalidArgument, "input " + std::to_string(index) + ": the tensor has no data");
    }
    BoundTensor& bound = bound_[index];
    for (size_t d = 0; d < sizes.size(); ++d) {
      bound.sizes[d] = sizes[d];
      bound.dim_order[d] = static_cast<DimOrderType>(dim_order[d]);
    }
    (void)dim_order_to_strides({bound.sizes.data(), sizes.size()},
                               {bound.dim_order.data(), sizes.size()},
                               {bound.strides.data(), sizes.size()});
    bound.impl.emplace(static_cast<ScalarType>(dtype), sizes.size(), bound.sizes.data(),
                       reinterpret_cast<void*>(data), bound.dim_order.data(), bound.strides.data());
    check(method().set_input(index, EValue(Tensor(&*bound.impl))));
  }

  void set_scalar_input(size_t index, const py::object& value) {
    checked_index(index, method().num_inputs(), "input");
    EValue boxed;
    // A value pybind11 cannot convert (an int past int64, a complex, a string) is the caller's
    // error: KilnError, not pybind11's RuntimeError.
    try {
      if (py::isinstance<py::bool_>(value)) {
        boxed = EValue(value.cast<bool>());
      } else if (py::isinstance<py::int_>(value)) {
        boxed = EValue(value.cast<int64_t>());
      } else {
        boxed = EValue(value.cast<double>());
      }
    } catch (const py::cast_error&) {
      raise(Error::InvalidArgument, "input " + std::to_string(index) +
                                        ": a scalar input takes a bool, an int within " +
                                        "int64 or a float, got " + std::string(py::repr(value)));
    }
    check(method().set_input(index, boxed));
  }

  // `max_instructions` bounds the run (0: the Method's default budget).
  void execute(bool profile, uint64_t max_instructions) {
    Method& m = method();
    if (profile) times_.assign(m.num_instructions(), 0);
    Error error;
    const std::shared_ptr<ThreadPool> pool = current_thread_pool();  // kiln.set_num_threads
    m.set_thread_pool(pool.get());
    m.set_instruction_budget(max_instructions);
    m.set_cancel_flag(&cancel_);
    SigintCancels interruptible(&cancel_);
    {
      py::gil_scoped_release release;
      error = m.execute(profile ? Span<uint64_t>(times_.data(), times_.size()) : Span<uint64_t>());
    }
    interruptible.raise_if_interrupted();
    if (error != Error::Ok) raise(error, last_error());
  }

  // Sets the bound tensor inputs again (see time_execute).
  Error rebind_tensor_inputs(Method& m) {
    for (size_t i = 0; i < bound_.size(); ++i) {
      if (!bound_[i].impl) continue;
      const Error error = m.set_input(i, EValue(Tensor(&*bound_[i].impl)));
      if (error != Error::Ok) return error;
    }
    return Error::Ok;
  }

  // Mean nanoseconds of `repeat` runs on the bound inputs, natively (no Python per run).
  double time_execute(int repeat) {
    Method& m = method();
    if (repeat < 1) raise(Error::InvalidArgument, "repeat must be at least 1");
    Error error = Error::Ok;
    uint64_t elapsed = 0;
    const std::shared_ptr<ThreadPool> pool = current_thread_pool();
    m.set_thread_pool(pool.get());
    m.set_instruction_budget(0);
    m.set_cancel_flag(&cancel_);
    SigintCancels interruptible(&cancel_);
    {
      py::gil_scoped_release release;
      const uint64_t start = monotonic_ns();
      // Each run binds the tensor inputs again, as a caller's loop does: the memory plan may
      // reuse a copied-in input's bytes once the input is read.
      for (int r = 0; r < repeat && error == Error::Ok; ++r) {
        error = rebind_tensor_inputs(m);
        if (error == Error::Ok) error = m.execute();
      }
      elapsed = monotonic_ns() - start;
    }
    interruptible.raise_if_interrupted();
    if (error != Error::Ok) raise(error, last_error());
    return static_cast<double>(elapsed) / repeat;
  }

  py::tuple output_meta(size_t index) {
    return value_meta(method().output(checked_index(index, method().num_outputs(), "output")));
  }

  // Copies output `index` (a tensor) into `nbytes` at `data`.
  void copy_output(size_t index, uintptr_t data, size_t nbytes) {
    const EValue& value = method().output(checked_index(index, method().num_outputs(), "output"));
    if (!value.isTensor() || value.toTensor().nbytes() != nbytes) {
      raise(Error::InvalidArgument, "output " + std::to_string(index) + ": size mismatch");
    }
    if (nbytes > 0) {
      std::memcpy(reinterpret_cast<void*>(data), value.toTensor().const_data_ptr(), nbytes);
    }
  }

  // The method's operator table as qualified names ("aten::add.out"), in table order.
  std::vector<std::string> operators() {
    Method& m = method();
    std::vector<std::string> names;
    for (size_t i = 0; i < m.num_operators(); ++i) names.push_back(text(m.operator_name(i)));
    return names;
  }

  // (index, kind, op, backend, activation) per instruction: the operator of a kernel call (""
  // otherwise), the backend whose kernel ran it last ("" before the first run), and the
  // activation fused into it ("" for none).
  py::list instructions() {
    Method& m = method();
    py::list rows;
    for (size_t i = 0; i < m.num_instructions(); ++i) {
      const InstructionInfo info = m.instruction_info(i);
      rows.append(
          py::make_tuple(i, info.kind, text(info.op), backend_of(info), text(info.activation)));
    }
    return rows;
  }

  // (index, kind, op, backend, ns, activation) per instruction of the last profiled run.
  py::list last_profile() {
    Method& m = method();
    py::list rows;
    for (size_t i = 0; i < m.num_instructions() && i < times_.size(); ++i) {
      const InstructionInfo info = m.instruction_info(i);
      rows.append(py::make_tuple(i, info.kind, text(info.op), backend_of(info), times_[i],
                                 text(info.activation)));
    }
    return rows;
  }

  // (instructions, bytes, peak bytes, over limit, fused activations, fused batch norms, fused
  // int8 chains): what constant folding and fusion did at load.
  py::tuple folded() {
    const FoldReport& report = method().fold_report();
    return py::make_tuple(report.instructions, report.bytes, report.peak_bytes, report.over_limit,
                          report.fused_activations, report.fused_batch_norms, report.fused_int8);
  }

  size_t num_inputs() { return method().num_inputs(); }
  size_t num_outputs() { return method().num_outputs(); }

  // One run (bind, execute, copy the outputs) at a time: the Method's input bindings and memory
  // are shared, and execute() releases the GIL. Python's Program.run holds this from its first
  // bind to its last copy. The GIL is released before waiting, or a thread holding the lock could
  // never get the GIL back to finish its run.
  //
  // A run is the time between acquire() and release(): acquire() clears the cancel flag, so a
  // cancel() made while no run held the lock never stops a later run.
  void acquire() {
    py::gil_scoped_release release;
    run_mutex_.lock();
    std::lock_guard<std::mutex> state(cancel_mutex_);
    running_ = true;
    cancel_.store(false);
  }
  void release() {
    {
      std::lock_guard<std::mutex> state(cancel_mutex_);
      running_ = false;
    }
    run_mutex_.unlock();
  }

  // Stops the run in progress, if any, before its next instruction (from any thread; the run
  // then raises InvalidState). cancel_mutex_ is never held while waiting for the GIL.
  void cancel() {
    std::lock_guard<std::mutex> state(cancel_mutex_);
    if (running_) cancel_.store(true);
  }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };

  explicit LoadedProgram(const std::vector<std::string>& backend_names)
      : backends_(parse_backends(backend_names)) {}

  static MappedFile map(const std::string& path) {
    MappedFile file = MappedFile::open(path.c_str());
    if (!file.ok()) raise(Error::AccessFailed, last_error());
    return file;
  }

  using Bytes = std::unique_ptr<uint8_t, Free>;
  static Bytes aligned_copy(std::string_view view, const char* what) {
    Bytes bytes(static_cast<uint8_t*>(std::aligned_alloc(64, (view.size() / 64 + 1) * 64)));
    if (bytes == nullptr)
      raise(Error::MemoryAllocationFailed, std::string("no memory for ") + what);
    std::memcpy(bytes.get(), view.data(), view.size());
    return bytes;
  }

  // Maps or copies the data file and verifies it (a bad one raises, naming it).
  void open_data(const DataSource& source) {
    const uint8_t* data = nullptr;
    size_t size = 0;
    if (source.path) {
      data_file_.emplace(map(*source.path));
      data = static_cast<const uint8_t*>(data_file_->data());
      size = data_file_->size();
    } else if (source.bytes) {
      const std::string_view view = *source.bytes;
      data_bytes_ = aligned_copy(view, "the data file");
      data = data_bytes_.get();
      size = view.size();
    } else {
      return;
    }
    Result<DataFile> loaded = DataFile::load(data, size, source.path.value_or("<bytes>"));
    if (!loaded.ok()) raise(loaded.error(), last_error());
    data_.emplace(*loaded);
  }

  // What ran an instruction: "folded" for one computed at load, "int8" for a convolution or
  // linear fused with its dequantize and quantize, else the backend of the kernel that ran it
  // last, else "fused" for an activation the call before it has applied, or a call merged into
  // an int8 call (and "" before the first run).
  static std::string backend_of(const InstructionInfo& info) {
    if (info.folded) return "folded";
    if (info.int8) return "int8";
    if (info.served) return to_string(info.served->backend);
    return info.fused ? "fused" : "";
  }

  // Loads `method_name` of the program in `data`. A bad program or an unknown method raises; a
  // method whose operators are missing is kept as load_status() and missing_operators().
  // `fold_constants` runs the calls on constants once here (LoadOptions::fold_constants); `fuse`
  // fuses activations into the calls before them (LoadOptions::fuse).
  void load(const uint8_t* data, size_t size, const std::string& method_name, size_t max_memory,
            bool fold_constants, bool fuse) {
    Result<Program> program = Program::load(data, size, data_ ? &*data_ : nullptr);
    if (!program.ok()) raise(program.error(), last_error());
    program_.emplace(std::move(*program));
    Result<MethodMeta> meta = program_->method_meta(method_name);
    if (!meta.ok()) raise(meta.error(), last_error());
    memory_ = std::make_unique<HeapMethodMemory>(*meta, max_memory);
    if (memory_->status() != Error::Ok) {
      raise(memory_->status(), "cannot allocate the method's " +
                                   std::to_string(memory_->planned_bytes()) +
                                   " planned bytes: " + last_error());
    }
    missing_.resize(meta->num_operators());
    MissingReport report{{missing_.data(), missing_.size()}, 0};
    // Folding runs kernels at load, on the pool the runs use (kiln.set_num_threads).
    const std::shared_ptr<ThreadPool> pool = current_thread_pool();
    LoadOptions options;
    options.fold_constants = fold_constants;
    options.fuse = fuse;
    options.thread_pool = pool.get();
    Result<Method> method = Method::load(*program_, method_name, memory_->memory(),
                                         {backends_.data(), backends_.size()}, &report, options);
    if (!method.ok()) {
      missing_.resize(std::min(report.count, missing_.size()));
      load_error_ = last_error();
      load_status_ = method.error();
      return;
    }
    missing_.clear();
    method_.emplace(std::move(*method));
    bound_.resize(method_->num_inputs());
  }

  static void check(Error error, const char* message) {
    if (error != Error::Ok) raise(error, message);
  }
  void check(Error error) { check(error, last_error()); }

  static size_t checked_index(size_t index, size_t count, const char* what) {
    if (index >= count) {
      throw py::index_error(std::string(what) + " " + std::to_string(index) + " of " +
                            std::to_string(count));
    }
    return index;
  }

  static py::tuple value_meta(const EValue& value) {
    if (!value.isTensor()) {
      py::object scalar = value.isInt()      ? py::object(py::int_(value.toInt()))
                          : value.isDouble() ? py::object(py::float_(value.toDouble()))
                          : value.isBool()   ? py::object(py::bool_(value.toBool()))
                                             : py::object(py::none());
      return py::make_tuple(to_string(value.tag()), scalar, py::none(), py::none());
    }
    const Tensor& t = value.toTensor();
    std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
    std::vector<int64_t> order(t.dim_order().begin(), t.dim_order().end());
    return py::make_tuple("Tensor", static_cast<int>(t.scalar_type()), sizes, order);
  }

  std::optional<MappedFile> file_;
  Bytes bytes_;
  std::optional<MappedFile> data_file_;
  Bytes data_bytes_;
  std::optional<DataFile> data_;
  std::vector<Backend> backends_;
  std::optional<Program> program_;
  std::unique_ptr<HeapMethodMemory> memory_;
  std::optional<Method> method_;
  std::vector<MissingOperator> missing_;
  Error load_status_ = Error::Ok;
  std::string load_error_;
  std::vector<BoundTensor> bound_;
  std::vector<uint64_t> times_;
  std::mutex run_mutex_;
  // Whether a run holds run_mutex_, and its cancel flag (read by Method::execute between
  // instructions): both change under cancel_mutex_, so cancel() cannot reach the next run.
  std::mutex cancel_mutex_;
  bool running_ = false;
  std::atomic<bool> cancel_{false};
};

}  // namespace

void bind_program(py::module_& m) {
  // The executor's prim operators (runtime/executor/prim_ops.h), in every program's reach.
  m.def("prim_operators", [] {
    py::list names;
    for (size_t i = 0; i < prim_op_count(); ++i) names.append(prim_op(i).name);
    return names;
  });
  // data_path or data_bytes: the program's data file (.ptd), mapped or copied.
  auto from_file = [](const std::string& path, const std::string& method,
                      const std::vector<std::string>& backends, std::optional<size_t> max_memory,
                      bool fold_constants, bool fuse, std::optional<std::string> data_path,
                      std::optional<py::bytes> data_bytes) {
    return LoadedProgram::from_file(path, method, backends, max_memory, fold_constants, fuse,
                                    {std::move(data_path), std::move(data_bytes)});
  };
  auto from_bytes = [](const py::bytes& data, const std::string& method,
                       const std::vector<std::string>& backends, std::optional<size_t> max_memory,
                       bool fold_constants, bool fuse, std::optional<std::string> data_path,
                       std::optional<py::bytes> data_bytes) {
    return LoadedProgram::from_bytes(data, method, backends, max_memory, fold_constants, fuse,
                                     {std::move(data_path), std::move(data_bytes)});
  };
  py::class_<LoadedProgram>(m, "Program", py::module_local())
      .def_static("from_file", from_file, py::arg("path"), py::arg("method"), py::arg("backends"),
                  py::arg("max_memory"), py::arg("fold_constants") = true, py::arg("fuse") = true,
                  py::arg("data_path") = py::none(), py::arg("data_bytes") = py::none())
      .def_static("from_bytes", from_bytes, py::arg("data"), py::arg("method"), py::arg("backends"),
                  py::arg("max_memory"), py::arg("fold_constants") = true, py::arg("fuse") = true,
                  py::arg("data_path") = py::none(), py::arg("data_bytes") = py::none())
      .def("num_external_tensors", &LoadedProgram::num_external_tensors)
      .def("folded", &LoadedProgram::folded)
      .def("acquire", &LoadedProgram::acquire)
      .def("release", &LoadedProgram::release)
      .def("cancel", &LoadedProgram::cancel)
      .def("operators", &LoadedProgram::operators)
      .def("instructions", &LoadedProgram::instructions)
      .def("load_status", &LoadedProgram::load_status)
      .def("missing_operators", &LoadedProgram::missing_operators)
      .def("num_inputs", &LoadedProgram::num_inputs)
      .def("num_outputs", &LoadedProgram::num_outputs)
      .def("input_meta", &LoadedProgram::input_meta)
      .def("set_tensor_input", &LoadedProgram::set_tensor_input)
      .def("set_scalar_input", &LoadedProgram::set_scalar_input)
      .def("execute", &LoadedProgram::execute, py::arg("profile") = false,
           py::arg("max_instructions") = 0)
      .def("time_execute", &LoadedProgram::time_execute)
      .def("output_meta", &LoadedProgram::output_meta)
      .def("copy_output", &LoadedProgram::copy_output)
      .def("last_profile", &LoadedProgram::last_profile);
}

}  // namespace kiln::python

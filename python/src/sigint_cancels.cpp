#include "sigint_cancels.h"

#include <pybind11/pybind11.h>

#include <cstring>

namespace py = pybind11;

namespace kiln::python {
namespace {

// One guard at a time can be installed: only Python's main thread installs one, and it holds
// the GIL while doing so. The handler reads these from any thread the signal lands on, so they
// are lock-free atomics (async-signal-safe).
std::atomic<std::atomic<bool>*> cancel_target{nullptr};
std::atomic<bool> interrupted{false};
struct sigaction replaced;  // written before the handler is installed, read only by it

void on_sigint(int signal, siginfo_t* info, void* context) {
  interrupted.store(true);
  if (std::atomic<bool>* cancel = cancel_target.load()) cancel->store(true);
  if (replaced.sa_flags & SA_SIGINFO) {
    replaced.sa_sigaction(signal, info, context);
  } else if (replaced.sa_handler != SIG_DFL && replaced.sa_handler != SIG_IGN) {
    replaced.sa_handler(signal);
  }
}

bool on_main_thread() {
  py::module_ threading = py::module_::import("threading");
  return threading.attr("current_thread")().is(threading.attr("main_thread")());
}

}  // namespace

SigintCancels::SigintCancels(std::atomic<bool>* cancel) {
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  const bool python_handles = (current.sa_flags & SA_SIGINFO) != 0 ||
                              (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN);
  if (!python_handles || !on_main_thread()) return;
  replaced = current;
  interrupted.store(false);
  cancel_target.store(cancel);
  struct sigaction ours;
  std::memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = on_sigint;
  ours.sa_flags = SA_SIGINFO | (current.sa_flags & SA_RESTART);
  sigemptyset(&ours.sa_mask);
  installed_ = sigaction(SIGINT, &ours, nullptr) == 0;
  if (!installed_) cancel_target.store(nullptr);
}

SigintCancels::~SigintCancels() { restore(); }

void SigintCancels::restore() {
  if (!installed_) return;
  sigaction(SIGINT, &replaced, nullptr);
  cancel_target.store(nullptr);
  installed_ = false;
}

void SigintCancels::raise_if_interrupted() {
  if (!installed_) return;
  restore();
  if (interrupted.exchange(false) && PyErr_CheckSignals() != 0) throw py::error_already_set();
}

}  // namespace kiln::python

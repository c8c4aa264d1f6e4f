// SigintCancels: while a Program runs without the GIL on Python's main thread, Ctrl-C (SIGINT)
// sets the run's cancel flag, so the run stops before its next instruction and Python then raises
// KeyboardInterrupt, as it would for Python code.
//
// Python's own SIGINT handler only records the signal; the main thread acts on it when it next
// runs bytecode, which a native run never does. The guard installs a handler that sets the flag
// and then calls the handler it replaced (Python's), and restores that one when it ends.
#pragma once

#include <atomic>
#include <csignal>

namespace kiln::python {

class SigintCancels {
 public:
  // Takes effect only on Python's main thread (where Python handles signals) and only while
  // Python handles SIGINT (not when it is ignored or left to the default action). Call with the
  // GIL held.
  explicit SigintCancels(std::atomic<bool>* cancel);
  ~SigintCancels();  // restores the replaced handler
  SigintCancels(const SigintCancels&) = delete;
  SigintCancels& operator=(const SigintCancels&) = delete;

  // After the run, with the GIL held: when SIGINT arrived during it, runs Python's handlers
  // (PyErr_CheckSignals) and throws the exception they raise (KeyboardInterrupt by default).
  // Restores the replaced handler first.
  void raise_if_interrupted();

 private:
  void restore();
  bool installed_ = false;
};

}  // namespace kiln::python

// The program fuzz target: one input through every stage a runner takes a .pte through, with the
// executor's contract checked on the way (a refusal is an Error with a message, never a crash).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln_fuzz {

// How far one input got (the furthest stage over its methods).
enum class Outcome : uint8_t {
  ProgramRefused,  // DataFile::load or Program::load said no
  TooLarge,        // the plan asks for more memory than the fuzzer gives (kMaxMethodBytes)
  NoMemory,        // HeapMethodMemory could not allocate the plan
  MethodRefused,   // Method::load said no (an invalid plan or a missing operator)
  NotRun,          // loaded, but not run: it can jump backwards, so it may never end
  RunFailed,       // execute() returned an error
  Ran,             // execute() ran every instruction
};

const char* to_string(Outcome outcome);

// Planned memory, metadata and inputs the fuzzer allocates for one method, at most.
constexpr size_t kMaxMethodBytes = size_t{64} << 20;

// Runs one input: a program, or a program and its data file (paired_input.h). A broken contract
// (an error without a message, a refusal of the declared inputs, metadata_bytes() too small)
// aborts with a message on stderr, like a sanitizer report.
Outcome run_program(const uint8_t* data, size_t size);

// When set, run_program writes into the program's bytes once Program::load accepts them, as a
// kernel writing into a constant would: the read-only mapping must make that a crash (tests the
// fuzz target itself).
void set_write_probe(bool on);

}  // namespace kiln_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

//===- InterruptWatch.h - Ctrl-C during a host launch -----------*- C++ -*-===//
//
// A host launch runs its programs in compiled code that a signal handler
// does not stop: Python's SIGINT handler only sets a flag for the
// interpreter, so a launch of 2^31 programs ignored Ctrl-C. While an
// InterruptWatch lives, a SIGINT also sets a flag the launch polls between
// chunks of programs, and then goes on to the handler that was installed,
// so the interpreter raises KeyboardInterrupt once the launch returns.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_HOST_INTERRUPTWATCH_H
#define KILN_LIB_TARGET_HOST_INTERRUPTWATCH_H

#include <cstdint>

namespace kiln::host {

class InterruptWatch {
public:
  /// Starts watching (the first watch of the process installs the handler,
  /// where a handler function was installed before: under the default
  /// action, SIGINT ends the process anyway).
  InterruptWatch();
  /// Stops watching (the last one restores the handler).
  ~InterruptWatch();

  InterruptWatch(const InterruptWatch &) = delete;
  InterruptWatch &operator=(const InterruptWatch &) = delete;

  /// Whether a SIGINT arrived since this watch started.
  bool interrupted() const;

private:
  uint64_t start;
};

} // namespace kiln::host

#endif // KILN_LIB_TARGET_HOST_INTERRUPTWATCH_H

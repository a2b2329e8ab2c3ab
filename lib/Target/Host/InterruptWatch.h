//===- InterruptWatch.h - Ctrl-C during a host launch -----------*- C++ -*-===//
//
// A host launch runs its programs in compiled code that a signal handler
// does not stop: Python's SIGINT handler only sets a flag for the
// interpreter, so a launch of 2^31 programs ignored Ctrl-C. While an
// InterruptWatch lives, a SIGINT sets a flag the launch polls between
// chunks of programs instead; when the last watch ends, the handler that
// was installed is put back and the SIGINT raised again for it, so the
// interpreter raises KeyboardInterrupt once the launch returns. The handler
// is never called from the watch's own: a foreign one may change the
// dispositions it finds (LLVM's, which libLLVM installs over Python's
// when a tool writes an output file, restores its predecessors and raises
// again, and so once re-entered the watch until the stack overflowed).
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
  /// Stops watching (the last one restores the handler, and raises SIGINT
  /// again where one arrived while the handler was the watch's).
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

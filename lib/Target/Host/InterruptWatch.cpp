//===- InterruptWatch.cpp - Ctrl-C during a host launch -------------------===//

#include "InterruptWatch.h"

#include <atomic>
#include <csignal>
#include <mutex>

using namespace kiln::host;

/// SIGINTs seen while some watch was installed.
static std::atomic<uint64_t> interrupts{0};
/// The handler before the watches' own, how many watches are alive, and
/// the count of SIGINTs when the watches' handler was installed.
static struct sigaction previous;
static bool installed = false;
static unsigned watches = 0;
static uint64_t interruptsAtInstall = 0;
static std::mutex watchesLock;

static void onInterrupt(int) {
  interrupts.fetch_add(1, std::memory_order_relaxed);
}

InterruptWatch::InterruptWatch()
    : start(interrupts.load(std::memory_order_relaxed)) {
  std::lock_guard<std::mutex> guard(watchesLock);
  if (watches++ != 0)
    return;
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0)
    return;
  bool isFunction = (current.sa_flags & SA_SIGINFO) ||
                    (current.sa_handler != SIG_DFL &&
                     current.sa_handler != SIG_IGN);
  if (!isFunction)
    return;
  struct sigaction watching = {};
  watching.sa_handler = onInterrupt;
  watching.sa_flags = current.sa_flags & SA_ONSTACK;
  sigemptyset(&watching.sa_mask);
  previous = current;
  interruptsAtInstall = interrupts.load(std::memory_order_relaxed);
  installed = sigaction(SIGINT, &watching, nullptr) == 0;
}

InterruptWatch::~InterruptWatch() {
  std::lock_guard<std::mutex> guard(watchesLock);
  if (--watches != 0 || !installed)
    return;
  sigaction(SIGINT, &previous, nullptr);
  installed = false;
  if (interrupts.load(std::memory_order_relaxed) != interruptsAtInstall)
    raise(SIGINT); // for the handler the watch stood in for
}

bool InterruptWatch::interrupted() const {
  return interrupts.load(std::memory_order_relaxed) != start;
}

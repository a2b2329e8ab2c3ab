//===- InterruptWatch.cpp - Ctrl-C during a host launch -------------------===//

#include "InterruptWatch.h"

#include <atomic>
#include <csignal>
#include <mutex>

using namespace kiln::host;

/// SIGINTs seen while some watch was installed.
static std::atomic<uint64_t> interrupts{0};

/// The handler before the watches' own, and how many watches are alive.
static struct sigaction previous;
static bool installed = false;
static unsigned watches = 0;
static std::mutex watchesLock;

static void onInterrupt(int signal, siginfo_t *info, void *context) {
  interrupts.fetch_add(1, std::memory_order_relaxed);
  if (previous.sa_flags & SA_SIGINFO)
    previous.sa_sigaction(signal, info, context);
  else
    previous.sa_handler(signal);
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
  watching.sa_sigaction = onInterrupt;
  watching.sa_flags = SA_SIGINFO | (current.sa_flags & SA_ONSTACK);
  sigemptyset(&watching.sa_mask);
  previous = current;
  installed = sigaction(SIGINT, &watching, nullptr) == 0;
}

InterruptWatch::~InterruptWatch() {
  std::lock_guard<std::mutex> guard(watchesLock);
  if (--watches != 0 || !installed)
    return;
  sigaction(SIGINT, &previous, nullptr);
  installed = false;
}

bool InterruptWatch::interrupted() const {
  return interrupts.load(std::memory_order_relaxed) != start;
}

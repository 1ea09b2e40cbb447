// LD_PRELOAD helper: on SIGSEGV or SIGABRT, prints the address and a backtrace (module + offset)
// to stderr, then re-raises with the default action. Used to see where the test process that
// compute-sanitizer's racecheck runs crashes (tests/sort/CMakeLists.txt); not built by the project.
//   gcc -shared -fPIC -O1 notes/repro/segv_backtrace.c -o segv_backtrace.so
//   LD_PRELOAD=$PWD/segv_backtrace.so compute-sanitizer --tool racecheck ./sort_device ...
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_segv(int sig, siginfo_t* info, void* context) {
  (void)context;
  char line[128];
  int len = snprintf(line, sizeof line, "segv_backtrace: signal %d at address %p\n", sig, info->si_addr);
  (void)write(2, line, (size_t)len);
  void* frames[64];
  const int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  static char stack[1 << 16];
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = stack;
  ss.ss_size = sizeof stack;
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGABRT, &sa, NULL);
}

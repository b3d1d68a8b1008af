// SPDX-License-Identifier: BSL-1.0
// Measuring in a fresh process of the same executable, for what must not inherit the state earlier
// rows left in this one: the heap's layout (a fill after another row's random-order frees gets
// scattered blocks; exp2) or the peak resident memory (exp8). The parent spawns this executable with
// `--own_fresh_process=<task>` and the same environment; the child runs that one registered task,
// prints the number it returns and exits; the parent reads the number back.
//
// An executable with tasks registers them at static initialisation and defines
// `int main(int argc, char** argv) { return own_bench::main_with_fresh_processes(argc, argv); }`.
#pragma once

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <limits>
#include <map>
#include <string>

#include <benchmark/benchmark.h>

extern char** environ;

namespace own_bench {

// The tasks a fresh process may be asked to run, by name: each returns the number its parent reads
// (NaN if it failed).
inline std::map<std::string, std::function<double()>>& fresh_process_tasks() {
  static std::map<std::string, std::function<double()>> tasks;
  return tasks;
}

inline constexpr const char fresh_process_flag[] = "--own_fresh_process=";

// Runs the registered `task` in a fresh process of this executable: its number, or NaN if the
// process could not be spawned or failed.
inline double in_fresh_process(const std::string& task) {
  constexpr double failed = std::numeric_limits<double>::quiet_NaN();
  char self[4096] = {};
  if (::readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return failed;
  std::string arg = fresh_process_flag + task;
  char* argv[] = {self, arg.data(), nullptr};
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return failed;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, self, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  char text[64] = {};
  const ssize_t got = spawned == 0 ? ::read(pipe_fds[0], text, sizeof text - 1) : -1;
  ::close(pipe_fds[0]);
  int status = 0;
  if (spawned == 0) ::waitpid(pid, &status, 0);
  if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return failed;
  return std::strtod(text, nullptr);
}

// The CPU time the calling thread has used, in nanoseconds: what a task times (as the single-thread
// rows of the report are read by their thread's CPU time).
inline double thread_cpu_ns() noexcept {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// A row of one iteration per repetition whose time is what `task`, run in a fresh process, returns
// (nanoseconds): the row is named with /manual_time, and the report reads it by that time.
inline benchmark::internal::Benchmark* add_fresh_process_row(const std::string& name, const std::string& task,
                                                             std::function<double()> run) {
  fresh_process_tasks()[task] = std::move(run);
  return benchmark::RegisterBenchmark(name.c_str(),
                                      [task](benchmark::State& state) {
                                        for (auto _ : state) {
                                          const double ns = in_fresh_process(task);
                                          if (!(ns >= 0)) {
                                            state.SkipWithError("the fresh process failed");
                                            break;
                                          }
                                          state.SetIterationTime(ns / 1e9);
                                        }
                                      })
      ->Unit(benchmark::kNanosecond)
      ->UseManualTime()
      ->Iterations(1);
}

// main(): in a process spawned by in_fresh_process, runs its task and prints the result; otherwise
// runs the benchmarks as Google Benchmark's main does.
inline int main_with_fresh_processes(int argc, char** argv) {
  const std::size_t flag_length = std::strlen(fresh_process_flag);
  if (argc == 2 && std::strncmp(argv[1], fresh_process_flag, flag_length) == 0) {
    const auto task = fresh_process_tasks().find(argv[1] + flag_length);
    if (task == fresh_process_tasks().end()) return 1;
    const double result = task->second();
    if (std::isnan(result)) return 1;
    std::printf("%.17g\n", result);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace own_bench

// The hard boundary a mutation worker runs in (docs/server.md, "Isolation"): one control group
// per worker with a memory limit and a process limit, and a PID namespace whose first process
// is the worker, so that the worker's exit takes every process it started with it.
//
// Two kinds of control groups are supported, found at startup from /proc/self/mountinfo and
// /proc/self/cgroup: cgroup v2 with the memory and pids controllers available to the server's
// own group (limits memory.max / pids.max, termination by cgroup.kill), else cgroup v1 with the
// memory and pids hierarchies (memory.limit_in_bytes and memory.memsw.limit_in_bytes /
// pids.max, termination by killing every listed process until none is left). Worker groups
// are made under `<server's group>/tessera-serve-<pid>/`.
//
// Invariants:
//  - Probe() sets the whole boundary up once (a probe group with both limits written and read
//    back, a PID namespace started) or says why it cannot; a server without a boundary runs
//    no mutations.
//  - A Domain is empty (Empty()) only when no process of it is left in any of its groups; the
//    supervisor releases a worker slot only after that proof, and Remove() only then removes
//    the groups.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::server {

struct IsolationLimits {
  uint64_t memory_bytes = 0;
  uint64_t max_processes = 0;  // processes and threads
};

// One worker's control groups.
class Domain {
 public:
  ~Domain();
  Domain(const Domain&) = delete;
  Domain& operator=(const Domain&) = delete;

  // Moves process `pid` into every group of the domain.
  arrow::Status Attach(int pid) const;
  // Sends SIGKILL to every process of the domain (cgroup.kill where there is one); one pass,
  // never waiting: the caller polls Empty() and calls again.
  void KillAll() const;
  // True when no process is left in any group; an unreadable group counts as not empty.
  bool Empty() const;
  // How many times the kernel's OOM killer acted in the domain (0 where it does not say).
  uint64_t OomKills() const;
  // Removes the groups; only after Empty(). Best effort: a failure is logged by the caller.
  arrow::Status Remove();

 private:
  friend class Isolation;
  Domain(int version, std::vector<std::string> groups) : version_(version), groups_(groups) {}
  int version_;
  std::vector<std::string> groups_;  // v2: one; v1: memory's, then pids'
  bool removed_ = false;
};

class Isolation {
 public:
  // Sets the boundary up under the cgroup mounts found below `cgroup_mount` (normally
  // /sys/fs/cgroup). An error says what is missing and what the machine needs.
  static arrow::Result<std::unique_ptr<Isolation>> Probe(const std::string& cgroup_mount);
  ~Isolation();

  // "cgroup v1 (memory, pids) + PID namespace": what the boundary is made of, for the log.
  std::string Describe() const;
  bool pid_namespace() const { return pid_namespace_; }

  // The groups of a new worker named `name` (letters, digits, '-'), with `limits` written.
  arrow::Result<std::unique_ptr<Domain>> CreateDomain(const std::string& name,
                                                      const IsolationLimits& limits) const;

 private:
  Isolation() = default;
  int version_ = 0;
  std::vector<std::string> bases_;  // v2: one; v1: memory's, then pids'
  bool pid_namespace_ = false;
};

}  // namespace tessera::server

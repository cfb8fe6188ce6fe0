#include "tessera/server/isolation.h"

#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tessera/server/worker_process.h"
#include "tessera/status.h"

namespace tessera::server {

namespace fs = std::filesystem;

namespace {

std::string ReadSmallFile(const std::string& path, bool* ok = nullptr) {
  std::ifstream in(path);
  if (ok != nullptr) *ok = static_cast<bool>(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

arrow::Status WriteControl(const std::string& path, const std::string& value) {
  std::ofstream out(path);
  out << value;
  out.flush();
  if (!out) {
    return Error(ErrorKind::kUnsupported, "cannot write '", value, "' to ", path, ": ",
                 std::strerror(errno));
  }
  return arrow::Status::OK();
}

// One line of /proc/self/mountinfo: the mount point and the file system's type and options.
struct Mount {
  std::string point;
  std::string type;
  std::string options;  // super options: "rw,memory"
};

std::vector<Mount> CgroupMounts(const std::string& below) {
  std::vector<Mount> mounts;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    // id parent major:minor root point options [optional...] - type source super-options
    std::istringstream fields(line);
    std::string id, parent, device, root, point, options;
    fields >> id >> parent >> device >> root >> point >> options;
    std::string field;
    while (fields >> field && field != "-") {
    }
    Mount mount;
    std::string source;
    fields >> mount.type >> source >> mount.options;
    if (mount.type != "cgroup" && mount.type != "cgroup2") continue;
    mount.point = point;
    if (below != "/" && mount.point != below && mount.point.rfind(below + "/", 0) != 0) continue;
    mounts.push_back(std::move(mount));
  }
  return mounts;
}

bool HasOption(const std::string& options, const std::string& name) {
  std::istringstream parts(options);
  std::string part;
  while (std::getline(parts, part, ',')) {
    if (part == name) return true;
  }
  return false;
}

// The server's own group in the hierarchy `controller` names ("" for v2's), from
// /proc/self/cgroup lines "id:controllers:path".
std::optional<std::string> OwnGroup(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find(':');
    const size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controller.empty() ? controllers.empty() : HasOption(controllers, controller)) {
      return path;
    }
  }
  return std::nullopt;
}

std::vector<int> ListedProcesses(const std::string& group, bool* readable) {
  std::vector<int> pids;
  bool ok = false;
  std::istringstream in(ReadSmallFile(group + "/cgroup.procs", &ok));
  *readable = ok;
  int pid = 0;
  while (in >> pid) pids.push_back(pid);
  return pids;
}

std::string ServerGroupName() { return "tessera-serve-" + std::to_string(getpid()); }

arrow::Status MakeGroup(const std::string& path) {
  std::error_code error;
  fs::create_directory(path, error);
  if (error) {
    return Error(ErrorKind::kUnsupported, "cannot create the control group ", path, ": ",
                 error.message());
  }
  return arrow::Status::OK();
}

// Whether this process may start a PID namespace: one child is started in one and reaped.
arrow::Status ProbePidNamespace() {
  int pidfd = -1;
  const long pid = CloneProcess(/*new_pid_namespace=*/true, &pidfd);
  if (pid < 0) {
    return Error(ErrorKind::kUnsupported,
                 "cannot start a PID namespace (clone3 with CLONE_NEWPID: ", std::strerror(errno),
                 "); the server needs CAP_SYS_ADMIN for it");
  }
  if (pid == 0) _exit(getpid() == 1 ? 0 : 1);
  siginfo_t info{};
  const int waited = waitid(static_cast<idtype_t>(P_PIDFD), pidfd, &info, WEXITED);
  close(pidfd);
  if (waited != 0 || info.si_code != CLD_EXITED || info.si_status != 0) {
    return Error(ErrorKind::kUnsupported,
                 "a probe process in a new PID namespace did not run as "
                 "its first process");
  }
  return arrow::Status::OK();
}

}  // namespace

Domain::~Domain() {
  if (!removed_ && Empty()) (void)Remove();
}

arrow::Status Domain::Attach(int pid) const {
  for (const auto& group : groups_) {
    RETURN_NOT_OK(WriteControl(group + "/cgroup.procs", std::to_string(pid)));
  }
  return arrow::Status::OK();
}

void Domain::KillAll() const {
  if (version_ == 2 && WriteControl(groups_[0] + "/cgroup.kill", "1").ok()) return;
  // v1: one pass over what is listed; a process forked meanwhile shows in the next listing,
  // and the caller keeps polling (never blocking) until the domain is empty.
  for (const auto& group : groups_) {
    bool readable = false;
    for (int pid : ListedProcesses(group, &readable)) kill(pid, SIGKILL);
  }
}

bool Domain::Empty() const {
  for (const auto& group : groups_) {
    bool readable = false;
    if (!ListedProcesses(group, &readable).empty() || !readable) return false;
  }
  return true;
}

uint64_t Domain::OomKills() const {
  const std::string file = version_ == 2 ? "/memory.events" : "/memory.oom_control";
  std::istringstream in(ReadSmallFile(groups_[0] + file));
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "oom_kill") return value;
  }
  return 0;
}

arrow::Status Domain::Remove() {
  for (const auto& group : groups_) {
    if (rmdir(group.c_str()) != 0 && errno != ENOENT) {
      return Error(ErrorKind::kIOError, "cannot remove the control group ", group, ": ",
                   std::strerror(errno));
    }
  }
  removed_ = true;
  return arrow::Status::OK();
}

arrow::Result<std::unique_ptr<Isolation>> Isolation::Probe(const std::string& cgroup_mount) {
  auto isolation = std::unique_ptr<Isolation>(new Isolation());
  const std::vector<Mount> mounts = CgroupMounts(cgroup_mount);
  std::string why;
  // cgroup v2 first, where the server's own group offers both controllers.
  for (const auto& mount : mounts) {
    if (mount.type != "cgroup2") continue;
    const auto own = OwnGroup("");
    if (!own) continue;
    const std::string group = mount.point + *own;
    const std::string controllers = ReadSmallFile(group + "/cgroup.controllers");
    if (controllers.find("memory") == std::string::npos ||
        controllers.find("pids") == std::string::npos) {
      why += "cgroup v2 at " + mount.point + " offers the server's group only '" +
             controllers.substr(0, controllers.find('\n')) + "' (memory and pids are needed); ";
      continue;
    }
    const std::string base = group + "/" + ServerGroupName();
    auto made = MakeGroup(base);
    if (made.ok()) made = WriteControl(base + "/cgroup.subtree_control", "+memory +pids");
    if (!made.ok()) {
      why += made.message() + "; ";
      rmdir(base.c_str());
      continue;
    }
    isolation->version_ = 2;
    isolation->bases_ = {base};
    break;
  }
  if (isolation->version_ == 0) {
    std::string memory_base, pids_base;
    for (const auto& mount : mounts) {
      if (mount.type != "cgroup") continue;
      for (const std::string controller : {"memory", "pids"}) {
        if (!HasOption(mount.options, controller)) continue;
        const auto own = OwnGroup(controller);
        if (!own) continue;
        std::string base = mount.point + (*own == "/" ? "" : *own) + "/" + ServerGroupName();
        (controller == "memory" ? memory_base : pids_base) = std::move(base);
      }
    }
    if (memory_base.empty() || pids_base.empty()) {
      return Error(ErrorKind::kUnsupported, why,
                   "no cgroup v1 memory and pids hierarchies are mounted below ", cgroup_mount,
                   "; mutation workers need a memory and a process limit (docs/server.md, "
                   "\"Isolation\")");
    }
    RETURN_NOT_OK(MakeGroup(memory_base));
    auto made = MakeGroup(pids_base);
    if (!made.ok()) {
      rmdir(memory_base.c_str());
      return made;
    }
    isolation->version_ = 1;
    isolation->bases_ = {memory_base, pids_base};
  }
  // Write both limits into a probe group and read them back; then start a PID namespace.
  IsolationLimits probe_limits;
  probe_limits.memory_bytes = 64ull << 20;
  probe_limits.max_processes = 8;
  ARROW_ASSIGN_OR_RAISE(auto probe, isolation->CreateDomain("probe", probe_limits));
  RETURN_NOT_OK(probe->Remove());
  isolation->pid_namespace_ = ProbePidNamespace().ok();
  return isolation;
}

Isolation::~Isolation() {
  for (const auto& base : bases_) rmdir(base.c_str());
}

std::string Isolation::Describe() const {
  return Concat(version_ == 2 ? "cgroup v2 (memory.max, pids.max, cgroup.kill)"
                              : "cgroup v1 (memory.limit_in_bytes, pids.max)",
                pid_namespace_ ? " + PID namespace" : " without a PID namespace", " under ",
                bases_[0]);
}

arrow::Result<std::unique_ptr<Domain>> Isolation::CreateDomain(
    const std::string& name, const IsolationLimits& limits) const {
  std::vector<std::string> groups;
  for (const auto& base : bases_) groups.push_back(base + "/" + name);
  auto domain = std::unique_ptr<Domain>(new Domain(version_, groups));
  for (const auto& group : groups) RETURN_NOT_OK(MakeGroup(group));
  const std::string memory = std::to_string(limits.memory_bytes);
  const std::string processes = std::to_string(limits.max_processes);
  if (version_ == 2) {
    RETURN_NOT_OK(WriteControl(groups[0] + "/memory.max", memory));
    (void)WriteControl(groups[0] + "/memory.swap.max", "0");
    RETURN_NOT_OK(WriteControl(groups[0] + "/pids.max", processes));
  } else {
    RETURN_NOT_OK(WriteControl(groups[0] + "/memory.limit_in_bytes", memory));
    // Without swap accounting there is no memsw file; the limit above still holds RAM.
    if (fs::exists(groups[0] + "/memory.memsw.limit_in_bytes")) {
      (void)WriteControl(groups[0] + "/memory.memsw.limit_in_bytes", memory);
    }
    RETURN_NOT_OK(WriteControl(groups[1] + "/pids.max", processes));
  }
  // Read back: a limit the kernel did not take is no limit.
  const std::string memory_file =
      version_ == 2 ? groups[0] + "/memory.max" : groups[0] + "/memory.limit_in_bytes";
  const std::string pids_file = groups[version_ == 2 ? 0 : 1] + "/pids.max";
  const uint64_t memory_read = std::strtoull(ReadSmallFile(memory_file).c_str(), nullptr, 10);
  const uint64_t pids_read = std::strtoull(ReadSmallFile(pids_file).c_str(), nullptr, 10);
  if (memory_read == 0 || memory_read > limits.memory_bytes || pids_read != limits.max_processes) {
    return Error(ErrorKind::kUnsupported, "the control groups of ", groups[0],
                 " did not take the limits (memory ", memory_read, " for ", limits.memory_bytes,
                 ", processes ", pids_read, " for ", limits.max_processes, ")");
  }
  return domain;
}

}  // namespace tessera::server

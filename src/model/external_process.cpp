#include "contactuq/model/external_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace contactuq::model {

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

// The process groups of the programs being waited for, and those a cancel killed.
std::mutex live_mutex;
std::set<pid_t> live_groups;
std::set<pid_t> cancelled_groups;

struct live_group {
  pid_t pid;
  explicit live_group(pid_t p) : pid(p) {
    std::lock_guard lock(live_mutex);
    live_groups.insert(pid);
  }
  ~live_group() {
    std::lock_guard lock(live_mutex);
    live_groups.erase(pid);
  }
  bool cancelled() const {
    std::lock_guard lock(live_mutex);
    return cancelled_groups.erase(pid) > 0;
  }
  live_group(const live_group&) = delete;
  live_group& operator=(const live_group&) = delete;
};

// A pidfd becomes readable when the process exits: a wait with a timeout and no polling loop.
int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

bool has_exited(pid_t pid) {
  siginfo_t info{};
  info.si_pid = 0;
  // WNOWAIT leaves it a zombie: its pid (and so its group's id) cannot be reused until reaped.
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Waits until pid exits (without reaping it) or `seconds` pass; true when it exited.
bool wait_exit(pid_t pid, int pidfd, double seconds) {
  const bool limited = std::isfinite(seconds);
  const auto deadline = limited ? clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                          std::chrono::duration<double>(std::max(0.0, seconds)))
                                : clock_type::time_point::max();
  for (;;) {
    if (has_exited(pid)) return true;
    const auto left = deadline - clock_type::now();
    if (limited && left <= clock_type::duration::zero()) return false;
    if (pidfd >= 0) {
      int ms = -1;
      if (limited) {
        const auto count = std::chrono::ceil<std::chrono::milliseconds>(left).count();
        ms = static_cast<int>(std::min<long long>(count, INT_MAX));
      }
      pollfd p{pidfd, POLLIN, 0};
      ::poll(&p, 1, ms);  // EINTR or a timeout: the loop looks again
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

// Whether a process other than a zombie is in group `pgid` (a zombie left to init counts for
// kill(-pgid, 0) until init reaps it, which some containers' init never does). Reads /proc; only
// asked when kill says the group is not empty.
bool group_has_live_members(pid_t pgid) {
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(it->path() / "stat");
    std::string stat;
    std::getline(in, stat);
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 1));
    char state = 0;
    long ppid = 0, pgrp = 0;
    if ((fields >> state >> ppid >> pgrp) && pgrp == pgid && state != 'Z' && state != 'X') return true;
  }
  return false;
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Spawns argv in dir in a group of its own; the pid, or -1 with `error` set.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& dir, std::string& error) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string out = (dir / "stdout.txt").string(), err = (dir / "stderr.txt").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // none of contactuq's files (the result file)
#endif
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  // The program starts with no blocked signals and default handlers for those a host may
  // ignore (contactuq ignores SIGXFSZ; a shell may ignore SIGINT for background jobs).
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const bool search = argv.front().find('/') == std::string::npos;
  const int rc = search ? posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ)
                        : posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = std::strerror(rc);
    return -1;
  }
  return pid;
}

}  // namespace

program_run run_program(const std::vector<std::string>& argv, const fs::path& dir, double timeout_s) {
  program_run r;
  if (argv.empty()) {
    r.error = "no command";
    return r;
  }
  const pid_t pid = spawn(argv, dir, r.error);
  if (pid < 0) return r;
  const live_group group(pid);
  const int pidfd = open_pidfd(pid);
  bool timed_out = false;
  if (!wait_exit(pid, pidfd, timeout_s)) {
    timed_out = true;
    ::kill(-pid, SIGTERM);  // the leader is alive (unreaped), so the group id is still ours
    if (!wait_exit(pid, pidfd, 1.0)) ::kill(-pid, SIGKILL);
    wait_exit(pid, pidfd, INFINITY);
  }
  if (pidfd >= 0) ::close(pidfd);
  const int status = reap(pid);
  // What it started and left behind is still in its group (a group id stays taken while any
  // member lives): killed, and reported.
  if (::kill(-pid, 0) == 0 && group_has_live_members(pid)) {
    ::kill(-pid, SIGKILL);
    r.left_running = true;
  }
  if (group.cancelled()) {
    r.how = program_run::ending::cancelled;
  } else if (timed_out) {
    r.how = program_run::ending::timed_out;
  } else if (WIFSIGNALED(status)) {
    r.how = program_run::ending::signalled;
    r.status = WTERMSIG(status);
  } else {
    r.how = program_run::ending::exited;
    r.status = WEXITSTATUS(status);
  }
  return r;
}

void terminate_running_programs() {
  std::lock_guard lock(live_mutex);
  for (pid_t pid : live_groups) {
    cancelled_groups.insert(pid);
    ::kill(-pid, SIGKILL);
  }
}

std::size_t running_programs() {
  std::lock_guard lock(live_mutex);
  return live_groups.size();
}

std::vector<std::string> last_lines(const fs::path& file, std::size_t lines) {
  constexpr std::streamoff window = 64 * 1024;
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - window));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> all;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > 300) line = line.substr(0, 300) + "...";
    if (line.find_first_not_of(" \t") != std::string::npos) all.push_back(std::move(line));
    start = end + 1;
  }
  if (all.size() > lines) all.erase(all.begin(), all.end() - static_cast<std::ptrdiff_t>(lines));
  return all;
}

void cap_file(const fs::path& file, std::size_t max_bytes) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec || size <= max_bytes) return;
  constexpr std::size_t keep = 64 * 1024;
  std::string tail;
  {
    std::ifstream in(file, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(size - std::min<std::uintmax_t>(keep, size)));
    tail.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << "[contactuq: the first " << (size - tail.size()) << " bytes of " << size << " are cut]\n" << tail;
}

}  // namespace contactuq::model

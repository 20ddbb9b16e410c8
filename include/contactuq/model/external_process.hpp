#pragma once
// Runs one program of an external model (model/external_model.hpp) and waits for it:
// no shell, stdin from /dev/null, stdout and stderr to files in its work directory, in a
// process group of its own so that a timeout or a cancel ends everything it started.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace contactuq::model {

struct program_run {
  enum class ending { exited, signalled, timed_out, cancelled, not_started };
  ending how = ending::not_started;
  int status = 0;                ///< exit status, or the signal that ended it
  bool left_running = false;     ///< its group still had processes after it exited (now killed)
  std::string error = {};        ///< why it did not start
};

// Runs argv (argv[0] without a '/' is looked up in PATH) in `dir`, writing dir/stdout.txt and
// dir/stderr.txt. After `timeout_s` seconds (infinite: no limit) its process group gets SIGTERM,
// then SIGKILL one second later. Thread safe: each call waits for its own program only.
program_run run_program(const std::vector<std::string>& argv, const std::filesystem::path& dir,
                        double timeout_s);

// Kills the process group of every program run_program is waiting for (SIGKILL); their runs
// end `cancelled`. For a host that stops a study at once (a second Ctrl-C, a time limit).
void terminate_running_programs();
// How many programs run_program is waiting for now (for tests).
std::size_t running_programs();

// The last `lines` lines of a text file, each cut to 300 characters, read from at most its last
// 64 KiB; "" for a missing file.
std::vector<std::string> last_lines(const std::filesystem::path& file, std::size_t lines);
// Cuts a file larger than `max_bytes` to its last 64 KiB behind a line saying what was cut, so
// that a kept work directory of a program that printed megabytes stays small.
void cap_file(const std::filesystem::path& file, std::size_t max_bytes);

}  // namespace contactuq::model

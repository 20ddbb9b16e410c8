// `mpirun -n R contactuq run STUDY -o FILE`: the samples spread over the ranks, one file out with
// the bits of a single process, resumable after a killed job (docs/cluster.md, "MPI").
#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/io/hdf5.hpp"
#include "contactuq/opt/optimization_store.hpp"
#include "run_cli.hpp"
#include "ensemble_files.hpp"
#include "io/scratch_dir.hpp"
// Last: <signal.h> defines macros that could clash with names in our headers.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace contactuq;
using Catch::Matchers::Contains;

#ifdef CONTACTUQ_MPIRUN
namespace {

namespace fs = std::filesystem;
using testing::scratch_dir;

// The path of `name` in `d`, as a command line takes it.
std::string path_in(const scratch_dir& d, const std::string& name) { return (d / name).string(); }

// The quickstart study with n samples and `points` stroke points per direction.
std::string quickstart(const scratch_dir& d, std::size_t n, int points) {
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  for (auto [from, to] : {std::pair<std::string, std::string>{"samples = 1000", "samples = " + std::to_string(n)},
                          {"points = 200 ", "points = " + std::to_string(points) + " "}}) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  const std::string path = path_in(d, "study.toml");
  std::ofstream(path) << text;
  return path;
}

// mpirun with R ranks on this machine: more ranks than cores allowed, threads free to use any
// core, as root when it is root.
std::string mpirun(int ranks) {
  std::string command = CONTACTUQ_MPIRUN;
  command += " -n " + std::to_string(ranks) + " --oversubscribe --bind-to none";
  if (::geteuid() == 0) command += " --allow-run-as-root";
  command += ' ';
  command += CONTACTUQ_CLI;
  return command;
}

// Runs an mpirun command line. Leak checks are off in the ranks (under the sanitizers): the MPI
// library keeps memory until exit.
cli_result run_mpi(const std::string& command) {
  return run_cli_command("ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 " + command);
}

// SIGKILL to `pid` and every process below it (mpirun and its ranks: the ranks run in process
// groups of their own and would outlive a killed mpirun), the leaves first.
void kill_tree(pid_t pid) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == pid) kill_tree(static_cast<pid_t>(std::stol(name)));
  }
  kill(pid, SIGKILL);
}

// The switch robust design study, made small: two contact laws, 12 parts, a short search.
std::string small_switch_design(const scratch_dir& d) {
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/switch_robust_design.toml");
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  for (auto [from, to] : {std::pair<std::string, std::string>{
                              R"(choices = ["cor", "cor_thornton", "kelvin_voigt", "brake", "etsion", "thornton"])",
                              R"(choices = ["cor", "kelvin_voigt"])"},
                          {"samples = 100", "samples = 12"},
                          {"population = 12", "population = 6"},
                          {"generations = 10", "generations = 2"},
                          {"evaluations = 40", "evaluations = 4"}}) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  const std::string path = path_in(d, "design.toml");
  std::ofstream(path) << text;
  return path;
}

// A study of studies/ with some of its text replaced, written into d as `name`.
std::string edited_study(const scratch_dir& d, const std::string& study, const std::string& name,
                         std::initializer_list<std::pair<std::string, std::string>> edits) {
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/" + study);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  for (const auto& [from, to] : edits) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  const std::string path = path_in(d, name);
  std::ofstream(path) << text;
  return path;
}

// Whether two files hold the same datasets, bit for bit (tests/cli/same_datasets.py).
cli_result same_datasets(const std::string& a, const std::string& b) {
  return run_cli_command("/usr/bin/python3 '" + std::string(CONTACTUQ_SOURCE_DIR) + "/tests/cli/same_datasets.py' '" +
                         a + "' '" + b + "'");
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

TEST_CASE("mpirun -n 3 spreads an optimisation's inner ensembles: the designs and values of one process, bit for bit",
          "[cli][mpi]") {
  scratch_dir d;
  const std::string study = small_switch_design(d);
  const cli_result one = run_cli("run " + study + " -o " + path_in(d, "one.h5") + " -j 2 -q");
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  const cli_result three = run_mpi(mpirun(3) + " run " + study + " -o " + path_in(d, "three.h5") + " -j 1");
  INFO(three.output);
  REQUIRE(three.exit_code == 0);
  const opt::optimization_file a = opt::read_optimization(d / "one.h5"), b = opt::read_optimization(d / "three.h5");
  REQUIRE(a.finished);
  REQUIRE(b.finished);
  CHECK(a.schema.models.size() == 2);
  CHECK(a.schema.mpi_ranks == 0);
  CHECK(b.schema.mpi_ranks == 3);
  // Every design in the same order with the same values: the optimiser took the same path.
  REQUIRE(a.history.size() == b.history.size());
  std::size_t differ = 0;
  for (std::size_t k = 0; k < a.history.size(); ++k) {
    const auto &p = a.history[k], &q = b.history[k];
    const bool same = p.model == q.model && p.stage == q.stage && same_bits(p.x, q.x) &&
                      same_bits(p.value.objectives, q.value.objectives) &&
                      same_bits(p.value.constraints, q.value.constraints) &&
                      same_bits({p.value.violation}, {q.value.violation}) && p.value.failed == q.value.failed &&
                      p.value.message == q.value.message;
    differ += same ? 0 : 1;
  }
  CHECK(differ == 0);
  CHECK(a.regret == b.regret);
  CHECK(a.best_x == b.best_x);
}

TEST_CASE("mpirun -n 2 and -n 3 deal out a calibration's starts and bootstrap refits: the file of one process, bit "
          "for bit",
          "[cli][mpi]") {
  scratch_dir d;
  const std::string source = CONTACTUQ_SOURCE_DIR;
  // A receptacle insertion fit (8 starts, 200 refits) and a switch calibration, made small.
  std::ifstream in(source + "/studies/calibrate_switch.toml");
  std::ostringstream text;
  text << in.rdbuf();
  std::string study = text.str();
  for (auto [from, to] : {std::pair<std::string, std::string>{"bootstrap = 40", "bootstrap = 10"},
                          {"\"../data/", "\"" + source + "/data/"}}) {
    const auto at = study.find(from);
    REQUIRE(at != std::string::npos);
    study.replace(at, from.size(), to);
  }
  const std::string switch_study = path_in(d, "calibrate_switch.toml");
  std::ofstream(switch_study) << study;
  for (const auto& [name, file, ranks] : {std::tuple<std::string, std::string, int>{"fit", source + "/studies/fit_williams.toml", 2},
                                          {"calibration", switch_study, 3}}) {
    INFO(name);
    const cli_result one = run_cli("run " + file + " -o " + path_in(d, name + "1.h5") + " -j 2 -q");
    INFO(one.output);
    REQUIRE(one.exit_code == 0);
    const cli_result many =
        run_mpi(mpirun(ranks) + " run " + file + " -o " + path_in(d, name + "n.h5") + " -j 1 -q");
    INFO(many.output);
    REQUIRE(many.exit_code == 0);
    const cli_result same = run_cli_command("/usr/bin/python3 '" + source + "/tests/cli/same_datasets.py' '" +
                                            path_in(d, name + "1.h5") + "' '" + path_in(d, name + "n.h5") + "'");
    INFO(same.output);
    CHECK(same.exit_code == 0);
  }
}

TEST_CASE("mpirun -n 2 and -n 3 write the bits of one process, shards included", "[cli][mpi]") {
  scratch_dir d;
  const std::string study = quickstart(d, 1500, 60);
  REQUIRE(run_cli("run " + study + " -o " + path_in(d, "one.h5") + " -j 2 -q").exit_code == 0);

  const cli_result two = run_mpi(mpirun(2) + " run " + study + " -o " + path_in(d, "two.h5") + " -j 1");
  INFO(two.output);
  REQUIRE(two.exit_code == 0);
  CHECK_THAT(two.output, Contains("on each of 2 MPI ranks") && Contains("failed samples: 0 of 1500"));
  const io::ensemble one = io::read_ensemble(d / "one.h5"), by_two = io::read_ensemble(d / "two.h5");
  check_same_samples(by_two, one);
  CHECK(by_two.schema.metadata.mpi_ranks == 2);
  CHECK(one.schema.metadata.mpi_ranks == 1);
  CHECK_FALSE(by_two.schema.metadata.end_time.empty());

  // A shard run over three ranks holds the shard a single process writes.
  REQUIRE(run_cli("run " + study + " --shard 2/3 -o " + path_in(d, "shard.h5") + " -j 1 -q").exit_code == 0);
  const cli_result three =
      run_mpi(mpirun(3) + " run " + study + " --shard 2/3 -o " + path_in(d, "shard3.h5") + " -j 1 -q");
  INFO(three.output);
  REQUIRE(three.exit_code == 0);
  const io::ensemble shard = io::read_ensemble(d / "shard.h5"), by_three = io::read_ensemble(d / "shard3.h5");
  check_same_samples(by_three, shard);
  CHECK(by_three.schema.metadata.shard_index == 2);
  CHECK(by_three.schema.metadata.mpi_ranks == 3);

  // Commands other than run work under mpirun as they do alone.
  const cli_result summary = run_mpi(mpirun(2) + " summarize " + path_in(d, "two.h5") + " --bootstrap 0");
  INFO(summary.output);
  CHECK(summary.exit_code == 0);
  CHECK_THAT(summary.output, Contains("peak_insertion"));
  // A refusal on rank 0 ends the job with its message and exit code.
  const cli_result refused = run_mpi(mpirun(2) + " run " + study + " -o " + path_in(d, "two.h5"));
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("--force"));
}

TEST_CASE("mpirun -n 2 runs a morris study, its rows sent to the ranks: the file of one process, bit for bit",
          "[cli][mpi]") {
  scratch_dir d;
  const std::string study = edited_study(d, "receptacle_morris.toml", "morris.toml",
                                         {{"trajectories = 20", "trajectories = 6"}, {"points = 200 ", "points = 60 "}});
  const cli_result one = run_cli("run " + study + " -o " + path_in(d, "one.h5") + " -j 2 -q");
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  const cli_result two = run_mpi(mpirun(2) + " run " + study + " -o " + path_in(d, "two.h5") + " -j 1");
  INFO(two.output);
  REQUIRE(two.exit_code == 0);
  CHECK_THAT(two.output, Contains("on each of 2 MPI ranks") && Contains("mu*"));
  const io::ensemble a = io::read_ensemble(d / "one.h5"), b = io::read_ensemble(d / "two.h5");
  CHECK(a.rows == 6 * 5);
  check_same_samples(b, a);
  CHECK(b.schema.metadata.mpi_ranks == 2);
  const cli_result same = same_datasets(path_in(d, "one.h5"), path_in(d, "two.h5"));  // /morris included
  INFO(same.output);
  CHECK(same.exit_code == 0);
}

TEST_CASE("mpirun -n 2 evaluates a reliability method's batches over the ranks: the result of one process, bit for "
          "bit",
          "[cli][mpi]") {
  scratch_dir d;
  // FORM: many batches of a few rows (the gradients); subset simulation: batches of tens of rows,
  // seven levels of 500.
  const std::string form = std::string(CONTACTUQ_SOURCE_DIR) + "/studies/reliability_lognormal_ratio.toml";
  const std::string subset = edited_study(d, "reliability_linear_subset.toml", "subset.toml",
                                          {{"samples = 2000", "samples = 500"}});
  for (const auto& [name, study] : {std::pair<std::string, std::string>{"form", form}, {"subset", subset}}) {
    INFO(name);
    const std::string one_file = path_in(d, name + "1.h5"), two_file = path_in(d, name + "2.h5");
    const cli_result one = run_cli("run " + study + " -o " + one_file + " -j 2 -q");
    INFO(one.output);
    REQUIRE(one.exit_code == 0);
    const cli_result two = run_mpi(mpirun(2) + " run " + study + " -o " + two_file + " -j 1");
    INFO(two.output);
    REQUIRE(two.exit_code == 0);
    io::hdf5::file fa(one_file, io::hdf5::file_mode::read_only), fb(two_file, io::hdf5::file_mode::read_only);
    const io::hdf5::group a = fa.open_group("reliability"), b = fb.open_group("reliability");
    CHECK(a.numeric_attribute<std::int64_t>("model_calls") > 0);
    for (const char* attribute : {"model_calls", "failed_calls", "resolved"}) {
      INFO(attribute);
      CHECK(a.numeric_attribute<std::int64_t>(attribute) == b.numeric_attribute<std::int64_t>(attribute));
    }
    for (const char* attribute : {"probability", "ci95_low", "ci95_high", "cov", "beta"}) {
      INFO(attribute);
      CHECK(same_bits({a.numeric_attribute<double>(attribute)}, {b.numeric_attribute<double>(attribute)}));
    }
    const cli_result same = same_datasets(one_file, two_file);
    INFO(same.output);
    CHECK(same.exit_code == 0);
  }
}

TEST_CASE("an MPI job killed with SIGKILL resumes to the bits of one process", "[cli][mpi]") {
  scratch_dir d;
  const std::string study = quickstart(d, 3000, 200);
  REQUIRE(run_cli("run " + study + " -o " + path_in(d, "one.h5") + " -j 2 -q").exit_code == 0);

  const std::string out = path_in(d, "mpi.h5");
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    // Paused after four blocks (hidden --pause-after-blocks: for tests): the kill lands before
    // the run is done in every run, however fast the machine.
    const std::string command =
        "exec " + mpirun(2) + " run " + study + " -o " + out + " -j 1 -q --pause-after-blocks 4";
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const bool written = wait_for_samples(child, out, 300);  // false: the job ended by itself
  if (written) kill_tree(child);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(written);
  const io::ensemble partial = io::read_ensemble(io::unfinished_path(out), {.curves = false});
  CHECK(partial.rows > 0);
  CHECK(partial.rows < 3000);
  const cli_result resumed = run_mpi(mpirun(2) + " run " + study + " -o " + out + " -j 1 --resume");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("resuming after sample"));
  check_same_samples(io::read_ensemble(out), io::read_ensemble(d / "one.h5"));
}

#else
TEST_CASE("mpirun runs (skipped: contactuq is built without MPI)", "[cli][mpi]") {
  WARN("built without MPI (CONTACTUQ_WITH_MPI off or no mpirun): the MPI tests do not run");
}
#endif

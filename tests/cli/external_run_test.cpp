// `contactuq run` on an external model: the closed form of the test driver at every sample,
// the same bits at -j 1 and -j 4, and killed with SIGKILL then resumed.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "ensemble_files.hpp"
#include "run_cli.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

struct scratch {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("contactuq-external-run-" + std::to_string(::getpid()));
  scratch() { std::filesystem::create_directories(dir); }
  ~scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

// y = 3 x + 2 by the sh driver (x in mm as the program sees it), over n samples of x. Its curve
// of 2048 points makes rows wide, so blocks short (16 samples): a run can be killed between them.
std::string write_study(const scratch& s, std::size_t n) {
  const std::string path = s / "study.toml";
  std::ofstream(path) << "[model]\ntype = \"external\"\ncommand = [\"sh\", \"" << CONTACTUQ_SOURCE_DIR
                      << "/tests/model/external_drivers/line.sh\"]\ntimeout = \"1 min\"\n"
                      << "workdirs = \"" << s.dir.string() << "\"\n"  // a killed run's folder goes with s
                      << "[model.inputs]\nx = \"1 mm\"\n[model.outputs]\ny = \"1\"\n"
                      << "c = { curve = true, x = { from = 0, to = 4, points = 2048 } }\n"
                      << "[parameters.x]\nrole = \"aleatoric\"\ndistribution = \"normal\"\nmean = \"1 mm\"\n"
                      << "sd = \"0.1 mm\"\n[sampling]\nsamples = " << n << "\nseed = 7\n";
  return path;
}

pid_t start_cli(const std::vector<std::string>& args) {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> argv{const_cast<char*>(CONTACTUQ_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(CONTACTUQ_CLI, argv.data());
    _exit(127);
  }
  return child;
}

}  // namespace

TEST_CASE("external model: closed form at every sample, same bits at -j 1, -j 4 and killed + resumed",
          "[cli][external]") {
  const scratch s;
  const std::string study = write_study(s, 300);
  const cli_result one = run_cli("run " + study + " -o " + (s / "one.h5") + " -j 1 -q");
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  const contactuq::io::ensemble a = contactuq::io::read_ensemble(s / "one.h5");
  REQUIRE(a.rows == 300);
  for (std::size_t r = 0; r < a.rows; ++r) {
    const auto i = static_cast<Eigen::Index>(r);
    CHECK(a.status[r] == 0);
    CHECK(a.outputs(i, 0) == Approx(3.0 * a.inputs(i, 0) * 1e3 + 2.0).epsilon(1e-12));
  }
  const cli_result four = run_cli("run " + study + " -o " + (s / "four.h5") + " -j 4 -q");
  INFO(four.output);
  REQUIRE(four.exit_code == 0);
  check_same_samples(a, contactuq::io::read_ensemble(s / "four.h5"));

  // Killed after its first block is on disk (it pauses there), then resumed.
  const std::string killed = s / "killed.h5";
  const pid_t child = start_cli({"run", study, "-o", killed, "-j", "2", "-q", "--pause-after-blocks", "1"});
  REQUIRE(wait_for_samples(child, killed, 300));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const cli_result resumed = run_cli("run " + study + " -o " + killed + " -j 2 --resume");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("resuming after sample"));
  check_same_samples(a, contactuq::io::read_ensemble(killed));
}

TEST_CASE("external model: FORM through the program gives the closed-form beta", "[cli][external]") {
  const scratch s;
  // y = 3 x + 2 with x ~ N(1, 0.1) (mm, as the program sees it): y ~ N(5, 0.3), and
  // P(y < 4) has beta = 1 / 0.3, exact for FORM on a linear limit state.
  const std::string path = s / "form.toml";
  std::ofstream(path) << "method = \"reliability\"\n[model]\ntype = \"external\"\ncommand = [\"sh\", \""
                      << CONTACTUQ_SOURCE_DIR << "/tests/model/external_drivers/line.sh\"]\n"
                      << "[model.inputs]\nx = \"1 mm\"\n[model.outputs]\ny = \"1\"\n"
                      << "[parameters.x]\nrole = \"aleatoric\"\ndistribution = \"normal\"\nmean = \"1 mm\"\n"
                      << "sd = \"0.1 mm\"\n[output.limits]\ny = { low = 4 }\n[reliability]\nalgorithm = \"form\"\n";
  const cli_result r = run_cli("run " + path + " -o " + (s / "form.h5") + " -j 2");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("beta = 3.3333") && Contains("(0 failed)"));
}

TEST_CASE("check lists the command an external model would run", "[cli][external]") {
  const cli_result r = run_cli("check " + std::string(CONTACTUQ_SOURCE_DIR) + "/studies/external_r_minus_s.toml");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("runs a program once per evaluation: /usr/bin/python3 ") &&
                           Contains("/studies/drivers/r_minus_s.py"));
  const cli_result help = run_cli("check --help");
  CHECK_THAT(help.output, Contains("A study with an external model runs programs, as a Makefile does"));
}

TEST_CASE("external model: a run stopped by --time-limit leaves no program running", "[cli][external]") {
  const scratch s;
  const std::string marker = "contactuq-time-limit-" + std::to_string(::getpid());
  const std::string path = s / "slow.toml";
  std::ofstream(path) << "[model]\ntype = \"external\"\ncommand = [\"sh\", \"-c\", \"sleep 1 # " << marker
                      << "\\nprintf '{\\\"outputs\\\": {\\\"y\\\": 1}}' > results.json\", \"" << marker << "\"]\n"
                      << "[model.inputs]\nx = 1\n[model.outputs]\ny = \"1\"\n[parameters.x]\nrole = \"aleatoric\"\n"
                      << "distribution = \"uniform\"\nlow = 0\nhigh = 2\n[sampling]\nsamples = 40\nseed = 1\n";
  const cli_result r = run_cli("run " + path + " -o " + (s / "slow.h5") + " -j 2 --time-limit 1.5");
  INFO(r.output);
  CHECK(r.exit_code == 130);
  CHECK_THAT(r.output, Contains("stopped by the time limit"));
  // [c]: the pattern does not match the command line of the shell that runs pgrep.
  CHECK(run_cli_command("pgrep -f '[c]" + marker.substr(1) + "'").output.empty());
}

TEST_CASE("external model: the work directories of failed evaluations are kept beside the result file",
          "[cli][external]") {
  const scratch s;
  std::filesystem::create_directories(s.dir / "results");
  const std::string path = s / "faults.toml";
  std::ofstream(path) << "[model]\ntype = \"external\"\ncommand = [\"/usr/bin/python3\", \"" << CONTACTUQ_SOURCE_DIR
                      << "/tests/model/external_drivers/line.py\", \"exit1\"]\n"  // fails where x >= 1
                      << "[model.inputs]\nx = 1\n[model.outputs]\ny = \"1\"\n[parameters.x]\nrole = \"aleatoric\"\n"
                      << "distribution = \"uniform\"\nlow = 0\nhigh = 2\n[sampling]\nsamples = 12\nseed = 3\n";
  const std::string out = s / "results/r.h5";
  const cli_result r = run_cli("run " + path + " -o " + out + " -j 2 -q");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const contactuq::io::ensemble e = contactuq::io::read_ensemble(out);
  const std::string beside = (s.dir / "results" / "r.h5.work-").string();
  std::size_t failed = 0;
  for (std::size_t i = 0; i < e.rows; ++i) {
    if (e.status[i] == 0) continue;
    ++failed;
    INFO(e.messages[i]);
    const auto at = e.messages[i].find("work directory kept: " + beside);
    REQUIRE(at != std::string::npos);
    const std::string dir = e.messages[i].substr(at + 21, e.messages[i].find(')', at) - at - 21);
    CHECK(std::filesystem::exists(std::filesystem::path(dir) / "params.json"));
    CHECK(std::filesystem::exists(std::filesystem::path(dir) / "stderr.txt"));
  }
  CHECK(failed == 6);  // x >= 1: half of a Latin hypercube of 12 on [0, 2]
  // Only the failed ones are kept, in one folder of the run.
  std::size_t kept = 0, folders = 0;
  for (const auto& f : std::filesystem::directory_iterator(s.dir / "results"))
    if (f.is_directory()) {
      ++folders;
      for ([[maybe_unused]] const auto& d : std::filesystem::directory_iterator(f.path())) ++kept;
    }
  CHECK(folders == 1);
  CHECK(kept == failed);
}

TEST_CASE("external model: params.json names the row's sample and epistemic case, at any -j", "[cli][external]") {
  const scratch s;
  const std::string path = s / "nested.toml";
  std::ofstream(path) << "[model]\ntype = \"external\"\ncommand = [\"/usr/bin/python3\", \"" << CONTACTUQ_SOURCE_DIR
                      << "/tests/model/external_drivers/line.py\"]\nkeep_workdirs = \"all\"\n"
                      << "[model.inputs]\nx = 0.5\nk = 1\n[model.outputs]\ny = \"1\"\n"
                      << "[parameters.k]\nrole = \"epistemic\"\nchoices = [1, 2, 3]\n"
                      << "[parameters.x]\nrole = \"aleatoric\"\ndistribution = \"uniform\"\nlow = 0\nhigh = 0.9\n"
                      << "[sampling]\nsamples = 7\nseed = 5\n";
  const std::string out = s / "nested.h5";
  const cli_result r = run_cli("run " + path + " -o " + out + " -j 3 -q");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const contactuq::io::ensemble e = contactuq::io::read_ensemble(out);
  const auto& labels = e.schema.metadata.epistemic_cases;
  REQUIRE(labels.size() == 3);
  REQUIRE(e.rows == 21);
  const auto x = static_cast<Eigen::Index>(e.input_index("x")), k = static_cast<Eigen::Index>(e.input_index("k"));
  std::vector<int> seen(e.rows, 0);
  for (const auto& f : std::filesystem::recursive_directory_iterator(s.dir)) {
    if (f.path().filename() != "params.json") continue;
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(f.path()));
    INFO(j.dump());
    const auto c = static_cast<std::size_t>(std::find(labels.begin(), labels.end(), j["case"].get<std::string>()) -
                                            labels.begin());
    REQUIRE(c < labels.size());
    const auto sample = j["sample"].get<std::size_t>();
    REQUIRE(sample < 7);
    const std::size_t row = c * 7 + sample;
    ++seen[row];
    // The row the program was told is the row whose inputs it got, bit for bit.
    CHECK(e.inputs(static_cast<Eigen::Index>(row), x) == j["inputs"]["x"].get<double>());
    CHECK(e.inputs(static_cast<Eigen::Index>(row), k) == j["inputs"]["k"].get<double>());
  }
  CHECK(seen == std::vector<int>(e.rows, 1));
}

TEST_CASE("external model: every fault of the program is a failed sample with its reason; the others are the "
          "closed form", "[cli][external][faults]") {
  const scratch s;
  // A Latin hypercube of 16 on x in [0, 2] puts one sample in each eighth of [1, 2]: line.py's
  // "mixed" mode makes one fault in each of the first seven (exit 1, sleep past the timeout,
  // garbage, NaN, an output under another name, 10 MB of stderr, a child left running).
  const std::string path = s / "faults.toml";
  std::ofstream(path) << "[model]\ntype = \"external\"\ncommand = [\"/usr/bin/python3\", \"" << CONTACTUQ_SOURCE_DIR
                      << "/tests/model/external_drivers/line.py\", \"mixed\"]\ntimeout = \"5 s\"\n"
                      << "[model.inputs]\nx = 1\n[model.outputs]\ny = \"1\"\n[parameters.x]\nrole = \"aleatoric\"\n"
                      << "distribution = \"uniform\"\nlow = 0\nhigh = 2\n[sampling]\nsamples = 16\nseed = 11\n";
  const std::string out = s / "faults.h5";
  const cli_result r = run_cli("run " + path + " -o " + out + " -j 4");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("failed samples: 7 of 16"));
  const contactuq::io::ensemble e = contactuq::io::read_ensemble(out);
  REQUIRE(e.rows == 16);
  const std::vector<std::string> reasons{"exited with status 1",
                                         "ran past its timeout of 5 s",
                                         "results.json is not valid JSON",
                                         "results.json holds NaN",
                                         "gave no output \"y\" in results.json (it gave: why)",
                                         "exited with status 3",
                                         "exited but left processes running"};
  std::vector<int> seen(reasons.size(), 0);
  for (std::size_t i = 0; i < e.rows; ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    const double x = e.inputs(row, 0);
    INFO("x = " << x << ": " << e.messages[i]);
    const auto fault = static_cast<std::size_t>((x - 1.0) * 8.0);
    if (x < 1.0 || fault >= reasons.size()) {
      CHECK(e.status[i] == 0);
      CHECK(e.outputs(row, 0) == Approx(3.0 * x + 2.0).epsilon(1e-12));
      continue;
    }
    ++seen[fault];
    CHECK(e.status[i] != 0);
    CHECK(std::isnan(e.outputs(row, 0)));
    // The reason first: a result file keeps 256 bytes of a message.
    CHECK_THAT(e.messages[i], StartsWith("external model: python3 line.py mixed " + reasons[fault]));
  }
  CHECK(seen == std::vector<int>(reasons.size(), 1));
  // The child left running was killed with its process group: no orphan.
  long pid = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(s.dir))
    if (f.path().filename() == "child.pid") std::ifstream(f.path()) >> pid;
  REQUIRE(pid > 0);
  bool alive = true;
  for (int k = 0; k < 100 && alive; ++k) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    alive = false;
    while (std::getline(status, line))
      if (line.rfind("State:", 0) == 0) alive = line.find('Z') == std::string::npos;  // a zombie is gone
    if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK_FALSE(alive);
}

#ifdef CONTACTUQ_MPIRUN
TEST_CASE("external model: mpirun -n 2 runs the programs on both ranks, the bits of -j 1", "[cli][mpi][external]") {
  const scratch s;
  const std::string study = write_study(s, 120);
  const cli_result one = run_cli("run " + study + " -o " + (s / "one.h5") + " -j 1 -q");
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  // As tests/cli/mpi_run_test.cpp runs it: more ranks than cores allowed, as root when it is root,
  // leak checks off in the ranks (the MPI library keeps memory until exit).
  std::string mpirun = std::string("ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 ") + CONTACTUQ_MPIRUN +
                       " -n 2 --oversubscribe --bind-to none";
  if (::geteuid() == 0) mpirun += " --allow-run-as-root";
  const cli_result two = run_cli_command(mpirun + " " + CONTACTUQ_CLI + " run " + study + " -o " + (s / "two.h5") + " -j 1");
  INFO(two.output);
  REQUIRE(two.exit_code == 0);
  CHECK_THAT(two.output, Contains("on each of 2 MPI ranks") && Contains("failed samples: 0 of 120"));
  const contactuq::io::ensemble a = contactuq::io::read_ensemble(s / "one.h5");
  const contactuq::io::ensemble b = contactuq::io::read_ensemble(s / "two.h5");
  check_same_samples(a, b);
  CHECK(b.schema.metadata.mpi_ranks == 2);
  for (std::size_t r = 0; r < b.rows; ++r)
    CHECK(b.outputs(static_cast<Eigen::Index>(r), 0) ==
          Approx(3.0 * b.inputs(static_cast<Eigen::Index>(r), 0) * 1e3 + 2.0).epsilon(1e-12));
  // Every rank removed its work folder (no evaluation failed, nothing is kept).
  for (const auto& f : std::filesystem::directory_iterator(s.dir)) CHECK_FALSE(f.is_directory());
}
#endif

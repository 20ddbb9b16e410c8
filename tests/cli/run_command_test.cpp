// `contactuq run`, as a user runs it: files written, summary printed, killed and resumed.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_study.hpp"
#include "run_cli.hpp"
#include "ensemble_files.hpp"

// Last: <signal.h> defines macros (e.g. si_value) that could clash with names in our headers.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A directory of its own, removed at the end.
struct scratch {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("contactuq-run-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
  scratch() { std::filesystem::create_directories(dir); }
  ~scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  static int& counter() {
    static int c = 0;
    return c;
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

// The quickstart study with N samples and `points` stroke points per direction.
std::string write_study(const scratch& s, std::size_t n, int points) {
  std::string text = read_text(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
  auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("samples = 1000", "samples = " + std::to_string(n));
  replace("points = 200 ", "points = " + std::to_string(points) + " ");
  const std::string path = s / "study.toml";
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("run writes the ensemble and prints a summary, the same at -j 1 and -j 2", "[cli][run]") {
  scratch s;
  const std::string study = write_study(s, 60, 40);
  const cli_result one = run_cli("run " + study + " -o " + (s / "one.h5") + " -j 1");
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.output, Contains("peak_insertion") && Contains("hysteresis_energy"));
  CHECK_THAT(one.output, Contains("failed samples: 0 of 60"));
  CHECK_THAT(one.output, Contains("wrote " + (s / "one.h5") + " (60 samples)"));
  REQUIRE(run_cli("run " + study + " -o " + (s / "two.h5") + " -j 2 -q").exit_code == 0);

  const io::ensemble a = io::read_ensemble(s / "one.h5");
  const io::ensemble b = io::read_ensemble(s / "two.h5");
  check_same_samples(a, b);
  CHECK(a.rows == 60);
  CHECK(std::count(a.status.begin(), a.status.end(), 0) == 60);
  CHECK(a.schema.metadata.study_text == read_text(study));
  CHECK(a.schema.metadata.threads == 1);
  CHECK(b.schema.metadata.threads == 2);
  CHECK(a.schema.inputs[9].name == "mu");
  CHECK(a.schema.inputs[9].role == io::input_role::aleatoric);
  // The inputs are the study's design, as the library builds it.
  model::register_builtin_models();
  const auto ens = study::read_ensemble_study(io::study_document::load(study));
  CHECK(same_bits(a.inputs, study::sample_inputs(ens)));
}

namespace {

// Starts `contactuq ARGS...` in the background with its output discarded.
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

// Sends `signal` to a run that pauses after its first block (--pause-after-blocks 1, hidden: for
// tests) once that block is on disk: the signal lands at the same sample in every run, however
// fast the machine. Returns the wait status.
int signal_paused_run(const std::string& study, const std::string& out, int signal) {
  const pid_t child = start_cli({"run", study, "-o", out, "-j", "2", "-q", "--pause-after-blocks", "1"});
  // A run that ended by itself (it cannot: it pauses) fails here instead of being signalled.
  REQUIRE(wait_for_samples(child, out, 300));
  int status = 0;
  kill(child, signal);
  waitpid(child, &status, 0);
  return status;
}

}  // namespace

TEST_CASE("a run killed with SIGKILL and resumed equals an uninterrupted run", "[cli][run]") {
  scratch s;
  const std::string study = write_study(s, 1200, 200);
  const std::string killed = s / "killed.h5";
  const int status = signal_paused_run(study, killed, SIGKILL);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  CHECK_FALSE(std::filesystem::exists(killed));
  const io::ensemble partial = io::read_ensemble(io::unfinished_path(killed));
  CHECK(partial.rows > 0);
  CHECK(partial.rows < 1200);

  const cli_result resumed = run_cli("run " + study + " -o " + killed + " -j 2 --resume");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("resuming after sample " + std::to_string(partial.rows)));
  CHECK_THAT(resumed.output, Contains("failed samples: 0 of 1200"));
  REQUIRE(run_cli("run " + study + " -o " + (s / "whole.h5") + " -j 1 -q").exit_code == 0);
  const io::ensemble a = io::read_ensemble(killed);
  CHECK(a.rows == 1200);
  check_same_samples(a, io::read_ensemble(s / "whole.h5"));
}

TEST_CASE("a run interrupted with SIGINT stops cleanly (exit 130) and resumes to an uninterrupted run",
          "[cli][run]") {
  scratch s;
  const std::string study = write_study(s, 1200, 200);
  const std::string out = s / "interrupted.h5";
  const int status = signal_paused_run(study, out, SIGINT);
  // The handler stops the run: it closes the file, moves it into place and exits with 130.
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  REQUIRE(std::filesystem::exists(out));  // an interrupted run's file is moved into place, resumable
  const io::ensemble partial = io::read_ensemble(out);
  CHECK(partial.rows > 0);
  CHECK(partial.rows < 1200);

  const cli_result resumed = run_cli("run " + study + " -o " + out + " -j 1 --resume");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("resuming after sample " + std::to_string(partial.rows)));
  REQUIRE(run_cli("run " + study + " -o " + (s / "whole.h5") + " -j 2 -q").exit_code == 0);
  check_same_samples(io::read_ensemble(out), io::read_ensemble(s / "whole.h5"));
}

TEST_CASE("run: a bad study is one line with file, line and key, exit code 2", "[cli][run]") {
  scratch s;
  std::string text = read_text(write_study(s, 10, 10));
  text.replace(text.find("[parameters.K]"), 14, "[parameters.Kk]");
  const std::string bad = s / "bad.toml";
  std::ofstream(bad) << text;
  const cli_result r = run_cli("run " + bad + " -o " + (s / "bad.h5"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("contactuq: error: " + bad + ":") && Contains("parameters.Kk") &&
                           Contains("not an input of model receptacle_pin"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(s / "bad.h5"));
}

namespace {

// The quickstart study with N samples whose every sample fails (friction so high that the
// quasi-static model locks on the pin cone), under failure policy `policy`. Inputs outside
// their valid range (a negative stiffness) are refused before any sample runs.
std::string write_failing_study(const scratch& s, std::size_t n, const std::string& policy) {
  std::string text = read_text(write_study(s, n, 200));
  const auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("low = 0.02\nhigh = 0.21", "low = 8.0\nhigh = 9.0");
  replace("failures = \"record\"", "failures = \"" + policy + "\"");
  const std::string path = s / ("failing-" + policy + ".toml");
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("run: failures = \"abort\" stops with exit code 1 wherever the first failure is", "[cli][run]") {
  scratch s;
  // Quickstart's blocks hold 81 samples: a failure in the only block, the last one, or the first.
  const std::size_t n = GENERATE(50, 81, 82);
  const std::string study = write_failing_study(s, n, "abort");
  const cli_result r = run_cli("run " + study + " -o " + (s / "abort.h5") + " -j 2 -q");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("aborted (failures = \"abort\")") && Contains("friction lock"));
  CHECK_FALSE(Contains("wrote").match(r.output));
}

TEST_CASE("run, summarize and plot exit with 1 when every sample failed, naming the failures", "[cli][run]") {
  scratch s;
  const std::string study = write_failing_study(s, 30, "record");
  const std::string out = s / "failed.h5";
  const cli_result r = run_cli("run " + study + " -o " + out + " -j 2");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("failed samples: 30 of 30") && Contains("every sample failed (30 of 30)") &&
                           Contains("friction lock") && Contains("(first: sample"));
  const cli_result summary = run_cli("summarize " + out);
  INFO(summary.output);
  CHECK(summary.exit_code == 1);
  CHECK_THAT(summary.output, Contains("no sample succeeded"));
  const cli_result plot = run_cli("plot " + out + " -o " + (s / "plots"));
  INFO(plot.output);
  CHECK(plot.exit_code == 1);
  CHECK_THAT(plot.output, Contains("nothing to plot"));
  CHECK_FALSE(Contains("Traceback").match(plot.output));
}

TEST_CASE("run refuses to replace a result without --force and to resume a finished or other study",
          "[cli][run]") {
  scratch s;
  const std::string study = write_study(s, 20, 20);
  const std::string out = s / "result.h5";
  REQUIRE(run_cli("run " + study + " -o " + out + " -q").exit_code == 0);
  const auto before = read_text(out);

  const cli_result again = run_cli("run " + study + " -o " + out + " -q");
  CHECK(again.exit_code == 2);
  CHECK_THAT(again.output, Contains(out + " exists") && Contains("--force"));
  const cli_result finished = run_cli("run " + study + " -o " + out + " -q --resume");
  CHECK(finished.exit_code == 2);
  CHECK_THAT(finished.output, Contains("the run is finished (all 20 samples") && Contains("nothing to resume"));
  std::string other = read_text(study);
  other.replace(other.find("seed = 2026"), 11, "seed = 2027");
  std::ofstream(s / "other.toml") << other;
  const cli_result different = run_cli("run " + (s / "other.toml") + " -o " + out + " -q --resume");
  CHECK(different.exit_code == 2);
  CHECK_THAT(different.output, Contains("different study") && Contains("seed = 2027"));
  CHECK(read_text(out) == before);

  // A run that cannot start leaves the previous result as it was.
  std::string huge = read_text(study);
  huge.replace(huge.find("samples = 20"), 12, "samples = 1000000000");
  std::ofstream(s / "huge.toml") << huge;
  if (static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE)) < 3e11) {
    const cli_result big = run_cli("run " + (s / "huge.toml") + " -o " + out + " -q --force");
    INFO(big.output);
    CHECK(big.exit_code == 2);
    CHECK_THAT(big.output, Contains("GiB of memory") && Contains("--yes"));
    CHECK(read_text(out) == before);
  }
  REQUIRE(run_cli("run " + (s / "other.toml") + " -o " + out + " -q --force").exit_code == 0);
  CHECK(io::read_ensemble(out).schema.metadata.seed == 2027);
}

TEST_CASE("run: a write that fails (file size limit) exits cleanly, --resume completes it bit-identical",
          "[cli][run]") {
  scratch s;
  const std::string study = write_study(s, 5000, 40);
  const std::string out = s / "limited.h5";
  std::ofstream(out) << "the previous result";
  // ulimit -f counts blocks of 512 or 1024 bytes: a limit of 0.5-1 MiB, under the ~1.9 MiB result.
  const cli_result r =
      run_cli_command("sh -c 'ulimit -f 1000 && exec " + std::string(CONTACTUQ_CLI) + " run " + study + " -o " + out +
                      " -j 2 -q --force'");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("cannot write samples") && Contains("--resume") && Contains("File too large"));
  CHECK(read_text(out) == "the previous result");
  const auto partial = io::read_ensemble(io::unfinished_path(out));
  CHECK(partial.rows > 0);
  CHECK(partial.rows < 5000);

  const cli_result resumed = run_cli("run " + study + " -o " + out + " -j 2 -q --resume");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(io::unfinished_path(out)));
  REQUIRE(run_cli("run " + study + " -o " + (s / "whole.h5") + " -j 2 -q").exit_code == 0);
  check_same_samples(io::read_ensemble(out), io::read_ensemble(s / "whole.h5"));
}

TEST_CASE("run: a second run on the output another run is writing is refused", "[cli][run]") {
  scratch s;
  const std::string study = write_study(s, 2000, 200);
  const std::string out = s / "busy.h5";
  // The first run pauses once its first block is written (hidden --pause-after-blocks): it is
  // still writing, in every run, when the others start.
  const pid_t first = start_cli({"run", study, "-o", out, "-j", "1", "-q", "--pause-after-blocks", "1"});
  REQUIRE(wait_for_samples(first, out, 300));
  const cli_result plain = run_cli("run " + study + " -o " + out + " -q");
  const cli_result forced = run_cli("run " + study + " -o " + out + " -q --force");
  const cli_result resumed = run_cli("run " + study + " -o " + out + " -q --resume");
  kill(first, SIGKILL);
  int status = 0;
  waitpid(first, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(plain.exit_code == 2);
  CHECK_THAT(plain.output, Contains("unfinished run") && Contains("--resume"));
  CHECK(forced.exit_code == 2);
  CHECK_THAT(forced.output, Contains("being written by another process"));
  CHECK(resumed.exit_code == 2);
  CHECK_THAT(resumed.output, Contains("being written by another process"));
}

TEST_CASE("curve, like run, replaces an existing output only with --force", "[cli][run]") {
  scratch s;
  const std::string study = std::string(CONTACTUQ_SOURCE_DIR) + "/studies/williams_bifurcated.toml";
  const std::string out = s / "curve.csv";
  std::ofstream(out) << "the previous result";
  const cli_result refused = run_cli("curve " + study + " -o " + out + " -q");
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains(out + " exists") && Contains("--force"));
  CHECK(read_text(out) == "the previous result");
  CHECK(run_cli("curve " + study + " -o " + out + " -q --force").exit_code == 0);
  CHECK(read_text(out) != "the previous result");
}

TEST_CASE("run --time-limit stops cleanly (exit 130) and --resume completes it bit-identical", "[cli][run]") {
  scratch s;
  const std::string study = write_study(s, 5000, 20);
  const std::string out = s / "limited.h5";
  // Methods that run in one go have nothing to resume: the limit is refused for them.
  const cli_result curve = run_cli("run " + std::string(CONTACTUQ_SOURCE_DIR) +
                                   "/studies/williams_bifurcated.toml -o " + (s / "c.h5") + " --time-limit 5");
  CHECK(curve.exit_code == 2);
  CHECK_THAT(curve.output, Contains("--time-limit stops sample, nested, optimize, morris, reliability"));
  CHECK_THAT(curve.output, Contains("this one (curve) runs in one go"));

  // The limit counts from the start, input sampling included: a limit that ends before the first
  // sample leaves nothing to resume, so it is raised until a part of the run is written (under
  // the sanitizers on a busy machine, sampling the inputs alone takes several seconds). The run
  // pauses after its first block (hidden --pause-after-blocks) until the limit stops it: it
  // never finishes first, however fast the machine.
  std::size_t written = 0;
  for (const char* limit : {"0.4", "1", "2", "4", "8", "16", "32"}) {
    const cli_result r =
        run_cli("run " + study + " -o " + out + " -j 2 -q --force --pause-after-blocks 1 --time-limit " + limit);
    INFO(r.output);
    REQUIRE(r.exit_code == 130);
    CHECK_THAT(r.output, Contains(std::string("stopped by the time limit of ") + limit + " s"));
    if (std::filesystem::exists(out)) {  // an interrupted run's file is moved into place, resumable
      CHECK_THAT(r.output, Contains("--resume"));
      written = io::read_ensemble(out).rows;
      break;
    }
    CHECK_THAT(r.output, Contains("before its first sample") && !Contains("--resume"));
  }
  REQUIRE(written > 0);
  CHECK(written < 5000);

  const cli_result resumed = run_cli("run " + study + " -o " + out + " -j 2 -q --resume");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  REQUIRE(run_cli("run " + study + " -o " + (s / "whole.h5") + " -j 2 -q").exit_code == 0);
  check_same_samples(io::read_ensemble(out), io::read_ensemble(s / "whole.h5"));
}

TEST_CASE("a one-go method whose write fails leaves the previous result as it was", "[cli][run]") {
  scratch s;
  for (const std::string study : {"williams_bifurcated.h5", "williams_bifurcated.csv", "impact_models.h5",
                                   "impact_models.csv", "pinslot_validation.h5", "switch_evaluate.h5"}) {
    INFO(study);
    const std::string out = s / study;
    std::ofstream(out) << "the previous result";
    // A file size limit of 2-4 KiB: the write fails as on a full disk.
    const std::string toml = study.substr(0, study.find('.')) + ".toml";
    const cli_result r = run_cli_command("sh -c 'ulimit -f 4 && exec " + std::string(CONTACTUQ_CLI) + " run " +
                                         std::string(CONTACTUQ_SOURCE_DIR) + "/studies/" + toml + " -o " + out +
                                         " -q --force'");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(read_text(out) == "the previous result");
    CHECK_FALSE(std::filesystem::exists(out + ".part"));
  }
  // synthesize writes its CSV the same way (it used to end with an uncaught exception).
  const std::string csv = s / "synthetic.csv";
  std::ofstream(csv) << "the previous result";
  const cli_result r = run_cli_command("sh -c 'ulimit -f 4 && exec " + std::string(CONTACTUQ_CLI) + " synthesize " +
                                       std::string(CONTACTUQ_SOURCE_DIR) +
                                       "/data/insertion/williams_synthetic.toml -o " + csv + "'");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("cannot write") && Contains("File too large"));
  CHECK(read_text(csv) == "the previous result");
}

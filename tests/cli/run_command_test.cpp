// `contactuq run`, as a user runs it: files written, summary printed, killed and resumed.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_study.hpp"
#include "run_cli.hpp"

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

bool same_bits(const io::sample_matrix& a, const io::sample_matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

void check_same_samples(const io::ensemble& a, const io::ensemble& b) {
  CHECK(a.rows == b.rows);
  CHECK(same_bits(a.inputs, b.inputs));
  CHECK(same_bits(a.outputs, b.outputs));
  REQUIRE(a.curves.size() == b.curves.size());
  for (std::size_t k = 0; k < a.curves.size(); ++k) CHECK(same_bits(a.curves[k], b.curves[k]));
  CHECK(a.status == b.status);
  CHECK(a.messages == b.messages);
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

TEST_CASE("a run killed with SIGKILL and resumed equals an uninterrupted run", "[cli][run]") {
  scratch s;
  const std::string study = write_study(s, 6000, 200);
  const std::string killed = s / "killed.h5";
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(CONTACTUQ_CLI, CONTACTUQ_CLI, "run", study.c_str(), "-o", killed.c_str(), "-j", "1", "-q",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill it once part of the ensemble is on disk (or give up waiting and kill it anyway).
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (std::filesystem::exists(io::unfinished_path(killed))) {
      try {
        if (io::read_ensemble(io::unfinished_path(killed)).rows > 0) break;
      } catch (const std::exception&) {
        // Not readable yet: the file is being created.
      }
    }
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  const bool interrupted = WIFSIGNALED(status);
  if (!interrupted) WARN("the run finished before it could be killed; the resume below has nothing to do");
  if (interrupted) CHECK(io::read_ensemble(io::unfinished_path(killed)).rows < 6000);

  const cli_result resumed = run_cli("run " + study + " -o " + killed + " -j 2 --resume");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("failed samples: 0 of 6000"));
  REQUIRE(run_cli("run " + study + " -o " + (s / "whole.h5") + " -j 2 -q").exit_code == 0);
  const io::ensemble a = io::read_ensemble(killed);
  CHECK(a.rows == 6000);
  check_same_samples(a, io::read_ensemble(s / "whole.h5"));
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

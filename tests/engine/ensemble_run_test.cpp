// The one ensemble run (src/engine/ensemble_run.cpp) of a study whose samples take measurable
// time: its blocks are sized by cost, so samples reach the file while the run goes on; a run
// paused after its first blocks (run_options::pause_after_blocks) and resumed writes the values
// of an uninterrupted run, bit for bit, and the same as a cheap run's whole-chunk blocks.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "contactuq/engine/run_study.hpp"
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/model/registry.hpp"

namespace eng = contactuq::engine;
namespace io = contactuq::io;
namespace model = contactuq::model;
namespace units = contactuq::units;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

struct scratch {
  fs::path dir;
  explicit scratch(const std::string& name) : dir(fs::temp_directory_path() / ("contactuq_ensemble_run_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~scratch() { fs::remove_all(dir); }
};

// y = x^2 after sleeping `delay` ([model] delay, in seconds): a model whose samples are costly.
struct slow_square {
  double delay = 0.0;
  std::vector<model::variable> inputs() const { return {{"x", units::length, 1.0}}; }
  std::vector<model::variable> outputs() const { return {{"y", units::length * units::length}}; }
  bool thread_safe() const { return true; }
  model::evaluation evaluate(std::span<const double> x) const {
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    return {{x[0] * x[0]}, {}};
  }
};

std::string slow_study(double delay, std::size_t samples) {
  static std::once_flag registered;
  std::call_once(registered, [] {
    model::register_model("test_slow_square", [](const io::study_table& t) {
      return model::model(slow_square{t.quantity("delay", units::duration)});
    });
  });
  return fmt::format(
      "[model]\ntype = \"test_slow_square\"\ndelay = \"{} s\"\n\n"
      "[parameters.x]\nrole = \"aleatoric\"\ndistribution = \"uniform\"\nlow = \"1 m\"\nhigh = \"2 m\"\n\n"
      "[sampling]\ndesign = \"latin_hypercube\"\nsamples = {}\nseed = 7\n",
      delay, samples);
}

struct run_with {
  bool resume = false;
  std::size_t pause_after_blocks = 0;
  std::function<void(std::size_t, std::size_t)> progress;
};

eng::run_result run(const std::string& text, const fs::path& out, const run_with& w = {}) {
  eng::run_options o;
  o.output = out;
  o.threads = 2;
  o.resume = w.resume;
  o.pause_after_blocks = w.pause_after_blocks;
  o.progress = w.progress;
  o.errors = nullptr;
  return eng::run_study(io::study_document::parse(text, "slow.toml"), o);
}

bool same_bits(const io::sample_matrix& a, const io::sample_matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

void check_same_values(const io::ensemble& a, const io::ensemble& b) {
  REQUIRE(a.rows == b.rows);
  CHECK(same_bits(a.inputs, b.inputs));
  CHECK(same_bits(a.outputs, b.outputs));
  CHECK(a.status == b.status);
  CHECK(a.messages == b.messages);
}

}  // namespace

TEST_CASE("a costly study hands its writer blocks while it runs", "[engine][block_seconds]") {
  scratch s("commits");
  // 60 samples of 0.05 s on 2 threads, one chunk (1024 rows) of the file: one block of whole
  // chunks before, so nothing reached the file until the end. Now the first blocks are one
  // sample per thread, then about 2 s of work each.
  std::vector<std::size_t> seen;
  const fs::path out = s.dir / "slow.h5";
  const auto r = run(slow_study(0.05, 60), out, {.progress = [&](std::size_t done, std::size_t n) {
                                                   if (done < n) seen.push_back(done);
                                                 }});
  REQUIRE(r.exit_code == 0);
  REQUIRE(seen.size() >= 2);
  CHECK(seen.front() == 2);

  // The same values as a cheap run of the same plan, written in one whole-chunk block.
  const fs::path cheap = s.dir / "cheap.h5";
  REQUIRE(run(slow_study(0.0, 60), cheap).exit_code == 0);
  check_same_values(io::read_ensemble(out), io::read_ensemble(cheap));
}

TEST_CASE("a costly study paused after its first blocks and resumed equals an uninterrupted run",
          "[engine][block_seconds]") {
  scratch s("resume");
  // 100 samples of 0.1 s on 2 threads: blocks of 2 until a sample is timed, then of 40.
  const std::string study = slow_study(0.1, 100);
  const fs::path out = s.dir / "paused.h5";
  // Paused with no stop flag: the run returns stopped once its first blocks are in the file.
  const auto paused = run(study, out, {.pause_after_blocks = 3, .progress = {}});
  CHECK(paused.exit_code == 130);
  const io::ensemble part = io::read_ensemble(out);
  CHECK(part.rows >= 3);
  CHECK(part.rows < 100);

  // Resumed in a run that pauses again, then to the end.
  const auto again = run(study, out, {.resume = true, .pause_after_blocks = 2, .progress = {}});
  CHECK(again.exit_code == 130);
  CHECK(io::read_ensemble(out).rows > part.rows);
  REQUIRE(run(study, out, {.resume = true, .pause_after_blocks = 0, .progress = {}}).exit_code == 0);

  const fs::path whole = s.dir / "whole.h5";
  REQUIRE(run(slow_study(0.0, 100), whole).exit_code == 0);
  check_same_values(io::read_ensemble(out), io::read_ensemble(whole));
}

TEST_CASE("a long run prints its estimated time once, after its first blocks", "[engine][block_seconds]") {
  scratch s("estimate");
  // 0.2 s a sample on 2 threads: 5000 samples take about 500 s. A pause with no stop flag
  // returns once the first 7 blocks are in, after about 5 s: a few one-sample-per-thread blocks,
  // then blocks of about 2 s.
  std::FILE* report = std::tmpfile();
  eng::run_options o;
  o.output = s.dir / "long.h5";
  o.threads = 2;
  o.pause_after_blocks = 7;
  o.report = report;
  o.errors = nullptr;
  eng::run_study(io::study_document::parse(slow_study(0.2, 5000), "slow.toml"), o);
  std::rewind(report);
  std::string text(1 << 14, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), report));
  std::fclose(report);
  INFO(text);
  CHECK_THAT(text, Contains("estimated time: about") && Contains("for 5000 samples"));
  const auto at = text.find("estimated time");
  CHECK(text.find("estimated time", at + 1) == std::string::npos);
}

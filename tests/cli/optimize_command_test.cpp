// `contactuq optimize` as a user runs it: table printed, file written, stopped and resumed,
// plotted.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/opt/optimization_store.hpp"
#include "run_cli.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

struct scratch_dir {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("contactuq-optimize-" + std::to_string(::getpid()));
  scratch_dir() { std::filesystem::create_directories(dir); }
  ~scratch_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

// The receptacle robust design study, made small: 16 parts, 20 stroke points, a short search.
std::string small_study(const scratch_dir& s, const std::string& extra = "") {
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/receptacle_robust_design.toml");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  const auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("samples = 400", "samples = 16");
  replace("points = 100 ", "points = 20 ");
  replace("population = 16", "population = 8");
  replace("generations = 15", "generations = 3");
  replace("evaluations = 40", "evaluations = 4");
  text += extra;
  const std::string path = s / "study.toml";
  std::ofstream(path) << text;
  return path;
}

bool same(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

TEST_CASE("optimize prints the best design, writes the history and resumes by replaying it") {
  scratch_dir s;
  const std::string study = small_study(s);
  const auto full = run_cli("optimize " + study + " -o " + (s / "full.h5") + " -j 2");
  INFO(full.output);
  REQUIRE(full.exit_code == 0);
  CHECK_THAT(full.output, Contains("model receptacle_pin: optimal") &&
                              Contains("mean+3sd(peak_insertion)") &&
                              Contains("P(peak_withdrawal < 0.00490333 N)") && Contains("regret"));
  const auto a = opt::read_optimization(s / "full.h5");
  REQUIRE(a.finished);
  REQUIRE(a.history.size() > 40);
  CHECK(a.schema.design_names == std::vector<std::string>{"K", "g1_d0"});
  CHECK(a.schema.models == std::vector<std::string>{"receptacle_pin"});
  REQUIRE(a.regret.size() == 1);
  CHECK(a.regret(0, 0) == 0.0);
  // The best design is one of the evaluated designs, within the bounds.
  const std::vector<double> best{a.best_x(0, 0), a.best_x(0, 1)};
  CHECK(std::any_of(a.history.begin(), a.history.end(),
                    [&](const auto& r) { return same(r.x, best); }));
  CHECK(best[0] >= a.schema.low[0]);
  CHECK(best[0] <= a.schema.high[0]);

  // Stopped after 20 new evaluations (as an interrupted run), then resumed.
  const auto part = run_cli("optimize " + study + " -o " + (s / "part.h5") + " -j 1 --max-new 20");
  INFO(part.output);
  CHECK(part.exit_code == 130);
  CHECK_THAT(part.output, Contains("--resume"));
  // The unfinished run is at part.h5.part; part.h5 appears only when the run is complete.
  CHECK_FALSE(std::filesystem::exists(s / "part.h5"));
  const auto b = opt::read_optimization(io::unfinished_path(s / "part.h5"));
  CHECK_FALSE(b.finished);
  REQUIRE(b.history.size() > 0);
  REQUIRE(b.history.size() <= 20);
  const auto resumed = run_cli("optimize " + study + " -o " + (s / "part.h5") + " -j 2 --resume");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output,
             Contains(std::to_string(b.history.size()) + " replayed") &&
                 Contains(std::to_string(a.history.size() - b.history.size()) + " new"));
  const auto c = opt::read_optimization(s / "part.h5");
  REQUIRE(c.finished);
  CHECK_FALSE(std::filesystem::exists(io::unfinished_path(s / "part.h5")));
  REQUIRE(c.history.size() == a.history.size());
  for (std::size_t i = 0; i < a.history.size(); ++i) {
    CHECK(same(a.history[i].x, c.history[i].x));
    CHECK(same(a.history[i].value.objectives, c.history[i].value.objectives));
    CHECK(same(a.history[i].value.constraints, c.history[i].value.constraints));
  }
  CHECK(c.best_x == a.best_x);

  // A forced new run that is interrupted leaves the finished result as it was.
  const auto forced = run_cli("optimize " + study + " -o " + (s / "part.h5") + " -j 1 --max-new 5 --force");
  CHECK(forced.exit_code == 130);
  const auto kept = opt::read_optimization(s / "part.h5");
  CHECK(kept.finished);
  CHECK(kept.history.size() == a.history.size());

  // A resume of another study is refused.
  std::ofstream(study, std::ios::app) << "# changed\n";
  const auto other = run_cli("optimize " + study + " -o " + (s / "part.h5") + " --resume");
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.output, Contains("different study"));
}

TEST_CASE(
    "optimize reports bad studies with file, line and key, and infeasible problems with exit code "
    "1") {
  scratch_dir s;
  const std::string bad = small_study(s,
                                      "[[optimization.constraint]]\noutput = "
                                      "\"peak_force\"\nstatistic = \"mean\"\nmax = \"1 N\"\n");
  const auto r = run_cli("optimize " + bad + " -o " + (s / "bad.h5"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("study.toml:") && Contains("optimization.constraint[2].output") &&
                           Contains("peak_insertion"));
  // No part may hold the pin with less than 1000 N: infeasible, least-violating design printed.
  const std::string impossible =
      small_study(s,
                  "[[optimization.constraint]]\noutput = \"peak_withdrawal\"\nstatistic = "
                  "\"mean\"\nmin = \"1000 N\"\n");
  const auto i = run_cli("optimize " + impossible + " -o " + (s / "infeasible.h5"));
  INFO(i.output);
  CHECK(i.exit_code == 1);
  CHECK_THAT(i.output, Contains("infeasible") && Contains("least-violating"));
  const auto f = opt::read_optimization(s / "infeasible.h5");
  REQUIRE(f.finished);
  // The least-violating design is the stiffest: the upper bound of K.
  CHECK(f.best_x(0, 0) == Approx(f.schema.high[0]).epsilon(0.02));
}

TEST_CASE(
    "contactuq plot draws the convergence and the designs of an optimisation file, and no regret "
    "matrix for one model") {
  scratch_dir s;
  const std::string study = small_study(s);
  REQUIRE(run_cli("optimize " + study + " -o " + (s / "plot.h5") + " -q").exit_code == 0);
  // The figures of the file.
  const std::string outdir = s / "plots";
  const std::string command = "PYTHONPATH='" + std::string(CONTACTUQ_SOURCE_DIR) +
                              "/python' /usr/bin/python3 -m contactuq.plot '" + (s / "plot.h5") +
                              "' --outdir '" + outdir + "' 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  for (const char* name : {"convergence.png", "designs.png"}) {
    const auto path = std::filesystem::path(outdir) / name;
    CHECK(std::filesystem::exists(path));
    CHECK(std::filesystem::file_size(path) > 1000);
  }
  CHECK_FALSE(std::filesystem::exists(std::filesystem::path(outdir) / "regret.png"));  // one model: nothing to compare
}

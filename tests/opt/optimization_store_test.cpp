// The optimisation file: history readable while written, results at the end.
#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/opt/optimization_store.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

opt::optimization_schema schema() {
  opt::optimization_schema s;
  s.study_text = "title = \"t\"\n";
  s.study_path = "t.toml";
  s.design_names = {"K", "d0"};
  s.design_units = {"N*m/rad", "m"};
  s.low = {1, 2};
  s.high = {3, 4};
  s.start = {2, 3};
  s.objectives = {"mean(y)"};
  s.objective_units = {"N"};
  s.objective_senses = {"minimize"};
  s.constraints = {"P(g > 1) <= 0.1"};
  s.constraint_units = {""};
  s.models = {"a", "b"};
  s.algorithm = "de";
  s.samples = 10;
  return s;
}

opt::evaluation_record record(std::size_t model, double k) {
  opt::evaluation_record r;
  r.model = model;
  r.stage = model == 0 ? opt::phase::global : opt::phase::local;
  r.x = {k, k + 1};
  r.value.objectives = {k * k};
  r.value.constraints = {0.5 * k};
  r.value.violation = k > 2 ? 1.0 : 0.0;
  r.value.failed = k > 2.5 ? 3 : 0;
  r.value.message = k > 2.5 ? "sample 0: no solution" : "";
  return r;
}

}  // namespace

TEST_CASE("optimisation files keep every evaluation, readable before the run finishes") {
  const auto path = std::filesystem::temp_directory_path() /
                    ("contactuq-opt-store-" + std::to_string(::getpid()) + ".h5");
  auto writer = opt::optimization_writer::create(path, schema());
  const std::vector<opt::evaluation_record> first{record(0, 1.5), record(0, 2.75)};
  writer.append(first);
  writer.append(std::vector<opt::evaluation_record>{record(1, 2.25)});
  CHECK(writer.rows() == 3);
  // Read while the writer still has it open: the unfinished run is at path + ".part".
  CHECK_FALSE(std::filesystem::exists(path));
  const auto open = opt::read_optimization(io::unfinished_path(path));
  CHECK_FALSE(open.finished);
  REQUIRE(open.history.size() == 3);
  const auto& r = open.history[1];
  CHECK(r.model == 0);
  CHECK(r.stage == opt::phase::global);
  CHECK(r.x == std::vector<double>{2.75, 3.75});
  CHECK(r.value.objectives == std::vector<double>{2.75 * 2.75});
  CHECK(r.value.constraints == std::vector<double>{1.375});
  CHECK(r.value.failed == 3);
  CHECK(r.value.message == "sample 0: no solution");
  CHECK(open.history[2].stage == opt::phase::local);
  CHECK(open.schema.design_units == std::vector<std::string>{"N*m/rad", "m"});
  CHECK(open.schema.high == std::vector<double>{3, 4});

  // A record of the wrong shape is refused.
  auto wrong = record(0, 1.0);
  wrong.x.push_back(0.0);
  CHECK_THROWS_WITH(writer.append(std::vector<opt::evaluation_record>{wrong}),
                    Contains("3 design values"));

  opt::epistemic_result result;
  result.models = {"a", "b"};
  for (double k : {1.5, 2.25}) {
    opt::optimization_result o;
    o.x = {k, k + 1};
    o.value = record(0, k).value;
    o.feasible = true;
    o.status = "optimal";
    result.optima.push_back(o);
  }
  result.cross = Eigen::MatrixXd{{2.25, 3.0}, {4.0, 5.0625}};
  result.regret = Eigen::MatrixXd{{0.0, 0.5}, {1.75, 0.0}};
  result.cross_feasible = Eigen::MatrixXi{{1, 1}, {1, 0}};
  writer.finish(result, "2026-01-01T00:00:00Z");
  const auto done = opt::read_optimization(path);
  CHECK(done.finished);
  CHECK_FALSE(std::filesystem::exists(io::unfinished_path(path)));
  CHECK(done.history.size() == 3);
  CHECK(done.regret == result.regret);
  CHECK(done.best_x(1, 1) == 3.25);
  CHECK(done.schema.end_time == "2026-01-01T00:00:00Z");
  std::filesystem::remove(path);
}

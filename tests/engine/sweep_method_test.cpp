// The sweep method over models other than the receptacle–pin: an expression model (scalars,
// checked against its formula), the switch model (scalars and curves), and the refusals of a
// [sweep] table at their keys.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>

#include "contactuq/engine/run_study.hpp"
#include "contactuq/io/hdf5.hpp"

namespace eng = contactuq::engine;
namespace io = contactuq::io;
using Catch::Matchers::Contains;

namespace {

const std::filesystem::path studies = std::filesystem::path(CONTACTUQ_SOURCE_DIR) / "studies";

struct scratch {
  std::filesystem::path dir;
  explicit scratch(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("contactuq_sweep_" + name)) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~scratch() { std::filesystem::remove_all(dir); }
};

eng::run_result run_text(const std::string& text, const std::filesystem::path& out,
                         bool check_only = false) {
  eng::run_options o;
  o.output = out;
  o.check_only = check_only;
  o.errors = nullptr;
  return eng::run_study(io::study_document::parse(text, "sweep.toml"), o);
}

const std::string expression = R"(
method = "sweep"
[model]
type = "expression"
[model.inputs]
R = "200 N"
S = "150 N"
[model.outputs]
g = "R - S"
[parameters.S]
value = "100 N"
)";

}  // namespace

TEST_CASE("a sweep of an expression model holds every point's inputs and outputs", "[sweep]") {
  scratch s("expression");
  const auto out = s.dir / "r.h5";
  const auto r = run_text(
      expression + "[sweep]\nparameter = \"R\"\nlow = \"100 N\"\nhigh = \"300 N\"\npoints = 5\n",
      out);
  CHECK(r.method_name == "sweep");
  CHECK(r.planned == 5);
  CHECK(r.failed == 0);
  io::hdf5::file f(out, io::hdf5::file_mode::read_only);
  CHECK(f.string_attribute("format") == "contactuq-sweep");
  CHECK(f.string_attribute("method") == "sweep");
  CHECK(f.string_attribute("model") == "expression");
  CHECK(f.open_dataset("sweep").read_doubles() == std::vector<double>{100, 150, 200, 250, 300});
  const auto inputs = f.open_dataset("inputs");
  REQUIRE(inputs.shape() == std::vector<std::size_t>{5, 2});
  const auto x = inputs.read_doubles();
  const auto y = f.open_dataset("outputs").read_doubles();
  REQUIRE(y.size() == 5);
  for (std::size_t k = 0; k < 5; ++k) {
    CHECK(x[2 * k + 1] == 100.0);  // S fixed by [parameters.S]
    CHECK(y[k] == x[2 * k] - 100.0);
  }
}

TEST_CASE("a sweep takes values with units and checks them without running", "[sweep]") {
  scratch s("check");
  const auto r =
      run_text(expression + "[sweep]\nparameter = \"R\"\nvalues = [\"0.1 kN\", \"250 N\"]\n",
               s.dir / "r.h5", true);
  CHECK(r.planned == 2);
  CHECK_FALSE(std::filesystem::exists(s.dir / "r.h5"));
}

TEST_CASE("a sweep of the switch model writes scalars and curves of every point", "[sweep]") {
  scratch s("switch");
  std::string text = io::study_document::load((studies / "switch_evaluate.toml").string()).text();
  text.replace(text.find("method = \"evaluate\""), 19, "method = \"sweep\"");
  text += "\n[sweep]\nparameter = \"g0\"\nvalues = [\"3.5 mm\", \"4 mm\"]\n";
  const auto out = s.dir / "switch.h5";
  const auto r = run_text(text, out);
  CHECK(r.failed == 0);
  io::hdf5::file f(out, io::hdf5::file_mode::read_only);
  CHECK(f.string_attribute("model") == "switch");
  const auto outputs = f.open_dataset("outputs");
  REQUIRE(outputs.shape().size() == 2);
  CHECK(outputs.shape()[0] == 2);
  const auto curves = f.open_group("curves");
  const auto names = curves.strings_attribute("names");
  REQUIRE_FALSE(names.empty());
  const auto c = curves.open_dataset(names.front());
  REQUIRE(c.shape().size() == 2);
  CHECK(c.shape()[0] == 2);
  const auto values = c.read_doubles();
  CHECK(std::none_of(values.begin(), values.end(), [](double v) { return std::isnan(v); }));
}

TEST_CASE("a bad [sweep] table is refused at its key", "[sweep]") {
  scratch s("bad");
  const auto out = s.dir / "r.h5";
  CHECK_THROWS_WITH(run_text(expression + "[sweep]\nparameter = \"Q\"\nvalues = [1]\n", out, true),
                    Contains("sweep.parameter") && Contains("no input \"Q\"") && Contains("R, S"));
  CHECK_THROWS_WITH(
      run_text(expression + "[sweep]\nparameter = \"S\"\nvalues = [\"1 N\"]\n", out, true),
      Contains("sweep.parameter") && Contains("[parameters.S]"));
  CHECK_THROWS_WITH(
      run_text(expression + "[sweep]\nparameter = \"R\"\nvalues = [\"1 mm\"]\n", out, true),
      Contains("sweep.values"));
  CHECK_THROWS_WITH(
      run_text(expression + "[sweep]\nparameter = \"R\"\nvalues = [\"1 N\"]\nlow = \"1 N\"\n", out,
               true),
      Contains("sweep.low") && Contains("not both"));
  CHECK_THROWS_WITH(
      run_text(
          expression + "[sweep]\nparameter = \"R\"\nlow = \"1 N\"\nhigh = \"2 N\"\npoints = 1\n",
          out, true),
      Contains("sweep.points"));
}

TEST_CASE("a sweep records the points the model cannot solve and runs the others", "[sweep]") {
  scratch s("failed");
  std::string text = io::study_document::load((studies / "quickstart.toml").string()).text();
  text = "method = \"sweep\"\n" + text.substr(0, text.find("[parameters.mu]")) +
         "[sweep]\nparameter = \"mu\"\nvalues = [0.02, 5]\n";  // mu = 5 locks the arm on the cone
  const auto out = s.dir / "r.h5";
  const auto r = run_text(text, out);
  CHECK(r.failed == 1);
  CHECK(r.exit_code == 0);
  io::hdf5::file f(out, io::hdf5::file_mode::read_only);
  CHECK(f.string_attribute("model") == "receptacle_pin");
  const auto messages = f.open_dataset("messages").read_texts();
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].empty());
  CHECK_THAT(messages[1], Contains("friction lock"));
  const auto y = f.open_dataset("outputs").read_doubles();
  const std::size_t m = y.size() / 2;
  CHECK(std::isfinite(y[0]));
  CHECK(std::isnan(y[m]));
  const auto curve = f.open_group("curves").open_dataset("Fx_total").read_doubles();
  CHECK(std::isfinite(curve.front()));
  CHECK(std::isnan(curve.back()));
}

// The one reader of [parameters.*]: every role, the roles a method accepts, unknown names and
// the inputs' valid ranges, each error at its file, line and key.
#include "contactuq/study/variables.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_study.hpp"

using namespace contactuq;
using namespace contactuq::study;
using Catch::Matchers::Contains;

namespace {

// y = x + k w: a length x in [0, 1 m], a stiffness-like k > 0 and w without a nominal value.
struct three_inputs {
  std::vector<model::variable> inputs() const {
    return {{"x", units::length, 0.002, {0.0, 1.0}},
            {"k", units::dimensionless, 1.0, model::positive},
            {"w", units::dimensionless}};
  }
  std::vector<model::variable> outputs() const { return {{"y", units::length}}; }
  model::evaluation evaluate(std::span<const double> x) const { return {{x[0] + x[1] * x[2]}, {}}; }
};


const accepted_roles every_role{"a test study",
                                {variable_role::fixed, variable_role::design, variable_role::aleatoric,
                                 variable_role::epistemic, variable_role::calibrated}};
const accepted_roles evaluate_roles{"an evaluate study", {variable_role::fixed}, variable_role::fixed};
const accepted_roles calibrate_roles{"a calibrate study", {variable_role::calibrated, variable_role::fixed}};

variables read(const std::string& text, const accepted_roles& accepted = every_role) {
  return read_variables(io::study_document::parse(text, "v.toml").root(), model::model(three_inputs{}), accepted);
}

// The error reading `text` raises; fails the test when there is none.
io::study_error error_of(const std::string& text, const accepted_roles& accepted = every_role) {
  try {
    read(text, accepted);
  } catch (const io::study_error& e) {
    return e;
  }
  FAIL("no error for\n" << text);
  throw;  // not reached
}

}  // namespace

TEST_CASE("every role is read from its [parameters] table", "[variables]") {
  SECTION("fixed, with units, and inputs not listed keep their nominal value") {
    const variables v = read("[parameters.x]\nrole = \"fixed\"\nvalue = \"3 mm\"\n");
    REQUIRE(v.inputs.size() == 3);
    CHECK(v.inputs[0].name == "x");
    CHECK(v.inputs[0].unit == "m");
    CHECK(v.inputs[0].role == variable_role::fixed);
    CHECK(v.inputs[0].given);
    CHECK(v.inputs[0].value == Approx(0.003));
    CHECK(v.inputs[1].role == variable_role::fixed);
    CHECK_FALSE(v.inputs[1].given);
    CHECK(v.inputs[1].value == 1.0);
    CHECK(std::isnan(v.inputs[2].value));
    CHECK(v.listed == std::vector<std::size_t>{0});
    CHECK(v.epistemic.empty());
  }
  SECTION("design: bounds and a start, by default the middle") {
    const variables v = read("[parameters.x]\nrole = \"design\"\nlow = \"1 mm\"\nhigh = \"3 mm\"\n");
    CHECK(v.inputs[0].role == variable_role::design);
    CHECK(v.inputs[0].low == Approx(0.001));
    CHECK(v.inputs[0].high == Approx(0.003));
    CHECK(v.inputs[0].value == Approx(0.002));
    CHECK(read("[parameters.x]\nrole = \"design\"\nlow = \"1 mm\"\nhigh = \"3 mm\"\nvalue = \"2.5 mm\"\n")
              .inputs[0]
              .value == Approx(0.0025));
  }
  SECTION("aleatoric: a distribution in SI; the value stays the nominal one") {
    const variables v =
        read("[parameters.x]\nrole = \"aleatoric\"\ndistribution = \"uniform\"\nlow = \"1 mm\"\nhigh = \"3 mm\"\n");
    CHECK(v.inputs[0].role == variable_role::aleatoric);
    REQUIRE(v.inputs[0].distribution);
    CHECK(v.inputs[0].distribution->cdf(0.002) == Approx(0.5));
    CHECK(v.inputs[0].value == 0.002);
    CHECK(v.with_role(variable_role::aleatoric) == std::vector<std::size_t>{0});
  }
  SECTION("epistemic: a list of choices, points over an interval, a [model] key, a case table") {
    const variables v = read(R"(
[parameters.k]
role = "epistemic"
low = 1
high = 2
points = 3

[parameters.law]
role = "epistemic"
choices = ["a", "b"]

[parameters.row]
role = "epistemic"
choices = ["one", "two"]
w = [0.25, 0.5]

[parameters.x]
role = "epistemic"
choices = ["1 mm", "2 mm"]
)");
    // In the key order of [parameters]: k, law, row (and its column w), x.
    REQUIRE(v.epistemic.size() == 5);
    CHECK(v.epistemic[0].name == "k");
    CHECK(v.epistemic[0].input == 1);
    CHECK(v.epistemic[0].values == std::vector<double>{1.0, 1.5, 2.0});
    CHECK(v.epistemic[1].name == "law");
    CHECK(v.epistemic[1].model_key);
    CHECK(v.epistemic[1].labels == std::vector<std::string>{"a", "b"});
    CHECK(v.epistemic[2].case_table);
    CHECK(v.epistemic[2].labels == std::vector<std::string>{"one", "two"});
    CHECK(v.epistemic[3].name == "w");
    CHECK(v.epistemic[3].follows == 2);
    CHECK(v.epistemic[3].values == std::vector<double>{0.25, 0.5});
    CHECK(v.epistemic[4].labels == std::vector<std::string>{"1 mm", "2 mm"});
    CHECK(v.epistemic[4].values[1] == Approx(0.002));
    CHECK(v.with_role(variable_role::epistemic) == std::vector<std::size_t>{0, 1, 2});
    CHECK(v.inputs[2].given);  // the case table's column
    CHECK(v.listed == std::vector<std::size_t>{1, 0});  // tables of inputs, in key order
  }
  SECTION("calibrated: bounds and a first start, by default the model's value") {
    const variables v = read(R"(
[parameters.x]
role = "calibrated"
low = "1 mm"
high = "3 mm"

[parameters.k]
role = "calibrated"
low = 0.5
high = 2
start = 1.5
)",
                             calibrate_roles);
    CHECK(v.inputs[0].role == variable_role::calibrated);
    CHECK(v.inputs[0].value == 0.002);
    CHECK(v.inputs[1].value == 1.5);
    CHECK(v.inputs[1].low == 0.5);
    // The order of their tables, not the model's.
    CHECK(v.listed_with_role(variable_role::calibrated) == std::vector<std::size_t>{1, 0});
    CHECK(v.with_role(variable_role::calibrated) == std::vector<std::size_t>{0, 1});
    CHECK_THAT(error_of("[parameters.x]\nrole = \"calibrated\"\nlow = \"3 mm\"\nhigh = \"4 mm\"\n", calibrate_roles)
                   .what(),
               Contains("v.toml:3:") && Contains("parameters.x.low") && Contains("first start 0.002 m"));
  }
  SECTION("a method may imply the role of a table without one") {
    CHECK(read("[parameters.k]\nvalue = 3\n", evaluate_roles).inputs[1].value == 3.0);
    CHECK_THAT(error_of("[parameters.k]\nvalue = 3\n").what(), Contains("missing required key 'role'"));
  }
  SECTION("no [parameters] table: every input at its nominal value") {
    const variables v = read("title = \"none\"\n");
    CHECK(v.inputs.size() == 3);
    CHECK(v.listed.empty());
    CHECK(v.values()[0] == 0.002);
  }
}

TEST_CASE("a role the method does not accept is refused at its key, naming the roles it takes", "[variables]") {
  const std::string aleatoric = "[parameters.x]\nrole = \"aleatoric\"\ndistribution = \"uniform\"\nlow = 0\nhigh = 1\n";
  const io::study_error e = error_of("\n" + aleatoric, evaluate_roles);
  CHECK(e.file() == "v.toml");
  CHECK(e.line() == 3);
  CHECK(e.key() == "parameters.x.role");
  CHECK_THAT(e.what(), Contains("v.toml:3: parameters.x.role = \"aleatoric\"") &&
                           Contains("an evaluate study takes no aleatoric parameters (its roles: fixed)"));

  const io::study_error d =
      error_of("[parameters.k]\nrole = \"design\"\nlow = 1\nhigh = 2\n", calibrate_roles);
  CHECK(d.key() == "parameters.k.role");
  CHECK_THAT(d.what(), Contains("a calibrate study takes no design parameters (its roles: calibrated, fixed)"));
  // A role no method knows lists the method's roles.
  CHECK_THAT(error_of("[parameters.k]\nrole = \"random\"\nvalue = 1\n", calibrate_roles).what(),
             Contains("parameters.k.role") && Contains("must be one of: calibrated, fixed"));
  // Without the epistemic role, a [model] key or case table is an unknown name.
  CHECK_THAT(error_of("[parameters.law]\nrole = \"epistemic\"\nchoices = [\"a\", \"b\"]\n", calibrate_roles).what(),
             Contains("parameters.law") && Contains("not an input of model"));
}

TEST_CASE("a sample study refuses a calibrated parameter, naming the roles it takes", "[variables]") {
  model::register_builtin_models();
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
  std::ostringstream text;
  text << in.rdbuf();
  std::string study = text.str();
  const std::string role = "role = \"aleatoric\"";
  const auto at = study.find(role, study.find("[parameters.mu]"));
  REQUIRE(at != std::string::npos);
  study.replace(at, role.size(), "role = \"calibrated\"");
  CHECK_THROWS_WITH(read_ensemble_study(io::study_document::parse(study, "q.toml")),
                    Contains("q.toml:") && Contains("parameters.mu.role = \"calibrated\"") &&
                        Contains("a sample or nested study takes no calibrated parameters (its roles: fixed, "
                                 "aleatoric, design, epistemic)"));
}

TEST_CASE("an unknown input is refused with the model's input names", "[variables]") {
  const io::study_error e = error_of("[parameters.q]\nrole = \"fixed\"\nvalue = 1\n", calibrate_roles);
  CHECK(e.line() == 1);
  CHECK(e.key() == "parameters.q");
  CHECK_THAT(e.what(), Contains("not an input of model") && Contains("its inputs: x, k, w"));
  // Where epistemic parameters are accepted, a [model] key may be one.
  CHECK_THAT(error_of("[parameters.q]\nrole = \"fixed\"\nvalue = 1\n").what(),
             Contains("its inputs: x, k, w") && Contains("role = \"epistemic\""));
  CHECK_THAT(error_of("[parameters.row]\nrole = \"epistemic\"\nchoices = [\"a\"]\nq = [1]\n").what(),
             Contains("parameters.row.q") && Contains("x, k, w"));
}

TEST_CASE("values outside an input's valid range are refused for every role", "[variables]") {
  const auto outside = [](const std::string& text, const std::string& key) {
    INFO(text);
    CHECK_THAT(error_of(text).what(), Contains(key) && Contains("outside the valid range"));
  };
  outside("[parameters.k]\nrole = \"fixed\"\nvalue = -1\n", "parameters.k.value");
  outside("[parameters.x]\nrole = \"design\"\nlow = \"-1 mm\"\nhigh = \"1 mm\"\n", "parameters.x.low");
  outside("[parameters.x]\nrole = \"calibrated\"\nlow = \"1 mm\"\nhigh = \"2 m\"\nstart = \"2 mm\"\n",
          "parameters.x.high");
  outside("[parameters.k]\nrole = \"epistemic\"\nchoices = [1, 0]\n", "parameters.k.choices");
  outside("[parameters.k]\nrole = \"epistemic\"\nlow = 0\nhigh = 1\n", "parameters.k.low");
  outside("[parameters.row]\nrole = \"epistemic\"\nchoices = [\"a\", \"b\"]\nk = [1, -1]\n", "parameters.row.k");
  outside("[parameters.k]\nrole = \"aleatoric\"\ndistribution = \"normal\"\nmean = 1\nsd = 1\n",
          "parameters.k.distribution");
  outside("[parameters.k]\nrole = \"aleatoric\"\ndistribution = \"discrete\"\nvalues = [1, -1]\n",
          "parameters.k.values");
  // Inside, or outside with a negligible probability.
  CHECK_NOTHROW(read("[parameters.k]\nrole = \"aleatoric\"\ndistribution = \"normal\"\nmean = 1\nsd = 0.05\n"));
}

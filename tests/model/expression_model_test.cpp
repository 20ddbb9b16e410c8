#include "contactuq/model/expression_model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/registry.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

// Lines 1-8; a test appends to the inputs (after line 5) or the outputs (after line 8).
const std::string inputs_head = "[model]\ntype = \"expression\"\n[model.inputs]\nR = \"200 N\"\nS = \"150 N\"\n";
const std::string outputs_head = "[model.outputs]\ng = \"R - S\"\nratio = { formula = \"R / S\", units = \"1\" }\n";

model::model build(const std::string& text) {
  const auto doc = io::study_document::parse(text, "e.toml");
  return model::make_model(doc.root().table("model"));
}
model::model build(const std::string& more_inputs, const std::string& more_outputs) {
  return build(inputs_head + more_inputs + outputs_head + more_outputs);
}

// The error a study text gives, or a failed check.
io::study_error error_of(const std::string& text) {
  try {
    (void)build(text);
  } catch (const io::study_error& e) {
    return e;
  }
  FAIL("no error for:\n" << text);
  return io::study_error("", 0, "", "");
}

std::size_t index_of(const std::vector<std::string>& names, const std::string& n) {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
}

}  // namespace

TEST_CASE("expression model: registered, inputs with their units, outputs with the formulas' units",
          "[model][expression]") {
  const auto names = model::registered_models();
  CHECK(std::find(names.begin(), names.end(), "expression") != names.end());
  CHECK(model::is_registered("expression"));

  const model::model m = build("", "");
  CHECK(m.name() == "expression");
  CHECK_FALSE(m.thread_safe());
  CHECK(m.input_names() == std::vector<std::string>{"R", "S"});
  CHECK(m.input_units() == std::vector<std::string>{"N", "N"});
  CHECK(m.inputs()[0].nominal == 200.0);
  CHECK(m.inputs()[1].nominal == 150.0);
  CHECK_FALSE(m.inputs()[0].valid.bounded());
  CHECK(m.output_names() == std::vector<std::string>{"g", "ratio"});
  CHECK(m.outputs()[0].dim == units::force);  // found by scaling: R - S is a force
  CHECK(m.outputs()[1].dim == units::dimensionless);
  CHECK(m.output_units() == std::vector<std::string>{"N", ""});
}

TEST_CASE("expression model: outputs equal the formulas at several points", "[model][expression]") {
  const model::model m = build("L = \"2 m\"\ntheta = \"30 deg\"\nmass = \"2 kg\"\nv = \"3 m/s\"\nn = 3\n",
                               "h = \"L * sin(theta)\"\n"
                               "energy = { formula = \"0.5 * mass * v^2\", units = \"J\" }\n"
                               "moment = { formula = \"R * L\", units = \"N*m\" }\n"
                               "stress = { formula = \"max(R, S) / L^2\", units = \"MPa\" }\n"
                               "turn = \"theta * n\"\n"
                               "which = \"R > S ? n : -n\"\n"
                               "e_pi = \"_e * pi + log10(100) + ln(_e)\"\n");
  const auto out = m.output_names();
  CHECK(m.output_units()[index_of(out, "h")] == "m");
  CHECK(m.output_units()[index_of(out, "energy")] == "J");
  CHECK(m.output_units()[index_of(out, "moment")] == "N*m");  // the declared SI name, not "J"
  CHECK(m.outputs()[index_of(out, "stress")].dim == units::pressure);
  CHECK(m.outputs()[index_of(out, "turn")].dim == units::angle);
  CHECK(m.outputs()[index_of(out, "which")].dim == units::dimensionless);
  for (const double R : {200.0, -3.5, 1e6})
    for (const double S : {150.0, 0.25})
      for (const double theta : {0.0, 0.5, 2.0}) {
        const std::vector<double> x = {R, S, 2.0, theta, 2.0, 3.0, 3.0};
        const auto y = m.evaluate(x).outputs;
        CHECK(y[index_of(out, "g")] == R - S);
        CHECK(y[index_of(out, "ratio")] == Approx(R / S).epsilon(1e-15));
        CHECK(y[index_of(out, "h")] == Approx(2.0 * std::sin(theta)).margin(1e-15));
        CHECK(y[index_of(out, "energy")] == Approx(9.0));
        CHECK(y[index_of(out, "moment")] == Approx(R * 2.0));
        CHECK(y[index_of(out, "stress")] == Approx(std::max(R, S) / 4.0));
        CHECK(y[index_of(out, "turn")] == Approx(theta * 3.0));
        CHECK(y[index_of(out, "which")] == (R > S ? 3.0 : -3.0));
        CHECK(y[index_of(out, "e_pi")] == Approx(std::numbers::e * std::numbers::pi + 3.0));
      }
  // The nominal point: L sin(30 deg) = 1 m.
  std::vector<double> x;
  for (const auto& v : m.inputs()) x.push_back(v.nominal);
  CHECK(m.evaluate(x).outputs[index_of(out, "h")] == Approx(1.0));
}

TEST_CASE("expression model: the scaling check accepts consistent units and refuses the others",
          "[model][expression]") {
  const std::string more_inputs = "L = \"300 mm\"\ntheta = \"15 deg\"\nt = \"2 ms\"\nzero = \"0 m\"\n";
  const auto outputs_of = [&](const std::string& more_outputs) { return build(more_inputs, more_outputs); };
  // Accepted: declared units equal to the formula's, in any unit of that dimension.
  CHECK_NOTHROW(outputs_of("a = { formula = \"R * L / t\", units = \"J/s\" }\n"));
  CHECK_NOTHROW(outputs_of("a = { formula = \"R * L / t\", units = \"lbf*in/s\" }\n"));
  CHECK_NOTHROW(outputs_of("a = { formula = \"(L + zero) / t^2\", units = \"m/s^2\" }\n"));
  CHECK_NOTHROW(outputs_of("a = { formula = \"sqrt(R * S)\", units = \"N\" }\n"));
  CHECK_NOTHROW(outputs_of("a = { formula = \"L * cos(theta)\", units = \"m\" }\n"));
  CHECK_NOTHROW(outputs_of("a = { formula = \"theta\", units = \"deg\" }\n"));
  CHECK_NOTHROW(outputs_of("a = { formula = \"theta + sin(theta)\", units = \"rad\" }\n"));  // angle as declared
  CHECK(outputs_of("a = \"theta + sin(theta)\"\n").outputs()[2].dim == units::dimensionless);
  CHECK(outputs_of("a = \"R - R + S\"\n").outputs()[2].dim == units::force);
  CHECK(outputs_of("a = \"L * zero / t\"\n").outputs()[2].dim == units::length * units::length / units::duration);

  // Refused where declared units differ from the formula's: at the output's `units`.
  auto e = error_of(inputs_head + more_inputs + outputs_head + "a = { formula = \"R * L\", units = \"N\" }\n");
  CHECK(e.line() == 13);
  CHECK(e.key() == "model.outputs.a.units");
  CHECK_THAT(e.what(), Contains("e.toml:13") && Contains("not the declared units") && Contains("an energy (J)") &&
                           Contains("units = \"N\""));
  e = error_of(inputs_head + outputs_head.substr(0, outputs_head.size() - 5) + "N\" }\n");  // ratio in N
  CHECK(e.line() == 8);
  CHECK(e.key() == "model.outputs.ratio.units");
  CHECK_THAT(e.what(), Contains("not the declared units"));
  CHECK_THAT(error_of(inputs_head + more_inputs + outputs_head + "a = { formula = \"theta * 2\", units = \"1\" }\n")
                 .what(),
             Contains("not the declared units"));
  CHECK_THAT(error_of(inputs_head + more_inputs + outputs_head + "a = { formula = \"R\", units = \"parsec\" }\n")
                 .key(),
             Contains("model.outputs.a.units"));

  // Refused where the formula's units are not consistent, declared or not: at the output.
  for (const char* formula : {"R - L", "R - 100", "exp(R)", "sqrt(R)", "R + t", "L + zero * t"}) {
    INFO(formula);
    e = error_of(inputs_head + more_inputs + outputs_head + "a = \"" + formula + "\"\n");
    CHECK(e.line() == 13);
    CHECK(e.key() == "model.outputs.a");
    CHECK_THAT(e.what(), Contains("not consistent") && Contains("whole power of"));
  }
  e = error_of(inputs_head + more_inputs + outputs_head + "a = { formula = \"R - 100\", units = \"N\" }\n");
  CHECK(e.key() == "model.outputs.a.formula");
  CHECK_THAT(e.what(), Contains("make it an input"));
  // A formula that is 0 at and near the nominal point has no units to find: declare them.
  CHECK_THAT(error_of(inputs_head + more_inputs + outputs_head + "a = \"R - R\"\n").what(),
             Contains("cannot be found") && Contains("declare them"));
  CHECK(outputs_of("a = { formula = \"R - R\", units = \"N\" }\n").outputs()[2].dim == units::force);
}

TEST_CASE("expression model: bad input names the file, line, key and what is allowed", "[model][expression]") {
  // A formula muparser cannot parse: its message and position.
  auto e = error_of(inputs_head + "[model.outputs]\ng = \"R -* S\"\n");
  CHECK(e.line() == 7);
  CHECK(e.key() == "model.outputs.g");
  CHECK_THAT(e.what(), Contains("e.toml:7") && Contains("Unexpected operator \"*\"") && Contains("position 3"));
  e = error_of(inputs_head + "[model.outputs]\ng = \"sin(R/S\"\n");
  CHECK(e.key() == "model.outputs.g");
  CHECK_THAT(e.what(), Contains("sin(R/S"));
  e = error_of(inputs_head + "[model.outputs]\ng = \"R, S\"\n");
  CHECK_THAT(e.what(), Contains("one value"));
  e = error_of(inputs_head + "[model.outputs]\ng = \"R = 3\"\n");
  CHECK_THAT(e.what(), Contains("assigns"));
  CHECK_NOTHROW(build(inputs_head + "[model.outputs]\ng = \"R >= S && R != S ? 1 : 0\"\n"));
  e = error_of(inputs_head + "[model.outputs]\ng = \"  \"\n");
  CHECK(e.key() == "model.outputs.g");
  CHECK_THAT(e.what(), Contains("empty formula"));

  // An unknown name lists the inputs.
  e = error_of(inputs_head + "[model.outputs]\ng = \"R - Q\"\n");
  CHECK(e.line() == 7);
  CHECK(e.key() == "model.outputs.g");
  CHECK_THAT(e.what(), Contains("unknown name \"Q\" at character 5") && Contains("the inputs are R, S"));
  e = error_of(inputs_head + outputs_head + "h = \"g * 2\"\n");
  CHECK(e.key() == "model.outputs.h");
  CHECK_THAT(e.what(), Contains("not other outputs"));

  // Names: duplicate (TOML refuses it, at its line), shared by an input and an output, empty,
  // not an identifier, or a built-in of the formulas.
  e = error_of(inputs_head + "R = \"3 N\"\n" + outputs_head);
  CHECK(e.line() == 6);
  e = error_of(inputs_head + outputs_head + "S = \"R\"\n");
  CHECK(e.line() == 9);
  CHECK(e.key() == "model.outputs.S");
  CHECK_THAT(e.what(), Contains("an input's name too"));
  e = error_of(inputs_head + "\"\" = \"1 N\"\n" + outputs_head);
  CHECK(e.line() == 6);
  CHECK_THAT(e.what(), Contains("needs a name"));
  e = error_of(inputs_head + "\"a b\" = \"1 N\"\n" + outputs_head);
  CHECK(e.line() == 6);
  CHECK_THAT(e.what(), Contains("letters, digits and _"));
  for (const char* name : {"sin", "pi", "_e", "_pi", "max"}) {
    INFO(name);
    e = error_of(inputs_head + name + " = \"1 N\"\n" + outputs_head);
    CHECK(e.line() == 6);
    CHECK(e.key() == std::string("model.inputs.") + name);
    CHECK_THAT(e.what(), Contains("built-in function or constant"));
  }
  e = error_of(inputs_head + outputs_head + "sqrt = \"R\"\n");
  CHECK(e.key() == "model.outputs.sqrt");

  // No outputs, no inputs, a stray key.
  e = error_of(inputs_head + "[model.outputs]\n");
  CHECK(e.line() == 6);
  CHECK_THAT(e.what(), Contains("no outputs"));
  CHECK_THAT(error_of(inputs_head).what(), Contains("missing [model.outputs]"));
  CHECK_THAT(error_of("[model]\ntype = \"expression\"\n[model.inputs]\n" + outputs_head).what(),
             Contains("no inputs"));
  CHECK(error_of(inputs_head + outputs_head + "[model.more]\n").key() == "model.more");
  e = error_of(inputs_head + outputs_head.substr(0, outputs_head.size() - 3) + ", unit = \"1\" }\n");
  CHECK(e.key() == "model.outputs.ratio.unit");

  // Values: not finite, not a quantity, of no dimension the units know.
  e = error_of(inputs_head + "T = nan\n" + outputs_head);
  CHECK(e.line() == 6);
  CHECK(e.key() == "model.inputs.T");
  CHECK_THAT(e.what(), Contains("finite"));
  e = error_of(inputs_head + "T = \"inf N\"\n" + outputs_head);
  CHECK(e.key() == "model.inputs.T");
  e = error_of(inputs_head + "T = \"200 furlongs\"\n" + outputs_head);
  CHECK(e.key() == "model.inputs.T");
  CHECK_THAT(e.what(), Contains("furlongs"));
  e = error_of(inputs_head + "T = true\n" + outputs_head);
  CHECK(e.key() == "model.inputs.T");
}

TEST_CASE("expression model: an input may declare its valid range", "[model][expression]") {
  const model::model m = build("T = { value = \"20 mm\", low = \"0 mm\" }\nU = { value = 0.5, low = 0, high = 1 }\n",
                               "k = \"R / T\"\n");
  CHECK(m.inputs()[2].valid.low == 0.0);
  CHECK(std::isinf(m.inputs()[2].valid.high));
  CHECK(m.inputs()[2].nominal == Approx(0.02));
  CHECK(m.inputs()[2].dim == units::length);
  CHECK(m.inputs()[3].valid.high == 1.0);
  auto e = error_of(inputs_head + "T = { value = \"-1 mm\", low = \"0 mm\" }\n" + outputs_head);
  CHECK(e.key() == "model.inputs.T.value");
  CHECK_THAT(e.what(), Contains("outside its valid range"));
  e = error_of(inputs_head + "T = { value = \"1 mm\", low = \"0 N\" }\n" + outputs_head);
  CHECK(e.key() == "model.inputs.T.low");
  e = error_of(inputs_head + "T = { value = \"1 mm\", low = \"2 mm\", high = \"1 mm\" }\n" + outputs_head);
  CHECK(e.key() == "model.inputs.T.high");
}

TEST_CASE("expression model: a formula that is not finite is a failed evaluation", "[model][expression]") {
  const model::model m = build("", "root = { formula = \"sqrt(R * S - S * S)\", units = \"N\" }\n");
  CHECK(m.evaluate(std::vector<double>{200.0, 150.0}).outputs[2] == Approx(std::sqrt(200.0 * 150.0 - 150.0 * 150.0)));
  CHECK_THROWS_AS(m.evaluate(std::vector<double>{200.0, 0.0}), model_error);  // ratio = inf
  CHECK_THROWS_WITH(m.evaluate(std::vector<double>{200.0, 0.0}),
                    Contains("ratio = R / S is infinite") && Contains("S = 0"));
  CHECK_THROWS_WITH(m.evaluate(std::vector<double>{100.0, 150.0}), Contains("root = sqrt(R * S - S * S) is NaN"));
  // In a batch: the failed rows carry their message, the others their values.
  const std::vector<double> x = {200.0, 150.0, 200.0, 0.0, 100.0, 150.0, 300.0, 100.0};
  std::vector<double> y(4 * 3);
  std::vector<std::string> errors(4);
  m.evaluate_batch({4, x, y, {}, errors});
  CHECK(errors[0].empty());
  CHECK(y[0] == 50.0);
  CHECK_THAT(errors[1], Contains("infinite"));
  CHECK_THAT(errors[2], Contains("NaN"));
  CHECK(errors[3].empty());
  CHECK(y[9] == 200.0);
}

TEST_CASE("expression model: copies and clones evaluate independently, also at once on threads",
          "[model][expression]") {
  const auto doc = io::study_document::parse(inputs_head + outputs_head, "e.toml");
  std::optional<model::expression_model> original;
  original.emplace(model::expression_model::from_study(doc.root().table("model")));
  model::expression_model copy = *original;
  model::expression_model assigned = model::expression_model::from_study(doc.root().table("model"));
  assigned = copy;
  // The original evaluates elsewhere, then goes: the copies read inputs of their own.
  CHECK(original->evaluate(std::vector<double>{1.0, 2.0}).outputs[0] == -1.0);
  original.reset();
  CHECK(copy.evaluate(std::vector<double>{10.0, 4.0}).outputs == std::vector<double>{6.0, 2.5});
  CHECK(assigned.evaluate(std::vector<double>{7.0, 2.0}).outputs == std::vector<double>{5.0, 3.5});
  CHECK(copy.evaluate(std::vector<double>{10.0, 4.0}).outputs == std::vector<double>{6.0, 2.5});

  // A clone per thread (as the engine makes for a model that is not thread safe), each
  // evaluating its own points at the same time as the others.
  const model::model m(copy);
  constexpr int threads = 4, points = 20000;
  std::vector<model::model> clones;
  for (int k = 0; k < threads; ++k) clones.push_back(m.clone());
  std::vector<int> wrong(threads, 0);
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      for (int i = 0; i < points; ++i) {
        const double R = 1000.0 * k + i, S = 1.0 + (i % 97);
        const auto y = clones[static_cast<std::size_t>(k)].evaluate(std::vector<double>{R, S}).outputs;
        if (y[0] != R - S || y[1] != R / S) ++wrong[static_cast<std::size_t>(k)];
      }
    });
  for (auto& t : pool) t.join();
  CHECK(wrong == std::vector<int>(threads, 0));
}

#include "contactuq/model/model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace contactuq;
using namespace contactuq::model;

namespace {

// y = a x^2; declares no curves and no thread safety.
struct square {
  double a = 2.0;
  std::vector<variable> inputs() const { return {{"x", units::length, 1.0}}; }
  std::vector<variable> outputs() const { return {{"y", units::length * units::length}}; }
  evaluation evaluate(std::span<const double> x) const { return {{a * x[0] * x[0]}, {}}; }
};

struct with_curve {
  std::vector<variable> inputs() const { return {{"k", units::stiffness}, {"d", units::length}}; }
  std::vector<variable> outputs() const { return {{"F", units::force}}; }
  std::vector<curve_output> curves() const { return {{"F(x)", units::force, "x", units::length, {0.0, 0.5, 1.0}}}; }
  bool thread_safe() const { return true; }
  evaluation evaluate(std::span<const double> x) const {
    // F = k d and the curve F(s) = k s d for s in {0, 0.5, 1}.
    return {{x[0] * x[1]}, {{0.0, 0.5 * x[0] * x[1], x[0] * x[1]}}};
  }
};

// with_curve with a batch entry point of its own that fails where k < 0, and counts its calls.
struct batched_curve : with_curve {
  std::shared_ptr<int> batches = std::make_shared<int>(0);
  void evaluate_batch(const batch& b) const {
    ++*batches;
    for (std::size_t r = 0; r < b.rows; ++r) {
      if (b.inputs[2 * r] < 0) {
        b.errors[r] = "k < 0";
        continue;
      }
      const evaluation e = evaluate(b.inputs.subspan(2 * r, 2));
      b.outputs[r] = e.outputs[0];
      std::copy(e.curves[0].begin(), e.curves[0].end(), b.curves[0].begin() + static_cast<std::ptrdiff_t>(3 * r));
    }
  }
};

struct duplicate_names {
  std::vector<variable> inputs() const { return {{"x", units::length}, {"x", units::length}}; }
  std::vector<variable> outputs() const { return {{"y", units::length}}; }
  evaluation evaluate(std::span<const double>) const { return {}; }
};

struct wrong_count {
  std::vector<variable> inputs() const { return {{"x", units::length}}; }
  std::vector<variable> outputs() const { return {{"y", units::length}, {"z", units::length}}; }
  evaluation evaluate(std::span<const double> x) const { return {{x[0]}, {}}; }
};

}  // namespace

TEST_CASE("a model wraps any type with inputs, outputs and evaluate", "[model]") {
  const model::model m(square{3.0});
  CHECK(m.input_names() == std::vector<std::string>{"x"});
  CHECK(m.output_names() == std::vector<std::string>{"y"});
  CHECK(m.input_units() == std::vector<std::string>{"m"});
  CHECK(m.output_units() == std::vector<std::string>{"m^2"});
  CHECK(m.inputs()[0].nominal == 1.0);
  CHECK(m.curves().empty());
  CHECK_FALSE(m.thread_safe());  // not declared: assumed unsafe
  const double x = 2.0;
  CHECK(m.evaluate(std::span(&x, 1)).outputs == std::vector<double>{12.0});
  CHECK(m.find_input("x") == 0);
  CHECK(m.find_input("nope") == 1);
}

TEST_CASE("optional curves and thread safety are picked up", "[model]") {
  const model::model m(with_curve{});
  CHECK(m.thread_safe());
  REQUIRE(m.curves().size() == 1);
  CHECK(m.curve_names() == std::vector<std::string>{"F(x)"});
  CHECK(m.input_units() == std::vector<std::string>{"N/m", "m"});
  const std::vector<double> x = {200.0, 0.01};
  const evaluation e = m.evaluate(x);
  CHECK(e.outputs[0] == Approx(2.0));
  CHECK(e.curves[0] == std::vector<double>{0.0, 0.5 * 200.0 * 0.01, 200.0 * 0.01});
}

TEST_CASE("copies share the concrete model, clones are independent and equal", "[model]") {
  const model::model m(square{5.0});
  const model::model copy = m;
  const model::model clone = m.clone();
  const double x = 3.0;
  CHECK(copy.evaluate(std::span(&x, 1)).outputs[0] == 45.0);
  CHECK(clone.evaluate(std::span(&x, 1)).outputs[0] == 45.0);
  CHECK(clone.input_names() == m.input_names());
}

TEST_CASE("bad declarations and bad calls are reported", "[model]") {
  CHECK_THROWS_WITH(model::model(duplicate_names{}), Catch::Contains("\"x\" is declared twice"));
  const model::model m(wrong_count{});
  const std::vector<double> one = {1.0}, two = {1.0, 2.0};
  CHECK_THROWS_AS(m.evaluate(two), std::invalid_argument);
  CHECK_THROWS_WITH(m.evaluate(one), Catch::Contains("returned 1 outputs, declared 2"));
}

TEST_CASE("evaluate_batch: a model's own entry point, or evaluate row by row; failures per row", "[model]") {
  const std::vector<double> x = {2.0, 3.0, -1.0, 1.0, 4.0, 0.5};  // three rows (k, d)
  for (const bool own : {true, false}) {
    INFO((own ? "own batch entry point" : "row by row"));
    batched_curve concrete;
    const model::model m = own ? model::model(concrete) : model::model(with_curve{});
    CHECK(m.has_batch() == own);
    std::vector<double> y(3, std::nan("")), curve(9, std::nan(""));
    std::vector<std::string> errors(3);
    m.evaluate_batch({3, x, y, {curve}, errors});
    CHECK(*concrete.batches == (own ? 1 : 0));
    CHECK(y[0] == 6.0);
    CHECK(y[2] == 2.0);
    CHECK(std::vector<double>(curve.begin(), curve.begin() + 3) == std::vector<double>{0.0, 3.0, 6.0});
    CHECK(std::vector<double>(curve.begin() + 6, curve.end()) == std::vector<double>{0.0, 1.0, 2.0});
    CHECK(errors[0].empty());
    CHECK(errors[2].empty());
    if (own) CHECK(errors[1] == "k < 0");
    else CHECK(errors[1].empty());  // with_curve has no failure: -1 * 1
    // Shapes that do not match the declarations are the caller's error.
    std::vector<double> short_y(2);
    CHECK_THROWS_AS(m.evaluate_batch({3, x, short_y, {curve}, errors}), std::invalid_argument);
    CHECK_THROWS_AS(m.evaluate_batch({3, x, y, {}, errors}), std::invalid_argument);
  }
}

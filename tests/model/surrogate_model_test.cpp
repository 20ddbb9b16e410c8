// The surrogate model: a contactuq-surrogate file read back as it was written, evaluated as the
// expansion it stores, inside its training box unless extrapolating; built by the registry.
#include "contactuq/model/surrogate_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "contactuq/error.hpp"
#include "contactuq/io/result_file.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/uq/design.hpp"

namespace cm = contactuq::model;
namespace uq = contactuq::uq;
namespace io = contactuq::io;
using Catch::Matchers::Contains;

namespace {

// A folder of its own per test case: ctest runs the cases of this file at the same time.
struct scratch {
  std::filesystem::path dir;
  explicit scratch(const std::string& name)
      : dir(std::filesystem::temp_directory_path() /
            ("contactuq_surrogate_model_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~scratch() { std::filesystem::remove_all(dir); }
};

// y = 2 + a + a b + c^2 over a ~ N(1, 0.2) [m], b ~ U(0, 2), c ~ lognormal (the transform).
cm::surrogate_data fitted() {
  const std::vector<uq::distribution> m{uq::make_normal(1.0, 0.2), uq::make_uniform(0.0, 2.0),
                                        uq::make_lognormal(1.0, 0.1)};
  const Eigen::MatrixXd x = uq::map_to_inputs(uq::unit_design(80, 3, {.seed = 4}), m);
  Eigen::MatrixXd y(x.rows(), 1);
  for (Eigen::Index r = 0; r < x.rows(); ++r)
    y(r, 0) = 2 + x(r, 0) + x(r, 0) * x(r, 1) + x(r, 2) * x(r, 2);
  cm::surrogate_data d;
  d.model = "expression";
  d.x = x;
  d.y = y;
  d.training = "test";
  const char* names[] = {"a", "b", "c"};
  const char* units[] = {"m", "", ""};
  for (std::size_t i = 0; i < 3; ++i) {
    const Eigen::VectorXd col = x.col(static_cast<Eigen::Index>(i));
    const double lo = m[i].lower(), hi = m[i].upper();
    d.inputs.push_back({names[i], units[i], m[i], std::isfinite(lo) ? lo : col.minCoeff(),
                        std::isfinite(hi) ? hi : col.maxCoeff()});
  }
  uq::pce_fit f =
      uq::fit_pce(m, x, y.col(0), {.max_degree = 4, .selection = uq::pce_selection::full});
  cm::surrogate_output o;
  o.name = "y";
  o.unit = "m";
  o.degree = f.degree;
  o.max_degree = 4;
  o.selection = "full";
  o.candidates = f.candidates;
  o.validation.kfold_predictions = Eigen::VectorXd::Zero(x.rows());
  o.validation.fold.assign(static_cast<std::size_t>(x.rows()), 0);
  o.validation.q2_kfold = 0.99;
  o.chaos.emplace(std::move(f.chaos));
  d.outputs.push_back(std::move(o));
  return d;
}

void write(const std::filesystem::path& file, const cm::surrogate_data& d) {
  io::hdf5::file f(file, io::hdf5::file_mode::create);
  io::write_result_header(
      f, {.format = cm::surrogate_format, .method = "surrogate", .model = d.model});
  cm::write_surrogate(f, d);
  f.close();
}

}  // namespace

TEST_CASE("a surrogate file reads back as written and evaluates as the expansion",
          "[model][surrogate]") {
  scratch s("A");
  const auto file = s.dir / "pce.h5";
  const cm::surrogate_data d = fitted();
  write(file, d);
  const cm::surrogate_data r = cm::read_surrogate(file);
  REQUIRE(r.inputs.size() == 3);
  CHECK(r.inputs[2].marginal == d.inputs[2].marginal);
  CHECK(r.x == d.x);
  CHECK(r.outputs[0].chaos->indices() == d.outputs[0].chaos->indices());
  CHECK(r.outputs[0].chaos->coefficients() == d.outputs[0].chaos->coefficients());

  const cm::model m(cm::surrogate_model(std::make_shared<const cm::surrogate_data>(r), false));
  CHECK(m.input_names() == std::vector<std::string>{"a", "b", "c"});
  CHECK(m.input_units()[0] == "m");
  CHECK(m.output_units()[0] == "m");
  CHECK(m.thread_safe());
  // The box: the uniform's support; the normal's and lognormal's training range.
  CHECK(m.inputs()[1].valid.low == 0.0);
  CHECK(m.inputs()[1].valid.high == 2.0);
  CHECK(m.inputs()[0].valid.low == d.x.col(0).minCoeff());
  CHECK(m.inputs()[0].nominal == Approx(1.0));
  const Eigen::MatrixXd at = d.x.topRows(10);
  const Eigen::VectorXd expected = d.outputs[0].chaos->evaluate(at);
  for (Eigen::Index i = 0; i < at.rows(); ++i) {
    const std::vector<double> x{at(i, 0), at(i, 1), at(i, 2)};
    CHECK(m.evaluate(x).outputs[0] == expected(i));
    CHECK(m.evaluate(x).outputs[0] == Approx(2 + x[0] + x[0] * x[1] + x[2] * x[2]).epsilon(1e-3));
  }
  // Outside the box: refused naming the input, unless extrapolating.
  const std::vector<double> outside{d.x.col(0).maxCoeff() + 0.1, 1.0, 1.0};
  CHECK_THROWS_WITH(m.evaluate(outside),
                    Contains("a = ") && Contains("training box") && Contains("extrapolate"));
  const cm::model wide(cm::surrogate_model(std::make_shared<const cm::surrogate_data>(r), true));
  CHECK(std::isinf(wide.inputs()[0].valid.high));
  CHECK(wide.inputs()[2].valid.low == 0.0);  // the transform: the lognormal's support
  CHECK(std::isfinite(wide.evaluate(outside).outputs[0]));
}

TEST_CASE("the registry builds a surrogate model from [model] file = ...", "[model][surrogate]") {
  scratch s("B");
  write(s.dir / "pce.h5", fitted());
  const auto study = [&](const std::string& text) {
    return io::study_document::parse(text, (s.dir / "study.toml").string());
  };
  const cm::model m = cm::make_model(
      study("[model]\ntype = \"surrogate\"\nfile = \"pce.h5\"\n").root().table("model"));
  CHECK(m.name() == "surrogate");
  CHECK(m.output_names() == std::vector<std::string>{"y"});
  CHECK_THROWS_WITH(
      cm::make_model(
          study("[model]\ntype = \"surrogate\"\nfile = \"none.h5\"\n").root().table("model")),
      Contains("does not exist"));
  {
    io::hdf5::file f(s.dir / "other.h5", io::hdf5::file_mode::create);
    io::write_result_header(f, {.format = "contactuq-evaluate", .method = "evaluate"});
  }
  CHECK_THROWS_WITH(
      cm::make_model(
          study("[model]\ntype = \"surrogate\"\nfile = \"other.h5\"\n").root().table("model")),
      Contains("not a contactuq-surrogate file"));
  CHECK_THROWS_WITH(
      cm::make_model(study("[model]\ntype = \"surrogate\"\nfile = \"pce.h5\"\nwide = true\n")
                         .root()
                         .table("model")),
      Contains("wide"));
}

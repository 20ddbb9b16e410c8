#include "python_model.hpp"

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>

#include "contactuq/error.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::python {

namespace py = pybind11;

namespace {

// What one registration holds. The callable is released (None) at interpreter exit; the
// registry, a C++ static, outlives the interpreter.
struct registration {
  py::object function;  // guarded by the GIL
  std::vector<model::variable> inputs, outputs;
  std::vector<double> input_to_si, output_to_si;  // SI value of one declared unit
  bool vectorized = false;
};

struct python_models {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<registration>, std::less<>> by_name;
};
python_models& registered() {
  static auto* models = new python_models;  // never destroyed: see registration
  return *models;
}

model::variable to_variable(const declared_variable& d, bool input, double& to_si) {
  if (d.name.empty()) throw std::invalid_argument("a model variable needs a name");
  units::unit u;
  try {
    u = units::parse_unit(d.unit.empty() ? "1" : d.unit);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{} \"{}\": unit \"{}\": {}", input ? "input" : "output", d.name,
                                            d.unit, e.what()));
  }
  to_si = u.to_si;
  model::variable v{d.name, u.dim};
  if (input) {
    v.nominal = d.nominal * u.to_si;
    if (!(d.low < d.high) && !(std::isinf(d.low) && std::isinf(d.high)))
      throw std::invalid_argument(fmt::format("input \"{}\": low {} is not below high {}", d.name, d.low, d.high));
    v.valid = {d.low * u.to_si, d.high * u.to_si, false, false};
    if (std::isfinite(d.nominal) && !v.valid.contains(v.nominal))
      throw std::invalid_argument(fmt::format("input \"{}\": nominal {} {} is outside [{}, {}]", d.name, d.nominal,
                                              d.unit, d.low, d.high));
  }
  return v;
}

std::string python_message(const py::error_already_set& e) {
  return fmt::format("the Python model raised {}", e.what());
}

// Outputs of one non-vectorized call, in declared units, from what the function returned.
std::vector<double> row_outputs(const registration& r, const py::object& value) {
  const std::size_t m = r.outputs.size();
  std::vector<double> y(m);
  if (py::isinstance<py::dict>(value)) {
    const auto d = value.cast<py::dict>();
    for (std::size_t j = 0; j < m; ++j) {
      const py::str key(r.outputs[j].name);
      if (!d.contains(key))
        throw model_error(fmt::format("the Python model returned no output \"{}\"", r.outputs[j].name));
      y[j] = d[key].cast<double>();
    }
  } else if (m == 1 && !py::isinstance<py::sequence>(value)) {
    y[0] = value.cast<double>();
  } else {
    const auto values = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
    if (!values || values.size() != static_cast<py::ssize_t>(m))
      throw model_error(fmt::format("the Python model returned {} where {} output(s) were declared",
                                    py::str(value).cast<std::string>(), m));
    for (std::size_t j = 0; j < m; ++j) y[j] = values.data()[j];
  }
  return y;
}

class python_model {
 public:
  explicit python_model(std::shared_ptr<const registration> r) : r_(std::move(r)) {}
  std::vector<model::variable> inputs() const { return r_->inputs; }
  std::vector<model::variable> outputs() const { return r_->outputs; }
  bool thread_safe() const { return true; }  // every call holds the GIL

  model::evaluation evaluate(std::span<const double> x) const {
    std::vector<double> y(r_->outputs.size());
    std::string error;
    call({1, x, y, {}, std::span<std::string>(&error, 1)});
    if (!error.empty()) throw model_error(error);
    return {std::move(y), {}};
  }

  void evaluate_batch(const model::batch& b) const {
    if (b.rows == 0) return;
    call(b);
  }

 private:
  void call(const model::batch& b) const {
    const std::size_t d = r_->inputs.size(), m = r_->outputs.size();
    py::gil_scoped_acquire gil;
    if (r_->function.is_none()) {
      for (auto& e : b.errors) e = "the Python model is no longer available (the interpreter is exiting)";
      return;
    }
    if (r_->vectorized) {
      try {
        py::array_t<double> x({static_cast<py::ssize_t>(b.rows), static_cast<py::ssize_t>(d)});
        double* px = x.mutable_data();
        for (std::size_t i = 0; i < b.rows; ++i)
          for (std::size_t k = 0; k < d; ++k) px[i * d + k] = b.inputs[i * d + k] / r_->input_to_si[k];
        const auto y = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(r_->function(x));
        const bool column = m == 1 && y && y.ndim() == 1 && y.shape(0) == static_cast<py::ssize_t>(b.rows);
        if (!y || (!column && (y.ndim() != 2 || y.shape(0) != static_cast<py::ssize_t>(b.rows) ||
                               y.shape(1) != static_cast<py::ssize_t>(m))))
          throw model_error(fmt::format("the vectorized Python model must return an ({}, {}) array", b.rows, m));
        for (std::size_t i = 0; i < b.rows; ++i) store(b, i, std::span<const double>(y.data() + i * m, m));
      } catch (const py::error_already_set& e) {
        for (auto& msg : b.errors) msg = python_message(e);
      } catch (const std::exception& e) {
        for (auto& msg : b.errors) msg = e.what();
      }
      return;
    }
    for (std::size_t i = 0; i < b.rows; ++i) {
      try {
        py::dict kwargs;
        for (std::size_t k = 0; k < d; ++k)
          kwargs[py::str(r_->inputs[k].name)] = b.inputs[i * d + k] / r_->input_to_si[k];
        store(b, i, row_outputs(*r_, r_->function(**kwargs)));
      } catch (const py::error_already_set& e) {
        b.errors[i] = python_message(e);
      } catch (const std::exception& e) {
        b.errors[i] = e.what();
      }
    }
  }

  // Row i's outputs, declared units -> SI; a value that is not finite fails the row.
  void store(const model::batch& b, std::size_t i, std::span<const double> y) const {
    const std::size_t m = r_->outputs.size();
    for (std::size_t j = 0; j < m; ++j) {
      if (!std::isfinite(y[j])) {
        b.errors[i] = fmt::format("the Python model returned {} for output \"{}\"", y[j], r_->outputs[j].name);
        return;
      }
      b.outputs[i * m + j] = y[j] * r_->output_to_si[j];
    }
  }

  std::shared_ptr<const registration> r_;
};

}  // namespace

void register_python_model(const std::string& name, py::object function, const std::vector<declared_variable>& inputs,
                           const std::vector<declared_variable>& outputs, bool vectorized, bool replace) {
  if (!PyCallable_Check(function.ptr())) throw std::invalid_argument("register_model: the function is not callable");
  if (inputs.empty() || outputs.empty())
    throw std::invalid_argument("register_model: a model needs at least one input and one output");
  auto r = std::make_shared<registration>();
  r->function = std::move(function);
  r->vectorized = vectorized;
  for (const auto& d : inputs) r->inputs.push_back(to_variable(d, true, r->input_to_si.emplace_back()));
  for (const auto& d : outputs) r->outputs.push_back(to_variable(d, false, r->output_to_si.emplace_back()));
  (void)model::model{python_model{r}};  // checks the names are unique and non-empty

  python_models& all = registered();
  std::lock_guard lock(all.mutex);
  if (auto found = all.by_name.find(name); found != all.by_name.end()) {
    if (!replace)
      throw std::invalid_argument(fmt::format(
          "register_model: \"{}\" is already registered from Python (replace=True replaces it)", name));
    found->second = std::move(r);
    return;
  }
  if (model::is_registered(name))
    throw std::invalid_argument(fmt::format("register_model: \"{}\" is a model of contactuq's; choose another name", name));
  all.by_name.emplace(name, std::move(r));
  model::register_model(name, [name](const io::study_table& t) {
    t.allow_only({"type"});
    python_models& models = registered();
    std::shared_ptr<const registration> current;
    {
      std::lock_guard guard(models.mutex);
      current = models.by_name.at(name);
    }
    return model::model(python_model(current));
  });
}

void release_python_models() {
  python_models& all = registered();
  std::lock_guard lock(all.mutex);
  for (auto& [name, r] : all.by_name) r->function = py::none();
}

}  // namespace contactuq::python

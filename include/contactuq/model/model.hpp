#pragma once
// A model maps named scalar inputs to named scalar outputs and, optionally, curves:
//   evaluate: x in R^d  ->  (y in R^m, c_1 in R^(p_1), ..., c_k in R^(p_k))
// Inputs and outputs are SI values with the units their variable declares.
//
// `model` is a copyable, type-erased value in the spirit of pagmo::problem: any copyable type
// with
//   std::vector<variable> inputs() const;
//   std::vector<variable> outputs() const;
//   evaluation evaluate(std::span<const double> x) const;
// fits, and may add
//   std::vector<curve_output> curves() const;   // default: none
//   bool thread_safe() const;                   // default: false
//   std::string name() const;                   // default: "" (the registry sets the name)
//   evaluation_trace trace(std::span<const double>) const;  // full resolution; default: none
//   void evaluate_batch(const batch& b) const;  // many evaluations at once; default: evaluate
//                                               // row by row
// The sampler, optimiser and calibrator use only this interface.

#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "contactuq/io/display_units.hpp"
#include "contactuq/units/quantity.hpp"

namespace contactuq::model {

// A named scalar input or output.
// Where an input's values make physical sense [SI]: a study's fixed values, choices and design
// bounds must lie inside, and its distributions may put at most a negligible probability
// outside (study/ensemble_study.cpp). Unbounded unless a model says otherwise.
struct valid_range {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  bool low_open = false, high_open = false;  ///< the bound itself is outside

  bool bounded() const { return std::isfinite(low) || std::isfinite(high); }
  bool contains(double x) const {
    return (low_open ? x > low : x >= low) && (high_open ? x < high : x <= high);
  }
  std::string text(units::dimension dim) const;  ///< e.g. "> 0 N*m/rad", "in [0, 0.5)"
};
inline constexpr valid_range positive{0.0, std::numeric_limits<double>::infinity(), true, false};
inline constexpr valid_range non_negative{0.0, std::numeric_limits<double>::infinity(), false, false};

struct variable {
  std::string name;  ///< unique among the inputs (outputs) of one model, non-empty
  units::dimension dim;  ///< physical dimension; values are in its SI unit (units::si_unit)
  // Value an input takes when a study does not set it [SI]; NaN when a study must set it.
  // Unused for outputs.
  double nominal = std::numeric_limits<double>::quiet_NaN();
  valid_range valid = {};  ///< inputs only
  // The SI unit's name where the dimension alone would mislead (a torque "N*m", not "J");
  // model::model sets it from dim when a model leaves it empty.
  std::string unit = {};
};

// A curve output: `points` ordinate values per evaluation over a fixed abscissa.
struct curve_output {
  std::string name;               ///< unique among the curves of one model, non-empty
  units::dimension dim;           ///< dimension of the ordinate values
  std::string abscissa_name;      ///< e.g. "x"
  units::dimension abscissa_dim;  ///< dimension of the abscissa
  std::vector<double> abscissa;   ///< the abscissa [SI], one value per point, non-empty
  std::string unit = {};          ///< the ordinate's SI unit, as variable::unit
};

// What one evaluation returns: outputs[j] for output j, curves[k] for curve k (each of the
// curve's abscissa size), and a note on a valid result that a reader needs to trust it (e.g. why
// a start was left undecided); the engine stores it with the row. Empty when there is none.
struct evaluation {
  std::vector<double> outputs;
  std::vector<std::vector<double>> curves;
  std::string note = {};
};

// Evaluations of `rows` input rows at once, written in place (row-major, row r of each array is
// evaluation r). A model's evaluate_batch must give, row by row, the values evaluate gives, bit
// for bit: the engine may use either. A row whose evaluation fails gets its message in
// errors[r] (its outputs and curves are then not used); evaluate_batch itself never throws for
// one row's failure.
struct batch {
  std::size_t rows = 0;
  std::span<const double> inputs;         ///< rows x inputs
  std::span<double> outputs;              ///< rows x outputs
  std::vector<std::span<double>> curves;  ///< per curve, rows x its points
  std::span<std::string> errors;          ///< rows; empty on entry, a message where a row failed
  std::span<std::string> notes = {};      ///< rows, or none; empty on entry, a valid row's note
};

// One evaluation at full resolution, for the evaluate method: named series over a common
// abscissa (a dynamic model's every accepted step, the peaks inside steps and the located
// events) and the events themselves, with the scalar outputs of the same run.
struct trace_series {
  std::string name;
  units::dimension dim;
  std::vector<double> values;  ///< one per abscissa point [SI]
};
struct trace_event {
  std::string name;  ///< e.g. "contact start"
  double at = 0.0;   ///< abscissa value [SI]
};
struct evaluation_trace {
  std::string abscissa_name;  ///< e.g. "t"
  units::dimension abscissa_dim;
  std::vector<double> abscissa;  ///< non-decreasing [SI]
  std::vector<trace_series> series;
  std::vector<trace_event> events;
  evaluation result;  ///< the scalar outputs (and grid curves) of the same evaluation
};

namespace detail {
template <class T>
concept model_like = std::copy_constructible<T> && requires(const T& t, std::span<const double> x) {
  { t.inputs() } -> std::convertible_to<std::vector<variable>>;
  { t.outputs() } -> std::convertible_to<std::vector<variable>>;
  { t.evaluate(x) } -> std::convertible_to<evaluation>;
};
}  // namespace detail

class model {
 public:
  // Wraps a concrete model; reads and checks its declarations once: names unique and non-empty,
  // at least one input and one output or curve, every curve with an abscissa. Throws
  // std::invalid_argument naming what is wrong.
  template <class T>
    requires(!std::same_as<std::remove_cvref_t<T>, model> && detail::model_like<T>)
  model(T concrete) : impl_(std::make_shared<holder<T>>(std::move(concrete))) {
    declare();
  }

  const std::string& name() const noexcept { return name_; }
  const std::vector<variable>& inputs() const noexcept { return inputs_; }
  const std::vector<variable>& outputs() const noexcept { return outputs_; }
  const std::vector<curve_output>& curves() const noexcept { return curves_; }
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;
  std::vector<std::string> curve_names() const;
  // SI unit text per input / output, e.g. "m", "N*m/rad", "" for dimensionless.
  std::vector<std::string> input_units() const;
  std::vector<std::string> output_units() const;
  // Every name a study's [output] units may give a unit: inputs, outputs, curves and their
  // abscissae (each abscissa name once).
  std::vector<io::named_dimension> named_dimensions() const;
  // Index of an input by name, or inputs().size() when there is none.
  std::size_t find_input(std::string_view name) const;
  // Whether two threads may call evaluate() on the same object at once.
  bool thread_safe() const noexcept { return thread_safe_; }

  // Evaluates the model at x (inputs().size() SI values). Throws std::invalid_argument for a
  // wrong number of inputs, whatever the model throws (parameter_error, model_error, ...), and
  // std::logic_error when the model returns the wrong number of outputs or curve points.
  evaluation evaluate(std::span<const double> x) const;

  // Evaluates every row of `b` (shapes as the model declares; std::invalid_argument
  // otherwise), with the model's own batch entry point when it has one, else row by row. A
  // row's failure is its message in b.errors, never an exception.
  void evaluate_batch(const batch& b) const;
  // Whether the model has a batch entry point of its own (faster than evaluate row by row).
  bool has_batch() const noexcept { return has_batch_; }

  // Whether the model records full-resolution traces (dynamic models).
  bool has_trace() const noexcept { return has_trace_; }
  // One evaluation at full resolution; throws std::logic_error for a model without traces and
  // what evaluate() throws.
  evaluation_trace trace(std::span<const double> x) const;

  // The registry names the model it built (e.g. "receptacle_pin").
  void set_name(std::string name) { name_ = std::move(name); }

  // A model value is copyable; a copy shares the concrete model, which is immutable through
  // this interface. clone() makes an independent copy of the concrete model for models that
  // are not thread safe (one per worker thread).
  model clone() const;

 private:
  struct base {
    virtual ~base() = default;
    virtual std::shared_ptr<base> clone() const = 0;
    virtual std::vector<variable> inputs() const = 0;
    virtual std::vector<variable> outputs() const = 0;
    virtual std::vector<curve_output> curves() const = 0;
    virtual bool thread_safe() const = 0;
    virtual std::string name() const = 0;
    virtual evaluation evaluate(std::span<const double> x) const = 0;
    virtual bool has_trace() const = 0;
    virtual evaluation_trace trace(std::span<const double> x) const = 0;
    virtual bool has_batch() const = 0;
    virtual void evaluate_batch(const batch& b) const = 0;
  };
  template <class T>
  struct holder final : base {
    explicit holder(T v) : value(std::move(v)) {}
    std::shared_ptr<base> clone() const override { return std::make_shared<holder>(value); }
    std::vector<variable> inputs() const override { return value.inputs(); }
    std::vector<variable> outputs() const override { return value.outputs(); }
    std::vector<curve_output> curves() const override {
      if constexpr (requires(const T& t) { { t.curves() } -> std::convertible_to<std::vector<curve_output>>; })
        return value.curves();
      else
        return {};
    }
    bool thread_safe() const override {
      if constexpr (requires(const T& t) { { t.thread_safe() } -> std::convertible_to<bool>; })
        return value.thread_safe();
      else
        return false;
    }
    std::string name() const override {
      if constexpr (requires(const T& t) { { t.name() } -> std::convertible_to<std::string>; })
        return value.name();
      else
        return {};
    }
    evaluation evaluate(std::span<const double> x) const override { return value.evaluate(x); }
    static constexpr bool traces = requires(const T& t, std::span<const double> x) {
      { t.trace(x) } -> std::convertible_to<evaluation_trace>;
    };
    bool has_trace() const override { return traces; }
    evaluation_trace trace(std::span<const double> x) const override {
      if constexpr (traces)
        return value.trace(x);
      else
        throw std::logic_error("this model records no traces");
    }
    static constexpr bool batches = requires(const T& t, const batch& b) { t.evaluate_batch(b); };
    bool has_batch() const override { return batches; }
    void evaluate_batch(const batch& b) const override {
      if constexpr (batches)
        value.evaluate_batch(b);
      else
        throw std::logic_error("this model has no batch entry point");
    }
    T value;
  };

  void declare();

  std::shared_ptr<const base> impl_;
  std::string name_;
  std::vector<variable> inputs_;
  std::vector<variable> outputs_;
  std::vector<curve_output> curves_;
  bool thread_safe_ = false;
  bool has_trace_ = false;
  bool has_batch_ = false;
};

}  // namespace contactuq::model

#include "contactuq/model/model.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <set>
#include <stdexcept>

namespace contactuq::model {

namespace {

template <class T>
void check_names(const std::vector<T>& items, const char* what) {
  std::set<std::string> seen;
  for (const auto& v : items) {
    if (v.name.empty()) throw std::invalid_argument(fmt::format("model: an {} has an empty name", what));
    if (!seen.insert(v.name).second)
      throw std::invalid_argument(fmt::format("model: {} name \"{}\" is declared twice", what, v.name));
  }
}

template <class T>
std::vector<std::string> names_of(const std::vector<T>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& v : items) out.push_back(v.name);
  return out;
}

std::vector<std::string> units_of(const std::vector<variable>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& v : items) out.push_back(v.unit);
  return out;
}

}  // namespace

void model::declare() {
  name_ = impl_->name();
  inputs_ = impl_->inputs();
  outputs_ = impl_->outputs();
  curves_ = impl_->curves();
  thread_safe_ = impl_->thread_safe();
  has_trace_ = impl_->has_trace();
  has_batch_ = impl_->has_batch();
  for (auto* items : {&inputs_, &outputs_})
    for (auto& v : *items)
      if (v.unit.empty()) v.unit = units::si_unit(v.dim);
  for (auto& c : curves_)
    if (c.unit.empty()) c.unit = units::si_unit(c.dim);
  check_names(inputs_, "input");
  check_names(outputs_, "output");
  check_names(curves_, "curve");
  if (inputs_.empty()) throw std::invalid_argument("model: declares no inputs");
  if (outputs_.empty() && curves_.empty()) throw std::invalid_argument("model: declares no outputs");
  for (const auto& c : curves_)
    if (c.abscissa.empty())
      throw std::invalid_argument(fmt::format("model: curve \"{}\" has an empty abscissa", c.name));
}

std::vector<std::string> model::input_names() const { return names_of(inputs_); }
std::vector<std::string> model::output_names() const { return names_of(outputs_); }
std::vector<std::string> model::curve_names() const { return names_of(curves_); }
std::vector<std::string> model::input_units() const { return units_of(inputs_); }
std::vector<std::string> model::output_units() const { return units_of(outputs_); }

std::string valid_range::text(units::dimension dim) const {
  const std::string unit = units::si_unit(dim);
  const std::string u = unit.empty() ? "" : fmt::format(" {}", unit);
  if (!std::isfinite(low) && !std::isfinite(high)) return "any finite value";
  if (!std::isfinite(high)) return fmt::format("{} {:g}{}", low_open ? ">" : ">=", low, u);
  if (!std::isfinite(low)) return fmt::format("{} {:g}{}", high_open ? "<" : "<=", high, u);
  return fmt::format("in {}{:g}, {:g}{}{}", low_open ? "(" : "[", low, high, high_open ? ")" : "]", u);
}

std::vector<io::named_dimension> model::named_dimensions() const {
  std::vector<io::named_dimension> out;
  for (const auto& v : inputs_) out.push_back({v.name, v.dim});
  for (const auto& v : outputs_) out.push_back({v.name, v.dim});
  for (const auto& c : curves_) out.push_back({c.name, c.dim});
  for (const auto& c : curves_)
    if (std::none_of(out.begin(), out.end(), [&](const auto& n) { return n.name == c.abscissa_name; }))
      out.push_back({c.abscissa_name, c.abscissa_dim});
  return out;
}

std::size_t model::find_input(std::string_view name) const {
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].name == name) return i;
  return inputs_.size();
}

evaluation model::evaluate(std::span<const double> x) const {
  if (x.size() != inputs_.size())
    throw std::invalid_argument(
        fmt::format("model {}: evaluate got {} inputs, expected {}", name_, x.size(), inputs_.size()));
  evaluation e = impl_->evaluate(x);
  if (e.outputs.size() != outputs_.size())
    throw std::logic_error(fmt::format("model {}: evaluate returned {} outputs, declared {}", name_,
                                       e.outputs.size(), outputs_.size()));
  if (e.curves.size() != curves_.size())
    throw std::logic_error(fmt::format("model {}: evaluate returned {} curves, declared {}", name_,
                                       e.curves.size(), curves_.size()));
  for (std::size_t k = 0; k < curves_.size(); ++k)
    if (e.curves[k].size() != curves_[k].abscissa.size())
      throw std::logic_error(fmt::format("model {}: curve {} has {} points, declared {}", name_, curves_[k].name,
                                         e.curves[k].size(), curves_[k].abscissa.size()));
  return e;
}

void model::evaluate_batch(const batch& b) const {
  const auto check = [&](std::size_t size, std::size_t per_row, const std::string& what) {
    if (size != b.rows * per_row)
      throw std::invalid_argument(fmt::format("model {}: evaluate_batch of {} rows got {} {} values, expected {}",
                                              name_, b.rows, size, what, b.rows * per_row));
  };
  check(b.inputs.size(), inputs_.size(), "input");
  check(b.outputs.size(), outputs_.size(), "output");
  check(b.errors.size(), 1, "error");
  if (!b.notes.empty()) check(b.notes.size(), 1, "note");
  if (b.curves.size() != curves_.size())
    throw std::invalid_argument(
        fmt::format("model {}: evaluate_batch got {} curves, declared {}", name_, b.curves.size(), curves_.size()));
  for (std::size_t k = 0; k < curves_.size(); ++k) check(b.curves[k].size(), curves_[k].abscissa.size(), curves_[k].name);
  if (has_batch_) {
    impl_->evaluate_batch(b);
    return;
  }
  const std::size_t d = inputs_.size(), m = outputs_.size();
  for (std::size_t r = 0; r < b.rows; ++r) {
    try {
      const evaluation e = evaluate(b.inputs.subspan(r * d, d));
      std::copy(e.outputs.begin(), e.outputs.end(), b.outputs.begin() + static_cast<std::ptrdiff_t>(r * m));
      for (std::size_t k = 0; k < curves_.size(); ++k)
        std::copy(e.curves[k].begin(), e.curves[k].end(),
                  b.curves[k].begin() + static_cast<std::ptrdiff_t>(r * e.curves[k].size()));
      if (!b.notes.empty()) b.notes[r] = e.note;
    } catch (const std::exception& e) {
      b.errors[r] = e.what();
      if (b.errors[r].empty()) b.errors[r] = "failed (no message)";
    }
  }
}

evaluation_trace model::trace(std::span<const double> x) const {
  if (!has_trace_) throw std::logic_error(fmt::format("model {}: records no traces", name_));
  if (x.size() != inputs_.size())
    throw std::invalid_argument(
        fmt::format("model {}: trace got {} inputs, expected {}", name_, x.size(), inputs_.size()));
  evaluation_trace t = impl_->trace(x);
  if (t.result.outputs.size() != outputs_.size())
    throw std::logic_error(fmt::format("model {}: trace returned {} outputs, declared {}", name_,
                                       t.result.outputs.size(), outputs_.size()));
  for (const auto& series : t.series)
    if (series.values.size() != t.abscissa.size())
      throw std::logic_error(fmt::format("model {}: trace series {} has {} points, the abscissa {}", name_,
                                         series.name, series.values.size(), t.abscissa.size()));
  return t;
}

model model::clone() const {
  model copy = *this;
  copy.impl_ = impl_->clone();
  return copy;
}

}  // namespace contactuq::model

// The methods every build of contactuq has. Each is defined in src/engine/<name>_method.cpp; a
// new method adds its file and one line here.
#include "methods.hpp"

namespace contactuq::engine::detail {

method evaluate_method();
method curve_method();
method sweep_method();
method impact_method();
method pinslot_method();
method sample_method();
method nested_method();
method optimize_method();
method calibrate_method();
method morris_method();
method reliability_method();
method bayesian_method();
method surrogate_method();

std::vector<method> builtin_methods() {
  return {evaluate_method(), curve_method(),    sweep_method(),    impact_method(),    pinslot_method(),
          sample_method(),   nested_method(),   optimize_method(), calibrate_method(), morris_method(),
          reliability_method(), bayesian_method(), surrogate_method()};
}

}  // namespace contactuq::engine::detail

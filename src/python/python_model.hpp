#pragma once
// A Python callable as a contactuq model (contactuq.register_model): once registered under a
// name, `[model] type = "<name>"` builds it in any study run from Python, under every method.
//
// Values cross in the units the registration declares, not SI: the function gets "2.5" for an
// input declared in mm at 2.5 mm and returns its outputs in their declared units. A function
// that is not vectorized is called once per row with the inputs as keyword arguments and returns
// a number (one output), a sequence in output order or a dict by output name. A vectorized one is
// called once per block with an (n, inputs) array in input order and returns (n, outputs) (or
// (n,) for one output). An exception, a wrong shape or a value that is not finite fails the row
// (the whole block for a vectorized call), with the exception's message.
//
// Threads: the GIL is taken only while the function runs; calls are therefore one at a time, so a
// vectorized function (NumPy releases the GIL in its kernels) is the fast path.

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "contactuq/model/model.hpp"

namespace contactuq::python {

// One input or output as registered: a unit expression ("mm", "N", "" dimensionless), and for
// inputs a nominal value and valid bounds in that unit (NaN / infinite when not given).
struct declared_variable {
  std::string name;
  std::string unit;
  double nominal;
  double low;
  double high;
};

// Registers `function` under `name` in the model registry. Throws std::invalid_argument for a
// name taken by another model, bad units or names; `replace` allows replacing an earlier
// registration from Python under the same name (a notebook cell run again).
void register_python_model(const std::string& name, pybind11::object function,
                           const std::vector<declared_variable>& inputs,
                           const std::vector<declared_variable>& outputs, bool vectorized, bool replace);

// Drops every registered function (atexit, while the interpreter can still release them); a
// study that names one afterwards fails with a clear message.
void release_python_models();

}  // namespace contactuq::python

#pragma once
// Exceptions thrown at the API boundary. Each names what was wrong and what is allowed.

#include <stdexcept>
#include <string>

namespace contactuq {

// A parameter outside its valid range. field() is the name a study file uses for it, so the
// study layer can point at the file and line that set it.
class parameter_error : public std::invalid_argument {
 public:
  parameter_error(std::string field, const std::string& message)
      : std::invalid_argument(message), field_(std::move(field)) {}
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

// A model evaluated at a point where it has no solution (e.g. friction lock), as opposed to
// invalid parameters. Sampling layers record it as a failed sample.
class model_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Shortest round-trip decimal text of a value, for messages.
std::string format_value(double value);

// Throws parameter_error "<field> = <value> <unit>: must be <requirement>" unless ok.
void require(bool ok, const std::string& field, double value, const char* unit,
             const char* requirement);

}  // namespace contactuq

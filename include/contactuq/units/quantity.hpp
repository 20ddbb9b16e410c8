#pragma once
// Physical quantities with units, as written in study files ("0.300 in", "15 deg",
// "0.004 lbf*in/deg", "2 grf"). Everything inside contactuq is SI (m, kg, s, rad);
// conversion happens once, here, at the boundary.

#include <string>
#include <string_view>

namespace contactuq::units {

// Exponents of the base dimensions. Angle is kept as a dimension of its own so that
// "15 in" is rejected where an angle is expected and "lbf*in" where a stiffness per angle is.
struct dimension {
  int length = 0;
  int mass = 0;
  int duration = 0;
  int angle = 0;

  friend constexpr bool operator==(const dimension&, const dimension&) = default;
  friend constexpr dimension operator*(dimension a, dimension b) {
    return {a.length + b.length, a.mass + b.mass, a.duration + b.duration, a.angle + b.angle};
  }
  friend constexpr dimension operator/(dimension a, dimension b) {
    return {a.length - b.length, a.mass - b.mass, a.duration - b.duration, a.angle - b.angle};
  }
};

inline constexpr dimension dimensionless{};
inline constexpr dimension length{1, 0, 0, 0};
inline constexpr dimension mass{0, 1, 0, 0};
inline constexpr dimension duration{0, 0, 1, 0};
inline constexpr dimension angle{0, 0, 0, 1};
inline constexpr dimension velocity = length / duration;
inline constexpr dimension force = mass * length / (duration * duration);
inline constexpr dimension stiffness = force / length;
inline constexpr dimension damping = force / velocity;
inline constexpr dimension torsional_stiffness = force * length / angle;
inline constexpr dimension coupling_stiffness = force / angle;  // e.g. an axial-twist coupling
inline constexpr dimension pressure = force / (length * length);
inline constexpr dimension energy = force * length;
inline constexpr dimension density = mass / (length * length * length);

// What a dimension is called in messages: "a length", "a force", "a torsional stiffness", or
// the SI units ("kg*m^-3") when it has no common name.
std::string describe(dimension d);
// SI units of a dimension, e.g. "N*m/rad" for torsional_stiffness.
std::string si_unit(dimension d);
// A short example of a valid value for messages, e.g. "\"0.300 in\"" for a length.
std::string example(dimension d);

// A unit expression: products and quotients of known units with integer powers,
// e.g. "lbf*in/deg", "N*s/m", "m/s^2". Throws std::invalid_argument naming the unknown unit
// and listing the known ones.
struct unit {
  double to_si = 1.0;  ///< SI value of one of this unit
  dimension dim;
};
unit parse_unit(std::string_view text);

// A number followed by an optional unit expression, e.g. "0.300 in" or "1e-3". The value is
// returned in SI.
struct quantity {
  double si = 0.0;
  dimension dim;
};
quantity parse_quantity(std::string_view text);

// Parses text and checks it has dimension `expected`; returns the SI value. Throws
// std::invalid_argument saying what was expected, e.g.
//   "15 in" is a length, expected an angle (e.g. "15 deg")
double to_si(std::string_view text, dimension expected);

// Converts an SI value to the given unit expression; throws if the dimensions differ.
double from_si(double value_si, std::string_view unit_text, dimension expected);

// Every unit symbol the parser knows, comma-separated, for messages and documentation.
std::string known_units();

}  // namespace contactuq::units

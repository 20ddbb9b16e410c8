#pragma once
// Generous physical bounds the built-in models declare as their inputs' valid ranges [SI]: far
// beyond any mechanism they describe (parts of mm to cm, grams to kilograms, hand or actuator
// forces), so that only a value no user means (a pin of 2450 km radius, a friction coefficient
// of 2^31) is refused, at its key, instead of running for minutes. The lower bounds are the
// physics' own (a length > 0, a friction coefficient >= 0).

#include <numbers>

#include "contactuq/model/model.hpp"

namespace contactuq::model {

constexpr valid_range positive_up_to(double high) { return {0.0, high, true, false}; }      ///< (0, high]
constexpr valid_range non_negative_up_to(double high) { return {0.0, high, false, false}; }  ///< [0, high]
constexpr valid_range magnitude_up_to(double high) { return {-high, high, false, false}; }  ///< [-high, high]

namespace physical_limit {
inline constexpr double length = 1.0;               ///< a part's size or position [m]
inline constexpr double mass = 1e3;                 ///< [kg]
inline constexpr double inertia = 1e3;              ///< [kg*m^2]
inline constexpr double modulus = 1e13;             ///< [Pa]: ten times diamond's 1.2 TPa
inline constexpr double strength = 1e12;            ///< yield strength, hardness [Pa]: ten times diamond's hardness
inline constexpr double friction = 10.0;            ///< friction coefficient [-]: measured ones stay below about 2
inline constexpr double stiffness = 1e12;           ///< [N/m]
inline constexpr double torsional_stiffness = 1e9;  ///< [N*m/rad]
inline constexpr double damping = 1e9;              ///< [N*s/m]
inline constexpr double force = 1e6;                ///< [N]
inline constexpr double velocity = 1e3;             ///< [m/s]
inline constexpr double acceleration = 1e3;         ///< [m/s^2]: 100 g
inline constexpr double angle = 4 * std::numbers::pi;  ///< an azimuth or phase [rad]: two turns either way
}  // namespace physical_limit

}  // namespace contactuq::model

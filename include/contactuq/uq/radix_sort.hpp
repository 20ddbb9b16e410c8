#pragma once
// Sorting of large samples in linear time: least significant digit radix sorts over the bits of
// doubles. Iman-Conover and the summary of a study order columns of 10^5 samples and more on
// the serial path of a run, where comparison sorts were a visible cost.

#include <cstddef>
#include <span>
#include <vector>

namespace contactuq::uq {

// Indices 0..n-1 ordered by `values`, ties (-0 and +0 included) by index: the order
// std::stable_sort gives. Values must not be NaN.
std::vector<std::size_t> stable_order(std::span<const double> values);

// Sorts ascending, as std::sort would (-0 before +0). Values must not be NaN.
void sort_values(std::vector<double>& values);

}  // namespace contactuq::uq

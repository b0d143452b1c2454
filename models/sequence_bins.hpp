#pragma once
// Sequences of several lengths padded to bins, as BERT's pre-training data is loaded by NVIDIA's LDDL
// (DeepLearningExamples, PyTorch BERT, phase 2 since January 2022): the lengths up to the longest L are cut
// into n equal bins, every batch is drawn from one bin, chosen in proportion to the samples it holds, and
// padded to the bin's longest, i L / n tokens. A step then costs, on average, the bins' costs weighted by
// their shares: the layer table is that mean, while memory is checked at the longest bin.

#include "models/model_profile.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace dtsim::models {

/// The mean layer table over the bins: `build(s)` gives the table of samples of s tokens; `weights[i]` is
/// the share (any non-negative scale) of bin i + 1, padded to (i + 1) L / n tokens, where L is the sequence
/// of build(0) (the profile's own). Throws ProfileError (key "sequence_bins") when the bins do not divide L
/// or weigh nothing.
ModelProfile binned_profile(const std::function<ModelProfile(std::size_t sequence)>& build,
                            const std::vector<double>& weights);

/// The mean padded length of the bins: sum of w_i (i + 1) L / n over sum of w_i.
double mean_padded_length(std::size_t longest, const std::vector<double>& weights);

}  // namespace dtsim::models

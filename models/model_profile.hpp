#pragma once
// Layer tables of models too large to train for real: what each layer holds and costs per sample, for
// timing-only runs (no values, the same communication and compute time).

#include <cstddef>
#include <string>
#include <vector>

namespace dtsim::models {

struct LayerProfile {
  std::string name;
  double parameters = 0.0;
  double forward_flops = 0.0;     ///< per sample
  double backward_flops = 0.0;    ///< per sample: gradients of the inputs and of the weights
  double activation_bytes = 0.0;  ///< per sample: the layer's output, kept for the backward pass (FP32)
};

struct ModelProfile {
  std::string name;
  std::string description;
  std::string sample;  ///< what one sample is ("a 224x224 image", "a sequence of 512 tokens")
  std::vector<LayerProfile> layers;

  [[nodiscard]] double parameters() const;
  [[nodiscard]] double forward_flops() const;
  [[nodiscard]] double training_flops() const;  ///< forward + backward, per sample
  [[nodiscard]] double activation_bytes() const;
  /// Memory traffic of one training step on `batch` samples: each activation written in the forward pass
  /// and read twice in the backward pass, and the weights read twice and their gradient written and read
  /// once more by the optimizer (4 bytes each). `half_activations`: activations kept in 16 bits (mixed
  /// precision), half the bytes of the FP32 table.
  [[nodiscard]] double training_bytes(std::size_t batch, bool half_activations = false) const;
};

/// Options of the profile families: the sequence length of the transformers (0: the family's default).
struct ProfileOptions {
  std::size_t sequence = 0;
};

/// ResNet-50 v1.5 (torchvision): 224x224x3 images, stride on the 3x3 convolutions, 1000 classes.
ModelProfile resnet50_profile();
/// BERT encoders (Devlin et al. 2019) with the pooler: base (12 layers, 768 wide, 12 heads) and large (24,
/// 1024, 16); WordPiece vocabulary 30,522; default sequence 512.
ModelProfile bert_profile(const std::string& size, const ProfileOptions& options);
/// GPT-2 decoders (Radford et al. 2019) with the language-model head tied to the embeddings: small (12
/// layers, 768 wide), medium (24, 1024), large (36, 1280), xl (48, 1600); vocabulary 50,257; default
/// sequence 1024.
ModelProfile gpt2_profile(const std::string& size, const ProfileOptions& options);

/// The profile called `name` (resnet50, bert_base, bert_large, gpt2_small, gpt2_medium, gpt2_large,
/// gpt2_xl). Throws std::invalid_argument for another name.
ModelProfile find_profile(const std::string& name, const ProfileOptions& options = {});
/// Every profile name, sorted.
std::vector<std::string> profile_names();

}  // namespace dtsim::models

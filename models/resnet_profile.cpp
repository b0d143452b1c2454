#include "models/model_profile.hpp"

#include <fmt/format.h>

namespace dtsim::models {
namespace {

/// Builds the table layer by layer, following the feature map's size.
class ConvNetTable {
 public:
  explicit ConvNetTable(std::vector<LayerProfile>& layers) : layers_(layers) {}

  /// A k x k convolution (no bias) of `in` to `out` channels with stride `stride` on an `size` x `size` map,
  /// then batch normalization (2 parameters per channel; 4 FLOPs per element) and, when `relu`, a ReLU (1
  /// per element). Returns the output size.
  int conv(const std::string& name, int size, int k, int in, int out, int stride, bool relu) {
    const int out_size = (size + stride - 1) / stride;
    const double elements = static_cast<double>(out) * out_size * out_size;
    const double weights = static_cast<double>(k) * k * in * out;
    const double forward = 2.0 * weights * out_size * out_size + (relu ? 5.0 : 4.0) * elements;
    // Backward: the gradient of the input and of the weights, each as costly as the forward product.
    layers_.push_back(
        whole_layer(name, weights + 2.0 * out, forward, 2.0 * forward, elements * kFloatBytes, OpClass::Convolution));
    return out_size;
  }

  void elementwise(const std::string& name, double elements, double flops_per_element) {
    layers_.push_back(whole_layer(name, 0.0, flops_per_element * elements, flops_per_element * elements,
                                  elements * kFloatBytes, OpClass::Elementwise));
  }

 private:
  std::vector<LayerProfile>& layers_;
};

/// The image classifier's head: global average pooling of `channels` maps of `size` x `size`, then 1000
/// classes' weights and biases and softmax cross-entropy (5 FLOPs per class).
void classifier(ModelProfile& out, ConvNetTable& table, int channels, int size) {
  table.elementwise("avgpool", static_cast<double>(channels) * size * size, 1.0);
  const double classes = 1000.0;
  out.layers.push_back(whole_layer("fc", channels * classes + classes, 2.0 * channels * classes + 6.0 * classes,
                                   4.0 * channels * classes + classes, classes * kFloatBytes));
}

/// The stem: a 7x7 stride-2 convolution of the 224x224 image to 64 channels, then 3x3 max pooling with
/// stride 2. Returns the feature map's size (56).
int stem(ConvNetTable& table) {
  int size = table.conv("conv1", 224, 7, 3, 64, 2, true);  // 112
  size /= 2;
  table.elementwise("maxpool", 64.0 * size * size, 9.0);
  return size;
}

}  // namespace

// He et al. 2016, "Deep residual learning", table 1, as torchvision's resnet50 (v1.5: the stride-2
// downsampling on each stage's first 3x3 convolution). torchvision lists 25,557,032 parameters and 4.09
// GMACs (8.2 GFLOPs) per 224x224 image forward.
ModelProfile resnet50_profile() {
  ModelProfile out{
      "resnet50", "ResNet-50 v1.5 image classifier (ImageNet, 1000 classes)", "a 224x224 RGB image", {}, {}};
  ConvNetTable table(out.layers);
  int size = stem(table);
  const int blocks[4] = {3, 4, 6, 3};
  const int widths[4] = {64, 128, 256, 512};
  int in = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int mid = widths[stage];
    const int expanded = 4 * mid;
    for (int block = 0; block < blocks[stage]; ++block) {
      const std::string prefix = fmt::format("layer{}.{}", stage + 1, block);
      const int stride = block == 0 && stage > 0 ? 2 : 1;
      table.conv(prefix + ".conv1", size, 1, in, mid, 1, true);
      const int out_size = table.conv(prefix + ".conv2", size, 3, mid, mid, stride, true);
      table.conv(prefix + ".conv3", out_size, 1, mid, expanded, 1, false);
      if (block == 0) table.conv(prefix + ".downsample", size, 1, in, expanded, stride, false);
      // The residual addition and the ReLU after it.
      table.elementwise(prefix + ".add_relu", static_cast<double>(expanded) * out_size * out_size, 2.0);
      size = out_size;
      in = expanded;
    }
  }
  classifier(out, table, in, size);
  return out;
}

// The same paper's 18-layer network (table 1: basic blocks of two 3x3 convolutions, 2 per stage), as
// torchvision's resnet18: 11,689,512 parameters and 1.82 GMACs per 224x224 image forward.
ModelProfile resnet18_profile() {
  ModelProfile out{"resnet18", "ResNet-18 image classifier (ImageNet, 1000 classes)", "a 224x224 RGB image", {}, {}};
  ConvNetTable table(out.layers);
  int size = stem(table);
  const int widths[4] = {64, 128, 256, 512};
  int in = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int width = widths[stage];
    for (int block = 0; block < 2; ++block) {
      const std::string prefix = fmt::format("layer{}.{}", stage + 1, block);
      const int stride = block == 0 && stage > 0 ? 2 : 1;
      const int out_size = table.conv(prefix + ".conv1", size, 3, in, width, stride, true);
      table.conv(prefix + ".conv2", out_size, 3, width, width, 1, false);
      if (block == 0 && stage > 0) table.conv(prefix + ".downsample", size, 1, in, width, stride, false);
      table.elementwise(prefix + ".add_relu", static_cast<double>(width) * out_size * out_size, 2.0);
      size = out_size;
      in = width;
    }
  }
  classifier(out, table, in, size);
  return out;
}

}  // namespace dtsim::models

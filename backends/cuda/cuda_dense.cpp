#include "backends/cuda/cuda_dense.hpp"

#include <stdexcept>

namespace dtsim::cuda {
namespace {

class CudaDenseAccelerator final : public models::DenseAccelerator {
 public:
  CudaDenseAccelerator(std::vector<std::size_t> widths, bool tanh) : widths_(widths), kernels_(std::move(widths), tanh) {}

  double loss_and_gradient(std::span<const float> parameters, std::span<const float> inputs,
                           std::span<const int> labels, std::size_t rows, std::span<float> gradient) override {
    if (parameters.size() != kernels_.parameter_count() || gradient.size() != parameters.size() ||
        inputs.size() != rows * widths_.front() || labels.size() != rows) {
      throw std::invalid_argument("CUDA dense classifier: parameters, inputs or labels do not match the model");
    }
    return kernels_.loss_and_gradient(parameters.data(), inputs.data(), labels.data(), rows, gradient.data());
  }

 private:
  std::vector<std::size_t> widths_;
  DenseKernels kernels_;
};

}  // namespace

std::unique_ptr<models::DenseAccelerator> make_dense_accelerator(std::vector<std::size_t> widths, bool tanh) {
  return std::make_unique<CudaDenseAccelerator>(std::move(widths), tanh);
}

}  // namespace dtsim::cuda

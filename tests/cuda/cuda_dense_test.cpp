// The CUDA backend against the CPU: the same loss and gradient within float tolerance. Skipped without a
// CUDA device (CI builds this, and runs it where a GPU is present).

#include "backends/cuda/cuda_dense.hpp"
#include "models/dense_classifier.hpp"
#include "models/gaussian_blobs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace dtsim {
namespace {

void expect_cpu_and_cuda_agree(std::vector<std::size_t> hidden, models::Activation activation, std::size_t batch) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const models::SplitDataset data = models::make_gaussian_blobs({.samples = 600, .features = 24, .classes = 5}, 3);
  const models::DenseClassifier cpu(24, hidden, activation, 5, 7);
  models::DenseClassifier gpu(24, hidden, activation, 5, 7);
  gpu.set_accelerator(cuda::make_dense_accelerator(gpu.widths(), gpu.tanh()));
  models::Parameters parameters = cpu.initial_parameters();
  // Non-zero everywhere (softmax regression starts at zero), so that every product matters.
  for (Eigen::Index i = 0; i < parameters.size(); ++i) parameters[i] += 0.01F * static_cast<float>((i * 37) % 11 - 5);
  std::vector<std::size_t> rows(batch);
  std::iota(rows.begin(), rows.end(), 17);
  models::Parameters on_cpu;
  models::Parameters on_gpu;
  const double cpu_loss = cpu.loss_and_gradient(parameters, data.train, rows, on_cpu);
  const double gpu_loss = gpu.loss_and_gradient(parameters, data.train, rows, on_gpu);
  EXPECT_NEAR(gpu_loss, cpu_loss, 1e-4 * std::abs(cpu_loss));
  ASSERT_EQ(on_gpu.size(), on_cpu.size());
  const double scale = on_cpu.cwiseAbs().maxCoeff();
  for (Eigen::Index i = 0; i < on_cpu.size(); ++i) {
    EXPECT_NEAR(on_gpu[i], on_cpu[i], 1e-4 * std::max<double>(std::abs(on_cpu[i]), 1e-2 * scale)) << "parameter " << i;
  }
}

TEST(CudaBackend, SoftmaxRegressionMatchesTheCpu) { expect_cpu_and_cuda_agree({}, models::Activation::Relu, 64); }

TEST(CudaBackend, ReluMlpMatchesTheCpu) { expect_cpu_and_cuda_agree({32, 16}, models::Activation::Relu, 100); }

TEST(CudaBackend, TanhMlpMatchesTheCpu) { expect_cpu_and_cuda_agree({40}, models::Activation::Tanh, 33); }

TEST(CudaBackend, DeviceCountIsZeroOrANamedDevice) {
  if (cuda::device_count() == 0) {
    EXPECT_EQ(cuda::device_name(), "");
  } else {
    EXPECT_FALSE(cuda::device_name().empty());
  }
}

}  // namespace
}  // namespace dtsim

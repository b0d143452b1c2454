#include "backends/cuda/dense_kernels.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace dtsim::cuda {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuBLAS: ") + what + " failed (status " + std::to_string(status) + ")");
  }
}

/// A device array of T that grows to the largest size asked for.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(data_); }
  [[nodiscard]] T* data() const { return data_; }
  void swap(DeviceArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(capacity_, other.capacity_);
  }
  T* reserve(std::size_t count) {
    if (count > capacity_) {
      cudaFree(data_);
      data_ = nullptr;
      check(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)), "cudaMalloc");
      capacity_ = count;
    }
    return data_;
  }

 private:
  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

constexpr int kThreads = 256;

int blocks_for(std::size_t count) { return static_cast<int>((count + kThreads - 1) / kThreads); }

// Z (column-major, out x n: sample i's outputs are column i) += bias, then the activation when asked.
__global__ void add_bias_activate(float* z, const float* bias, int out, int n, int activation) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= out * n) return;
  float value = z[index] + bias[index % out];
  if (activation == 1) value = value > 0.0F ? value : 0.0F;
  if (activation == 2) value = tanhf(value);
  z[index] = value;
}

// One thread per sample: softmax cross-entropy in double (as the CPU does), its loss and the error
// (p - onehot) / n into delta.
__global__ void softmax_cross_entropy(const float* logits, const int* labels, int classes, int n, double* losses,
                                      float* delta) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* row = logits + static_cast<std::size_t>(i) * classes;
  float top = row[0];
  for (int k = 1; k < classes; ++k) top = row[k] > top ? row[k] : top;
  double sum = 0.0;
  for (int k = 0; k < classes; ++k) sum += exp(static_cast<double>(row[k]) - top);
  const int label = labels[i];
  losses[i] = log(sum) + top - row[label];
  for (int k = 0; k < classes; ++k) {
    const double probability = exp(static_cast<double>(row[k]) - top) / sum;
    delta[static_cast<std::size_t>(i) * classes + k] =
        static_cast<float>((probability - (k == label ? 1.0 : 0.0)) / static_cast<double>(n));
  }
}

// The error passed back through the activation, from the activation's output.
__global__ void activation_derivative(float* back, const float* output, std::size_t count, int activation) {
  const std::size_t index = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= count) return;
  const float y = output[index];
  back[index] *= activation == 1 ? (y > 0.0F ? 1.0F : 0.0F) : 1.0F - y * y;
}

__global__ void fill(float* data, std::size_t count, float value) {
  const std::size_t index = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index < count) data[index] = value;
}

}  // namespace

class DenseKernels::Impl {
 public:
  Impl(std::vector<std::size_t> widths, bool tanh) : widths_(std::move(widths)), tanh_(tanh) {
    if (widths_.size() < 2) throw std::invalid_argument("a dense classifier needs inputs and classes");
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cublasCreate(&handle_), "cublasCreate");
    // Deterministic sums: no atomics in cuBLAS's reductions.
    check(cublasSetAtomicsMode(handle_, CUBLAS_ATOMICS_NOT_ALLOWED), "cublasSetAtomicsMode");
    for (std::size_t l = 0; l < widths_.size(); ++l) activations_.push_back(std::make_unique<DeviceArray<float>>());
    for (std::size_t l = 0; l + 1 < widths_.size(); ++l) {
      parameter_count_ += widths_[l] * widths_[l + 1] + widths_[l + 1];
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() { cublasDestroy(handle_); }

  [[nodiscard]] std::size_t parameter_count() const { return parameter_count_; }

  double run(const float* host_parameters, const float* host_inputs, const int* host_labels, std::size_t rows,
             float* host_gradient) {
    const std::size_t layers = widths_.size() - 1;
    const int n = static_cast<int>(rows);
    const int activation = tanh_ ? 2 : 1;
    float* weights = parameters_.reserve(parameter_count_);
    float* gradients = gradient_.reserve(parameter_count_);
    check(cudaMemcpy(weights, host_parameters, parameter_count_ * sizeof(float), cudaMemcpyHostToDevice),
          "copy parameters");
    // The inputs, row-major n x features, are column-major features x n: sample i is column i.
    const std::size_t input_count = rows * widths_.front();
    float* input = activations_[0]->reserve(input_count);
    check(cudaMemcpy(input, host_inputs, input_count * sizeof(float), cudaMemcpyHostToDevice), "copy inputs");
    int* device_labels = labels_.reserve(rows);
    check(cudaMemcpy(device_labels, host_labels, rows * sizeof(int), cudaMemcpyHostToDevice), "copy labels");

    const float one = 1.0F;
    const float zero = 0.0F;
    std::size_t offset = 0;
    std::vector<std::size_t> offsets;
    for (std::size_t l = 0; l < layers; ++l) {
      const int in = static_cast<int>(widths_[l]);
      const int out = static_cast<int>(widths_[l + 1]);
      offsets.push_back(offset);
      // W is out x in row-major, so column-major in x out: Z = W^T(col) ^T A.
      float* z = activations_[l + 1]->reserve(static_cast<std::size_t>(out) * rows);
      check(cublasSgemm(handle_, CUBLAS_OP_T, CUBLAS_OP_N, out, n, in, &one, weights + offset, in, activations_[l]->data(),
                        in, &zero, z, out),
            "forward product");
      add_bias_activate<<<blocks_for(static_cast<std::size_t>(out) * rows), kThreads>>>(
          z, weights + offset + static_cast<std::size_t>(in) * out, out, n, l + 1 < layers ? activation : 0);
      offset += static_cast<std::size_t>(in) * out + out;
    }
    const int classes = static_cast<int>(widths_.back());
    double* losses = losses_.reserve(rows);
    float* delta = delta_.reserve(static_cast<std::size_t>(classes) * rows);
    softmax_cross_entropy<<<blocks_for(rows), kThreads>>>(activations_[layers]->data(), device_labels, classes, n,
                                                          losses, delta);
    check(cudaGetLastError(), "softmax kernel");

    float* ones = ones_.reserve(rows);
    fill<<<blocks_for(rows), kThreads>>>(ones, rows, 1.0F);
    for (std::size_t l = layers; l-- > 0;) {
      const int in = static_cast<int>(widths_[l]);
      const int out = static_cast<int>(widths_[l + 1]);
      const float* input_l = activations_[l]->data();
      // dW^T (in x out, column-major) = A (in x n) . delta^T (n x out); db = delta (out x n) . ones.
      check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_T, in, out, n, &one, input_l, in, delta, out, &zero,
                        gradients + offsets[l], in),
            "weight gradient");
      check(cublasSgemv(handle_, CUBLAS_OP_N, out, n, &one, delta, out, ones, 1, &zero,
                        gradients + offsets[l] + static_cast<std::size_t>(in) * out, 1),
            "bias gradient");
      if (l == 0) break;
      // The error of the layer below (in x n) = W^T(col) . delta, then through the activation.
      float* back = back_.reserve(static_cast<std::size_t>(in) * rows);
      check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, in, n, out, &one, weights + offsets[l], in, delta, out, &zero,
                        back, in),
            "error product");
      activation_derivative<<<blocks_for(static_cast<std::size_t>(in) * rows), kThreads>>>(
          back, input_l, static_cast<std::size_t>(in) * rows, activation);
      back_.swap(delta_);
      delta = delta_.data();
    }
    check(cudaMemcpy(host_gradient, gradients, parameter_count_ * sizeof(float), cudaMemcpyDeviceToHost),
          "copy gradient");
    std::vector<double> host_losses(rows);
    check(cudaMemcpy(host_losses.data(), losses, rows * sizeof(double), cudaMemcpyDeviceToHost), "copy losses");
    double total = 0.0;
    for (const double loss : host_losses) total += loss;  // in sample order, as the CPU sums
    return rows == 0 ? 0.0 : total / static_cast<double>(rows);
  }

 private:
  std::vector<std::size_t> widths_;
  bool tanh_;
  cublasHandle_t handle_ = nullptr;
  DeviceArray<float> parameters_;
  DeviceArray<float> gradient_;
  std::size_t parameter_count_ = 0;
  // The inputs, then every layer's output (the last: the logits).
  std::vector<std::unique_ptr<DeviceArray<float>>> activations_;
  DeviceArray<int> labels_;
  DeviceArray<double> losses_;
  DeviceArray<float> delta_;
  DeviceArray<float> back_;
  DeviceArray<float> ones_;
};

DenseKernels::DenseKernels(std::vector<std::size_t> widths, bool tanh)
    : impl_(std::make_unique<Impl>(std::move(widths), tanh)) {}

DenseKernels::~DenseKernels() = default;

std::size_t DenseKernels::parameter_count() const { return impl_->parameter_count(); }

double DenseKernels::loss_and_gradient(const float* parameters, const float* inputs, const int* labels, std::size_t rows,
                                       float* gradient) {
  return impl_->run(parameters, inputs, labels, rows, gradient);
}

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the error: no driver or no device means none
    return 0;
  }
  return count;
}

std::string device_name() {
  cudaDeviceProp properties{};
  if (device_count() == 0 || cudaGetDeviceProperties(&properties, 0) != cudaSuccess) return "";
  return properties.name;
}

}  // namespace dtsim::cuda

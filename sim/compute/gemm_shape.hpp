#pragma once
// Matrix products run slower when they are small or skinny: fewer tiles than the multiprocessors can take at
// once, too short a reduction to fill the pipeline, or too little work to hide the launch. A GPU's `gemm`
// efficiency is that of a large product timed alone; a product of another shape runs at that efficiency
// times this factor, measured on an NVIDIA H100 SXM (bench/device/gemm_shapes.py,
// bench/device/results/h100-gemm-shapes.csv): its cuBLAS throughput at each shape of a grid over that of the
// 8192 x 8192 x 8192 product, fp16 and bf16 averaged. Other GPUs take the H100's factor until their own
// grid is measured (docs/how-it-works.md says what that assumes).

namespace dtsim::compute {

/// The factor for an m x k by k x n product (m rows of output, n columns, reduction over k), interpolated
/// in the logarithms of m, n and k over the measured grid (m from 256 to 65,536; n and k from 256 to
/// 16,384) and held at its edges beyond it.
double gemm_shape_factor(double m, double n, double k);

/// The factor of a layer's products in a training step: its forward product (m, n, k), the gradient of its
/// input (m, k, n) and the gradient of its weights (n, k, m; reduced over the rows), each a third of its
/// FLOPs: the one factor that times the three together.
double training_gemm_factor(double m, double n, double k);

}  // namespace dtsim::compute

#include "prediction_head.hpp"

#include "architectures/architecture.hpp"
#include "fit.hpp"
#include "shmtrain/tensor/gelu.hpp"
#include "shmtrain/tensor/layernorm.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/relu.hpp"
#include "shmtrain/tensor/tanh.hpp"

namespace shmtrain::model {

DenseBlock classifier_block(const BertConfig& config) {
  const Architecture& arch = architecture_of(config);
  if (config.head == ModelHead::kMultipleChoice && arch.multiple_choice == ChoiceHead::kOwnDense) {
    return {arch.choice_pooler, nullptr, arch.choice_activation};
  }
  return {arch.pooler, arch.pooler_norm, arch.pooler_activation};
}

DenseBlock masked_lm_block(const BertConfig& config) {
  const MaskedLmModules& m = architecture_of(config).masked_lm;
  return {m.dense, m.norm, Activation::kGelu};
}

PredictionHead::PredictionHead(const BertConfig& config, const DenseBlock& block, const ParamTable& table,
                               std::span<float> params, std::span<float> grads)
    : hidden_(config.hidden_size), activation_(block.activation), eps_(static_cast<float>(config.layer_norm_eps)) {
  auto in = [&](std::span<float> arena, const std::string& name) -> float* {
    const ParamEntry* e = table.find(name);
    return e == nullptr ? nullptr : arena.data() + e->offset;
  };
  const std::string dense = block.dense;
  const std::string norm = block.norm != nullptr ? block.norm : "";
  dense_w_ = in(params, dense + ".weight");
  dense_b_ = in(params, dense + ".bias");
  d_dense_w_ = in(grads, dense + ".weight");
  d_dense_b_ = in(grads, dense + ".bias");
  norm_w_ = norm.empty() ? nullptr : in(params, norm + ".weight");
  norm_b_ = norm.empty() ? nullptr : in(params, norm + ".bias");
  d_norm_w_ = norm.empty() ? nullptr : in(grads, norm + ".weight");
  d_norm_b_ = norm.empty() ? nullptr : in(grads, norm + ".bias");
  first_offset_ = table.at(dense + ".weight").offset;
}

const float* PredictionHead::forward(const float* x, std::int64_t rows) {
  x_ = x;
  rows_ = rows;
  const std::int64_t h = hidden_;
  for (auto* v : {&pre_, &act_}) fit(*v, rows * h);
  fit(out_, norm_w_ != nullptr ? rows * h : 0);
  for (auto* v : {&mean_, &rstd_}) fit(*v, norm_w_ != nullptr ? rows : 0);
  tensor::linear_forward(pre_.data(), x, dense_w_, dense_b_, rows, h, h);
  switch (activation_) {
    case Activation::kTanh:
      tensor::tanh_forward(act_.data(), pre_.data(), rows * h);
      break;
    case Activation::kRelu:
      tensor::relu_forward(act_.data(), pre_.data(), rows * h);
      break;
    case Activation::kGelu:
      tensor::gelu_forward(act_.data(), pre_.data(), rows * h);
      break;
  }
  if (norm_w_ == nullptr) return act_.data();
  tensor::layernorm_forward(out_.data(), mean_.data(), rstd_.data(), act_.data(), norm_w_, norm_b_, rows, h, eps_);
  return out_.data();
}

void PredictionHead::backward(float* dx, float* dout) {
  const std::int64_t h = hidden_;
  const std::int64_t n = rows_ * h;
  float* d_act = dout;
  if (norm_w_ != nullptr) {  // the norm's input gradient into out_, free once read
    tensor::layernorm_backward(out_.data(), d_norm_w_, d_norm_b_, dout, act_.data(), norm_w_, mean_.data(),
                               rstd_.data(), rows_, h);
    d_act = out_.data();
  }
  switch (activation_) {
    case Activation::kTanh:
      tensor::tanh_backward(d_act, d_act, act_.data(), n);
      break;
    case Activation::kRelu:
      tensor::relu_backward(d_act, d_act, act_.data(), n);
      break;
    case Activation::kGelu:
      tensor::gelu_backward(d_act, d_act, pre_.data(), n);
      break;
  }
  tensor::linear_backward(dx, d_dense_w_, d_dense_b_, d_act, x_, dense_w_, rows_, h, h);
}

}  // namespace shmtrain::model

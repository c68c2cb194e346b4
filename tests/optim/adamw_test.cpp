#include "shmtrain/optim/adamw.hpp"
#include "shmtrain/train/optimizer_slots.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace shmtrain::optim {
namespace {

model::BertConfig tiny_config() {
  model::BertConfig c;
  c.vocab_size = 11;
  c.hidden_size = 4;
  c.num_hidden_layers = 1;
  c.num_attention_heads = 2;
  c.intermediate_size = 8;
  c.max_position_embeddings = 6;
  return c;
}

TEST(AdamW, ThreeStepsMatchTorchFormulasAndSkipDecayForBiasAndLayerNorm) {
  const model::ParamTable table = model::ParamTable::for_sequence_classification(tiny_config());
  tensor::HeapArenaAllocator heap;
  const AdamWOptions options{0.9f, 0.999f, 1e-8f, 0.1f};
  AdamW adamw(train::optimizer_slots(table), options, heap);
  std::vector<float> p(static_cast<std::size_t>(table.count())), g(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = 0.01f * static_cast<float>(i % 97) - 0.3f;
  std::vector<double> ep(p.begin(), p.end()), em(p.size(), 0), ev(p.size(), 0);
  const float lr = 1e-2f;
  for (int step = 1; step <= 3; ++step) {
    for (std::size_t i = 0; i < g.size(); ++i) g[i] = std::sin(0.37f * static_cast<float>(i) + static_cast<float>(step));
    adamw.step(p, g, lr);
    // torch.optim.AdamW (single-tensor), in double.
    for (const model::ParamEntry& e : table.entries()) {
      for (std::int64_t k = e.offset; k < e.offset + e.size; ++k) {
        if (e.decay) ep[k] *= 1.0 - lr * 0.1;
        em[k] = 0.9 * em[k] + 0.1 * g[k];
        ev[k] = 0.999 * ev[k] + 0.001 * static_cast<double>(g[k]) * g[k];
        const double denom = std::sqrt(ev[k]) / std::sqrt(1 - std::pow(0.999, step)) + 1e-8;
        ep[k] -= lr / (1 - std::pow(0.9, step)) * em[k] / denom;
      }
    }
  }
  EXPECT_EQ(adamw.step_count(), 3);
  std::vector<float> expected(ep.begin(), ep.end());
  // Only entries' floats are updated; alignment gaps stay as they were, in both.
  EXPECT_TRUE(testing::all_close(p, expected, 2e-6, 1e-5));
  EXPECT_FALSE(table.at("classifier.bias").decay);
  EXPECT_FALSE(table.at("bert.encoder.layer.0.attention.output.LayerNorm.weight").decay);
  EXPECT_TRUE(table.at("bert.encoder.layer.0.attention.self.query.weight").decay);
}

// --shard_optimizer: workers that each own a slice (cut anywhere, even inside a parameter)
// together compute exactly the whole optimizer's update.
TEST(AdamW, SlicesOfTheArenaUpdateExactlyAsTheWholeDoes) {
  const model::ParamTable table = model::ParamTable::for_sequence_classification(tiny_config());
  tensor::HeapArenaAllocator heap;
  const AdamWOptions options{0.9f, 0.999f, 1e-8f, 0.1f};
  const std::int64_t padded = table.padded_count(3);
  std::vector<float> whole_p(static_cast<std::size_t>(padded)), g(whole_p.size());
  for (std::size_t i = 0; i < whole_p.size(); ++i) whole_p[i] = 0.02f * static_cast<float>(i % 31) - 0.2f;
  std::vector<float> sliced_p = whole_p;
  AdamW whole(train::optimizer_slots(table), options, heap);
  const std::int64_t slice = padded / 3;
  std::vector<AdamW> parts;
  const std::vector<ParamSlot> slots = train::optimizer_slots(table);
  for (int r = 0; r < 3; ++r) parts.emplace_back(slots, options, heap, r * slice, (r + 1) * slice);
  for (int step = 1; step <= 3; ++step) {
    for (std::size_t i = 0; i < g.size(); ++i) g[i] = std::cos(0.11f * static_cast<float>(i) * static_cast<float>(step));
    whole.step(std::span(whole_p).first(static_cast<std::size_t>(table.count())),
               std::span<const float>(g).first(static_cast<std::size_t>(table.count())), 1e-2f);
    for (AdamW& part : parts) {
      const auto at = static_cast<std::size_t>(part.begin());
      const auto n = static_cast<std::size_t>(part.end() - part.begin());
      part.step(std::span(sliced_p).subspan(at, n), std::span<const float>(g).subspan(at, n), 1e-2f);
    }
  }
  EXPECT_EQ(sliced_p, whole_p);
  for (const AdamW& part : parts) {
    EXPECT_EQ(part.step_count(), 3);
    EXPECT_EQ(static_cast<std::int64_t>(part.exp_avg().size()), slice);
  }
  const float m = whole.exp_avg()[static_cast<std::size_t>(slice + 5)];
  EXPECT_EQ(parts[1].exp_avg()[5], m);
}

// --bf16: the copy written in the update's pass is the updated parameters rounded, and the
// float update is the same as without it.
TEST(AdamW, Bf16CopyIsWrittenInTheSamePass) {
  const model::ParamTable table = model::ParamTable::for_sequence_classification(tiny_config());
  tensor::HeapArenaAllocator heap;
  const AdamWOptions options{0.9f, 0.999f, 1e-8f, 0.1f};
  const auto n = static_cast<std::size_t>(table.count());
  std::vector<float> plain(n), with_copy(n), g(n);
  for (std::size_t i = 0; i < n; ++i) plain[i] = with_copy[i] = 0.03f * static_cast<float>(i % 29) - 0.4f;
  std::vector<tensor::bf16> copy(n);
  const std::vector<ParamSlot> slots = train::optimizer_slots(table);
  AdamW a(slots, options, heap), b(slots, options, heap);
  for (int step = 1; step <= 2; ++step) {
    for (std::size_t i = 0; i < n; ++i) g[i] = std::sin(0.07f * static_cast<float>(i) * static_cast<float>(step));
    a.step(plain, g, 1e-2f);
    b.step(with_copy, g, 1e-2f, copy);
  }
  EXPECT_EQ(with_copy, plain);
  for (const model::ParamEntry& e : table.entries()) {  // the gaps between entries hold no parameter
    for (std::int64_t i = e.offset; i < e.offset + e.size; ++i) {
      ASSERT_EQ(copy[static_cast<std::size_t>(i)].bits,
                tensor::to_bf16(plain[static_cast<std::size_t>(i)]).bits)
          << e.name;
    }
  }
}

// Clipping folded into the update: grad_scale c gives exactly the update on gradients that
// were first multiplied by c, as clip_grad_norm_ does in torch.
TEST(AdamW, GradScaleIsTheUpdateOnScaledGradients) {
  const model::ParamTable table = model::ParamTable::for_sequence_classification(tiny_config());
  tensor::HeapArenaAllocator heap;
  const AdamWOptions options{0.9f, 0.999f, 1e-8f, 0.1f};
  const auto n = static_cast<std::size_t>(table.count());
  std::vector<float> folded(n), scaled_first(n), g(n), g_scaled(n);
  for (std::size_t i = 0; i < n; ++i) folded[i] = scaled_first[i] = 0.02f * static_cast<float>(i % 31) - 0.3f;
  const std::vector<ParamSlot> slots = train::optimizer_slots(table);
  AdamW a(slots, options, heap), b(slots, options, heap);
  const float c = 0.37f;
  for (int step = 1; step <= 2; ++step) {
    for (std::size_t i = 0; i < n; ++i) {
      g[i] = std::cos(0.11f * static_cast<float>(i) + static_cast<float>(step));
      g_scaled[i] = g[i] * c;
    }
    a.step(folded, g, 1e-2f, {}, c);
    b.step(scaled_first, g_scaled, 1e-2f);
  }
  EXPECT_EQ(folded, scaled_first);
  EXPECT_EQ(std::vector<float>(a.exp_avg_sq().begin(), a.exp_avg_sq().end()),
            std::vector<float>(b.exp_avg_sq().begin(), b.exp_avg_sq().end()));
}

}  // namespace
}  // namespace shmtrain::optim

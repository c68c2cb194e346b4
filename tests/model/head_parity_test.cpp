// BertForQuestionAnswering, DistilBertForSequenceClassification, DistilBertForQuestionAnswering,
// RobertaForSequenceClassification, RobertaForQuestionAnswering,
// XLMRobertaForSequenceClassification, the token-classification heads, ModernBERT's, ELECTRA's and
// DeBERTa's heads, BertForMaskedLM and RobertaForMaskedLM (tied decoders, pre-masked rows:
// tools/make_mlm_mc_references.py), BertForMultipleChoice and RobertaForMultipleChoice, and
// DistilBERT's and ModernBERT's MaskedLM and DistilBERT's, ModernBERT's, DeBERTa's and ELECTRA's
// MultipleChoice (tools/make_mlm_mc_family_references.py) (XLM-R's rows are padded with id 1, so RoBERTa's positions count from the ids) against PyTorch: tests/fixtures/reference_heads (tools/make_head_references.py) holds each as
// a tiny HF-format model, 20 batches, and PyTorch's loss, gradient norm, per-parameter
// gradient norms at step 0 and parameter norms after 20 AdamW steps (lr 1e-3, weight decay
// 0.01 except biases and LayerNorm modules, clip 1.0, dropout 0). Also the GradientsFinal
// contract of every model: each call's offset covers gradients that backward no longer changes.
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/optim/adamw.hpp"
#include "shmtrain/train/optimizer_slots.hpp"
#include "shmtrain/optim/clip.hpp"
#include "model/fixture_batches.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  std::string name;
  ModelHead head;
  // Relative tolerance of the parameter norms after 20 steps. Multiple choice's: its whole
  // gradient is ~2e-3 at these weights (the choices score alike), so AdamW moves the parameters
  // whose gradients are ~1e-6 (biases, LayerNorm) by lr per step in the direction of a sum that
  // cancels to rounding noise; their norms then differ from PyTorch's by ~1.5e-5 (of ~2e-2)
  // while every loss, gradient norm and step-0 gradient agrees.
  double final_norm_tolerance = 1e-4;
};

fs::path folder(const Fixture& f) { return testing::fixtures_dir() / "reference_heads" / f.name; }

BertConfig read_config(const Fixture& f) {
  BertConfig config = read_hf_config(folder(f) / "config.json");
  config.head = f.head;
  return config;
}

double entry_norm(std::span<const float> arena, const ParamEntry& e) {
  double sum = 0;
  for (std::int64_t i = e.offset; i < e.offset + e.size; ++i) sum += static_cast<double>(arena[i]) * arena[i];
  return std::sqrt(sum);
}

class HeadParity : public ::testing::TestWithParam<Fixture> {};

// Rows [half * B/2, (half + 1) * B/2) of a batch: what one of two workers trains on.
data::Batch half_of(const data::Batch& b, std::int64_t half) {
  data::Batch out;
  out.batch = b.batch / 2;
  out.seq = b.seq;
  out.choices = b.choices;
  const auto cells = static_cast<std::ptrdiff_t>(out.batch * b.seq);
  const auto first = half * cells;
  out.input_ids.assign(b.input_ids.begin() + first, b.input_ids.begin() + first + cells);
  out.token_type_ids.assign(b.token_type_ids.begin() + first, b.token_type_ids.begin() + first + cells);
  out.attention_mask.assign(b.attention_mask.begin() + first, b.attention_mask.begin() + first + cells);
  const auto rows = [&](const std::vector<std::int32_t>& v) {
    if (v.empty()) return v;
    const std::int64_t n = b.choices > 0 ? out.batch / b.choices : out.batch;  // multiple choice: per example
    return std::vector<std::int32_t>(v.begin() + half * n, v.begin() + (half + 1) * n);
  };
  if (b.labels.size() == b.input_ids.size()) {  // token classification, masked LM: a label per token
    out.labels.assign(b.labels.begin() + first, b.labels.begin() + first + cells);
    // The global batch's mean over labelled tokens: this half's share of them, times 2 workers.
    const auto labelled = [](auto begin, auto end) { return std::count_if(begin, end, [](int l) { return l != -100; }); };
    out.loss_weight = 2.0f * static_cast<float>(labelled(out.labels.begin(), out.labels.end())) /
                      static_cast<float>(labelled(b.labels.begin(), b.labels.end()));
  } else {
    out.labels = rows(b.labels);
  }
  out.start_positions = rows(b.start_positions);
  out.end_positions = rows(b.end_positions);
  return out;
}


void twenty_steps(const Fixture& fixture, int workers) {
  const BertConfig config = read_config(fixture);
  const ParamTable table = ParamTable::for_model(config);
  tensor::HeapArenaAllocator heap;
  auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
  auto grads = heap.allocate(static_cast<std::size_t>(table.count()), "gradients");
  const WeightsLoadReport report =
      load_model_weights(folder(fixture) / "model.safetensors", table, params, config, 0);
  EXPECT_TRUE(report.initialized.empty());
  EXPECT_TRUE(report.unused.empty());

  EncoderModel model(config, table, params, grads);
  optim::AdamW adamw(train::optimizer_slots(table), {0.9f, 0.999f, 1e-8f, 0.01f}, heap);
  const std::vector<data::Batch> batches = testing::read_fixture_batches(folder(fixture), config);
  const nlohmann::json ref = nlohmann::json::parse(testing::read_file(folder(fixture) / "reference.json"));
  ASSERT_EQ(ref.at("step0_grad_norms").size(), table.entries().size());

  double worst_relative = 0.0;
  for (std::size_t step = 0; step < batches.size(); ++step) {
    std::fill(grads.begin(), grads.end(), 0.0f);
    double loss = 0;
    if (workers == 1) {
      loss = model.forward(batches[step], {true, 0, 0, step});
      model.backward();
    } else {
      for (std::int64_t half = 0; half < 2; ++half) {
        const data::Batch rows = half_of(batches[step], half);  // alive until backward: the model keeps it
        loss += 0.5 * model.forward(rows, {true, 0, 0, step});
        model.backward(0.5f);
      }
    }
    if (step == 0) {
      for (const ParamEntry& e : table.entries()) {
        // Gradients are O(1e-3..1); float accumulation orders differ from PyTorch's. A
        // parameter whose exact gradient is 0 (the attention key bias) is only rounding noise.
        const double expected = ref.at("step0_grad_norms").at(e.name);
        EXPECT_NEAR(entry_norm(grads, e), expected, 1e-6 + 1e-3 * expected) << e.name;
      }
    }
    const double norm = optim::global_grad_norm(grads);
    adamw.step(params, grads, 1e-3f, {}, optim::clip_coefficient(norm, 1.0));
    const double expected = ref.at("losses")[step];
    EXPECT_NEAR(loss, expected, 1e-4 * std::abs(expected)) << "step " << step;
    worst_relative = std::max(worst_relative, std::abs(loss - expected) / std::abs(expected));
    const double expected_norm = ref.at("grad_norms_before_clip")[step];
    EXPECT_NEAR(norm, expected_norm, 1e-3 * expected_norm) << "step " << step;
  }
  std::printf("%s, %d worker(s): largest relative loss difference to PyTorch over %zu steps: %.2e\n",
              fixture.name.c_str(), workers, batches.size(), worst_relative);
  for (const ParamEntry& e : table.entries()) {
    // Parameters whose exact gradient is 0 get AdamW steps of up to lr from rounding noise
    // alone, different noise in another summation order: the attention key biases and, as
    // softmax over positions ignores a shift shared by all positions, qa_outputs.bias and
    // the last LayerNorm bias under a QA head. Their step-0 gradient is below 1e-7.
    if (ref.at("step0_grad_norms").at(e.name).get<double>() < 1e-7) continue;
    const double expected = ref.at("final_param_norms").at(e.name);
    EXPECT_NEAR(entry_norm(params, e), expected, 1e-5 + fixture.final_norm_tolerance * expected) << e.name;
  }
}

// One worker, and two (each batch's halves, each worker's loss the mean of its rows, the
// gradients averaged as the all-reduce does): both reproduce PyTorch's 20 steps.
TEST_P(HeadParity, TwentyAdamWStepsReproducePyTorch) {
  for (const int workers : {1, 2}) {
    SCOPED_TRACE(::testing::Message() << workers << " worker(s)");
    twenty_steps(GetParam(), workers);
  }
}

// Backward reports offsets from the end of the arena down to 0, and what it reported final
// does not change afterwards: the overlapped exchange may send those gradients at once.
TEST_P(HeadParity, GradientsFinalOffsetsDecreaseToZeroAndCoverFinishedGradients) {
  const Fixture& fixture = GetParam();
  const BertConfig config = read_config(fixture);
  const ParamTable table = ParamTable::for_model(config);
  tensor::HeapArenaAllocator heap;
  auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
  auto grads = heap.allocate(static_cast<std::size_t>(table.count()), "gradients");
  load_model_weights(folder(fixture) / "model.safetensors", table, params, config, 0);
  EncoderModel model(config, table, params, grads);
  const std::vector<data::Batch> batches = testing::read_fixture_batches(folder(fixture), config);

  std::vector<std::int64_t> offsets;
  std::vector<std::vector<float>> snapshots;
  model.forward(batches[0], {true, 0, 0, 0});
  model.backward(1.0f, [&](std::int64_t offset) {
    offsets.push_back(offset);
    snapshots.emplace_back(grads.begin() + offset, grads.begin() + table.count());
  });
  ASSERT_EQ(offsets.size(),
            static_cast<std::size_t>(config.num_hidden_layers + 2));  // head, layers, embeddings
  EXPECT_EQ(offsets.back(), 0);
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(offsets[i], offsets[i - 1]);
    }
    const std::vector<float> now(grads.begin() + offsets[i], grads.begin() + table.count());
    EXPECT_EQ(snapshots[i], now) << "gradients from offset " << offsets[i]
                                 << " changed after they were final";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, HeadParity,
                         ::testing::Values(Fixture{"bert_qa", ModelHead::kQuestionAnswering},
                                           Fixture{"distilbert_cls", ModelHead::kSequenceClassification},
                                           Fixture{"distilbert_qa", ModelHead::kQuestionAnswering},
                                           Fixture{"roberta_cls", ModelHead::kSequenceClassification},
                                           Fixture{"roberta_qa", ModelHead::kQuestionAnswering},
                                           Fixture{"xlmr_cls", ModelHead::kSequenceClassification},
                                           Fixture{"bert_tok", ModelHead::kTokenClassification},
                                           Fixture{"distilbert_tok", ModelHead::kTokenClassification},
                                           Fixture{"roberta_tok", ModelHead::kTokenClassification},
                                           Fixture{"modernbert_cls", ModelHead::kSequenceClassification},
                                           Fixture{"modernbert_mean", ModelHead::kSequenceClassification},
                                           Fixture{"modernbert_tok", ModelHead::kTokenClassification},
                                           Fixture{"modernbert_qa", ModelHead::kQuestionAnswering},
                                           Fixture{"electra_cls", ModelHead::kSequenceClassification},
                                           Fixture{"electra_tok", ModelHead::kTokenClassification},
                                           Fixture{"deberta_cls", ModelHead::kSequenceClassification},
                                           Fixture{"deberta_c2p", ModelHead::kSequenceClassification},
                                           Fixture{"deberta_tok", ModelHead::kTokenClassification},
                                           Fixture{"deberta_qa", ModelHead::kQuestionAnswering},
                                           Fixture{"bert_mlm", ModelHead::kMaskedLm},
                                           Fixture{"roberta_mlm", ModelHead::kMaskedLm},
                                           Fixture{"bert_mc", ModelHead::kMultipleChoice, 2e-3},
                                           Fixture{"roberta_mc", ModelHead::kMultipleChoice, 2e-3},
                                           Fixture{"distilbert_mlm", ModelHead::kMaskedLm},
                                           Fixture{"modernbert_mlm", ModelHead::kMaskedLm},
                                           // A pre_classifier unit that ReLU passes in all four choices shifts
                                           // every score alike: its bias's gradient is rounding noise, which
                                           // AdamW turns into steps (1.3e-3 of its norm after 20 steps).
                                           Fixture{"distilbert_mc", ModelHead::kMultipleChoice, 5e-3},
                                           Fixture{"modernbert_mc", ModelHead::kMultipleChoice},
                                           Fixture{"deberta_mc", ModelHead::kMultipleChoice},
                                           Fixture{"electra_mc", ModelHead::kMultipleChoice}),
                         [](const ::testing::TestParamInfo<Fixture>& param_info) {
                           return param_info.param.name;
                         });

// DistilBERT has no token types: rows that differ only in token_type_ids give the same loss.
TEST(DistilBert, IgnoresTokenTypes) {
  const Fixture fixture{"distilbert_cls", ModelHead::kSequenceClassification};
  const BertConfig config = read_config(fixture);
  const ParamTable table = ParamTable::for_model(config);
  tensor::HeapArenaAllocator heap;
  auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
  auto grads = heap.allocate(static_cast<std::size_t>(table.count()), "gradients");
  load_model_weights(folder(fixture) / "model.safetensors", table, params, config, 0);
  EncoderModel model(config, table, params, grads);
  data::Batch batch = testing::read_fixture_batches(folder(fixture), config)[0];
  const float with_types = model.forward(batch, {});
  std::fill(batch.token_type_ids.begin(), batch.token_type_ids.end(), 7);
  EXPECT_EQ(model.forward(batch, {}), with_types);
}

}  // namespace
}  // namespace shmtrain::model

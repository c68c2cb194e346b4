#include "trainer_flags.hpp"

#include <algorithm>
#include <array>

namespace shmtrain::cli {
namespace {

bool is_false(std::string_view value) { return value == "false"; }
bool is_true(std::string_view value) { return value == "true"; }
bool is_zero(std::string_view value) {
  return value.find_first_not_of("0.") == std::string_view::npos && !value.empty();
}
bool is_adamw(std::string_view value) {
  return value == "adamw_torch" || value == "adamw_hf" || value == "adamw_torch_fused";
}

constexpr FlagArity kBool = FlagArity::kOptionalBool;
constexpr FlagArity kValue = FlagArity::kValue;

constexpr std::string_view kCpuOnly = "shmtrain trains on the CPU";
constexpr std::string_view kNoBackend =
    "the workers exchange gradients through shared memory, and through MPI between hosts; there is no backend to "
    "choose";
constexpr std::string_view kNothingDownloaded = "shmtrain downloads nothing: it reads the local Hugging Face cache";
constexpr std::string_view kUploadsNothing =
    "shmtrain uploads nothing: push output_dir yourself (huggingface-cli upload NAME OUTPUT_DIR)";
constexpr std::string_view kOwnLogs = "metrics go to output_dir/metrics.jsonl, trainer_state.json and *_results.json";

// Sorted by name for find_trainer_flag's binary search.
constexpr std::array kTrainerFlags = {
    TrainerFlag{"auto_find_batch_size", kBool, is_false, "",
                "--auto_find_batch_size is not implemented: set --per_device_train_batch_size (CPU memory rarely "
                "limits it)"},
    TrainerFlag{"bf16_full_eval", kBool, is_false, "",
                "--bf16_full_eval is not implemented: evaluation runs in the training precision (--bf16 uses bf16 "
                "GEMMs there too)"},
    TrainerFlag{"data_seed", kValue, nullptr, "",
                "--data_seed is not implemented: --seed seeds the shuffling and the initialisation together"},
    TrainerFlag{"dataloader_num_workers", kValue, nullptr,
                "batches are assembled by each worker's own threads, tokenizing runs on every allowed core", ""},
    TrainerFlag{"dataloader_persistent_workers", kBool, nullptr, "there are no data-loader processes", ""},
    TrainerFlag{"dataloader_pin_memory", kBool, nullptr, kCpuOnly, ""},
    TrainerFlag{"dataloader_prefetch_factor", kValue, nullptr, "there are no data-loader processes", ""},
    TrainerFlag{"ddp_backend", kValue, nullptr, kNoBackend, ""},
    TrainerFlag{"ddp_find_unused_parameters", kBool, nullptr,
                "every parameter's gradient lives in the shared arena; none is looked for", ""},
    TrainerFlag{"deepspeed", kValue, nullptr, "",
                "--deepspeed is not used: data parallelism is built in, and --shard_optimizer splits AdamW's state "
                "across the workers as ZeRO stage 1 does"},
    TrainerFlag{"fp16", kBool, is_false, "",
                "--fp16 is not computed on CPUs: use --bf16 (bf16 mixed precision, on CPUs with AVX512-BF16 or "
                "AMX), or neither for fp32"},
    TrainerFlag{"fp16_full_eval", kBool, is_false, "",
                "--fp16_full_eval is not computed on CPUs: evaluation runs in the training precision"},
    TrainerFlag{"fsdp", kValue, nullptr, "",
                "--fsdp is not used: data parallelism is built in, and --shard_optimizer splits AdamW's state "
                "across the workers"},
    TrainerFlag{"full_determinism", kBool, nullptr, "runs are deterministic already: the same seed, the same losses",
                ""},
    TrainerFlag{"gradient_checkpointing", kBool, nullptr,
                "activations are kept for backward, not recomputed; the results are the same", ""},
    TrainerFlag{"half_precision_backend", kValue, nullptr, "--bf16 chooses the precision; there is one backend", ""},
    TrainerFlag{"hub_model_id", kValue, nullptr, kUploadsNothing, ""},
    TrainerFlag{"hub_private_repo", kBool, nullptr, kUploadsNothing, ""},
    TrainerFlag{"hub_strategy", kValue, nullptr, kUploadsNothing, ""},
    TrainerFlag{"hub_token", kValue, nullptr, kUploadsNothing, ""},
    TrainerFlag{"ignore_mismatched_sizes", kBool, is_false, "",
                "--ignore_mismatched_sizes is not implemented: a head of another size is an error naming the "
                "tensor; start from a checkpoint without that head"},
    TrainerFlag{"jit_mode_eval", kBool, nullptr, "the model is compiled C++ already", ""},
    TrainerFlag{"label_smoothing_factor", kValue, is_zero, "",
                "--label_smoothing_factor is not implemented: the loss is plain cross-entropy (0)"},
    TrainerFlag{"local_rank", kValue, nullptr, "shmtrain starts and ranks its own workers", ""},
    TrainerFlag{"log_level", kValue, nullptr, "shmtrain logs one line per logging step, and errors", ""},
    TrainerFlag{"log_level_replica", kValue, nullptr, "only rank 0 logs", ""},
    TrainerFlag{"logging_first_step", kBool, is_false, "",
                "--logging_first_step is not implemented: the first log line is at logging_steps"},
    TrainerFlag{"logging_nan_inf_filter", kBool, nullptr,
                "the logged loss is the mean of the steps' losses as computed; none is filtered out", ""},
    TrainerFlag{"no_cuda", kBool, nullptr,
                "shmtrain trains on the CPU (transformers 5 removed --no_cuda; --use_cpu replaces it)", ""},
    TrainerFlag{"optim", kValue, is_adamw, "",
                "--optim: shmtrain computes AdamW as torch.optim.AdamW only: use --optim adamw_torch (also "
                "adamw_hf, adamw_torch_fused), or leave it out"},
    TrainerFlag{"overwrite_cache", kBool, nullptr, "shmtrain keeps no datasets cache: files are read anew each run",
                ""},
    TrainerFlag{"prediction_loss_only", kBool, is_false, "",
                "--prediction_loss_only is not implemented: evaluation reports the task's metrics and its loss"},
    TrainerFlag{"preprocessing_num_workers", kValue, nullptr, "tokenizing runs on every allowed core already", ""},
    TrainerFlag{"push_to_hub", kBool, is_false, "", kUploadsNothing},
    TrainerFlag{"remove_unused_columns", kBool, nullptr, "each task reads only the columns it needs", ""},
    TrainerFlag{"run_name", kValue, nullptr, kOwnLogs, ""},
    TrainerFlag{"save_on_each_node", kBool, is_false, "",
                "--save_on_each_node is not implemented: rank 0 writes output_dir, on its host"},
    TrainerFlag{"save_safetensors", kBool, is_true, "",
                "--save_safetensors false is not implemented: models and checkpoints are safetensors"},
    TrainerFlag{"skip_memory_metrics", kBool, nullptr, "no memory metrics are collected", ""},
    TrainerFlag{"streaming", kBool, is_false, "", "--streaming is not implemented: splits are read whole"},
    TrainerFlag{"tf32", kBool, nullptr, kCpuOnly, ""},
    TrainerFlag{"token", kValue, nullptr, kNothingDownloaded, ""},
    TrainerFlag{"torch_compile", kBool, nullptr, "the model is compiled C++ already", ""},
    TrainerFlag{"trust_remote_code", kBool, nullptr, "shmtrain runs no code from model folders", ""},
    TrainerFlag{"use_auth_token", kBool, nullptr, kNothingDownloaded, ""},
    TrainerFlag{"use_cpu", kBool, nullptr, kCpuOnly, ""},
    TrainerFlag{"use_fast_tokenizer", kBool, nullptr,
                "the tokenizer is shmtrain's own implementation of the fast (Rust) tokenizers", ""},
    TrainerFlag{"use_ipex", kBool, nullptr,
                "shmtrain's kernels are its own (oneDNN, OpenBLAS); there is no extension to turn on", ""},
    TrainerFlag{"xpu_backend", kValue, nullptr, kNoBackend, ""},
};

constexpr bool sorted_by_name() {
  for (std::size_t i = 1; i < kTrainerFlags.size(); ++i) {
    if (!(kTrainerFlags[i - 1].name < kTrainerFlags[i].name)) return false;
  }
  return true;
}
static_assert(sorted_by_name(), "kTrainerFlags must stay sorted by name");

}  // namespace

std::span<const TrainerFlag> trainer_flags() { return kTrainerFlags; }

const TrainerFlag* find_trainer_flag(std::string_view name) {
  const auto it = std::lower_bound(kTrainerFlags.begin(), kTrainerFlags.end(), name,
                                   [](const TrainerFlag& flag, std::string_view n) { return flag.name < n; });
  return it != kTrainerFlags.end() && it->name == name ? &*it : nullptr;
}

}  // namespace shmtrain::cli

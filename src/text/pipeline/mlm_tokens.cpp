// The tokens run_mlm's masking needs of a tokenizer: its mask token and its special tokens.
#include "pipeline.hpp"

#include <algorithm>

namespace shmtrain::text {

std::int32_t HfTokenizer::mask_id() const {
  for (const char* name : {"[MASK]", "<mask>"}) {
    if (const std::optional<std::int32_t> id = token_id(name)) return *id;
  }
  return -1;
}

std::vector<std::int32_t> HfTokenizer::special_ids() const {
  std::vector<std::int32_t> ids;
  for (const pipeline::AddedToken& t : impl_->added.tokens()) {
    if (t.special) ids.push_back(t.id);
  }
  if (impl_->pad_id >= 0) ids.push_back(impl_->pad_id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace shmtrain::text

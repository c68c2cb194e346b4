#include "transform.hpp"

namespace shmtrain::text::pipeline {

void Transform::replace(char32_t c, int change) {
  const CharSpan span = next_ < old_.size() ? old_.spans[next_] : last_;
  out_.push(c, span);
  last_ = span;
  consumed_ = true;
  next_ += 1 + static_cast<std::size_t>(-change);
}

void Transform::insert(char32_t c) {
  CharSpan span = last_;
  if (!consumed_) span = old_.empty() ? CharSpan{} : old_.spans.front();
  out_.push(c, span);
}

}  // namespace shmtrain::text::pipeline

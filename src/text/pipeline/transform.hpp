#pragma once
// Internal to text/pipeline: rewriting an AlignedText the way tokenizers' NormalizedString::
// transform does, so that offsets come out as Hugging Face's do. The rewrite is a list of
// (character, change) over the old characters, in order:
//   change 0   the character replaces the next old character and takes its span;
//   change -k  it replaces the next old character (taking its span) and k more are dropped;
//   change +k  it is inserted and takes the span of the last old character consumed (the
//              first old character's, when nothing was consumed yet).
// Old characters the list never consumes are dropped.
#include <cstddef>

#include "aligned_text.hpp"

namespace shmtrain::text::pipeline {

class Transform {
 public:
  explicit Transform(const AlignedText& old) : old_(old) {}

  void replace(char32_t c, int change = 0);  // change <= 0
  void insert(char32_t c);                   // change +1
  void keep() { replace(old_.chars[next_]); }
  void drop() { ++next_; }
  std::size_t next() const { return next_; }
  AlignedText finish() { return std::move(out_); }

 private:
  const AlignedText& old_;
  AlignedText out_;
  std::size_t next_ = 0;
  CharSpan last_{};
  bool consumed_ = false;
};

}  // namespace shmtrain::text::pipeline

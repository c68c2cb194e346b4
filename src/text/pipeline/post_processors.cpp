#include "post_processors.hpp"

#include <map>

#include <fmt/format.h>

#include "aligned_text.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::text::pipeline {
namespace {

SequenceTokens join(SequenceTokens a, SequenceTokens* b) {
  if (b != nullptr) a.append(*b);
  return a;
}

void set_types(SequenceTokens& t, std::int32_t type) { t.type_ids.assign(t.size(), type); }

std::pair<std::string, std::int32_t> read_special(const JsonFields& f, const std::string& key) {
  const nlohmann::json& v = f.array(key);
  if (v.size() != 2 || !v[0].is_string() || !v[1].is_number_integer()) {
    f.fail(key, fmt::format("must be [\"token\", id], got {}", v.dump().substr(0, 80)));
  }
  return {v[0].get<std::string>(), v[1].get<std::int32_t>()};
}

class DefaultProcessing final : public PostProcessor {
 public:
  std::size_t added_tokens(bool) const override { return 0; }
  SequenceTokens process(SequenceTokens a, SequenceTokens* b, bool, const TokenNames&) const override { return join(std::move(a), b); }
};

// [CLS] a [SEP] (b [SEP]); types 0 then 1.
class BertProcessing final : public PostProcessor {
 public:
  BertProcessing(std::int32_t cls, std::int32_t sep) : cls_(cls), sep_(sep) {}
  std::size_t added_tokens(bool pair) const override { return pair ? 3 : 2; }
  SequenceTokens process(SequenceTokens a, SequenceTokens* b, bool add_special, const TokenNames& names) const override {
    if (!add_special) return join(std::move(a), b);
    SequenceTokens out;
    out.append_special(cls_, 0, names(cls_));
    set_types(a, 0);
    out.append(a);
    out.append_special(sep_, 0, names(sep_));
    if (b != nullptr) {
      set_types(*b, 1);
      out.append(*b);
      out.append_special(sep_, 1, names(sep_));
    }
    return out;
  }

 private:
  std::int32_t cls_, sep_;
};

// <s> a </s> (</s> b </s>); every type 0.
class RobertaProcessing final : public PostProcessor {
 public:
  RobertaProcessing(std::int32_t cls, std::int32_t sep, bool trim, bool prefix)
      : cls_(cls), sep_(sep), trim_(trim), prefix_(prefix) {}
  std::size_t added_tokens(bool pair) const override { return pair ? 4 : 2; }
  SequenceTokens process(SequenceTokens a, SequenceTokens* b, bool add_special, const TokenNames& names) const override {
    if (trim_) {
      trim_byte_level_offsets(a, prefix_, names);
      if (b != nullptr) trim_byte_level_offsets(*b, prefix_, names);
    }
    set_types(a, 0);
    if (b != nullptr) set_types(*b, 0);
    if (!add_special) return join(std::move(a), b);
    SequenceTokens out;
    out.append_special(cls_, 0, names(cls_));
    out.append(a);
    out.append_special(sep_, 0, names(sep_));
    if (b != nullptr) {
      out.append_special(sep_, 0, names(sep_));
      set_types(*b, 0);
      out.append(*b);
      out.append_special(sep_, 0, names(sep_));
    }
    return out;
  }

 private:
  std::int32_t cls_, sep_;
  bool trim_, prefix_;
};

class ByteLevelProcessing final : public PostProcessor {
 public:
  ByteLevelProcessing(bool trim, bool prefix) : trim_(trim), prefix_(prefix) {}
  std::size_t added_tokens(bool) const override { return 0; }
  SequenceTokens process(SequenceTokens a, SequenceTokens* b, bool, const TokenNames& names) const override {
    if (trim_) {
      trim_byte_level_offsets(a, prefix_, names);
      if (b != nullptr) trim_byte_level_offsets(*b, prefix_, names);
    }
    return join(std::move(a), b);
  }

 private:
  bool trim_, prefix_;
};

// "$A:0 [SEP]:1": pieces that are a sequence or a special token (whose ids may be several).
class TemplateProcessing final : public PostProcessor {
 public:
  explicit TemplateProcessing(const JsonFields& f) {
    std::map<std::string, std::vector<std::int32_t>> specials;
    if (f.has("special_tokens")) {
      const JsonFields s = f.child("special_tokens");
      for (const auto& [name, value] : s.json().items()) {
        const JsonFields t(value, s.key_path(name), f.file());
        const nlohmann::json& ids = t.array("ids");
        std::vector<std::int32_t> list;
        for (const auto& id : ids) {
          if (!id.is_number_integer() || id.get<std::int64_t>() < 0) t.fail("ids", "must be non-negative integers");
          list.push_back(id.get<std::int32_t>());
        }
        specials[name] = list;
      }
    }
    single_ = read_template(f, "single", specials);
    pair_ = read_template(f, "pair", specials);
  }

  std::size_t added_tokens(bool pair) const override {
    std::size_t n = 0;
    for (const Piece& p : pair ? pair_ : single_) n += p.ids.size();
    return n;
  }

  SequenceTokens process(SequenceTokens a, SequenceTokens* b, bool add_special, const TokenNames& names) const override {
    if (!add_special) {  // the sequences still take the template's token types
      for (const Piece& p : b != nullptr ? pair_ : single_) {
        if (p.sequence == 0) set_types(a, p.type_id);
        if (p.sequence == 1 && b != nullptr) set_types(*b, p.type_id);
      }
      return join(std::move(a), b);
    }
    SequenceTokens out;
    for (const Piece& p : b != nullptr ? pair_ : single_) {
      if (p.sequence < 0) {
        for (const std::int32_t id : p.ids) out.append_special(id, p.type_id, names(id));
        continue;
      }
      SequenceTokens& s = p.sequence == 0 ? a : *b;
      set_types(s, p.type_id);
      out.append(s);
    }
    return out;
  }

 private:
  struct Piece {
    int sequence = -1;  // 0 = $A, 1 = $B, -1 = special token
    std::vector<std::int32_t> ids;
    std::int32_t type_id = 0;
  };

  static std::vector<Piece> read_template(const JsonFields& f, const std::string& key,
                                          const std::map<std::string, std::vector<std::int32_t>>& specials) {
    std::vector<Piece> out;
    if (!f.has(key)) return out;
    const nlohmann::json& list = f.array(key);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const JsonFields item = f.element(list[i], key, i);
      Piece p;
      if (item.has("Sequence")) {
        const JsonFields s = item.child("Sequence");
        const std::string id = s.string("id");
        if (id != "A" && id != "B") s.fail("id", fmt::format("must be A or B, got '{}'", id));
        p.sequence = id == "A" ? 0 : 1;
        p.type_id = static_cast<std::int32_t>(s.optional_integer("type_id").value_or(0));
      } else if (item.has("SpecialToken")) {
        const JsonFields s = item.child("SpecialToken");
        const std::string id = s.string("id");
        const auto it = specials.find(id);
        if (it == specials.end()) s.fail("id", fmt::format("'{}' is not among special_tokens", id));
        p.ids = it->second;
        p.type_id = static_cast<std::int32_t>(s.optional_integer("type_id").value_or(0));
      } else {
        item.fail_here("must be {\"Sequence\": ...} or {\"SpecialToken\": ...}");
      }
      out.push_back(std::move(p));
    }
    return out;
  }

  std::vector<Piece> single_, pair_;
};

class SequenceProcessing final : public PostProcessor {
 public:
  explicit SequenceProcessing(const JsonFields& f) {
    const nlohmann::json& list = f.array("processors");
    for (std::size_t i = 0; i < list.size(); ++i) steps_.push_back(read_post_processor(f.element(list[i], "processors", i)));
  }
  std::size_t added_tokens(bool pair) const override {
    std::size_t n = 0;
    for (const auto& s : steps_) n += s->added_tokens(pair);
    return n;
  }
  SequenceTokens process(SequenceTokens a, SequenceTokens* b, bool add_special, const TokenNames& names) const override {
    // Each step but the last works on the sequences apart (offset rules); the last joins them.
    for (std::size_t i = 0; i + 1 < steps_.size(); ++i) {
      a = steps_[i]->process(std::move(a), nullptr, add_special, names);
      if (b != nullptr) *b = steps_[i]->process(std::move(*b), nullptr, add_special, names);
    }
    if (steps_.empty()) return join(std::move(a), b);
    return steps_.back()->process(std::move(a), b, add_special, names);
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> steps_;
};

}  // namespace

void trim_byte_level_offsets(SequenceTokens& tokens, bool add_prefix_space, const TokenNames& names) {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    // Leading and trailing 'Ġ' (the byte-level space) or whitespace, counted from each end:
    // an all-space token counts for both.
    // The token's own string: an added token's includes the whitespace lstrip/rstrip took.
    const std::string& text = i < tokens.tokens.size() && !tokens.tokens[i].empty() ? tokens.tokens[i] : names(tokens.ids[i]);
    const AlignedText token = aligned_from_utf8(text);
    const auto space = [](char32_t c) { return c == U'\u0120' || is_unicode_whitespace(c); };
    std::uint32_t leading = 0;
    while (leading < token.size() && space(token.chars[leading])) ++leading;
    std::uint32_t trailing = 0;
    while (trailing < token.size() && space(token.chars[token.size() - 1 - trailing])) ++trailing;
    CharSpan& span = tokens.offsets[i];
    if (leading > 0) {
      const bool first = i == 0 || span.begin == 0;
      if (first && add_prefix_space && leading == 1) leading = 0;
      span.begin = std::min(span.begin + leading, span.end);
    }
    if (trailing > 0 && span.end >= trailing) span.end = std::max(span.end - trailing, span.begin);
  }
}

std::unique_ptr<PostProcessor> default_post_processor() { return std::make_unique<DefaultProcessing>(); }

std::unique_ptr<PostProcessor> roberta_post_processor(std::int32_t cls_id, std::int32_t sep_id, bool trim_offsets,
                                                      bool add_prefix_space) {
  return std::make_unique<RobertaProcessing>(cls_id, sep_id, trim_offsets, add_prefix_space);
}

std::unique_ptr<PostProcessor> read_post_processor(const JsonFields& f) {
  const std::string type = f.string("type");
  if (type == "BertProcessing") return std::make_unique<BertProcessing>(read_special(f, "cls").second, read_special(f, "sep").second);
  if (type == "RobertaProcessing") {
    return std::make_unique<RobertaProcessing>(read_special(f, "cls").second, read_special(f, "sep").second,
                                               f.boolean_or("trim_offsets", true), f.boolean_or("add_prefix_space", true));
  }
  if (type == "TemplateProcessing") return std::make_unique<TemplateProcessing>(f);
  if (type == "ByteLevel") return std::make_unique<ByteLevelProcessing>(f.boolean_or("trim_offsets", true), f.boolean_or("add_prefix_space", true));
  if (type == "Sequence") return std::make_unique<SequenceProcessing>(f);
  f.fail("type", fmt::format("unknown post-processor '{}'; shmtrain reads BertProcessing, RobertaProcessing, "
                             "TemplateProcessing, ByteLevel and Sequence",
                             type));
}

}  // namespace shmtrain::text::pipeline

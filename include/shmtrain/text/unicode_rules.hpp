#pragma once
// The character classes of BERT's text normalisation, as Hugging Face defines them:
// transformers' tokenization_utils.py (_is_whitespace, _is_control, _is_punctuation) and
// tokenization_bert.py (_is_chinese_char), and their Rust twins in tokenizers'
// normalizers/bert.rs and pre_tokenizers/bert.rs (BertTokenizerFast). Where the two differ
// we follow BertTokenizerFast, the class AutoTokenizer (and so run_glue.py) loads; each
// difference is noted at the function. Categories come from utf8proc (Unicode 15).
namespace shmtrain::text {

// Whitespace: \t \n \r, the Unicode White_Space characters (space separators Zs such as
// U+00A0 and U+3000, U+2028, U+2029, and \v \f U+0085). \v \f U+0085 are also controls, so
// with clean_text on they are dropped before this test matters. Python's str.split() in
// the slow tokenizer splits on the same set.
bool is_bert_whitespace(char32_t cp);

// Control characters removed by clean_text: every category C* (Cc, Cf such as U+200B zero
// width space and U+00AD soft hyphen, Co private use, Cn unassigned, Cs), except \t \n \r,
// which count as whitespace. Both tokenizers test the whole C* family.
bool is_bert_control(char32_t cp);

// Punctuation: the ASCII symbol ranges 33-47, 58-64, 91-96, 123-126 (so $ + < = > ^ ` | ~
// split although Unicode files them as symbols) and every Unicode P* category (« » — ¿ …).
// Non-ASCII symbols (€ © °) are not punctuation and stay inside words.
bool is_bert_punctuation(char32_t cp);

// CJK ideographs, written as one-character words. The ranges of tokenizers' bert.rs; the
// Python BasicTokenizer starts CJK Extension E at U+2B820 where the Rust one starts at
// U+2B920, so U+2B820..U+2B91F are split only by the slow tokenizer.
bool is_cjk_ideograph(char32_t cp);

// Category Mn (non-spacing mark): what accent stripping removes after NFD.
bool is_nonspacing_mark(char32_t cp);

// Canonical combining class (0 for starters), for NFD's canonical ordering.
int combining_class(char32_t cp);

// Full lower-case mapping of one code point, as Rust's char::to_lowercase (BertNormalizer
// lower-cases character by character): the simple mapping, except U+0130 (İ), which maps to
// "i" + U+0307. Writes 1 or 2 code points to `out` and returns the count. No final-sigma
// rule: Σ always becomes σ (Python's str.lower() in the slow tokenizer writes ς at word end).
int to_lower_full(char32_t cp, char32_t out[2]);

// Canonical decomposition (NFD) of one code point, Hangul syllables included, without the
// canonical reordering across characters (the caller does that). Writes up to 4 code points
// to `out` (the longest canonical decomposition in Unicode 15 has 4) and returns the count.
int decompose_canonical(char32_t cp, char32_t out[4]);

}  // namespace shmtrain::text

#!/usr/bin/env python3
"""Reference fixtures for DeBERTa-v3's slow tokenizer (transformers' DebertaV2Tokenizer).

Usage: /usr/bin/python3 make_deberta_cases.py [WORK_DIR]        (default /tmp/tokref_deberta)

Needs Debian's python3-sentencepiece only (transformers is not used: its slow tokenizer is ported
below as plain functions). Deterministic: two runs give byte-identical files. Writes:

  tests/fixtures/tokenizers/deberta_spm/spm.model              SentencePiece Unigram, 768 pieces,
      nmt_nfkc, laid out as microsoft/deberta-v3-base's spm.model: 0 [PAD], 1 [CLS] (bos),
      2 [SEP] (eos), 3 [UNK] (unk); no [MASK] piece (the tokenizer adds it as id len(spm))
  tests/fixtures/tokenizers/deberta_spm/tokenizer_config.json  {"do_lower_case": false, "vocab_type": "spm"},
      as deberta-v3-base's (no tokenizer.json, no special_tokens_map.json)
  tests/fixtures/tokenizers/deberta_cases.json                  what DebertaV2Tokenizer gives for the inputs below

The training text is corpus.py's, Latin-script lines only (English, French, German, Spanish), so
emoji, CJK, Cyrillic, Greek and Devanagari are unknown to the model.

The port follows transformers 4.57 (main at a59124e27ea9b5a3110495b2c6737c087c8e3bb0,
__version__ "4.57.0.dev0", the last line that has the slow DebertaV2Tokenizer; v5 removed it):
  - models/deberta_v2/tokenization_deberta_v2.py: DebertaV2Tokenizer, SPMTokenizer;
  - tokenization_utils.py: PreTrainedTokenizer.__init__/_add_tokens (special tokens missing from the
    vocabulary get ids from len(vocab) on), tokenize (lower-casing outside special tokens, Trie split on
    added tokens, lstrip/rstrip/single_word handling), convert_tokens_to_ids, _encode_plus;
  - tokenization_utils_base.py: prepare_for_model, truncate_sequences (truncation_side "right", stride 0).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "tokenizers")
MODEL_DIR = os.path.join(FIXTURES, "deberta_spm")
CASES_FILE = os.path.join(FIXTURES, "deberta_cases.json")

TRANSFORMERS_VERSION = "4.57 (main at a59124e27ea9b5a3110495b2c6737c087c8e3bb0, __version__ 4.57.0.dev0)"
TOKENIZER_CONFIG = {"do_lower_case": False, "vocab_type": "spm"}  # microsoft/deberta-v3-base's


# --------------------------------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------------------------------

def train(work):
    """Writes the corpus (corpus.py), keeps its Latin-script lines and trains the model into
    MODEL_DIR/spm.model."""
    subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), work], check=True)
    latin = os.path.join(work, "corpus_deberta.txt")
    with open(os.path.join(work, "corpus_multi.txt"), encoding="utf-8") as f, \
            open(latin, "w", encoding="utf-8") as g:
        for line in f:
            if all(ord(c) < 0x250 for c in line):
                g.write(line)
    # relative names: the trainer spec stored in the .model records them, so the bytes do not
    # depend on WORK_DIR
    cwd = os.getcwd()
    os.chdir(work)
    try:
        spm.SentencePieceTrainer.train(
            input="corpus_deberta.txt", model_prefix="deberta_spm", model_type="unigram",
            # the Latin-script text allows at most 776 pieces
            vocab_size=768,
            pad_id=0, bos_id=1, eos_id=2, unk_id=3,
            pad_piece="[PAD]", bos_piece="[CLS]", eos_piece="[SEP]", unk_piece="[UNK]",
            normalization_rule_name="nmt_nfkc",
            # determinism: one thread, every sentence, no shuffling
            num_threads=1, shuffle_input_sentence=False, input_sentence_size=0,
            seed_sentencepiece_size=100000, minloglevel=2)
    finally:
        os.chdir(cwd)
    os.makedirs(MODEL_DIR, exist_ok=True)
    shutil.copyfile(os.path.join(work, "deberta_spm.model"), os.path.join(MODEL_DIR, "spm.model"))
    with open(os.path.join(MODEL_DIR, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(TOKENIZER_CONFIG, f)
        f.write("\n")


# --------------------------------------------------------------------------------------------------
# The port of DebertaV2Tokenizer (slow) and of what PreTrainedTokenizer does around it
# --------------------------------------------------------------------------------------------------

def is_punctuation(ch):
    """tokenization_deberta_v2._is_punctuation: ASCII non-alphanumerics 33-47, 58-64, 91-96,
    123-126, and every Unicode category P*."""
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def run_split_on_punc(text):
    """SPMTokenizer._run_split_on_punc: every punctuation character is a word of its own; the runs
    between them (whitespace included, not split) are words."""
    output = []
    start_new_word = True
    for ch in text:
        if is_punctuation(ch):
            output.append([ch])
            start_new_word = True
        else:
            if start_new_word:
                output.append([])
            start_new_word = False
            output[-1].append(ch)
    return ["".join(x) for x in output]


def trie_split(text, words):
    """tokenization_utils.Trie.split: cuts text around the added tokens (longest match first)."""
    data = {}
    for w in words:
        if not w:
            continue
        ref = data
        for c in w:
            ref = ref.setdefault(c, {})
        ref[""] = 1
    states = {}
    offsets = [0]
    skip = 0
    for current, current_char in enumerate(text):
        if skip and current < skip:
            continue
        to_remove = set()
        reset = False
        for start, trie_pointer in states.items():
            if "" in trie_pointer:
                # a complete match: look ahead for a longer one, also from earlier partial starts
                for lookstart, looktrie_pointer in states.items():
                    if lookstart > start:
                        break
                    elif lookstart < start:
                        lookahead_index = current + 1
                        end = current + 1
                    else:
                        lookahead_index = current
                        end = current
                    next_char = text[lookahead_index] if lookahead_index < len(text) else None
                    if "" in looktrie_pointer:
                        start = lookstart
                        end = lookahead_index
                        skip = lookahead_index
                    while next_char is not None and next_char in looktrie_pointer:
                        looktrie_pointer = looktrie_pointer[next_char]
                        lookahead_index += 1
                        if "" in looktrie_pointer:
                            start = lookstart
                            end = lookahead_index
                            skip = lookahead_index
                        if lookahead_index == len(text):
                            break
                        next_char = text[lookahead_index]
                offsets.append(start)
                offsets.append(end)
                reset = True
                break
            elif current_char in trie_pointer:
                states[start] = trie_pointer[current_char]
            else:
                to_remove.add(start)
        if reset:
            states = {}
        else:
            for start in to_remove:
                del states[start]
        if current >= skip and current_char in data:
            states[current] = data[current_char]
    for start, trie_pointer in states.items():
        if "" in trie_pointer:
            offsets.append(start)
            offsets.append(len(text))
            break
    # Trie.cut_text
    offsets.append(len(text))
    pieces = []
    start = 0
    for end in offsets:
        if start >= end:
            continue
        pieces.append(text[start:end])
        start = end
    return pieces


class AddedTok:
    """The flags of an AddedToken that PreTrainedTokenizer.tokenize reads."""

    def __init__(self, content, special, normalized, lstrip=False, rstrip=False, single_word=False):
        self.content, self.special, self.normalized = content, special, normalized
        self.lstrip, self.rstrip, self.single_word = lstrip, rstrip, single_word


class DebertaV2Slow:
    """DebertaV2Tokenizer(vocab_file, **tokenizer_config) as transformers 4.57 builds it."""

    def __init__(self, model_file, do_lower_case=False, split_by_punct=False, **_ignored):
        self.sp = spm.SentencePieceProcessor(model_file=model_file)
        self.do_lower_case = do_lower_case
        self.split_by_punct = split_by_punct
        n = self.sp.get_piece_size()
        # SPMTokenizer.vocab: piece -> id of every spm piece (control and unknown pieces included)
        self.vocab = {self.sp.id_to_piece(i): i for i in range(n)}
        # The special tokens in SPECIAL_TOKENS_ATTRIBUTES order (bos, eos, unk, sep, pad, cls, mask),
        # duplicates dropped: all_special_tokens. DebertaV2Tokenizer passes unk_token as
        # AddedToken(normalized=True, special=True); the others are strings, which _add_tokens turns
        # into AddedToken(lstrip=False, rstrip=False, normalized=False, special=True).
        specials = [("[CLS]", False), ("[SEP]", False), ("[UNK]", True), ("[PAD]", False), ("[MASK]", False)]
        self.all_special_tokens = [s for s, _ in specials]
        # PreTrainedTokenizer.__init__ -> _add_tokens(all_special_tokens_extended, special_tokens=True):
        # a token already in the vocabulary keeps its id; the others get len(get_vocab()) + k.
        self.added = {}          # content -> id   (_added_tokens_encoder)
        self.added_flags = {}    # content -> AddedTok
        new_idx = len(self.vocab)
        count = 0
        for content, normalized in specials:
            if content in self.vocab:
                idx = self.vocab[content]
            else:
                idx = new_idx + count
                count += 1
            self.added[content] = idx
            self.added_flags[content] = AddedTok(content, special=True, normalized=normalized)
        self.cls_id = self.added["[CLS]"]
        self.sep_id = self.added["[SEP]"]
        self.mask_id = self.added["[MASK]"]

    # SPMTokenizer._encode_as_pieces / tokenize
    def spm_pieces(self, text):
        if self.split_by_punct:
            out = []
            for w in run_split_on_punc(text):
                out.extend(self.sp.encode(w, out_type=str))
            return out
        return self.sp.encode(text, out_type=str)

    # DebertaV2Tokenizer._tokenize
    def _tokenize(self, text):
        if self.do_lower_case:
            text = text.lower()
        return self.spm_pieces(text)

    # PreTrainedTokenizer.tokenize (split_special_tokens False, prepare_for_tokenization a no-op)
    def tokenize(self, text):
        if self.do_lower_case:
            # lower-case everything but the special tokens (and non-special normalized added tokens:
            # none here), one character at a time: `(.+?)` matches single characters, and `.` does
            # not match "\n"
            escaped = [re.escape(s) for s in self.all_special_tokens]
            pattern = r"(" + r"|".join(escaped) + r")|" + r"(.+?)"
            text = re.sub(pattern, lambda m: m.groups()[0] or m.groups()[1].lower(), text)
        tokens = trie_split(text, list(self.added))
        for i, token in enumerate(tokens):
            if token in self.added:
                tok = self.added_flags[token]
                left = tokens[i - 1] if i > 0 else None
                right = tokens[i + 1] if i < len(tokens) - 1 else None
                if tok.rstrip and right:
                    tokens[i + 1] = right.lstrip()
                if tok.lstrip and left:
                    tokens[i - 1] = left.rstrip()
                if tok.single_word and left and left[-1] != " ":
                    tokens[i - 1] += token
                    tokens[i] = ""
                elif tok.single_word and right and right[0] != " ":
                    tokens[i + 1] = token + tokens[i + 1]
                    tokens[i] = ""
        out = []
        for token in tokens:
            if not token:
                continue
            if token in self.added:
                out.append(token)
            else:
                out.extend(self._tokenize(token))
        return out

    # PreTrainedTokenizer._convert_token_to_id_with_added_voc -> DebertaV2Tokenizer._convert_token_to_id
    def token_to_id(self, token):
        if token in self.added:
            return self.added[token]
        return self.sp.piece_to_id(token)

    def encode(self, text, text_pair=None, max_length=None, truncation=None):
        """tokenizer(text, text_pair, truncation=..., max_length=...) with add_special_tokens=True,
        no padding, stride 0, truncation_side "right". Returns (tokens, input_ids, token_type_ids,
        truncation_error) where tokens are tokenize()'s strings (the spm pieces as encoded, so an
        unknown piece keeps its text) with the special tokens added, cut as the ids are."""
        toks_a = self.tokenize(text)
        ids_a = [self.token_to_id(t) for t in toks_a]
        toks_b = ids_b = None
        if text_pair is not None:
            toks_b = self.tokenize(text_pair)
            ids_b = [self.token_to_id(t) for t in toks_b]
        ka, kb, error = len(ids_a), (len(ids_b) if ids_b is not None else None), False
        if truncation is not None and max_length:
            ka, kb, error = truncate_lengths(len(ids_a), len(ids_b) if ids_b is not None else None,
                                             max_length, truncation)
        toks_a, ids_a = toks_a[:ka], ids_a[:ka]
        # build_inputs_with_special_tokens / create_token_type_ids_from_sequences
        tokens = ["[CLS]"] + toks_a + ["[SEP]"]
        input_ids = [self.cls_id] + ids_a + [self.sep_id]
        type_ids = [0] * len(input_ids)
        if ids_b is not None:
            toks_b, ids_b = toks_b[:kb], ids_b[:kb]
            tokens += toks_b + ["[SEP]"]
            input_ids += ids_b + [self.sep_id]
            type_ids += [1] * (len(ids_b) + 1)
        return tokens, input_ids, type_ids, error


def truncate_lengths(len_a, len_b, max_length, strategy):
    """prepare_for_model + truncate_sequences (truncation_side "right", stride 0): the lengths the
    two sequences are cut to, and whether transformers gave up (it logs an error and leaves both
    sequences whole)."""
    pair = len_b is not None
    total = len_a + (len_b or 0) + (3 if pair else 2)  # num_special_tokens_to_add
    if total <= max_length:
        return len_a, len_b, False
    remove = total - max_length
    if strategy == "only_first" or (strategy == "longest_first" and not pair):
        if len_a > remove:
            return len_a - remove, len_b, False
        return len_a, len_b, True
    if strategy == "longest_first":
        first_remove = min(abs(len_b - len_a), remove)
        second_remove = remove - first_remove
        if len_a > len_b:
            a_move = first_remove + second_remove // 2
            b_move = second_remove - second_remove // 2
        else:
            a_move = second_remove // 2
            b_move = first_remove + second_remove - second_remove // 2
        # ids[:-k] with k >= len gives []
        return max(len_a - a_move, 0), max(len_b - b_move, 0), False
    if strategy == "only_second":
        if not pair:
            return len_a, len_b, False  # truncate_sequences has no branch for it: nothing is cut
        if len_b > remove:
            return len_a, len_b - remove, False
        return len_a, len_b, True
    raise ValueError(strategy)


# --------------------------------------------------------------------------------------------------
# The inputs
# --------------------------------------------------------------------------------------------------

SINGLE = [
    # ordinary English
    "The quick brown fox jumps over the lazy dog.",
    "I don't think they'll arrive before noon, but we've waited long enough.",
    "Machine learning models need a lot of data to generalize well.",
    "John Smith lives in New York and works for a bank.",
    "The teacher reads an interesting book every morning.",
    "In 2023, the company hired 1,250 new employees and opened 14 offices.",
    "Researchers trained the model for 10 epochs with a learning rate of 0.0001.",
    "hello",
    "a",
    # casing
    "HELLO World, this Is MiXeD CaSe.",
    "THE TEAM READS THE FINAL REPORT",
    "Paris PARIS paris pArIs",
    "ÉCOLE Élève ÜBUNG Straße STRASSE",
    # punctuation runs and words glued to punctuation
    "don't",
    "U.S.A.",
    "e-mail",
    "(hello)",
    "...",
    "#hashtag",
    "Wait... what?!",
    "state-of-the-art",
    "Email us at support@example.com or visit https://example.com/help?x=1&y=2.",
    "The price was $45.99 (including taxes).",
    "hello,world;foo:bar",
    "!!!???",
    "\"Quoted,\" she said -- twice.",
    "C++ and C# are languages; so is F*.",
    "it's 10% off!!! [really]",
    "¿Dónde está la estación? ¡Está lejos!",
    "«guillemets» and “curly quotes” and ‘single’",
    "under_score and back\\slash and a|b and ~tilde^caret`",
    # whitespace
    "  leading spaces",
    "trailing spaces   ",
    "multiple   spaces   between   words",
    "tab\tseparated\tvalues",
    "new\nline and\r\nwindows line",
    "\t indented\n\n",
    "",
    " ",
    "   \t\n  ",
    "a\u00a0b (no-break space)",
    "ideographic\u3000space",
    # accents and NFKC
    "Crème brûlée à l'hôpital",
    "Größe der Straße überrascht mich.",
    "El niño comió una manzana en la montaña.",
    "cafe\u0301 vs caf\u00e9",
    "\ufb01ne \ufb02ower of\ufb03ce",
    "\uff26\uff55\uff4c\uff4c\uff0d\uff57\uff49\uff44\uff54\uff48 \uff21\uff22\uff23\uff11\uff12\uff13",
    "\u2460 \u2461 \u2462 step",
    "\u00bd cup, 25\u2103, 3\u338f",
    "\u212b vs \u00c5",
    "x\u00b2 + y\u00b3",
    "Wait\u2026 what\u2026",
    # unknown characters
    "I love pizza \U0001f355 and coffee \u2615!",
    "\U0001f600\U0001f600\U0001f600",
    "emoji\U0001f44dglued",
    "a\U0001f600b\U0001f600c",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8",
    "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440!",
    "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e",
    "mixed \u65e5\u672c and \u041f\u0440\u0438\u0432\u0435\u0442 text",
    "Greek \u039f\u0394\u039f\u03a3 \u03bf\u03b4\u03bf\u03c2",
    "\u0130stanbul \u1e9e",
    "\u0645\u0631\u062d\u0628\u0627 world",
    # the special tokens written in the text
    "Paris is the [MASK] of France.",
    "x[MASK]y",
    "[MASK]",
    "[MASK][MASK]",
    " [MASK] ",
    "The  [MASK]  sat on the mat.",
    "The cat [MASK].",
    "[CLS] hello [SEP]",
    "[CLS]x[SEP]",
    "[MASK] and [UNK] and [PAD]",
    "[[MASK]]",
    "THE [MASK] IS HERE",
    "[mask] is lower case",
    "[Mask] is mixed case",
    "hello[MASK].world",
    "[SEP][SEP]",
    "[MASK",
    # numbers
    "12345678 and 3.14159 and 1,000,000",
    "Call 555-0100 at 7:30pm on 2024-01-15.",
]

PAIRS = [
    ("How do I learn Python quickly?", "What is the fastest way to learn Python?"),
    ("What is the capital of France?", "Which city is the capital of France?"),
    ("Why do cats purr?", "How can I lose weight fast?"),
    ("The company hired 1,250 new employees in 2023.",
     "In 2023, 1,250 people were hired by the company."),
    ("He said the meeting was moved to Thursday.", "The meeting wasn't moved; it's still on Tuesday."),
    ("", "empty first"),
    ("empty second", ""),
    ("", ""),
    ("Paris is the [MASK] of France.", "It's the capital."),
    ("Hello \U0001f600", "\u041f\u0440\u0438\u0432\u0435\u0442 \u65e5\u672c"),
    ("Don't STOP!", "U.S.A. e-mail (hello)"),
    ("  spaces  ", "\ttabs\n"),
    ("[CLS]", "[SEP]"),
    ("\ufb01ne \u2460", "\uff26\uff55\uff4c\uff4c"),
]

LONG_A = ("Machine learning models need a lot of data to generalize well, and researchers "
          "trained the model for ten epochs before they finally wrote the report.")
LONG_B = "The old bridge was rebuilt in 1998 after the flood destroyed the village."
SHORT = "Who wrote it?"

TRUNC_SINGLE = [LONG_A, "Paris is the [MASK] of France, and Berlin is the [MASK] of Germany."]
TRUNC_PAIRS = [(LONG_A, LONG_B), (LONG_A, SHORT), (SHORT, LONG_B), (LONG_B, LONG_B)]
MAX_LENGTHS = [8, 16, 32]
# only_first / only_second: the side that is cut is long, the other short enough to fit
ONLY_FIRST_PAIRS = [(LONG_A, SHORT), (LONG_B, SHORT)]
ONLY_SECOND_PAIRS = [(SHORT, LONG_A), (SHORT, LONG_B)]
ONLY_MAX_LENGTHS = [12, 16, 32]


def build_cases(toks):
    cases = []

    def add(config, text, pair=None, max_length=None, truncation=None):
        tokens, ids, types, error = toks[config].encode(text, pair, max_length, truncation)
        case = {"config": config, "text": text, "text_pair": pair, "max_length": max_length,
                "truncation": truncation, "tokens": tokens, "input_ids": ids, "token_type_ids": types}
        if error:
            case["truncation_error"] = True
        cases.append(case)

    for config in toks:
        for text in SINGLE:
            add(config, text)
        for a, b in PAIRS:
            add(config, a, b)
        for text in TRUNC_SINGLE:
            for m in MAX_LENGTHS:
                add(config, text, None, m, "longest_first")
        for a, b in TRUNC_PAIRS:
            for m in MAX_LENGTHS:
                add(config, a, b, m, "longest_first")
        for a, b in ONLY_FIRST_PAIRS:
            for m in ONLY_MAX_LENGTHS:
                add(config, a, b, m, "only_first")
        for a, b in ONLY_SECOND_PAIRS:
            for m in ONLY_MAX_LENGTHS:
                add(config, a, b, m, "only_second")
        # edge cases: within the limit; max_length below the special tokens; only_second on a
        # single text (transformers cuts nothing); only_first/only_second when the side to cut is
        # too short (transformers logs an error and cuts nothing)
        add(config, SHORT, LONG_B, 16, "only_first")
        add(config, LONG_A, SHORT, 16, "only_second")
        add(config, LONG_A, LONG_B, 32, "only_first")
        add(config, SHORT, None, 64, "longest_first")
        add(config, SHORT, None, 2, "longest_first")
        add(config, SHORT, None, 3, "longest_first")
        add(config, LONG_A, None, 8, "only_first")
        add(config, LONG_A, None, 8, "only_second")
        add(config, LONG_A, LONG_B, 3, "longest_first")
        add(config, LONG_A, LONG_B, 4, "longest_first")
        add(config, "", LONG_B, 8, "longest_first")
    return cases


# --------------------------------------------------------------------------------------------------

def check(tok):
    """Sanity checks of the port against sentencepiece itself."""
    sp = tok.sp
    n = sp.get_piece_size()
    assert [sp.id_to_piece(i) for i in range(4)] == ["[PAD]", "[CLS]", "[SEP]", "[UNK]"], "layout"
    assert sp.pad_id() == 0 and sp.bos_id() == 1 and sp.eos_id() == 2 and sp.unk_id() == 3
    assert sp.is_control(0) and sp.is_control(1) and sp.is_control(2) and sp.is_unknown(3)
    assert "[MASK]" not in tok.vocab and tok.mask_id == n
    # without special tokens in the text and without split_by_punct / lower case, the port's ids are
    # sentencepiece's own
    for text in SINGLE:
        if "[" in text:
            continue
        assert [tok.token_to_id(t) for t in tok.tokenize(text)] == sp.encode(text), text
    # trie: a few splits
    words = ["[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]"]
    assert trie_split("x[MASK]y", words) == ["x", "[MASK]", "y"]
    assert trie_split("[[MASK]]", words) == ["[", "[MASK]", "]"]
    assert trie_split("[MASK", words) == ["[MASK"]
    assert trie_split("", words) == []


def main():
    work = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "/tmp/tokref_deberta")
    if len(sys.argv) > 2:
        sys.exit(__doc__)
    os.makedirs(work, exist_ok=True)
    train(work)
    model = os.path.join(MODEL_DIR, "spm.model")
    configs = {
        "plain": dict(TOKENIZER_CONFIG),
        "lower": dict(TOKENIZER_CONFIG, do_lower_case=True),
        "punct": dict(TOKENIZER_CONFIG, split_by_punct=True),
        "lower_punct": dict(TOKENIZER_CONFIG, do_lower_case=True, split_by_punct=True),
    }
    toks = {name: DebertaV2Slow(model, **cfg) for name, cfg in configs.items()}
    check(toks["plain"])
    cases = build_cases(toks)
    plain = toks["plain"]
    out = {
        "about": "What transformers' slow DebertaV2Tokenizer (tokenizer(text, text_pair, truncation=..., "
                 "max_length=...), special tokens added, no padding, stride 0, truncation side right) gives "
                 "with deberta_spm/spm.model and each config (the tokenizer_config.json keys). Generated by "
                 "tools/tokenizer_reference/make_deberta_cases.py, a port of the transformers code below. "
                 "tokens are tokenize()'s strings (an unknown piece keeps its text; its id is [UNK]'s), "
                 "with [CLS]/[SEP] added, cut as input_ids are. truncation_error (only where true): "
                 "transformers logged an error and cut nothing.",
        "transformers_version": TRANSFORMERS_VERSION,
        "sentencepiece_version": spm.__version__,
        "model": "deberta_spm/spm.model",
        "spm_pieces": plain.sp.get_piece_size(),
        "mask_id": plain.mask_id,
        "special_tokens": {"pad": ["[PAD]", plain.added["[PAD]"]], "cls": ["[CLS]", plain.cls_id],
                           "sep": ["[SEP]", plain.sep_id], "unk": ["[UNK]", plain.added["[UNK]"]],
                           "mask": ["[MASK]", plain.mask_id]},
        "configs": configs,
    }
    head = json.dumps(out, ensure_ascii=False, indent=1)
    lines = [json.dumps(c, ensure_ascii=False) for c in cases]
    with open(CASES_FILE, "w", encoding="utf-8") as f:
        f.write(head[:-2] + ',\n "cases": [\n' + ",\n".join(lines) + "\n ]\n}\n")
    json.loads(open(CASES_FILE, encoding="utf-8").read())  # well-formed

    # summary
    size = os.path.getsize(model)
    print("spm.model: %d pieces, %d bytes; [MASK] id %d" % (plain.sp.get_piece_size(), size, plain.mask_id))
    counts = {}
    for c in cases:
        k = counts.setdefault(c["config"], [0, 0, 0, 0])
        k[0] += 1
        k[1] += c["text_pair"] is not None
        k[2] += c["truncation"] is not None
        k[3] += bool(c.get("truncation_error"))
    for name, (n, p, t, e) in counts.items():
        print("  %-12s %3d cases (%d pairs, %d with truncation, %d truncation errors)" % (name, n, p, t, e))
    print("  %d cases in all -> %s" % (len(cases), os.path.relpath(CASES_FILE, REPO)))
    unk = sum(c["input_ids"].count(3) for c in cases)
    print("  [UNK] ids in the cases: %d" % unk)
    for text in ["Paris is the [MASK] of France.", "\U0001f600\U0001f600\U0001f600", "x[MASK]y"]:
        t, ids, _, _ = plain.encode(text)
        print("  plain %r -> %s %s" % (text, t, ids))
    assert size < 300 * 1024, "spm.model too large"


if __name__ == "__main__":
    main()

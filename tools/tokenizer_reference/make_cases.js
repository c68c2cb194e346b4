'use strict';
// Encodes the inputs of texts.js with every reference tokenizer and writes the expected results:
//   FIXTURES_DIR/cases.jsonl        one JSON object per line (fields: see README.md)
//   FIXTURES_DIR/error_cases.jsonl  inputs the library refuses (truncation it cannot do), with its message
//
// Usage: node make_cases.js WORK_DIR FIXTURES_DIR     (after build_tokenizers.js; see README.md)
//
// Offsets: the Node binding encodes with TokenizerImpl::encode_char_offsets, as Python's binding
// does, so offsets are already in Unicode code points (indices into a Python str); the generator
// checks that on "héllo wörld 日本 😀" and that every offset lies inside its text.
//
// Pre-split words: the Node binding has no is_pretokenized (a TODO in its EncodeOptions), so the
// generator runs the library's own pieces the way TokenizerImpl::encode_single_sequence does for
// InputSequence::PreTokenized: each word is encoded alone (normalizer, added tokens, pre-tokenizer
// and model of the same tokenizer, with no post-processor and no truncation), the words' encodings
// are joined with mergeEncodings(encodings, growing_offsets=false), the tokenizer's postProcess
// adds the special tokens and truncates, and each token's word id is its word's index (what
// into_encoding(Some(word_index)) sets). The same route is checked against encode() on every raw
// text case of a tokenizer with a post-processor (all fields but word ids must agree).
//
// Truncation: recorded as tokenizers <= 0.22.2 truncates (see encodeTruncated), not as this
// release's encode() does since its early exit (huggingface/tokenizers #1990, issue #2091).

const fs = require('fs');
const path = require('path');
const T = require('tokenizers');
const {readJSON} = require('./util');
const {COMMON, MEDIUM, SPECIALS, PAIRS, TRUNC_PAIRS, WORDS, PAIR_WORDS} = require('./texts');

const STRATEGY = {longest_first: 'LongestFirst', only_first: 'OnlyFirst', only_second: 'OnlySecond'};

function cpLen(s) {
  return [...s].length;
}

function wordIds(enc) {
  return enc.getWordIds().map((w) => (w === undefined ? null : w));
}

function fields(enc, withOverflow) {
  const out = {
    ids: enc.getIds(), tokens: enc.getTokens(), offsets: enc.getOffsets(), type_ids: enc.getTypeIds(),
    word_ids: wordIds(enc), special_tokens_mask: enc.getSpecialTokensMask(),
  };
  // one level: what transformers reads ([encoding] + encoding.overflowing); the library also nests
  // overflowing lists inside a pair's overflowing entries, which nothing reads
  if (withOverflow) out.overflowing = enc.getOverflowing().map((o) => fields(o, false));
  return out;
}

function setTruncation(tok, trunc) {
  tok.disableTruncation();
  if (trunc) {
    tok.setTruncation(trunc.max_length, {strategy: STRATEGY[trunc.strategy], stride: trunc.stride,
      direction: trunc.direction});
  }
}

// InputSequence::PreTokenized as TokenizerImpl does it (see the header).
async function encodePretokenized(tok, noPost, words, pairWords, addSpecial, trunc) {
  const mergeWords = async (ws) => {
    const encs = [];
    const wordOf = [];
    for (let i = 0; i < ws.length; i++) {
      const e = await noPost.encode(ws[i], null, {addSpecialTokens: false});
      encs.push(e);
      for (let k = 0; k < e.getLength(); k++) wordOf.push(i);
    }
    return {enc: T.mergeEncodings(encs, false), wordOf};
  };
  const a = await mergeWords(words);
  const b = pairWords ? await mergeWords(pairWords) : null;
  setTruncation(tok, trunc);
  const enc = tok.postProcess(a.enc, b ? b.enc : null, addSpecial);
  const out = fields(enc, false);
  const seq = enc.getSequenceIds();
  const left = trunc && trunc.direction === 'left';
  for (const [s, part] of [[0, a], [1, b]]) {
    if (!part) continue;
    const n = seq.filter((x) => x === s).length;
    const kept = left ? part.wordOf.slice(part.wordOf.length - n) : part.wordOf.slice(0, n);
    let k = 0;
    seq.forEach((x, i) => { if (x === s) out.word_ids[i] = kept[k++]; });
  }
  return out;
}

// Encoding::truncate asserts stride < max_len: a Rust panic, which aborts the Node process. This
// follows truncate_encodings (tokenizers/src/utils/truncation.rs) to find such cases beforehand;
// they go to error_cases.jsonl with this message.
function truncationPanics(n1, n2, t, nAdded) {
  const maxLength = t.max_length - nAdded;
  const check = (len, target) => (target > 0 && target < len && t.stride >= target
    ? `panic: \`stride\` must be strictly less than \`max_len=${target}\`` : null);
  if (maxLength === 0 || n1 + (n2 || 0) <= maxLength) return null;
  const toRemove = n1 + (n2 || 0) - maxLength;
  if (t.strategy === 'longest_first') {
    if (n2 === null) return check(n1, n1 - toRemove);
    let [x, y] = [n1, n2];
    const swap = x > y;
    if (swap) [x, y] = [y, x];
    y = x > maxLength ? x : Math.max(x, maxLength - x);
    if (x + y > maxLength) { x = Math.floor(maxLength / 2); y = x + (maxLength % 2); }
    if (swap) [x, y] = [y, x];
    return check(n1, x) || check(n2, y);
  }
  const len = t.strategy === 'only_first' ? n1 : n2;
  if (len === null || len <= toRemove) return null;  // the library's own error
  return check(len, len - toRemove);
}

// Truncation as tokenizers <= 0.22.2 does it (and as huggingface/tokenizers PR #2098 restores):
// both sequences encoded in full, then TokenizerImpl::post_process truncates (truncate_encodings,
// overflowing windows with the stride) and adds the special tokens. 0.23.1+ encode() stops
// tokenizing once max_length tokens exist (#1990), which drops the overflowing windows (issue #2091)
// and changes longest_first's split; the generator does not take those results.
async function encodeTruncated(tok, noPost, hasPost, s) {
  const a = await noPost.encode(s.text, null, {addSpecialTokens: false});
  const b = s.pair === null ? null : await noPost.encode(s.pair, null, {addSpecialTokens: false});
  setTruncation(tok, null);
  const empty = () => noPost.encode('', null, {addSpecialTokens: false});
  const nAdded = s.add_special_tokens ? tok.postProcess(await empty(), b ? await empty() : null, true).getLength() : 0;
  const panic = truncationPanics(a.getLength(), b ? b.getLength() : null, s.truncation, nAdded);
  if (panic) throw new Error(panic);
  setTruncation(tok, s.truncation);
  const enc = tok.postProcess(a, b, s.add_special_tokens);
  const out = fields(enc, true);
  if (!hasPost && b) {
    // without a post-processor nothing resets the type ids: encode_single_sequence gave the pair's
    // tokens type id 1, which the separately encoded pair lacks
    const fix = (e, f) => {
      e.getSequenceIds().forEach((q, i) => { if (q === 1) f.type_ids[i] = 1; });
      if (f.overflowing) e.getOverflowing().forEach((o, k) => fix(o, f.overflowing[k]));
    };
    fix(enc, out);
  }
  return out;
}

function sameExceptWords(x, y) {
  const strip = (f) => JSON.stringify(f, (k, v) => (k === 'word_ids' ? undefined : v));
  return strip(x) === strip(y);
}

function checkOffsets(c, res) {
  const lens = c.words ? null : [cpLen(c.text), c.pair === null ? 0 : cpLen(c.pair)];
  const walk = (r) => {
    r.offsets.forEach(([s, e], i) => {
      if (r.special_tokens_mask[i]) return;
      if (!(s >= 0 && s <= e)) throw new Error(`bad offsets ${s},${e} in ${JSON.stringify(c)}`);
      if (lens) {
        const seq = c.pair === null ? 0 : null;  // pair: checked against the longer of the two
        const lim = seq === 0 ? lens[0] : Math.max(lens[0], lens[1]);
        if (e > lim) throw new Error(`offset ${e} past the text in ${JSON.stringify(c)}`);
      }
    });
    (r.overflowing || []).forEach(walk);
  };
  walk(res);
}

async function main() {
  const [work, fix] = process.argv.slice(2).map((p) => path.resolve(p));
  const built = readJSON(path.join(work, 'built.json'));
  const toks = {};
  for (const [name, file] of Object.entries(built)) {
    const tok = T.Tokenizer.fromFile(file);
    const j = readJSON(file);
    j.post_processor = null;
    j.truncation = null;
    toks[name] = {tok, noPost: T.Tokenizer.fromString(JSON.stringify(j)), hasPost: readJSON(file).post_processor !== null};
  }

  // The offsets convention, checked once.
  {
    const e = await toks.roberta_bpe.tok.encode('h\u00e9llo w\u00f6rld \u65e5\u672c \ud83d\ude00', null, {addSpecialTokens: false});
    const last = e.getOffsets()[e.getLength() - 1];
    if (last[0] !== 15 || last[1] !== 16) throw new Error('offsets are not in code points: ' + JSON.stringify(e.getOffsets()));
  }

  // Which cases each tokenizer gets.
  const FAMILY = {
    roberta_bpe: 'roberta', roberta_bpe_prefix: 'roberta', bytelevel_split: 'roberta', xlmr_unigram: 'roberta',
    bert_wordpiece: 'bert', bert_added: 'bert', bpe_suffix: 'bert', bpe_bytefallback: 'llama',
    unigram_bytefallback: 'unigram_bf', wordlevel: 'plain', pretok_split: 'plain', pretok_punct: 'plain',
  };
  const MAIN = new Set(['roberta_bpe', 'xlmr_unigram', 'bert_wordpiece']);
  const WORD_TOKS = new Set(['roberta_bpe_prefix', 'xlmr_unigram', 'bert_wordpiece', 'unigram_bytefallback', 'bpe_suffix']);
  const MASK = {roberta: '<mask>', bert: '[MASK]', llama: '</s>', unigram_bf: '<|bot|>', plain: '[UNK]'};

  const specs = [];
  const add = (s) => specs.push({file: 'tokenizer.json', text: null, pair: null, words: null, pair_words: null,
    add_special_tokens: true, truncation: null, ...s});
  for (const name of Object.keys(built)) {
    const fam = FAMILY[name];
    // the two longest texts only for the main three (the others meet them truncated)
    const common = MAIN.has(name) ? COMMON : COMMON.filter((t) => t.length < 100);
    const texts = common.concat(SPECIALS[fam], name === 'bert_added' ? SPECIALS.bert_added : []);
    texts.forEach((text) => add({tokenizer: name, text}));
    COMMON.filter((_, i) => i % (MAIN.has(name) ? 4 : 8) === 0).concat(SPECIALS[fam].slice(0, 3))
      .forEach((text) => add({tokenizer: name, text, add_special_tokens: false}));
    PAIRS.concat([[`Hello ${MASK[fam]}`, `${MASK[fam]} world`]]).forEach(([text, pair]) => add({tokenizer: name, text, pair}));
    add({tokenizer: name, text: PAIRS[0][0], pair: PAIRS[0][1], add_special_tokens: false});
    // truncation
    // longest_first on a pair overflows into every combination of the two sequences' windows, so
    // it gets the larger lengths
    const lens = {
      longest_first: MAIN.has(name) ? [12, 13, 16] : [12],
      only_first: MAIN.has(name) ? [7, 9, 12, 16] : [9],
      only_second: MAIN.has(name) ? [7, 9, 12, 16] : [9, 16],
    };
    const pairs = MAIN.has(name) ? TRUNC_PAIRS : [TRUNC_PAIRS[0], TRUNC_PAIRS[2]];
    for (const [text, pair] of pairs) {
      for (const strategy of Object.keys(STRATEGY)) {
        for (const max_length of lens[strategy]) {
          add({tokenizer: name, text, pair, truncation: {max_length, strategy, stride: 0, direction: 'right'}});
        }
        if (MAIN.has(name)) {
          add({tokenizer: name, text, pair, truncation: {max_length: 16, strategy, stride: 2, direction: 'right'}});
          add({tokenizer: name, text, pair, truncation: {max_length: 12, strategy, stride: 0, direction: 'left'}});
        }
      }
    }
    const longText = MEDIUM;
    const singles = MAIN.has(name) ? [[16, 0], [16, 4], [24, 12]] : [[16, 4]];
    for (const [max_length, stride] of singles) {
      for (const direction of ['right', 'left']) {
        add({tokenizer: name, text: longText, truncation: {max_length, strategy: 'longest_first', stride, direction}});
      }
    }
    add({tokenizer: name, text: longText, truncation: {max_length: 16, strategy: 'only_first', stride: 0, direction: 'right'}});
    add({tokenizer: name, text: 'short', truncation: {max_length: 64, strategy: 'longest_first', stride: 0, direction: 'right'}});
    // pre-split words
    if (WORD_TOKS.has(name)) {
      WORDS.concat([['hello', MASK[fam], 'world'], ['x', '', 'y']]).forEach((words) => add({tokenizer: name, words}));
      add({tokenizer: name, words: WORDS[0], add_special_tokens: false});
      PAIR_WORDS.forEach(([words, pair_words]) => add({tokenizer: name, words, pair_words}));
      add({tokenizer: name, words: WORDS[2], truncation: {max_length: 8, strategy: 'longest_first', stride: 0, direction: 'right'}});
      add({tokenizer: name, words: WORDS[2], truncation: {max_length: 8, strategy: 'longest_first', stride: 0, direction: 'left'}});
      add({tokenizer: name, words: PAIR_WORDS[1][0], pair_words: PAIR_WORDS[1][1],
        truncation: {max_length: 12, strategy: 'longest_first', stride: 0, direction: 'right'}});
    }
  }
  // The older file formats: the same cases, which the equivalent tokenizer.json gives.
  const legacy = {roberta_bpe: 'vocab.json+merges.txt', bert_wordpiece: 'vocab.txt', xlmr_unigram: 'sentencepiece.bpe.model'};
  const legacySpecs = [];
  for (const s of specs) {
    if (!legacy[s.tokenizer] || s.words || s.truncation || !s.add_special_tokens) continue;
    const i = COMMON.indexOf(s.text);
    if (s.pair === null && i >= 0 && i % 3 !== 0) continue;  // every third common text
    legacySpecs.push({...s, file: legacy[s.tokenizer]});
  }

  // Independent builds from the older files, to check that they are the same tokenizers.
  const fixDir = (n) => path.join(fix, n);
  const oldRob = new T.Tokenizer(await T.BPE.fromFile(path.join(fixDir('roberta_bpe'), 'vocab.json'),
    path.join(fixDir('roberta_bpe'), 'merges.txt'), {continuingSubwordPrefix: '', endOfWordSuffix: ''}));
  oldRob.setPreTokenizer(T.byteLevelPreTokenizer(false, true));
  oldRob.setPostProcessor(T.robertaProcessing(['</s>', 2], ['<s>', 0], true, false));
  oldRob.setDecoder(readJSONDecoderByteLevel());
  oldRob.addAddedTokens(['<s>', '<pad>', '</s>', '<unk>'].map((t) => new T.AddedToken(t, true, {normalized: true})));
  oldRob.addAddedTokens([new T.AddedToken('<mask>', true, {leftStrip: true, normalized: false})]);
  const oldBert = new T.Tokenizer(await T.WordPiece.fromFile(path.join(fixDir('bert_wordpiece'), 'vocab.txt'), {unkToken: '[UNK]'}));
  oldBert.setNormalizer(T.bertNormalizer({cleanText: true, handleChineseChars: true, stripAccents: true, lowercase: true}));
  oldBert.setPreTokenizer(T.bertPreTokenizer());
  oldBert.setPostProcessor(T.templateProcessing('[CLS]:0 $A:0 [SEP]:0', '[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1', [['[CLS]', 4], ['[SEP]', 5]]));
  oldBert.setDecoder(T.wordPieceDecoder('##', true));
  oldBert.addSpecialTokens(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
  const oldToks = {'vocab.json+merges.txt': oldRob, 'vocab.txt': oldBert};

  const cases = [];
  const errors = [];
  let crossChecked = 0;
  let earlyExitDiffers = 0;
  for (const s of specs.concat(legacySpecs)) {
    const {tok, noPost, hasPost} = toks[s.tokenizer];
    let res;
    try {
      if (s.words) {
        res = await encodePretokenized(tok, noPost, s.words, s.pair_words, s.add_special_tokens, s.truncation);
      } else if (s.truncation) {
        res = await encodeTruncated(tok, noPost, hasPost, s);
        // what this tokenizers release's own encode() gives (0.23.1+ early exit; see the header)
        setTruncation(tok, s.truncation);
        let own = null;
        try {
          own = fields(await tok.encode(s.text, s.pair, {addSpecialTokens: s.add_special_tokens}), true);
        } catch (e) { /* counted below */ }
        if (JSON.stringify(own) !== JSON.stringify(res)) earlyExitDiffers++;
      } else {
        setTruncation(tok, null);
        const enc = await tok.encode(s.text, s.pair, {addSpecialTokens: s.add_special_tokens});
        res = fields(enc, false);
        if (hasPost) {
          const emu = await encodePretokenized(tok, noPost, [s.text], s.pair === null ? null : [s.pair],
            s.add_special_tokens, null);
          if (!sameExceptWords(res, emu)) {
            throw new Error(`pre-tokenized route differs from encode(): ${JSON.stringify(s)}\n${JSON.stringify(res)}\n${JSON.stringify(emu)}`);
          }
          crossChecked++;
        }
        if (oldToks[s.file]) {
          const old = oldToks[s.file];
          const e2 = fields(await old.encode(s.text, s.pair, {addSpecialTokens: s.add_special_tokens}), false);
          if (JSON.stringify(e2) !== JSON.stringify(res)) throw new Error(`${s.file} differs from tokenizer.json: ${JSON.stringify(s)}`);
        }
      }
    } catch (e) {
      if (/pre-tokenized route|differs from tokenizer.json/.test(e.message)) throw e;
      errors.push({...s, error: e.message});
      continue;
    }
    checkOffsets(s, res);
    res.decoded = await tok.decode(res.ids, true);
    cases.push({...s, ...res});
  }
  const order = Object.keys(built);
  const key = (c) => order.indexOf(c.tokenizer);
  cases.sort((x, y) => key(x) - key(y));  // stable: keeps the order within a tokenizer
  // one object a line; DEL, U+0085, U+2028 and U+2029 escaped too, for tools that split lines on them
  const line = (c) => JSON.stringify(c).replace(/[\u007f\u0085\u2028\u2029]/g,
    (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0')) + '\n';
  fs.writeFileSync(path.join(fix, 'cases.jsonl'), cases.map(line).join(''));
  fs.writeFileSync(path.join(fix, 'error_cases.jsonl'), errors.map(line).join(''));
  const counts = {};
  for (const c of cases) {
    const k = `${c.tokenizer} ${c.file}`;
    counts[k] = (counts[k] || 0) + 1;
  }
  console.log(JSON.stringify(counts, null, 1));
  console.log(`cases ${cases.length}, error cases ${errors.length}, pre-tokenized route cross-checked on ${crossChecked}, `
    + `truncation cases where this release's encode() differs (early exit): ${earlyExitDiffers}`);
}

function readJSONDecoderByteLevel() {
  // RobertaConverter's decoder: decoders.ByteLevel()
  return T.Tokenizer.fromString(JSON.stringify({version: '1.0', truncation: null, padding: null, added_tokens: [],
    normalizer: null, pre_tokenizer: null, post_processor: null,
    decoder: {type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true},
    model: {type: 'WordLevel', vocab: {a: 0}, unk_token: 'a'}})).getDecoder();
}

main().catch((e) => { console.error(e); process.exit(1); });

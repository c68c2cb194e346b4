'use strict';
// Builds the reference tokenizers of tests/fixtures/tokenizers with Hugging Face's `tokenizers`
// (the Node binding of the Rust library): trains them on the corpus written by corpus.py, or builds
// them around the SentencePiece models trained by train_spm.py, saves them with tokenizer.save()
// and writes the older file formats (vocab.json + merges.txt, vocab.txt) beside them.
//
// Usage: node build_tokenizers.js WORK_DIR FIXTURES_DIR     (see README.md)
//
// Every tokenizer.json is written by the library itself: the generator describes a tokenizer as the
// JSON object tokenizer.json holds, loads it with Tokenizer.fromString (which validates it) and saves
// it with tokenizer.save(path, pretty=true). Only roberta_bpe/tokenizer.json is edited afterwards:
// its merges are rewritten as "a b" strings, the older form roberta-base's file has (the library
// writes [["a", "b"]] pairs since 0.20; both load to the same model, which the generator checks).

const fs = require('fs');
const path = require('path');
const T = require('tokenizers');
const {jsonSpliceValue, gpt2ByteChars, readJSON, writeText} = require('./util');

const SPECIAL = {single_word: false, lstrip: false, rstrip: false, normalized: false, special: true};

function added(id, content, opts = {}) {
  return {id, content, ...SPECIAL, ...opts};
}

// TemplateProcessing from HF's string form ("[CLS]:0 $A:0 [SEP]:0"); ids from `ids`.
function template(single, pair, ids) {
  const parse = (s) => s.split(' ').map((p) => {
    const [name, tid] = p.split(':');
    const type_id = tid === undefined ? 0 : Number(tid);
    if (name === '$A' || name === '$B') return {Sequence: {id: name.slice(1), type_id}};
    return {SpecialToken: {id: name, type_id}};
  });
  const special_tokens = {};
  for (const [name, id] of Object.entries(ids)) special_tokens[name] = {id: name, ids: [id], tokens: [name]};
  return {type: 'TemplateProcessing', single: parse(single), pair: parse(pair), special_tokens};
}

function tokenizerJSON(parts) {
  return {
    version: '1.0', truncation: null, padding: null, added_tokens: parts.added_tokens || [],
    normalizer: parts.normalizer || null, pre_tokenizer: parts.pre_tokenizer || null,
    post_processor: parts.post_processor || null, decoder: parts.decoder || null, model: parts.model,
  };
}

// Trains `model` (an empty model of the wanted type) with the library's default trainer of that
// model (BpeTrainer, WordPieceTrainer, WordLevelTrainer: no vocabulary limit, min frequency 0),
// through the normalizer and pre-tokenizer of `parts`. Returns the trained model's JSON.
function libraryTrain(parts, files, tmp) {
  const tok = T.Tokenizer.fromString(JSON.stringify(tokenizerJSON(parts)));
  tok.train(files);
  tok.save(tmp, false);
  return readJSON(tmp).model;
}

// Vocabulary (token -> id) and merges of a BPE model trained without a limit, cut to its first
// `nMerges` merges (BPE training is greedy, so this is what training with that many merges gives).
// `head`: tokens first (specials), then `alphabet`, then the merged tokens in merge order.
function cutBpe(trainedMerges, nMerges, head, alphabet, prefix = '') {
  const order = [...head];
  const seen = new Set(order);
  const push = (t) => { if (!seen.has(t)) { seen.add(t); order.push(t); } };
  alphabet.forEach(push);
  const merges = trainedMerges.slice(0, nMerges).map((m) => (typeof m === 'string' ? m.split(' ') : m));
  for (const [a, b] of merges) {
    if (!seen.has(a) || !seen.has(b)) throw new Error(`merge ${a} ${b}: part not in vocabulary`);
    push(a + (prefix && b.startsWith(prefix) ? b.slice(prefix.length) : b));
  }
  return {order, merges};
}

function vocabObject(order) {
  const v = {};
  order.forEach((t, i) => { v[t] = i; });
  return v;
}

// Saves through the library (pretty, as the Hub files are) and checks it loads back.
function saveTokenizer(obj, file) {
  fs.mkdirSync(path.dirname(file), {recursive: true});
  const tok = T.Tokenizer.fromString(JSON.stringify(obj));
  tok.save(file, true);
  T.Tokenizer.fromFile(file);
  return file;
}

// A small BPE trainer for the model with continuing_subword_prefix and end_of_word_suffix (the
// Node binding's default BpeTrainer has neither). It follows HF's BpeTrainer: a word's first
// character is bare, the others carry the prefix, the last carries the suffix; the most frequent
// pair merges first (ties: the smaller pair as strings); the merged token is a + b without b's prefix.
function trainBpeWithAffixes(wordCounts, nMerges, prefix, suffix) {
  const words = [...wordCounts.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1)).map(([w, c]) => {
    const chars = [...w];
    return {count: c, syms: chars.map((ch, i) => (i > 0 ? prefix : '') + ch + (i === chars.length - 1 ? suffix : ''))};
  });
  const alphabet = [...new Set(words.flatMap((w) => w.syms))].sort();
  const merges = [];
  for (let k = 0; k < nMerges; k++) {
    const counts = new Map();
    for (const w of words) {
      for (let i = 0; i + 1 < w.syms.length; i++) {
        const key = w.syms[i] + '\u0000' + w.syms[i + 1];
        counts.set(key, (counts.get(key) || 0) + w.count);
      }
    }
    let best = null;
    let bestCount = 1;  // min frequency 2
    for (const [key, c] of counts) {
      if (c > bestCount || (c === bestCount && best !== null && key < best)) { best = key; bestCount = c; }
    }
    if (best === null) break;
    const [a, b] = best.split('\u0000');
    const merged = a + (b.startsWith(prefix) ? b.slice(prefix.length) : b);
    for (const w of words) {
      const out = [];
      for (let i = 0; i < w.syms.length; i++) {
        if (i + 1 < w.syms.length && w.syms[i] === a && w.syms[i + 1] === b) { out.push(merged); i++; } else out.push(w.syms[i]);
      }
      w.syms = out;
    }
    merges.push([a, b]);
  }
  return {alphabet, merges};
}

function main() {
  const [work, fix] = process.argv.slice(2).map((p) => path.resolve(p));
  if (!work || !fix) throw new Error('usage: node build_tokenizers.js WORK_DIR FIXTURES_DIR');
  const corpusEn = path.join(work, 'corpus_en.txt');
  const corpusMulti = path.join(work, 'corpus_multi.txt');
  const corpusLatin = path.join(work, 'corpus_latin.txt');
  const tmp = path.join(work, 'trained.json');
  const built = {};

  // ---------------------------------------------------------------- byte-level BPE (RoBERTa)
  const byteLevel = {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true};
  const trainedBL = libraryTrain({pre_tokenizer: byteLevel, model: {type: 'BPE', vocab: {}, merges: []}}, [corpusEn], tmp);
  const rob = cutBpe(trainedBL.merges, 540, ['<s>', '<pad>', '</s>', '<unk>'], gpt2ByteChars());
  rob.order.push('<mask>');
  const robVocab = vocabObject(rob.order);
  const robAdded = [added(0, '<s>', {normalized: true}), added(1, '<pad>', {normalized: true}),
    added(2, '</s>', {normalized: true}), added(3, '<unk>', {normalized: true}),
    added(rob.order.length - 1, '<mask>', {lstrip: true})];
  const robModel = {type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '',
    fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab: robVocab, merges: rob.merges};
  const robParts = {added_tokens: robAdded, pre_tokenizer: byteLevel,
    post_processor: {type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: false},
    decoder: {type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true}, model: robModel};
  const robFile = saveTokenizer(tokenizerJSON(robParts), path.join(fix, 'roberta_bpe', 'tokenizer.json'));
  {
    // merges as "a b" strings, as roberta-base's tokenizer.json has them
    const text = fs.readFileSync(robFile, 'utf8');
    const strs = readJSON(robFile).model.merges.map(([a, b]) => `${a} ${b}`);
    const body = '[\n' + strs.map((s) => '      ' + JSON.stringify(s)).join(',\n') + '\n    ]';
    fs.writeFileSync(robFile, jsonSpliceValue(text, '"merges": ', body));
    T.Tokenizer.fromFile(robFile);
  }
  // vocab.json (ASCII-escaped, one line, as GPT-2/RoBERTa's) and merges.txt
  writeText(path.join(fix, 'roberta_bpe', 'vocab.json'),
    '{' + rob.order.map((t, i) => asciiJSON(t) + ': ' + i).join(', ') + '}');
  writeText(path.join(fix, 'roberta_bpe', 'merges.txt'),
    '#version: 0.2\n' + rob.merges.map(([a, b]) => `${a} ${b}\n`).join(''));
  const robAddedDecoder = {};
  for (const t of robAdded) {
    robAddedDecoder[String(t.id)] = {content: t.content, lstrip: t.lstrip, normalized: t.normalized, rstrip: t.rstrip,
      single_word: t.single_word, special: true};
  }
  const robConfig = (addPrefixSpace) => ({
    add_prefix_space: addPrefixSpace, added_tokens_decoder: robAddedDecoder, bos_token: '<s>',
    clean_up_tokenization_spaces: false, cls_token: '<s>', eos_token: '</s>', errors: 'replace', mask_token: '<mask>',
    model_max_length: 512, pad_token: '<pad>', sep_token: '</s>', tokenizer_class: 'RobertaTokenizer',
    trim_offsets: true, unk_token: '<unk>'});
  writeJSONPretty(path.join(fix, 'roberta_bpe', 'tokenizer_config.json'), robConfig(false));
  writeJSONPretty(path.join(fix, 'roberta_bpe', 'special_tokens_map.json'), {
    bos_token: '<s>', cls_token: '<s>', eos_token: '</s>',
    mask_token: {content: '<mask>', lstrip: true, normalized: false, rstrip: false, single_word: false},
    pad_token: '<pad>', sep_token: '</s>', unk_token: '<unk>'});
  built.roberta_bpe = robFile;

  // RoBERTa with add_prefix_space=True (what RobertaTokenizerFast(add_prefix_space=True) builds,
  // needed for is_split_into_words): ByteLevel and RobertaProcessing both add_prefix_space true.
  const robPrefix = {...robParts,
    pre_tokenizer: {...byteLevel, add_prefix_space: true},
    post_processor: {...robParts.post_processor, add_prefix_space: true},
    model: {...robModel, continuing_subword_prefix: null, end_of_word_suffix: null}};
  built.roberta_bpe_prefix = saveTokenizer(tokenizerJSON(robPrefix), path.join(fix, 'roberta_bpe_prefix', 'tokenizer.json'));
  writeJSONPretty(path.join(fix, 'roberta_bpe_prefix', 'tokenizer_config.json'), robConfig(true));

  // Same vocabulary behind a Llama-3-style pipeline: Split by a regex, ByteLevel without its own
  // regex, ignore_merges, and a Sequence post-processor [ByteLevel(trim_offsets), TemplateProcessing].
  const llama3Regex = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  built.bytelevel_split = saveTokenizer(tokenizerJSON({
    added_tokens: robAdded,
    pre_tokenizer: {type: 'Sequence', pretokenizers: [
      {type: 'Split', pattern: {Regex: llama3Regex}, behavior: 'Isolated', invert: false},
      {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false}]},
    post_processor: {type: 'Sequence', processors: [
      {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false},
      template('<s>:0 $A:0 </s>:0', '<s>:0 $A:0 </s>:0 $B:1 </s>:1', {'<s>': 0, '</s>': 2})]},
    decoder: {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false},
    model: {...robModel, continuing_subword_prefix: null, end_of_word_suffix: null, ignore_merges: true},
  }), path.join(fix, 'bytelevel_split', 'tokenizer.json'));

  // ---------------------------------------------------------------- XLM-R (SentencePiece Unigram)
  const spX = readJSON(path.join(work, 'spm_xlmr.json'));
  const xlmrVocab = [['<s>', 0.0], ['<pad>', 0.0], ['</s>', 0.0], ['<unk>', 0.0]]
    .concat(spX.pieces.slice(3).map((p) => [p[0], p[1]])).concat([['<mask>', 0.0]]);
  const xlmrAdded = [added(0, '<s>'), added(1, '<pad>'), added(2, '</s>'), added(3, '<unk>'),
    added(xlmrVocab.length - 1, '<mask>', {lstrip: true})];
  const metaspace = {type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true};
  built.xlmr_unigram = saveTokenizer(tokenizerJSON({
    added_tokens: xlmrAdded,
    normalizer: {type: 'Sequence', normalizers: [
      {type: 'Precompiled', precompiled_charsmap: spX.precompiled_charsmap},
      {type: 'Replace', pattern: {Regex: ' {2,}'}, content: ' '}]},
    pre_tokenizer: metaspace,
    post_processor: template('<s> $A </s>', '<s> $A </s> </s> $B </s>', {'<s>': 0, '</s>': 2}),
    decoder: metaspace,
    model: {type: 'Unigram', unk_id: 3, vocab: xlmrVocab, byte_fallback: false},
  }), path.join(fix, 'xlmr_unigram', 'tokenizer.json'));
  const xlmrAddedDecoder = {};
  for (const t of xlmrAdded) {
    xlmrAddedDecoder[String(t.id)] = {content: t.content, lstrip: t.lstrip, normalized: t.normalized, rstrip: t.rstrip,
      single_word: t.single_word, special: true};
  }
  writeJSONPretty(path.join(fix, 'xlmr_unigram', 'tokenizer_config.json'), {
    added_tokens_decoder: xlmrAddedDecoder, bos_token: '<s>', clean_up_tokenization_spaces: true, cls_token: '<s>',
    eos_token: '</s>', mask_token: '<mask>', model_max_length: 512, pad_token: '<pad>', sep_token: '</s>',
    tokenizer_class: 'XLMRobertaTokenizer', unk_token: '<unk>'});
  writeJSONPretty(path.join(fix, 'xlmr_unigram', 'special_tokens_map.json'), {
    bos_token: '<s>', cls_token: '<s>', eos_token: '</s>',
    mask_token: {content: '<mask>', lstrip: true, normalized: false, rstrip: false, single_word: false},
    pad_token: '<pad>', sep_token: '</s>', unk_token: '<unk>'});

  // ---------------------------------------------------------------- BERT WordPiece
  const bertNorm = {type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true};
  // HF's WordPieceTrainer is a BpeTrainer with continuing_subword_prefix "##"; the library's one
  // numbers the "##x" symbols in hash order, so its count ties (and the vocabulary) change from run
  // to run. The generator runs the same algorithm deterministically (trainBpeWithAffixes) on the
  // words the library's BertNormalizer and BertPreTokenizer make of the corpus.
  const bertNormApi = T.bertNormalizer({cleanText: true, handleChineseChars: true, stripAccents: true, lowercase: true});
  const bertPre = T.bertPreTokenizer();
  const wcB = new Map();
  for (const line of fs.readFileSync(corpusEn, 'utf8').split('\n')) {
    for (const [w] of bertPre.preTokenizeString(bertNormApi.normalizeString(line))) wcB.set(w, (wcB.get(w) || 0) + 1);
  }
  const wp = trainBpeWithAffixes(wcB, 700, '##', '');
  const bertOrder = ['[PAD]', '[unused0]', '[unused1]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const seenB = new Set(bertOrder);
  const pushB = (t) => { if (!seenB.has(t)) { seenB.add(t); bertOrder.push(t); } };
  // single characters first (as bert-base's vocab.txt), with the CJK ideographs of the multilingual
  // corpus (BertNormalizer isolates them, so they are whole words), then the "##" characters
  wp.alphabet.filter((t) => !t.startsWith('##')).forEach(pushB);
  const cjk = new Set();
  for (const ch of fs.readFileSync(corpusMulti, 'utf8')) if (/\p{Script=Han}/u.test(ch)) cjk.add(ch);
  [...cjk].sort().slice(0, 80).forEach(pushB);
  wp.alphabet.filter((t) => t.startsWith('##')).forEach(pushB);
  // every printable ASCII character the lower-casing normalizer lets through, bare and with "##"
  const ascii = [];
  for (let c = 0x21; c < 0x7f; c++) if (!/[A-Z]/.test(String.fromCharCode(c))) ascii.push(String.fromCharCode(c));
  ascii.forEach(pushB);
  ascii.forEach((c) => pushB('##' + c));
  for (const [a, b] of wp.merges) {
    if (bertOrder.length >= 760) break;
    pushB(a + b.replace(/^##/, ''));
  }
  const bertVocab = vocabObject(bertOrder);
  const bertAdded = [added(0, '[PAD]'), added(3, '[UNK]'), added(4, '[CLS]'), added(5, '[SEP]'), added(6, '[MASK]')];
  const bertParts = {
    added_tokens: bertAdded, normalizer: bertNorm, pre_tokenizer: {type: 'BertPreTokenizer'},
    post_processor: template('[CLS]:0 $A:0 [SEP]:0', '[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1', {'[CLS]': 4, '[SEP]': 5}),
    decoder: {type: 'WordPiece', prefix: '##', cleanup: true},
    model: {type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: bertVocab},
  };
  built.bert_wordpiece = saveTokenizer(tokenizerJSON(bertParts), path.join(fix, 'bert_wordpiece', 'tokenizer.json'));
  writeText(path.join(fix, 'bert_wordpiece', 'vocab.txt'), bertOrder.map((t) => t + '\n').join(''));
  writeJSONPretty(path.join(fix, 'bert_wordpiece', 'tokenizer_config.json'), {
    clean_up_tokenization_spaces: true, cls_token: '[CLS]', do_lower_case: true, mask_token: '[MASK]',
    model_max_length: 512, pad_token: '[PAD]', sep_token: '[SEP]', strip_accents: null, tokenize_chinese_chars: true,
    tokenizer_class: 'BertTokenizer', unk_token: '[UNK]'});
  writeJSONPretty(path.join(fix, 'bert_wordpiece', 'special_tokens_map.json'), {
    cls_token: '[CLS]', mask_token: '[MASK]', pad_token: '[PAD]', sep_token: '[SEP]', unk_token: '[UNK]'});

  // The same WordPiece model with added tokens of every kind of flag.
  const nB = bertOrder.length;
  built.bert_added = saveTokenizer(tokenizerJSON({...bertParts,
    added_tokens: [added(0, '[PAD]'), added(3, '[UNK]'), added(4, '[CLS]'), added(5, '[SEP]'),
      added(6, '[MASK]', {lstrip: true, rstrip: true}),
      added(bertVocab.for, 'for', {special: false, normalized: true}),              // already in the vocabulary
      added(nB, '<ent>', {special: false, normalized: true}),                         // matched after lowercasing
      added(nB + 1, 'new york', {special: false, normalized: true, single_word: true}),
      added(nB + 2, 'C++', {special: false, normalized: false}),                       // case-sensitive
      added(nB + 3, '@@', {special: false, normalized: false, rstrip: true}),
      added(nB + 4, '<EOS>', {single_word: true}),
      added(nB + 5, '::', {special: false, normalized: false, lstrip: true, single_word: true})],
  }), path.join(fix, 'bert_added', 'tokenizer.json'));

  // ---------------------------------------------------------------- BPE with ## and </w>
  const suffixNorm = {type: 'Sequence', normalizers: [{type: 'NFD'}, {type: 'Lowercase'}, {type: 'StripAccents'}]};
  const nfdLower = T.sequenceNormalizer([T.nfdNormalizer(), T.lowercase(), T.stripAccentsNormalizer()]);
  const ws = T.whitespacePreTokenizer();
  const wc = new Map();
  for (const line of fs.readFileSync(corpusLatin, 'utf8').split('\n')) {
    for (const [w] of ws.preTokenizeString(nfdLower.normalizeString(line))) wc.set(w, (wc.get(w) || 0) + 1);
  }
  const sfx = trainBpeWithAffixes(wc, 450, '##', '</w>');
  // plus lower-case letters and digits in the four forms they can take
  for (const c of 'abcdefghijklmnopqrstuvwxyz0123456789') {
    for (const f of [c, '##' + c, c + '</w>', '##' + c + '</w>']) if (!sfx.alphabet.includes(f)) sfx.alphabet.push(f);
  }
  const sfxCut = cutBpe(sfx.merges, 450, ['[UNK]', '[CLS]', '[SEP]', '[PAD]', '[MASK]'], sfx.alphabet, '##');
  built.bpe_suffix = saveTokenizer(tokenizerJSON({
    added_tokens: [added(0, '[UNK]'), added(1, '[CLS]'), added(2, '[SEP]'), added(3, '[PAD]'), added(4, '[MASK]')],
    normalizer: suffixNorm, pre_tokenizer: {type: 'Whitespace'},
    post_processor: {type: 'BertProcessing', sep: ['[SEP]', 2], cls: ['[CLS]', 1]},
    decoder: {type: 'BPEDecoder', suffix: '</w>'},
    model: {type: 'BPE', dropout: null, unk_token: '[UNK]', continuing_subword_prefix: '##', end_of_word_suffix: '</w>',
      fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab: vocabObject(sfxCut.order), merges: sfxCut.merges},
  }), path.join(fix, 'bpe_suffix', 'tokenizer.json'));

  // ---------------------------------------------------------------- Llama-style BPE with byte fallback
  const spB = readJSON(path.join(work, 'spm_bpe_bf.json'));
  const bfVocab = {};
  spB.pieces.forEach((p, i) => { bfVocab[p[0]] = i; });
  const llamaDecoder = {type: 'Sequence', decoders: [
    {type: 'Replace', pattern: {String: '\u2581'}, content: ' '}, {type: 'ByteFallback'}, {type: 'Fuse'},
    {type: 'Strip', content: ' ', start: 1, stop: 0}]};
  built.bpe_bytefallback = saveTokenizer(tokenizerJSON({
    added_tokens: [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>')],
    normalizer: {type: 'Sequence', normalizers: [{type: 'Prepend', prepend: '\u2581'},
      {type: 'Replace', pattern: {String: ' '}, content: '\u2581'}]},
    pre_tokenizer: null,
    post_processor: template('<s>:0 $A:0', '<s>:0 $A:0 <s>:1 $B:1', {'<s>': 1}),
    decoder: llamaDecoder,
    model: {type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab: bfVocab, merges: spB.merges},
  }), path.join(fix, 'bpe_bytefallback', 'tokenizer.json'));

  // ---------------------------------------------------------------- Unigram with byte fallback
  const spU = readJSON(path.join(work, 'spm_unigram_bf.json'));
  const uVocab = spU.pieces.map((p) => [p[0], p[1]]);
  const nU = uVocab.length;
  uVocab.push(['<|user|>', 0.0], ['<|bot|>', 0.0]);
  built.unigram_bytefallback = saveTokenizer(tokenizerJSON({
    added_tokens: [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>'),
      added(nU, '<|user|>', {special: false, rstrip: true}), added(nU + 1, '<|bot|>', {lstrip: true})],
    normalizer: {type: 'NFC'},
    pre_tokenizer: {type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: false},
    post_processor: template('<s>:0 $A:0 </s>:0', '<s>:0 $A:0 </s>:0 $B:1 </s>:1', {'<s>': 1, '</s>': 2}),
    decoder: llamaDecoder,
    model: {type: 'Unigram', unk_id: 0, vocab: uVocab, byte_fallback: true},
  }), path.join(fix, 'unigram_bytefallback', 'tokenizer.json'));

  // ---------------------------------------------------------------- WordLevel
  const wlNorm = {type: 'Sequence', normalizers: [{type: 'NFKD'}, {type: 'Lowercase'},
    {type: 'Replace', pattern: {Regex: '[\u0300-\u036f]'}, content: ''}, {type: 'Strip', strip_left: true, strip_right: true}]};
  const trainedWL = libraryTrain({normalizer: wlNorm, pre_tokenizer: {type: 'WhitespaceSplit'},
    model: {type: 'WordLevel', vocab: {}, unk_token: '[UNK]'}}, [corpusLatin], tmp);
  const wlOrder = ['[UNK]', '[PAD]'].concat(Object.entries(trainedWL.vocab).sort((x, y) => x[1] - y[1])
    .map((e) => e[0]).slice(0, 400));
  built.wordlevel = saveTokenizer(tokenizerJSON({
    added_tokens: [added(0, '[UNK]'), added(1, '[PAD]')],
    normalizer: wlNorm, pre_tokenizer: {type: 'WhitespaceSplit'},
    model: {type: 'WordLevel', vocab: vocabObject(wlOrder), unk_token: '[UNK]'},
  }), path.join(fix, 'wordlevel', 'tokenizer.json'));

  // ---------------------------------------------------------------- Split / Punctuation / Digits
  const charBpe = (parts, nMerges, heads) => {
    const trained = libraryTrain({...parts, model: {type: 'BPE', vocab: {}, merges: []}}, [corpusMulti], tmp);
    // the trained alphabet (every character of the corpus), then the printable ASCII it lacks
    const alphabet = Object.entries(trained.vocab).sort((x, y) => x[1] - y[1]).map((e) => e[0]).filter((t) => [...t].length === 1);
    for (let c = 0x21; c < 0x7f; c++) if (!alphabet.includes(String.fromCharCode(c))) alphabet.push(String.fromCharCode(c));
    const cut = cutBpe(trained.merges, nMerges, heads, alphabet);
    return {type: 'BPE', dropout: null, unk_token: '[UNK]', continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab: vocabObject(cut.order), merges: cut.merges};
  };
  const splitParts = {
    normalizer: {type: 'Sequence', normalizers: [
      {type: 'Replace', pattern: {Regex: '\\s+'}, content: ' '}, {type: 'NFKC'},
      {type: 'Replace', pattern: {String: '\u2019'}, content: "'"}, {type: 'Strip', strip_left: true, strip_right: true}]},
    pre_tokenizer: {type: 'Sequence', pretokenizers: [
      {type: 'Split', pattern: {Regex: '\\S+'}, behavior: 'Removed', invert: true},
      {type: 'Split', pattern: {String: '-'}, behavior: 'Isolated', invert: false},
      {type: 'Split', pattern: {Regex: '[,;]'}, behavior: 'MergedWithPrevious', invert: false},
      {type: 'Split', pattern: {String: '$'}, behavior: 'MergedWithNext', invert: false},
      {type: 'Split', pattern: {Regex: '\\.'}, behavior: 'Contiguous', invert: false},
      {type: 'Digits', individual_digits: true}]},
  };
  built.pretok_split = saveTokenizer(tokenizerJSON({...splitParts,
    added_tokens: [added(0, '[UNK]')],
    model: charBpe(splitParts, 300, ['[UNK]'])}), path.join(fix, 'pretok_split', 'tokenizer.json'));
  const punctParts = {
    normalizer: {type: 'Sequence', normalizers: [{type: 'NFKD'},
      {type: 'Replace', pattern: {String: '``'}, content: '"'}, {type: 'Strip', strip_left: false, strip_right: true}]},
    pre_tokenizer: {type: 'Sequence', pretokenizers: [{type: 'WhitespaceSplit'},
      {type: 'Punctuation', behavior: 'Contiguous'}, {type: 'Digits', individual_digits: false}]},
  };
  built.pretok_punct = saveTokenizer(tokenizerJSON({...punctParts,
    added_tokens: [added(0, '[UNK]'), added(1, '[CLS]'), added(2, '[SEP]')],
    post_processor: template('$A:0 [SEP]:0', '[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1', {'[CLS]': 1, '[SEP]': 2}),
    model: charBpe(punctParts, 300, ['[UNK]', '[CLS]', '[SEP]'])}), path.join(fix, 'pretok_punct', 'tokenizer.json'));

  writeJSONPretty(path.join(work, 'built.json'), built);
  for (const [name, file] of Object.entries(built)) {
    const tok = T.Tokenizer.fromFile(file);
    console.log(`${name}: vocab ${tok.getVocabSize(true)}, ${fs.statSync(file).size} bytes`);
  }
}

function asciiJSON(s) {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function writeJSONPretty(file, obj) {
  writeText(file, JSON.stringify(obj, null, 2) + '\n');
}

main();

'use strict';
// Hugging Face's side of bench/tokenizers_vs_hf.sh: the QQP-like texts, the three tokenizers of
// real vocabulary size, and the library's (npm `tokenizers`, the Node binding of the Rust crate)
// throughput on them, one thread.
//
//   node tools/hf_tokenize_bench.js corpus WORK [--pairs N]   WORK/corpus.txt (training text), WORK/pairs.tsv
//   node tools/hf_tokenize_bench.js build WORK FIXTURES       WORK/{roberta_bpe,bert_wordpiece,xlmr_unigram}/
//   node tools/hf_tokenize_bench.js bench WORK NAME [--passes N] [--ids FILE]
//
// `build` trains byte-level BPE (RoBERTa's layout; the binding's train() takes no options, so its
// default trainer's 30,000 tokens, not roberta-base's 50,265) and WordPiece (BERT's, the
// library's default 30,000) with the library on corpus.txt; the Unigram (XLM-R's layout: the
// fixture xlmr_unigram's tokenizer.json, its nmt_nfkc precompiled charsmap and Replace, Metaspace,
// <s> A </s></s> B </s>) takes the SentencePiece pieces of WORK/spm_pieces.json, trained by the
// bench script with python3-sentencepiece. `bench` prints `RESULT {json}`, medians of `passes`
// timed passes after one warm-up pass, truncation to 128 (longest_first) and padding to 128 as
// run_glue encodes:
//   pairs_per_s        encode(a, b) per pair, each awaited before the next (the binding's
//                      encodeBatch takes single texts only): one thread at a time, but each call
//                      pays the binding's hand-off to libuv's pool and back;
//   batch_pairs_per_s  encodeBatch over the same 2N texts as single texts, 1000 a call, not
//                      padded: the Rust library's rate with the per-call cost gone, and a little
//                      less work than the pairs (no pairing, no padding): HF's best case.
// Run with RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false: encode_batch is then a serial loop.
// `--ids FILE` writes each pair's ids (attention mask 1) on a line, for the other side's check.
// Needs NODE_PATH naming a node_modules with tokenizers (the bench script installs it).
const fs = require('fs');
const path = require('path');
const T = require('tokenizers');
const {gpt2ByteChars, readJSON, writeText} = require('./tokenizer_reference/util');

// mulberry32: a small deterministic generator, so that every run writes the same texts.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// 120,000 made-up words of 1-4 syllables, shortest first, drawn Zipf-like (log-uniform rank), so
// that a 30-50k vocabulary covers the common ones whole and splits the rare ones, as with English.
function makeWords(random) {
  const onsets = ['', '', 'b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'y', 'z',
    'bl', 'br', 'ch', 'cl', 'cr', 'dr', 'fl', 'fr', 'gr', 'pl', 'pr', 'sh', 'sk', 'sl', 'sp', 'st', 'str', 'th', 'tr', 'wh'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'i', 'o', 'ea', 'ee', 'ou', 'ai', 'oo', 'y', 'é', 'ü'];
  const codas = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'ng', 'ck', 'st', 'nd', 'rt', 'x', 'ss'];
  const pick = (list) => list[Math.floor(random() * list.length)];
  const seen = new Set();
  const words = [];
  while (words.length < 120000) {
    const n = 1 + Math.floor(random() * random() * 4);
    let w = '';
    for (let s = 0; s < n; s++) w += pick(onsets) + pick(vowels) + pick(codas);
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words.sort((x, y) => x.length - y.length);  // the common words are the short ones
}

function makeSentence(random, words) {
  const rank = () => Math.min(words.length - 1, Math.floor(Math.exp(random() * Math.log(words.length + 1))) - 1);
  const n = 5 + Math.floor(random() * 12);
  let s = '';
  for (let i = 0; i < n; i++) {
    let w = words[rank()];
    if (i === 0 || random() < 0.08) w = w[0].toUpperCase() + w.slice(1);
    if (random() < 0.04) w = String(Math.floor(random() * 2030));
    if (random() < 0.01) w = `(${w})`;
    if (random() < 0.01) w = `"${w}"`;
    if (i > 0) s += ' ';
    s += w;
    if (random() < 0.07 && i + 1 < n) s += ',';
    if (random() < 0.025) s += "'s";
  }
  return s + (random() < 0.75 ? '?' : '.');
}

function corpus(work, pairs) {
  const words = makeWords(rng(1234));
  const train = rng(99);
  const lines = [];
  for (let i = 0; i < 150000; i++) lines.push(makeSentence(train, words));
  writeText(path.join(work, 'corpus.txt'), lines.join('\n') + '\n');
  const bench = rng(4321);
  const rows = [];
  for (let i = 0; i < pairs; i++) rows.push(makeSentence(bench, words) + '\t' + makeSentence(bench, words));
  writeText(path.join(work, 'pairs.tsv'), rows.join('\n') + '\n');
}

// Trains `model` (an empty model) with the library's default trainer through the normalizer and
// pre-tokenizer of `json`; returns the trained model's JSON.
function libraryTrain(json, files, tmp) {
  const tok = T.Tokenizer.fromString(JSON.stringify(json));
  tok.train(files);
  tok.save(tmp, false);
  return readJSON(tmp).model;
}

function save(json, dir) {
  fs.mkdirSync(dir, {recursive: true});
  const file = path.join(dir, 'tokenizer.json');
  T.Tokenizer.fromString(JSON.stringify(json)).save(file, false);  // validated by the library
}

function buildRoberta(work, fixtures) {
  const json = readJSON(path.join(fixtures, 'roberta_bpe', 'tokenizer.json'));
  const empty = {...json.model, vocab: {}, merges: []};
  const trained = libraryTrain({...json, added_tokens: [], post_processor: null, model: empty},
    [path.join(work, 'corpus.txt')], path.join(work, 'bpe_trained.json'));
  const order = ['<s>', '<pad>', '</s>', '<unk>'];
  const seen = new Set(order);
  const push = (t) => { if (!seen.has(t)) { seen.add(t); order.push(t); } };
  gpt2ByteChars().forEach(push);
  const merges = [];
  for (const m of trained.merges) {
    const [a, b] = typeof m === 'string' ? m.split(' ') : m;
    if (order.length >= 50000 - 1) break;
    merges.push([a, b]);
    push(a + b);
  }
  order.push('<mask>');
  const vocab = {};
  order.forEach((t, i) => { vocab[t] = i; });
  json.model = {...json.model, vocab, merges};
  json.added_tokens = json.added_tokens.map((t) => (t.content === '<mask>' ? {...t, id: order.length - 1} : t));
  save(json, path.join(work, 'roberta_bpe'));
  return order.length;
}

function buildBert(work, fixtures) {
  const json = readJSON(path.join(fixtures, 'bert_wordpiece', 'tokenizer.json'));
  const empty = {...json.model, vocab: {}};
  const trained = libraryTrain({...json, added_tokens: [], post_processor: null, model: empty},
    [path.join(work, 'corpus.txt')], path.join(work, 'wordpiece_trained.json'));
  const order = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const seen = new Set(order);
  for (const [t] of Object.entries(trained.vocab).sort((x, y) => x[1] - y[1])) {
    if (!seen.has(t)) { seen.add(t); order.push(t); }
  }
  const ids = {};
  order.forEach((t, i) => { ids[t] = i; });
  json.model = {...json.model, vocab: ids};
  json.added_tokens = json.added_tokens.map((t) => ({...t, id: ids[t.content]}));
  for (const name of ['[CLS]', '[SEP]']) json.post_processor.special_tokens[name].ids = [ids[name]];
  const dir = path.join(work, 'bert_wordpiece');
  save(json, dir);
  writeText(path.join(dir, 'vocab_txt', 'vocab.txt'), order.join('\n') + '\n');
  return order.length;
}

function buildXlmr(work, fixtures) {
  const json = readJSON(path.join(fixtures, 'xlmr_unigram', 'tokenizer.json'));
  // fairseq's ids, as XLM-R's: <s> <pad> </s> <unk>, then SentencePiece's pieces past its own
  // <unk> <s> </s>, then <mask>.
  const pieces = readJSON(path.join(work, 'spm_pieces.json'));
  const vocab = [['<s>', 0], ['<pad>', 0], ['</s>', 0], ['<unk>', 0]];
  for (const [piece, score] of pieces.slice(3)) vocab.push([piece, score]);
  vocab.push(['<mask>', 0]);
  json.model = {...json.model, vocab, unk_id: 3};
  json.added_tokens = json.added_tokens.map((t) => (t.content === '<mask>' ? {...t, id: vocab.length - 1} : t));
  save(json, path.join(work, 'xlmr_unigram'));
  return vocab.length;
}

function build(work, fixtures) {
  console.log(`roberta_bpe: ${buildRoberta(work, fixtures)} tokens`);
  console.log(`bert_wordpiece: ${buildBert(work, fixtures)} tokens`);
  console.log(`xlmr_unigram: ${buildXlmr(work, fixtures)} tokens`);
}

async function bench(work, name, passes, idsFile) {
  const pairs = fs.readFileSync(path.join(work, 'pairs.tsv'), 'utf8').split('\n').filter((l) => l).map((l) => l.split('\t'));
  const bytes = pairs.reduce((n, [a, b]) => n + Buffer.byteLength(a) + Buffer.byteLength(b), 0);
  const tok = T.Tokenizer.fromFile(path.join(work, name, 'tokenizer.json'));
  tok.setTruncation(128);
  tok.setPadding({maxLength: 128});
  const median = async (pass) => {
    const first = await pass();
    const times = [];
    for (let p = 0; p < passes; p++) {
      const start = process.hrtime.bigint();
      await pass();
      times.push(Number(process.hrtime.bigint() - start) / 1e9);
    }
    times.sort((x, y) => x - y);
    return [times[Math.floor(times.length / 2)], first];
  };
  const [pairSeconds, encodings] = await median(async () => {
    const out = [];
    for (const [a, b] of pairs) out.push(await tok.encode(a, b));
    return out;
  });
  const singles = pairs.flat();
  tok.disablePadding();
  const [batchSeconds] = await median(async () => {
    for (let i = 0; i < singles.length; i += 1000) await tok.encodeBatch(singles.slice(i, i + 1000));
    return null;
  });
  let tokens = 0;
  const lines = encodings.map((e) => {
    const mask = e.getAttentionMask();
    const ids = e.getIds().filter((_, i) => mask[i] === 1);
    tokens += ids.length;
    return ids.join(' ');
  });
  if (idsFile) fs.writeFileSync(idsFile, lines.join('\n') + '\n');
  console.log('RESULT ' + JSON.stringify({side: 'hf', tokenizer: name, pairs: pairs.length, bytes, passes,
    tokens_per_pair: tokens / pairs.length, pairs_per_s: pairs.length / pairSeconds, mb_per_s: bytes / pairSeconds / 1e6,
    batch_pairs_per_s: pairs.length / batchSeconds, batch_mb_per_s: bytes / batchSeconds / 1e6}));
}

async function main() {
  const [command, work, ...rest] = process.argv.slice(2);
  const option = (flag, fallback) => {
    const at = rest.indexOf(flag);
    return at >= 0 ? rest[at + 1] : fallback;
  };
  if (command === 'corpus' && work) return corpus(work, Number(option('--pairs', 20000)));
  if (command === 'build' && work && rest[0]) return build(work, rest[0]);
  if (command === 'bench' && work && rest[0]) return bench(work, rest[0], Number(option('--passes', 3)), option('--ids', ''));
  console.error('usage: node tools/hf_tokenize_bench.js corpus WORK [--pairs N] | build WORK FIXTURES | ' +
    'bench WORK NAME [--passes N] [--ids FILE]');
  process.exit(2);
}

main().catch((e) => {
  console.error(`hf_tokenize_bench: ${e.stack || e}`);
  process.exit(1);
});

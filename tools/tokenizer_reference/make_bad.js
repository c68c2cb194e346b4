'use strict';
// Writes FIXTURES_DIR/bad/: broken tokenizer files for error tests, one folder per problem, each
// holding the file under the name a loader looks for, and bad/library_results.json: what HF's
// tokenizers (this Node binding) does with each (the .model files are checked by its
// sibling check_spm.py).
//
// Usage: node make_bad.js FIXTURES_DIR

const fs = require('fs');
const path = require('path');
const T = require('tokenizers');
const {writeText} = require('./util');

const fix = path.resolve(process.argv[2]);
const bad = path.join(fix, 'bad');
fs.rmSync(bad, {recursive: true, force: true});

const SPECIAL = {single_word: false, lstrip: false, rstrip: false, normalized: false, special: true};
const base = () => ({
  version: '1.0', truncation: null, padding: null,
  added_tokens: [{id: 0, content: '[UNK]', ...SPECIAL}],
  normalizer: {type: 'Lowercase'},
  pre_tokenizer: {type: 'WhitespaceSplit'},
  post_processor: null,
  decoder: null,
  model: {type: 'BPE', dropout: null, unk_token: '[UNK]', continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: false, byte_fallback: false, ignore_merges: false,
    vocab: {'[UNK]': 0, a: 1, b: 2, c: 3, ab: 4, abc: 5}, merges: [['a', 'b'], ['ab', 'c']]},
});

const cases = {
  valid_control: ['tokenizer.json', 'the valid tokenizer every other tokenizer.json here breaks in one place', (j) => j],
  unknown_normalizer_type: ['tokenizer.json', 'normalizer type "NFX" does not exist', (j) => { j.normalizer = {type: 'NFX'}; }],
  unknown_normalizer_in_sequence: ['tokenizer.json', 'a Sequence normalizer holding an unknown type',
    (j) => { j.normalizer = {type: 'Sequence', normalizers: [{type: 'NFC'}, {type: 'Uppercase'}]}; }],
  unknown_pre_tokenizer_type: ['tokenizer.json', 'pre_tokenizer type "WhitespaceSplitter" does not exist',
    (j) => { j.pre_tokenizer = {type: 'WhitespaceSplitter'}; }],
  unknown_model_type: ['tokenizer.json', 'model type "BPE2" does not exist', (j) => { j.model.type = 'BPE2'; }],
  unknown_post_processor_type: ['tokenizer.json', 'post_processor type "GPTProcessing" does not exist',
    (j) => { j.post_processor = {type: 'GPTProcessing'}; }],
  unknown_decoder_type: ['tokenizer.json', 'decoder type "Pieces" does not exist', (j) => { j.decoder = {type: 'Pieces'}; }],
  merge_token_not_in_vocab: ['tokenizer.json', 'merges entry ["ab", "z"]: "z" is not in the vocabulary',
    (j) => { j.model.merges.push(['ab', 'z']); }],
  merge_result_not_in_vocab: ['tokenizer.json', 'merges entry ["b", "c"]: the merged "bc" is not in the vocabulary',
    (j) => { j.model.merges.push(['b', 'c']); }],
  merge_string_one_token: ['tokenizer.json', 'merges in the "a b" string form with an entry "abc" of one token',
    (j) => { j.model.merges = ['a b', 'abc']; }],
  added_token_id_past_vocab_gap: ['tokenizer.json', 'added token "<x>" with id 50 while the vocabulary has 6 tokens (ids 6..49 missing)',
    (j) => { j.added_tokens.push({id: 50, content: '<x>', ...SPECIAL}); }],
  added_token_id_conflict: ['tokenizer.json', 'added token "<y>" claims id 2, which the model gives to "b"',
    (j) => { j.added_tokens.push({id: 2, content: '<y>', ...SPECIAL}); }],
  vocab_id_out_of_range: ['tokenizer.json', 'vocabulary ids 0..4 and 99 (a gap: id 99 past the token count)',
    (j) => { j.model.vocab = {'[UNK]': 0, a: 1, b: 2, c: 3, ab: 4, abc: 99}; }],
  vocab_duplicate_id: ['tokenizer.json', 'two vocabulary tokens with id 3', (j) => { j.model.vocab.c = 3; j.model.vocab.ab = 3; }],
  unk_token_not_in_vocab: ['tokenizer.json', 'BPE unk_token "<unk>" is not in the vocabulary', (j) => { j.model.unk_token = '<unk>'; }],
  unigram_unk_id_out_of_range: ['tokenizer.json', 'Unigram with unk_id 7 and 3 pieces', (j) => {
    j.model = {type: 'Unigram', unk_id: 7, vocab: [['<unk>', 0.0], ['a', -1.0], ['b', -2.0]], byte_fallback: false};
  }],
  wordpiece_vocab_not_object: ['tokenizer.json', 'WordPiece vocab given as a list', (j) => {
    j.model = {type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
      vocab: ['[UNK]', 'a', '##b']};
  }],
  split_regex_invalid: ['tokenizer.json', 'Split pre-tokenizer with the invalid regex "(a"', (j) => {
    j.pre_tokenizer = {type: 'Split', pattern: {Regex: '(a'}, behavior: 'Isolated', invert: false};
  }],
  template_unknown_special: ['tokenizer.json', 'TemplateProcessing naming "[CLS]" with no special_tokens entry for it', (j) => {
    j.post_processor = {type: 'TemplateProcessing', single: [{SpecialToken: {id: '[CLS]', type_id: 0}}, {Sequence: {id: 'A', type_id: 0}}],
      pair: [{Sequence: {id: 'A', type_id: 0}}, {Sequence: {id: 'B', type_id: 1}}], special_tokens: {}};
  }],
};

const results = {};
const tryLoad = async (file, encode = true) => {
  try {
    const tok = T.Tokenizer.fromFile(file);
    // template_unknown_special loads, then encode() panics (template.rs: "no entry found for key"),
    // which aborts the Node process
    if (!encode) return 'loads; encode() then panics ("no entry found for key", processors/template.rs)';
    const e = await tok.encode('abc b c z');
    const addedIds = JSON.parse(fs.readFileSync(file, 'utf8')).added_tokens
      .map((t) => `${t.content}=${tok.tokenToId(t.content)}`).join(' ');
    return `loads; encode("abc b c z") gives ids ${JSON.stringify(e.getIds())} tokens ${JSON.stringify(e.getTokens())}; `
      + `added tokens get ids ${addedIds}; id 3 is ${JSON.stringify(tok.idToToken(3))}`;
  } catch (e) {
    return 'error: ' + e.message.split('\n')[0];
  }
};

async function main() {
  for (const [name, [file, problem, edit]] of Object.entries(cases)) {
    const j = base();
    edit(j);
    const p = path.join(bad, name, file);
    writeText(p, JSON.stringify(j, null, 2) + '\n');
    results[name] = {file, problem, library: await tryLoad(p, name !== 'template_unknown_special')};
    if (name === 'vocab_duplicate_id') {
      // which of the two tokens id 3 turns back into follows hash order: it changes between runs
      results[name].library = 'loads; id 3 turns back into "c" or "ab" (hash order, changes between runs), '
        + 'so encode("abc b c z") gives ids [5,2,3,0] with tokens ["abc","b","c" or "ab","[UNK]"]';
    }
  }
  // the same tokenizer as vocab.json + merges.txt, broken
  const vocab = '{"[UNK]": 0, "a": 1, "b": 2, "c": 3, "ab": 4, "abc": 5}';
  const olds = {
    merges_txt_one_token_line: ['#version: 0.2\na b\nabc\n', 'merges.txt line 3 ("abc") has one token'],
    merges_txt_three_tokens_line: ['#version: 0.2\na b\nab c d\n', 'merges.txt line 3 ("ab c d") has three tokens'],
    merges_txt_unknown_token: ['#version: 0.2\na b\nab z\n', 'merges.txt line 3 ("ab z"): "z" is not in vocab.json'],
  };
  for (const [name, [merges, problem]] of Object.entries(olds)) {
    writeText(path.join(bad, name, 'vocab.json'), vocab);
    writeText(path.join(bad, name, 'merges.txt'), merges);
    let lib;
    try {
      const m = await T.BPE.fromFile(path.join(bad, name, 'vocab.json'), path.join(bad, name, 'merges.txt'));
      const tok = new T.Tokenizer(m);
      const e = await tok.encode('abc');
      lib = `loads; encode("abc") gives tokens ${JSON.stringify(e.getTokens())}`;
    } catch (e) {
      lib = 'error: ' + e.message.split('\n')[0];
    }
    results[name] = {file: 'vocab.json+merges.txt', problem, library: lib};
  }
  writeText(path.join(bad, 'vocab_json_not_object', 'vocab.json'), '["[UNK]", "a", "b"]\n');
  writeText(path.join(bad, 'vocab_json_not_object', 'merges.txt'), '#version: 0.2\na b\n');
  results.vocab_json_not_object = {file: 'vocab.json+merges.txt', problem: 'vocab.json is a list, not an object'};
  try {
    await T.BPE.fromFile(path.join(bad, 'vocab_json_not_object', 'vocab.json'), path.join(bad, 'vocab_json_not_object', 'merges.txt'));
    results.vocab_json_not_object.library = 'loads';
  } catch (e) {
    results.vocab_json_not_object.library = 'error: ' + e.message.split('\n')[0];
  }
  // files that are not JSON at all, or cut short
  const valid = JSON.stringify(base(), null, 2);
  writeText(path.join(bad, 'truncated_json', 'tokenizer.json'), valid.slice(0, Math.floor(valid.length / 2)));
  results.truncated_json = {file: 'tokenizer.json', problem: 'the valid file cut in half', library: await tryLoad(path.join(bad, 'truncated_json', 'tokenizer.json'))};
  writeText(path.join(bad, 'empty_file', 'tokenizer.json'), '');
  results.empty_file = {file: 'tokenizer.json', problem: 'zero bytes', library: await tryLoad(path.join(bad, 'empty_file', 'tokenizer.json'))};
  // SentencePiece models that are not: random bytes (a fixed LCG, so the file is reproducible)
  // and a real model cut short
  let x = 12345;
  const rnd = Buffer.alloc(1024);
  for (let i = 0; i < rnd.length; i++) { x = (x * 1103515245 + 12345) % 2147483648; rnd[i] = x >> 16 & 0xff; }
  fs.mkdirSync(path.join(bad, 'sentencepiece_random_bytes'), {recursive: true});
  fs.writeFileSync(path.join(bad, 'sentencepiece_random_bytes', 'sentencepiece.bpe.model'), rnd);
  results.sentencepiece_random_bytes = {file: 'sentencepiece.bpe.model', problem: '1024 random bytes, not a ModelProto'};
  const real = fs.readFileSync(path.join(fix, 'xlmr_unigram', 'sentencepiece.bpe.model'));
  fs.mkdirSync(path.join(bad, 'sentencepiece_truncated'), {recursive: true});
  fs.writeFileSync(path.join(bad, 'sentencepiece_truncated', 'sentencepiece.bpe.model'), real.subarray(0, 777));
  results.sentencepiece_truncated = {file: 'sentencepiece.bpe.model', problem: 'the first 777 bytes of xlmr_unigram/sentencepiece.bpe.model (cut inside a piece)'};
  writeText(path.join(bad, 'library_results.json'), JSON.stringify(results, null, 2) + '\n');
  for (const [k, v] of Object.entries(results)) console.log(k.padEnd(34), v.library || '(see check_spm.py)');
}

main().catch((e) => { console.error(e); process.exit(1); });

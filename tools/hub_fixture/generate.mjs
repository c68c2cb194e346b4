// Writes tests/fixtures/hub/: small splits of nyu-mll/glue (mrpc), rajpurkar/squad and
// rajpurkar/squad_v2 as parquet files laid out as the Hub stores them
// (<config>/<split>-00000-of-00001.parquet, with the `huggingface` features metadata that
// `datasets` writes), made from the test suite's own data with an independent writer: the Rust
// arrow/parquet crates compiled to WebAssembly (npm parquet-wasm) fed by Arrow JS. The tests
// build a Hugging Face cache around them (tests/e2e/hub_commands_test.cpp).
//
//   mkdir -p /tmp/pqref && cd /tmp/pqref && npm install parquet-wasm@0.8.0 apache-arrow@21.2.0
//   node tools/hub_fixture/generate.mjs /tmp/pqref/node_modules
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [modules = '/tmp/pqref/node_modules'] = process.argv.slice(2);
const arrow = await import(pathToFileURL(path.join(modules, 'apache-arrow/Arrow.node.mjs')).href);
const pq = await import(pathToFileURL(path.join(modules, 'parquet-wasm/node/parquet_wasm.js')).href);
const {Field, Struct, List, Utf8, Int32, Int64} = arrow;
const outDir = 'tests/fixtures/hub';

const listOf = (type) => new List(new Field('item', type, true));
const value = (dtype) => ({dtype, _type: 'Value'});

function write(file, fields, rows, features) {
  const columns = {};
  for (const [name, type] of fields) columns[name] = arrow.vectorFromArray(rows.map((r) => r[name]), type);
  const schema = new arrow.Schema(fields.map(([name, type]) => new Field(name, type, true)));
  const ipc = arrow.tableToIPC(new arrow.Table(schema, columns), 'stream');
  const props = new pq.WriterPropertiesBuilder()
                    .setCreatedBy('shmtrain hub fixture (parquet-wasm 0.8.0)')
                    .setCompression(pq.Compression.SNAPPY)
                    .setKeyValueMetadata(new Map([['huggingface', JSON.stringify({info: {features}})]]))
                    .build();
  const bytes = pq.writeParquet(pq.Table.fromIPCStream(ipc), props);
  fs.mkdirSync(path.dirname(path.join(outDir, file)), {recursive: true});
  fs.writeFileSync(path.join(outDir, file), bytes);
  console.log(`${file}: ${bytes.length} bytes, ${rows.length} rows`);
}

// GLUE MRPC from the demo's MRPC-format files: Quality, #1 ID, #2 ID, #1 String, #2 String.
function mrpcRows(tsv, count, labelled) {
  const lines = fs.readFileSync(tsv, 'utf8').split('\n').slice(1).filter((l) => l.length > 0).slice(0, count);
  return lines.map((line, idx) => {
    const [quality, , , s1, s2] = line.split('\t');
    return {sentence1: s1, sentence2: s2, label: BigInt(labelled ? Number(quality) : -1), idx};
  });
}
const glueFields = [['sentence1', new Utf8()], ['sentence2', new Utf8()], ['label', new Int64()], ['idx', new Int32()]];
const glueFeatures = {sentence1: value('string'), sentence2: value('string'),
                      label: {names: ['not_equivalent', 'equivalent'], _type: 'ClassLabel'}, idx: value('int32')};
write('glue/mrpc/train-00000-of-00001.parquet', glueFields, mrpcRows('demo/paraphrase/train.tsv', 320, true),
      glueFeatures);
write('glue/mrpc/validation-00000-of-00001.parquet', glueFields, mrpcRows('demo/paraphrase/dev.tsv', 64, true),
      glueFeatures);
// GLUE's test splits carry label -1; these are the validation pairs, so a prediction run over
// them can be scored against the validation labels.
write('glue/mrpc/test-00000-of-00001.parquet', glueFields, mrpcRows('demo/paraphrase/dev.tsv', 64, false),
      glueFeatures);

// SQuAD in the flat form of rajpurkar/squad (id, title, context, question, answers).
function squadRows(file) {
  const rows = [];
  for (const article of JSON.parse(fs.readFileSync(file, 'utf8')).data) {
    for (const paragraph of article.paragraphs) {
      for (const qa of paragraph.qas) {
        rows.push({id: qa.id, title: article.title, context: paragraph.context, question: qa.question,
                   answers: {text: qa.answers.map((a) => a.text), answer_start: qa.answers.map((a) => a.answer_start)}});
      }
    }
  }
  return rows;
}
const squadFields = [['id', new Utf8()], ['title', new Utf8()], ['context', new Utf8()], ['question', new Utf8()],
                     ['answers', new Struct([new Field('text', listOf(new Utf8()), true),
                                             new Field('answer_start', listOf(new Int32()), true)])]];
const squadFeatures = {id: value('string'), title: value('string'), context: value('string'), question: value('string'),
                       answers: {feature: {text: value('string'), answer_start: value('int32')}, _type: 'Sequence'}};
write('squad/plain_text/train-00000-of-00001.parquet', squadFields, squadRows('tests/fixtures/squad_tiny/train.json'),
      squadFeatures);
write('squad/plain_text/validation-00000-of-00001.parquet', squadFields,
      squadRows('tests/fixtures/squad_tiny/dev.json'), squadFeatures);
if (fs.existsSync('tests/fixtures/squad_v2_tiny/train.json')) {
  write('squad_v2/squad_v2/train-00000-of-00001.parquet', squadFields,
        squadRows('tests/fixtures/squad_v2_tiny/train.json'), squadFeatures);
  write('squad_v2/squad_v2/validation-00000-of-00001.parquet', squadFields,
        squadRows('tests/fixtures/squad_v2_tiny/dev.json'), squadFeatures);
}

// conll2003 as the Hub's parquet export of eriktks/conll2003 holds it
// (refs/convert/parquet: conll2003/<split>/0000.parquet), from the toy NER set's CoNLL files:
// tags as ClassLabel indices (ner_tags with CoNLL-2003's names; pos_tags and chunk_tags named
// by the tags the toy set uses).
function conllSentences(file) {
  const sentences = [];
  let words = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('-DOCSTART-')) continue;
    if (line.trim() === '') {
      if (words.length > 0) sentences.push(words);
      words = [];
      continue;
    }
    words.push(line.split(' '));
  }
  if (words.length > 0) sentences.push(words);
  return sentences;
}
const nerFiles = {train: 'train.txt', validation: 'dev.txt', test: 'test.txt'};
const nerNames = ['O', 'B-PER', 'I-PER', 'B-ORG', 'I-ORG', 'B-LOC', 'I-LOC', 'B-MISC', 'I-MISC'];
const splits = Object.fromEntries(Object.entries(nerFiles).map(([split, file]) =>
    [split, conllSentences(path.join('tests/fixtures/ner_tiny', file))]));
const namesOf = (column) => [...new Set(Object.values(splits).flat().flat().map((w) => w[column]))].sort();
const posNames = namesOf(1);
const chunkNames = namesOf(2);
const classes = (names) => ({feature: {names, _type: 'ClassLabel'}, _type: 'Sequence'});
const nerFeatures = {id: value('string'), tokens: {feature: value('string'), _type: 'Sequence'},
                     pos_tags: classes(posNames), chunk_tags: classes(chunkNames), ner_tags: classes(nerNames)};
const nerFields = [['id', new Utf8()], ['tokens', listOf(new Utf8())], ['pos_tags', listOf(new Int64())],
                   ['chunk_tags', listOf(new Int64())], ['ner_tags', listOf(new Int64())]];
for (const [split, sentences] of Object.entries(splits)) {
  const rows = sentences.map((words, i) => ({
    id: String(i), tokens: words.map((w) => w[0]),
    pos_tags: words.map((w) => BigInt(posNames.indexOf(w[1]))),
    chunk_tags: words.map((w) => BigInt(chunkNames.indexOf(w[2]))),
    ner_tags: words.map((w) => BigInt(nerNames.indexOf(w[3]))),
  }));
  write(`conll2003/conll2003/${split}/0000.parquet`, nerFields, rows, nerFeatures);
}

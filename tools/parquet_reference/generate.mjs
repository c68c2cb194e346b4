// Writes the Parquet fixtures of tests/fixtures/parquet/ with an independent writer: the Rust
// arrow/parquet crates compiled to WebAssembly (npm parquet-wasm), fed Arrow tables built with
// Arrow JS (npm apache-arrow). Each <name>.parquet gets <name>.expected.jsonl: the rows the
// writer was given, one JSON object per line, keys in column order (int64 values as exact
// integers). shmtrain's reader must give back exactly these rows.
//
//   mkdir -p /tmp/pqref && cd /tmp/pqref && npm install parquet-wasm@0.8.0 apache-arrow@21.2.0
//   node tools/parquet_reference/generate.mjs /tmp/pqref/node_modules tests/fixtures/parquet
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [modules = '/tmp/pqref/node_modules', outDir = 'tests/fixtures/parquet'] = process.argv.slice(2);
const arrow = await import(pathToFileURL(path.join(modules, 'apache-arrow/Arrow.node.mjs')).href);
const pq = await import(pathToFileURL(path.join(modules, 'parquet-wasm/node/parquet_wasm.js')).href);
const {Field, Struct, List, Utf8, Int32, Int64, Uint32, Uint64, Float32, Float64, Bool} = arrow;

// A deterministic generator, so that rerunning gives the same files.
let seed = 12345;
function rand(n) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}
const pick = (items) => items[rand(items.length)];

const words = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'café', 'naïve', 'Zürich', '日本語', 'Москва',
               'emoji 🙂', 'Ω', '', 'tab\there', 'quote"', 'back\\slash', 'new\nline'];
const sentence = (n) => Array.from({length: n}, () => pick(words)).join(' ');

// One field per column: [name, Arrow type, nullable]. Values are JS values; int64/uint64
// columns take BigInt.
function listOf(type, name = 'item', nullable = true) { return new List(new Field(name, type, nullable)); }
function toArrow(type, value) {
  if (value === null || value === undefined) return null;
  if (type instanceof Int64 || type instanceof Uint64) return BigInt(value);
  if (type instanceof List) return value.map((v) => toArrow(type.children[0].type, v));
  if (type instanceof Struct) {
    const out = {};
    for (const f of type.children) out[f.name] = toArrow(f.type, value[f.name]);
    return out;
  }
  return value;
}
function table(fields, rows) {
  const columns = {};
  for (const [name, type, nullable = true] of fields) {
    columns[name] = arrow.vectorFromArray(rows.map((r) => toArrow(type, r[name])), type);
    if (!nullable && columns[name].nullCount > 0) throw new Error(`${name}: nulls in a required column`);
  }
  const schema = new arrow.Schema(fields.map(([name, type, nullable = true]) => new Field(name, type, nullable)));
  return new arrow.Table(schema, columns);
}

// JSON with BigInt written as exact integers.
function jsonLine(row, fields) {
  const ordered = {};
  for (const [name] of fields) ordered[name] = row[name] === undefined ? null : row[name];
  return JSON.stringify(ordered, (k, v) => (typeof v === 'bigint' ? `__big__${v}` : v))
      .replace(/"__big__(-?\d+)"/g, '$1');
}

function write(name, fields, rows, configure, metadata) {
  let builder = new pq.WriterPropertiesBuilder().setCreatedBy('shmtrain fixture (parquet-wasm 0.8.0)');
  builder = configure(builder);
  if (metadata) builder = builder.setKeyValueMetadata(new Map(Object.entries(metadata)));
  const ipc = arrow.tableToIPC(table(fields, rows), 'stream');
  const bytes = pq.writeParquet(pq.Table.fromIPCStream(ipc), builder.build());
  fs.writeFileSync(path.join(outDir, `${name}.parquet`), bytes);
  fs.writeFileSync(path.join(outDir, `${name}.expected.jsonl`), rows.map((r) => jsonLine(r, fields)).join('\n') + '\n');
  console.log(`${name}.parquet: ${bytes.length} bytes, ${rows.length} rows`);
}

const {Compression: C, Encoding: E, WriterVersion: V} = pq;
fs.mkdirSync(outDir, {recursive: true});

// Scalars of every physical type, with nulls, extremes and non-ASCII text.
const scalarFields = [['i32', new Int32()], ['i64', new Int64()], ['u32', new Uint32()], ['u64', new Uint64()],
                      ['f32', new Float32()], ['f64', new Float64()], ['flag', new Bool()], ['text', new Utf8()],
                      ['req', new Int32(), false]];
const scalarRows = [];
for (let i = 0; i < 60; ++i) {
  const nullish = (v) => (rand(7) === 0 ? null : v);
  scalarRows.push({
    i32: nullish(rand(2000) - 1000),
    i64: nullish(BigInt(rand(1000000)) * 1000003n - 500000000000n),
    u32: nullish(rand(100) * 40000000),
    u64: nullish(BigInt(rand(1000)) * 18446744073709551n),
    f32: nullish((rand(4000) - 2000) / 16),
    f64: nullish((rand(100000) - 50000) / 1000),
    flag: nullish(rand(2) === 1),
    text: nullish(sentence(rand(5))),
    req: i * 3,
  });
}
scalarRows.push({i32: 2147483647, i64: 9223372036854775807n, u32: 4294967295, u64: 18446744073709551615n,
                 f32: 3.4028234663852886e38, f64: 1e300, flag: true, text: 'Ünïcödé ✓ 𝄞', req: -2147483648});
scalarRows.push({i32: -2147483648, i64: -9223372036854775808n, u32: 0, u64: 0n, f32: -0.5, f64: -2.5e-300,
                 flag: false, text: '', req: 0});
scalarRows.push({i32: null, i64: null, u32: null, u64: null, f32: null, f64: null, flag: null, text: null, req: 7});

write('scalars_plain_v1_none', scalarFields, scalarRows,
      (b) => b.setCompression(C.UNCOMPRESSED).setDictionaryEnabled(false).setWriterVersion(V.V1));
write('scalars_dict_v1_snappy', scalarFields, scalarRows,
      (b) => b.setCompression(C.SNAPPY).setDictionaryEnabled(true).setWriterVersion(V.V1));
write('scalars_dict_v2_zstd', scalarFields, scalarRows,
      (b) => b.setCompression(C.ZSTD).setDictionaryEnabled(true).setWriterVersion(V.V2));
write('scalars_plain_v2_gzip', scalarFields, scalarRows,
      (b) => b.setCompression(C.GZIP).setDictionaryEnabled(false).setWriterVersion(V.V2));

// The DELTA_* and BYTE_STREAM_SPLIT encodings, in data pages v1 and v2.
const deltaFields = [['id', new Int64(), false], ['small', new Int32()], ['big', new Int64()], ['f32', new Float32()],
                     ['f64', new Float64()], ['words', new Utf8()], ['urls', new Utf8()]];
const deltaRows = [];
for (let i = 0; i < 120; ++i) {
  deltaRows.push({
    id: BigInt(i * 7),
    small: rand(11) === 0 ? null : rand(50) - 25 + (i % 3 === 0 ? 1000000 : 0),
    big: rand(13) === 0 ? null : BigInt(rand(1000)) * 9007199254740993n - 4503599627370496n * 1000n,
    f32: (rand(1000) - 500) / 4,
    f64: rand(9) === 0 ? null : (rand(1000000) - 500000) / 3,
    words: rand(10) === 0 ? null : sentence(1 + rand(4)),
    urls: rand(10) === 0 ? null : `https://example.org/${pick(['wiki', 'wiki/Zürich', 'data'])}/${rand(40)}`,
  });
}
for (const [version, codec, suffix] of [[V.V1, C.ZSTD, 'v1_zstd'], [V.V2, C.UNCOMPRESSED, 'v2_none']]) {
  write(`delta_${suffix}`, deltaFields, deltaRows, (b) =>
      b.setCompression(codec).setDictionaryEnabled(false).setWriterVersion(version)
       .setColumnEncoding('id', E.DELTA_BINARY_PACKED).setColumnEncoding('small', E.DELTA_BINARY_PACKED)
       .setColumnEncoding('big', E.DELTA_BINARY_PACKED).setColumnEncoding('f32', E.BYTE_STREAM_SPLIT)
       .setColumnEncoding('f64', E.BYTE_STREAM_SPLIT).setColumnEncoding('words', E.DELTA_LENGTH_BYTE_ARRAY)
       .setColumnEncoding('urls', E.DELTA_BYTE_ARRAY).setDataPageSizeLimit(300).setWriteBatchSize(20));
}

// Several row groups, several pages per chunk, and dictionaries that overflow into plain pages.
const pagedFields = [['id', new Int64(), false], ['text', new Utf8()], ['tags', listOf(new Int32())],
                     ['score', new Float64()]];
const pagedRows = [];
for (let i = 0; i < 400; ++i) {
  pagedRows.push({
    id: BigInt(i),
    text: rand(20) === 0 ? null : `${pick(words)} ${i % 97}`,
    tags: rand(15) === 0 ? null : Array.from({length: rand(4)}, () => (rand(10) === 0 ? null : rand(9))),
    score: rand(6) / 4,
  });
}
write('paged_v1_snappy', pagedFields, pagedRows, (b) =>
    b.setCompression(C.SNAPPY).setWriterVersion(V.V1).setMaxRowGroupSize(150).setDataPageSizeLimit(200)
     .setDictionaryPageSizeLimit(120).setWriteBatchSize(10));
write('paged_v2_gzip', pagedFields, pagedRows, (b) =>
    b.setCompression(C.GZIP).setWriterVersion(V.V2).setMaxRowGroupSize(130).setDataPageSizeLimit(200)
     .setDictionaryPageSizeLimit(120).setWriteBatchSize(10));

// Nulls at every level of nesting.
const nestedFields = [
  ['ints', listOf(new Int32())],
  ['record', new Struct([new Field('a', new Int32(), true), new Field('b', listOf(new Utf8()), true)])],
  ['pairs', listOf(new Struct([new Field('x', new Int64(), true), new Field('y', new Utf8(), true)]))],
  ['grid', listOf(listOf(new Int32()))],
  ['strict', listOf(new Utf8(), 'element', false), false],
];
const nestedRows = [
  {ints: [1, 2, 3], record: {a: 1, b: ['x', 'y']}, pairs: [{x: 1n, y: 'one'}], grid: [[1, 2], [3]], strict: ['a']},
  {ints: [], record: {a: null, b: []}, pairs: [], grid: [], strict: []},
  {ints: null, record: null, pairs: null, grid: null, strict: ['b', 'c']},
  {ints: [null, 4, null], record: {a: 5, b: null}, pairs: [null, {x: null, y: null}, {x: 2n, y: 'zwei'}],
   grid: [null, [], [null], [4, null, 5]], strict: []},
  {ints: [null], record: {a: null, b: [null, 'ü']}, pairs: [{x: -3n, y: ''}], grid: [[]], strict: ['日本']},
];
write('nested_nulls_v1', nestedFields, nestedRows,
      (b) => b.setCompression(C.SNAPPY).setWriterVersion(V.V1));
write('nested_nulls_v2', nestedFields, nestedRows,
      (b) => b.setCompression(C.ZSTD).setWriterVersion(V.V2).setDictionaryEnabled(false));

// Hugging Face datasets' shapes, with the `huggingface` metadata `datasets` writes.
const hf = (features) => ({huggingface: JSON.stringify({info: {features}})});
const value = (dtype) => ({dtype, _type: 'Value'});

const squadFields = [['id', new Utf8()], ['title', new Utf8()], ['context', new Utf8()], ['question', new Utf8()],
                     ['answers', new Struct([new Field('text', listOf(new Utf8())),
                                             new Field('answer_start', listOf(new Int32()))])]];
const context1 = 'Architecturally, the school has a Catholic character. Atop the Main Building\'s gold dome is a golden statue of the Virgin Mary.';
const context2 = 'Zürich is the largest city in Switzerland. Its name in Romansh is Turitg; in Italian, Zurigo.';
const squadRows = [
  {id: '5733be284776f41900661182', title: 'University_of_Notre_Dame', context: context1,
   question: 'What sits on top of the Main Building?', answers: {text: ['a golden statue of the Virgin Mary'], answer_start: [92]}},
  {id: '5733be284776f4190066117f', title: 'University_of_Notre_Dame', context: context1,
   question: 'What character does the school have?', answers: {text: ['Catholic', 'a Catholic character'], answer_start: [34, 32]}},
  {id: 'zurich-1', title: 'Zürich', context: context2, question: 'What is Zürich called in Italian?',
   answers: {text: ['Zurigo'], answer_start: [87]}},
  {id: 'zurich-2', title: 'Zürich', context: context2, question: 'What is the capital of Switzerland?',
   answers: {text: [], answer_start: []}},
];
const squadFeatures = {id: value('string'), title: value('string'), context: value('string'), question: value('string'),
                       answers: {feature: {text: value('string'), answer_start: value('int32')}, _type: 'Sequence'}};
write('squad_v1_snappy', squadFields, squadRows, (b) => b.setCompression(C.SNAPPY).setWriterVersion(V.V1),
      hf(squadFeatures));

const glueFields = [['sentence1', new Utf8()], ['sentence2', new Utf8()], ['label', new Int64()], ['idx', new Int32()]];
const glueRows = [];
for (let i = 0; i < 12; ++i) {
  glueRows.push({sentence1: `Amrozi accused his brother ${sentence(3)} .`, sentence2: `Referring to him ${sentence(4)} .`,
                 label: BigInt(rand(2)), idx: i});
}
const glueFeatures = {sentence1: value('string'), sentence2: value('string'),
                      label: {names: ['not_equivalent', 'equivalent'], _type: 'ClassLabel'}, idx: value('int32')};
write('glue_mrpc_v1_snappy', glueFields, glueRows, (b) => b.setCompression(C.SNAPPY).setWriterVersion(V.V1),
      hf(glueFeatures));

const nerNames = ['O', 'B-PER', 'I-PER', 'B-ORG', 'I-ORG', 'B-LOC', 'I-LOC', 'B-MISC', 'I-MISC'];
const nerRows = [
  {id: '0', tokens: ['EU', 'rejects', 'German', 'call', 'to', 'boycott', 'British', 'lamb', '.'], ner_tags: [3, 0, 7, 0, 0, 0, 7, 0, 0]},
  {id: '1', tokens: ['Peter', 'Blackburn'], ner_tags: [1, 2]},
  {id: '2', tokens: ['BRUSSELS', '1996-08-22'], ner_tags: [5, 0]},
  {id: '3', tokens: [], ner_tags: []},
  {id: '4', tokens: ['Ölkonzern', 'in', 'München'], ner_tags: [3, 0, 5]},
];
for (const row of nerRows) row.ner_tags = row.ner_tags.map(BigInt);
const nerSequence = {id: value('string'), tokens: {feature: value('string'), _type: 'Sequence'},
                     ner_tags: {feature: {names: nerNames, _type: 'ClassLabel'}, _type: 'Sequence'}};
write('ner_sequence_v1_snappy', [['id', new Utf8()], ['tokens', listOf(new Utf8())], ['ner_tags', listOf(new Int64())]],
      nerRows, (b) => b.setCompression(C.SNAPPY).setWriterVersion(V.V1), hf(nerSequence));
const nerList = {id: value('string'), tokens: {feature: value('string'), _type: 'List'},
                 ner_tags: {feature: {names: nerNames, _type: 'ClassLabel'}, _type: 'List'}};
write('ner_list_v2_zstd',
      [['id', new Utf8()], ['tokens', listOf(new Utf8(), 'element')], ['ner_tags', listOf(new Int64(), 'element')]],
      nerRows, (b) => b.setCompression(C.ZSTD).setWriterVersion(V.V2), hf(nerList));

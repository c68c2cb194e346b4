// Writes tests/fixtures/hub/: small splits of nyu-mll/glue (mrpc), rajpurkar/squad,
// rajpurkar/squad_v2, eriktks/conll2003, Salesforce/wikitext (wikitext-2-raw-v1), allenai/swag
// (regular), sentence-transformers/all-nli (triplet: train and dev) and a NanoBEIR-style set
// (nano_paraphrase: corpus, queries, qrels) as parquet files laid out as the Hub stores them
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

// Salesforce/wikitext, config wikitext-2-raw-v1: one `text` column of raw lines as wikitext keeps
// them: articles made of a blank line, a title line " = Title = \n", a blank line, paragraph
// lines " ... \n" (each non-empty line keeps wikitext's leading space and trailing " \n"), and
// sections " = = Heading = = \n" set off by blank lines. Paragraphs join 3-5 of the demo's MRPC
// sentences (#1 and #2 strings, in file order); titles are the first proper name in the
// article's first sentence. train from demo/paraphrase/train.tsv, validation and test from
// successive, disjoint parts of demo/paraphrase/dev.tsv.
const mrpcSentences = (tsv) => fs.readFileSync(tsv, 'utf8').split('\n').slice(1).filter((l) => l.length > 0)
                                   .flatMap((l) => l.split('\t').slice(3, 5));
const weekdays = new Set(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']);
const notNames = new Set(['On', 'In', 'According', 'Sources', 'Shares', 'Police', 'Witnesses', 'Officials', 'The']);
function titleOf(sentence, article) {
  const name = [];
  for (const token of sentence.split(' ')) {
    const word = token.replace(/[.,]$/, '');
    if (/^[A-Z][a-z]+$/.test(word) && !weekdays.has(word) && !notNames.has(word)) name.push(word);
    else if (name.length > 0) break;
    if (name.length > 0 && word !== token) break;  // a name ends at punctuation
  }
  return name.length > 0 ? name.join(' ') : `Article ${article + 1}`;
}
const headings = ['History', 'Background', 'Reception', 'Legacy', 'Operations', 'Aftermath'];
// Lines of whole articles from sentences[from...] until about `target` lines; returns the
// lines and the index of the first sentence left unused.
function wikitextLines(sentences, from, target) {
  const lines = [];
  let next = from;
  let paragraph = 0;
  const para = () => {
    const count = 3 + (paragraph++ % 3);
    const text = sentences.slice(next, next + count).join(' ');
    next += count;
    return ` ${text} \n`;
  };
  for (let article = 0; lines.length < target; ++article) {
    lines.push('', ` = ${titleOf(sentences[next], article)} = \n`, '');
    for (let p = 0; p < 2 + (article % 2); ++p) lines.push(para());
    for (let s = 0; s < 2 && lines.length < target; ++s) {
      lines.push('', ` = = ${headings[(2 * article + s) % headings.length]} = = \n`, '');
      for (let p = 0; p < 2 + ((article + s) % 3); ++p) lines.push(para());
    }
  }
  if (next > sentences.length) throw new Error('wikitext: not enough demo sentences');
  return {lines, next};
}
const wikiFields = [['text', new Utf8()]];
const wikiFeatures = {text: value('string')};
const wikiRows = (lines) => lines.map((text) => ({text}));
{
  const train = wikitextLines(mrpcSentences('demo/paraphrase/train.tsv'), 0, 400);
  write('wikitext/wikitext-2-raw-v1/train-00000-of-00001.parquet', wikiFields, wikiRows(train.lines), wikiFeatures);
  const dev = mrpcSentences('demo/paraphrase/dev.tsv');
  const validation = wikitextLines(dev, 0, 80);
  write('wikitext/wikitext-2-raw-v1/validation-00000-of-00001.parquet', wikiFields, wikiRows(validation.lines),
        wikiFeatures);
  const test = wikitextLines(dev, validation.next, 80);
  write('wikitext/wikitext-2-raw-v1/test-00000-of-00001.parquet', wikiFields, wikiRows(test.lines), wikiFeatures);
}

// allenai/swag, config regular, from the demo's paraphrase pairs (Quality 1 rows): sent1 is the
// #1 string, sent2 the first 2-4 words of its paraphrase (#2 string), the gold ending the rest
// of that paraphrase; the three wrong endings are the tails (after as many words) of other
// rows' #2 strings in the same split. The gold ending's index, the label, cycles 0,1,2,3; the
// test split has label -1 as SWAG's does. train from demo/paraphrase/train.tsv, validation and
// test from successive, disjoint parts of demo/paraphrase/dev.tsv.
const paraphrasePairs = (tsv) => fs.readFileSync(tsv, 'utf8').split('\n').slice(1).filter((l) => l.length > 0)
                                     .map((l) => l.split('\t')).filter((f) => f[0] === '1')
                                     .map(([, id1, id2, s1, s2]) => ({id1, id2, s1, s2}));
const tailAfter = (sentence, words) => sentence.split(' ').slice(words).join(' ');
function swagRows(pairs, labelled) {
  return pairs.map((pair, i) => {
    const words = 2 + (i % 3);
    const sent2 = pair.s2.split(' ').slice(0, words).join(' ');
    const gold = tailAfter(pair.s2, words);
    const wrong = [];
    for (const offset of [5, 11, 17, 23, 29, 7, 13, 19]) {
      const tail = tailAfter(pairs[(i + offset) % pairs.length].s2, words);
      if (wrong.length < 3 && tail.length > 0 && tail !== gold && !wrong.includes(tail)) wrong.push(tail);
    }
    if (gold.length === 0 || wrong.length < 3) throw new Error(`swag: no endings for ${pair.id1}`);
    const label = i % 4;
    const endings = [...wrong.slice(0, label), gold, ...wrong.slice(label)];
    return {'video-id': `mrpc_${pair.id1}_${pair.id2}`, 'fold-ind': String(i), startphrase: `${pair.s1} ${sent2}`,
            sent1: pair.s1, sent2, 'gold-source': 'gold', ending0: endings[0], ending1: endings[1],
            ending2: endings[2], ending3: endings[3], label: BigInt(labelled ? label : -1)};
  });
}
const swagStrings = ['video-id', 'fold-ind', 'startphrase', 'sent1', 'sent2', 'gold-source', 'ending0', 'ending1',
                     'ending2', 'ending3'];
const swagFields = [...swagStrings.map((name) => [name, new Utf8()]), ['label', new Int64()]];
const swagFeatures = {...Object.fromEntries(swagStrings.map((name) => [name, value('string')])),
                      label: {names: ['0', '1', '2', '3'], _type: 'ClassLabel'}};
{
  const train = paraphrasePairs('demo/paraphrase/train.tsv');
  const dev = paraphrasePairs('demo/paraphrase/dev.tsv');
  if (train.length < 96 || dev.length < 64) throw new Error('swag: not enough paraphrase pairs');
  write('swag/regular/train-00000-of-00001.parquet', swagFields, swagRows(train.slice(0, 96), true), swagFeatures);
  write('swag/regular/validation-00000-of-00001.parquet', swagFields, swagRows(dev.slice(0, 32), true),
        swagFeatures);
  write('swag/regular/test-00000-of-00001.parquet', swagFields, swagRows(dev.slice(32, 64), false), swagFeatures);
}

// sentence-transformers/all-nli, config triplet (anchor, positive, negative; splits train, dev and
// test as the Hub has them, no `validation`), from the demo's paraphrase pairs: a Quality 1 pair's
// two sentences as anchor and positive, the #2 string of a Quality 0 pair of the same file as the
// negative.
function tripletRows(tsv, count) {
  const rows = fs.readFileSync(tsv, 'utf8').split('\n').slice(1).filter((l) => l.length > 0).map((l) => l.split('\t'));
  const positives = rows.filter((f) => f[0] === '1');
  const negatives = rows.filter((f) => f[0] === '0').map((f) => f[4]);
  return positives.slice(0, count).map((f, i) => ({anchor: f[3], positive: f[4], negative: negatives[i]}));
}
const tripletFields = ['anchor', 'positive', 'negative'].map((name) => [name, new Utf8()]);
const tripletFeatures = Object.fromEntries(['anchor', 'positive', 'negative'].map((name) => [name, value('string')]));
{
  const train = tripletRows('demo/paraphrase/train.tsv', 64);
  const dev = tripletRows('demo/paraphrase/dev.tsv', 48);
  write('all-nli/triplet/train-00000-of-00001.parquet', tripletFields, train, tripletFeatures);
  write('all-nli/triplet/dev-00000-of-00001.parquet', tripletFields, dev.slice(0, 24), tripletFeatures);
  write('all-nli/triplet/test-00000-of-00001.parquet', tripletFields, dev.slice(24), tripletFeatures);
}

// A NanoBEIR-style retrieval set (zeta-alpha-ai/NanoMSMARCO's layout: configs corpus {_id, text},
// queries {_id, text} and qrels {query-id, corpus-id}, each a train split), from the demo's dev
// paraphrase pairs: query q<i> is a pair's #1 string, its relevant document d<i> the #2 string,
// and every third query has a second relevant document, the next pair's. Document d5's text is
// empty (NanoBEIREvaluator drops it, and query q5 keeps it as an unretrievable relevant one beside
// d6); query q9 has no judgement; documents d40.. are distractors no query is judged against.
{
  const pairs = paraphrasePairs('demo/paraphrase/dev.tsv');
  const corpus = pairs.slice(0, 48).map((p, i) => ({_id: `d${i}`, text: i === 5 ? '' : p.s2}));
  const queries = pairs.slice(0, 40).map((p, i) => ({_id: `q${i}`, text: p.s1}));
  const qrels = [];
  for (let i = 0; i < 40; ++i) {
    if (i === 9) continue;
    qrels.push({'query-id': `q${i}`, 'corpus-id': `d${i}`});
    if (i % 3 === 2 || i === 5) qrels.push({'query-id': `q${i}`, 'corpus-id': `d${i + 1}`});
  }
  const strings = (names) => names.map((name) => [name, new Utf8()]);
  const features = (names) => Object.fromEntries(names.map((name) => [name, value('string')]));
  write('nano_paraphrase/corpus/train-00000-of-00001.parquet', strings(['_id', 'text']), corpus,
        features(['_id', 'text']));
  write('nano_paraphrase/queries/train-00000-of-00001.parquet', strings(['_id', 'text']), queries,
        features(['_id', 'text']));
  write('nano_paraphrase/qrels/train-00000-of-00001.parquet', strings(['query-id', 'corpus-id']), qrels,
        features(['query-id', 'corpus-id']));
}

'use strict';
// The inputs of the reference cases (make_cases.js).

const LONG = 'The committee met on Tuesday, 14 March 2023, to review the budget. Members didn\'t agree on ' +
  'everything: some wanted more money for schools, others for roads. After three hours, they voted 7-2 to ' +
  'approve the plan, which costs $1.2 million. The mayor said it\'s "a good day for the city" \u2014 but ' +
  'critics weren\'t convinced.';
// The text of the single-sequence truncation cases (windows with a stride).
const MEDIUM = 'The committee met on Tuesday, 14 March 2023, to review the budget. Members didn\'t agree on ' +
  'everything.';

// Every tokenizer encodes all of these (with its special tokens, and a share without).
const COMMON = [
  'Hello world!',
  'Hello, world! How are you doing today?',
  'The quick brown fox jumps over the lazy dog.',
  'I don\'t think they\'ll be here; we\'ve waited 2 hours.',
  'DON\'T SHOUT, it\'s rude. She\'d\'ve known! I\'m sure you\'re right.',
  'don\u2019t use curly apostrophes \u201csmart quotes\u201d',
  'The year 2024 had 366 days, and 3.14159 is pi.',
  'Call 555-0123 or +1 (800) 123-4567 now.',
  'Prices: $45.99, \u20ac12,50, \u00a37 and \u00a51000.',
  '1,000,000.50 12345678901234567890',
  'state-of-the-art fine-tuning of pre-trained models',
  'e-mail: support@example.com; web: https://example.com/path?q=1&x=2#top',
  'for (int i = 0; i < n; ++i) { sum += a[i]; }',
  '#hashtag @mention $VAR %20 ^_^ ~tilde~ `code` |pipe| \\backslash/',
  '<html><body>Hello</body></html>',
  'tokenization TOKENIZATION Tokenization tokenizer\'s tokenizers',
  'Multiple   spaces   between   words',
  '  leading spaces',
  'trailing spaces   ',
  '   both sides   ',
  '\tTabs\tand\nnewlines\r\nhere\n',
  'line one\n\nline three',
  '',
  ' ',
  '   ',
  '\n',
  '\t \n \r ',
  'a',
  '.',
  '...!?',
  'h\u00e9llo w\u00f6rld \u65e5\u672c \ud83d\ude00',
  'caf\u00e9 r\u00e9sum\u00e9 na\u00efve fa\u00e7ade co\u00f6perate',
  'cafe\u0301 re\u0301sume\u0301 nai\u0308ve fac\u0327ade',
  '\u00c5ngstr\u00f6m \u212bngstr\u00f6m \u0226',
  'Die Gr\u00f6\u00dfe der Stra\u00dfe \u00fcberrascht mich.',
  'L\'\u00e9l\u00e8ve a r\u00e9ussi l\'examen \u00e0 No\u00ebl.',
  '\u00bfD\u00f3nde est\u00e1 la estaci\u00f3n? \u00a1Muy lejos!',
  '\u0130stanbul \u039f\u0394\u03a5\u03a3\u03a3\u0395\u03a5\u03a3 stra\u00dfe \u00df \u1e9e',
  '\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3067\u3059\u3002',
  '\u6211\u7231\u5317\u4eac\u5929\u5b89\u95e8\u3002',
  '\u6771\u4eac\u306f\u65e5\u672c\u306e\u9996\u90fd\u3067\u3059',
  '\u30ab\u30bf\u30ab\u30ca\u3068\u3072\u3089\u304c\u306a',
  '\uff76\uff80\uff76\uff85 half-width katakana',
  '\uc548\ub155\ud558\uc138\uc694 \uc138\uacc4',
  '\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440! \u041a\u0430\u043a \u0434\u0435\u043b\u0430?',
  '\u0401\u0436\u0438\u043a \u0432 \u0442\u0443\u043c\u0430\u043d\u0435',
  '\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645',
  '\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd',
  '\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e',
  '\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35\u0e04\u0e23\u0e31\u0e1a',
  '\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac \u03ba\u03b5\u03af\u03bc\u03b5\u03bd\u03b1',
  'mixed English and \u65e5\u672c\u8a9e and \u0440\u0443\u0441\u0441\u043a\u0438\u0439',
  'I love pizza \ud83c\udf55 and coffee \u2615!',
  '\ud83d\udc4d \ud83d\udc4d\ud83c\udffd \ud83d\udc4b\ud83c\udfff',
  '\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67\u200d\ud83d\udc66 family and \ud83c\udff3\ufe0f\u200d\ud83c\udf08 flag',
  '\ud83c\uddeb\ud83c\uddf7\ud83c\udde9\ud83c\uddea\ud83c\uddef\ud83c\uddf5',
  '\u2764\ufe0f vs \u2764 (variation selector)',
  '\ud83d\ude00\ud83d\ude03\ud83d\ude04\ud83d\ude01\ud83d\ude06\ud83d\ude05\ud83d\ude02\ud83e\udd23',
  'zero\u200bwidth\u200bspace',
  'joiner\u200dand\u200cnon-joiner',
  '\ufeffBOM at start',
  'soft\u00adhyphen',
  'no\u00a0break\u00a0space and\u3000ideographic\u2003em',
  'line\u2028separator\u0085nel',
  'bell\u0007 escape\u001b[0m delete\u007f',
  'nul\u0000char',
  'Z\u0324\u0354\u0367\u0311\u0313a\u0308\u0356\u032d\u0308\u0307l\u036e\u0312\u036bg\u030c\u0317\u035ao\u0308\u031c',
  'a\u0301\u0302\u0303 combining stack',
  '\uff26\uff35\uff2c\uff2c\uff37\uff29\uff24\uff34\uff28 \uff54\uff45\uff58\uff54 \uff11\uff12\uff13',
  '\ufb01ne \ufb02ow \ufb00',
  '\u2116 \u2122 \u00bd \u00b2 \u217b \u2460 \u2103 \u338f',
  '\ud835\udc07\ud835\udc1e\ud835\udc25\ud835\udc25\ud835\udc28 \ud835\udd4e\ud835\udd60\ud835\udd63\ud835\udd5d\ud835\udd55',
  'a'.repeat(100),
  'b'.repeat(101),
  'supercalifragilisticexpialidocious'.repeat(7),
  'Pneumonoultramicroscopicsilicovolcanoconiosis is a long word',
  LONG,
];

// Texts naming each family's special tokens.
const SPECIALS = {
  roberta: ['Hello <mask> world', 'Hello<mask>world', 'Hello  <mask>  world', '<mask>', ' <mask>', '<mask> starts',
    'ends <mask>', '<mask><mask>', '<s>x</s>', '<s> Hello </s>', '<pad><unk>', '</s></s>', '<MASK> is not special',
    'a<s>b', '<s', 'text with </s> inside and more</s>', '\t<mask>\n', '\u3000<mask>'],
  bert: ['Hello [MASK] world', 'hello[MASK]world', '[CLS] hello [SEP]', '[MASK]', '[mask] is lowercase',
    '[UNK] and [PAD]', '[SEP][SEP]', '  [MASK]  ', 'A [MASK]. B', '[Mask] Mixed'],
  bert_added: ['<ENT> New York <ent>', 'newyork new york New  York New York', 'New Yorker in new york.',
    'C++ and c++ and C++17', '@@ hello @@world @@  x', '<EOS>', 'x<EOS>y', 'a <EOS> b', 'For before format for-for',
    '::a :: b ::c', 'x :: y'],
  llama: ['<s>', '</s>hello', 'hello</s> world', 'literal <0x41> bytes', '<unk>', ' <s> ', 'a<s>b'],
  unigram_bf: ['<|user|> hi there <|bot|> hello', '<|user|>hi', 'say  <|bot|>ok', '<|user|>  spaced',
    'literal <0x41> bytes', '<unk>', '<s>x</s>'],
  plain: ['[UNK] [CLS] [SEP] [PAD]'],
};

const PAIRS = [
  ['How old are you?', 'I am 6 years old.'],
  ['What is the capital of France?', 'Paris is the capital and most populous city of France.'],
  ['Hello', ''],
  ['', 'World'],
  ['\u041f\u0440\u0438\u0432\u0435\u0442', '\u043c\u0438\u0440'],
  ['\u65e5\u672c\u8a9e', '\u30c6\u30ad\u30b9\u30c8 \ud83d\ude00'],
  ['Don\'t stop.', 'Won\'t stop!'],
  ['a b c d e', 'a b c d e'],
  ['  spaced  ', '  out  '],
  ['caf\u00e9', 'cafe\u0301'],
];

// Pairs to truncate: short/long, long/short, equal (ties), and two medium ones.
const TRUNC_PAIRS = [
  ['Who lives in Zurich?', 'The otter lives in Zurich and the heron lives in Paris.'],
  ['The committee voted to approve the new plan.', 'Did they?'],
  ['one two three four five', 'one two three four five'],
  ['Hello world, this is a test.', 'Another sentence for the pair.'],
];

// Pre-split words (is_split_into_words / is_pretokenized).
const WORDS = [
  ['John', 'lives', 'in', 'New', 'York', '.'],
  ['Dr.', 'Smith', '\'s', 'caf\u00e9', 'opened', 'in', '2019', '!'],
  ['EU', 'rejects', 'German', 'call', 'to', 'boycott', 'British', 'lamb', '.'],
  ['BRUSSELS', '1996-08-22'],
  ['na\u00efve', 'r\u00e9sum\u00e9', 'Z\u00fcrich', 'cafe\u0301'],
  ['\u65e5\u672c', '\u306e', '\u9996\u90fd', '\u306f', '\u6771\u4eac', '\u3067\u3059', '\u3002'],
  ['\u041f\u0440\u0438\u0432\u0435\u0442', ',', '\u043c\u0438\u0440', '!'],
  ['I', 'don\'t', 'know', '...'],
  ['\ud83d\ude00', '\ud83d\udc4d\ud83c\udffd', 'ok'],
  ['a'],
  ['tokenization', 'TOKENIZATION', 'x'],
];
const PAIR_WORDS = [
  [['What', 'is', 'this', '?'], ['It', 'is', 'a', 'test', '.']],
  [['Where', 'does', 'John', 'live', '?'], ['John', 'lives', 'in', 'Z\u00fcrich', '.']],
];

module.exports = {LONG, MEDIUM, COMMON, SPECIALS, PAIRS, TRUNC_PAIRS, WORDS, PAIR_WORDS};

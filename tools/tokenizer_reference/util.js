'use strict';
// Helpers shared by build_tokenizers.js and make_cases.js.
const fs = require('fs');
const path = require('path');

function readJSON(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function writeText(file, text) {
  fs.mkdirSync(path.dirname(file), {recursive: true});
  fs.writeFileSync(file, text);
}

// GPT-2's bytes_to_unicode: the character standing for each byte 0..255, in byte order.
function gpt2ByteChars() {
  const keep = [];
  for (let b = 0x21; b <= 0x7e; b++) keep.push(b);
  for (let b = 0xa1; b <= 0xac; b++) keep.push(b);
  for (let b = 0xae; b <= 0xff; b++) keep.push(b);
  const out = new Array(256);
  let n = 0;
  for (let b = 0; b < 256; b++) out[b] = keep.includes(b) ? String.fromCodePoint(b) : String.fromCodePoint(256 + n++);
  return out;
}

// Replaces the JSON value that follows `key` (e.g. '"merges": ') in `text` by `value`: the value
// ends where its brackets balance, outside strings.
function jsonSpliceValue(text, key, value) {
  const at = text.indexOf(key);
  if (at < 0) throw new Error(`${key} not found`);
  const start = at + key.length;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) return text.slice(0, start) + value + text.slice(i + 1);
    }
  }
  throw new Error('unbalanced JSON');
}

module.exports = {readJSON, writeText, gpt2ByteChars, jsonSpliceValue};

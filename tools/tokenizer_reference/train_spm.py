#!/usr/bin/env python3
"""Trains the SentencePiece models of the reference tokenizers with Debian's python3-sentencepiece
and dumps what the tokenizer.json builder (make_fixtures.js) needs from them.

Usage: /usr/bin/python3 train_spm.py WORK_DIR FIXTURES_DIR

Reads WORK_DIR/corpus_multi.txt and corpus_en.txt (written by corpus.py) and writes:
  FIXTURES_DIR/xlmr_unigram/sentencepiece.bpe.model   Unigram, 1000 pieces, nmt_nfkc (XLM-R's kind)
  WORK_DIR/spm_xlmr.json, spm_unigram_bf.json, spm_bpe_bf.json: the pieces (piece, score, type),
    the normalizer spec's precompiled_charsmap (base64) and, for the BPE model, the merges as
    transformers' SentencePieceExtractor derives them (LlamaConverter).
The unigram_bytefallback and bpe_bytefallback .model files are kept in WORK_DIR only (their
tokenizer.json is the fixture).

The .model is read without google.protobuf (not installed here): a minimal protobuf reader takes
ModelProto field 3 (normalizer_spec) and, in it, field 2 (precompiled_charsmap).
"""
import base64
import json
import os
import sys

import sentencepiece as spm


def read_varint(buf, pos):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def fields(buf):
    """Yields (field number, wire type, value) of one protobuf message; value is bytes for
    length-delimited fields, an int otherwise."""
    pos = 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        num, wire = key >> 3, key & 7
        if wire == 0:
            val, pos = read_varint(buf, pos)
        elif wire == 1:
            val, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = read_varint(buf, pos)
            val, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            val, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("unsupported wire type %d" % wire)
        yield num, wire, val


def precompiled_charsmap(model_bytes):
    for num, wire, val in fields(model_bytes):
        if num == 3 and wire == 2:  # ModelProto.normalizer_spec
            for n2, w2, v2 in fields(val):
                if n2 == 2 and w2 == 2:  # NormalizerSpec.precompiled_charsmap
                    return bytes(v2)
    return b""


TYPES = {1: "NORMAL", 2: "UNKNOWN", 3: "CONTROL", 4: "USER_DEFINED", 5: "UNUSED", 6: "BYTE"}


def dump(model_path, out_json, with_merges=False):
    sp = spm.SentencePieceProcessor(model_file=model_path)
    pieces = []
    for i in range(sp.get_piece_size()):
        if sp.is_unknown(i):
            kind = "UNKNOWN"
        elif sp.is_control(i):
            kind = "CONTROL"
        elif sp.is_byte(i):
            kind = "BYTE"
        elif sp.is_unused(i):
            kind = "UNUSED"
        else:
            kind = "NORMAL"
        pieces.append([sp.id_to_piece(i), sp.get_score(i), kind])
    with open(model_path, "rb") as f:
        model_bytes = f.read()
    out = {
        "model": os.path.basename(model_path),
        "sentencepiece_version": spm.__version__,
        "pieces": pieces,
        "precompiled_charsmap": base64.b64encode(precompiled_charsmap(model_bytes)).decode("ascii"),
    }
    if with_merges:
        # transformers' SentencePieceExtractor.extract (vocab_scores=None): every split of a piece
        # into two pieces of the vocabulary is a merge, ranked by the id of the merged piece.
        vocab = {p[0]: i for i, p in enumerate(pieces)}
        merges = []
        for merge, piece_id in vocab.items():
            local = []
            for index in range(1, len(merge)):
                left, right = merge[:index], merge[index:]
                if left in vocab and right in vocab:
                    local.append((left, right, piece_id))
            local.sort(key=lambda x: (vocab[x[0]], vocab[x[1]]))
            merges.extend(local)
        merges.sort(key=lambda m: m[2])
        out["merges"] = [[m[0], m[1]] for m in merges]
    with open(out_json, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    work, fixtures = sys.argv[1], sys.argv[2]
    multi = os.path.join(work, "corpus_multi.txt")
    # Latin-script lines only: CJK and other scripts then reach the BPE model as byte pieces.
    latin = os.path.join(work, "corpus_latin.txt")
    with open(multi, encoding="utf-8") as f, open(latin, "w", encoding="utf-8") as g:
        for line in f:
            if all(ord(c) < 0x250 for c in line):
                g.write(line)
    common = dict(num_threads=1, shuffle_input_sentence=False, input_sentence_size=0,
                  minloglevel=2, seed_sentencepiece_size=100000)
    xlmr_dir = os.path.join(fixtures, "xlmr_unigram")
    os.makedirs(xlmr_dir, exist_ok=True)
    # XLM-R: Unigram, nmt_nfkc (the default), <unk>=0 <s>=1 </s>=2 as fairseq's SentencePiece had.
    spm.SentencePieceTrainer.train(input=multi, model_prefix=os.path.join(work, "xlmr"),
                                   model_type="unigram", vocab_size=1000, **common)
    os.replace(os.path.join(work, "xlmr.model"), os.path.join(xlmr_dir, "sentencepiece.bpe.model"))
    dump(os.path.join(xlmr_dir, "sentencepiece.bpe.model"), os.path.join(work, "spm_xlmr.json"))
    # Unigram with byte fallback, no normalization rules (the tokenizer.json sets its own).
    spm.SentencePieceTrainer.train(input=multi, model_prefix=os.path.join(work, "unigram_bf"),
                                   model_type="unigram", vocab_size=900, byte_fallback=True,
                                   normalization_rule_name="identity", **common)
    dump(os.path.join(work, "unigram_bf.model"), os.path.join(work, "spm_unigram_bf.json"))
    # Llama-style BPE: byte fallback, digits split, identity normalization, whitespace kept.
    spm.SentencePieceTrainer.train(input=latin, model_prefix=os.path.join(work, "bpe_bf"),
                                   model_type="bpe", vocab_size=700, byte_fallback=True,
                                   split_digits=True, normalization_rule_name="identity",
                                   remove_extra_whitespaces=False, allow_whitespace_only_pieces=True,
                                   character_coverage=0.9999, **common)
    dump(os.path.join(work, "bpe_bf.model"), os.path.join(work, "spm_bpe_bf.json"), with_merges=True)


if __name__ == "__main__":
    main()

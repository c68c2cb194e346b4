#!/usr/bin/env python3
"""SentencePiece-side checks of the fixtures, with Debian's python3-sentencepiece.

Usage: /usr/bin/python3 check_spm.py FIXTURES_DIR

1. Loads each bad/*/sentencepiece.bpe.model and records sentencepiece's error in
   bad/library_results.json (field "sentencepiece").
2. Encodes the text of every xlmr_unigram case (single text, special tokens added, no truncation,
   no special token written in the text) with sentencepiece itself, maps the ids as fairseq does
   (SP id 0 <unk> -> 3, id i >= 3 -> i + 1, framed by <s>=0 ... </s>=2) and counts where the
   tokenizer.json reference (what transformers' XLMRobertaTokenizerFast gives) agrees. It prints the
   disagreements: they are the known differences between the slow and the fast XLM-R tokenizers, not
   errors of the fixtures.
"""
import json
import os
import sys

import sentencepiece as spm


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    fix = sys.argv[1]
    bad = os.path.join(fix, "bad")
    results_path = os.path.join(bad, "library_results.json")
    with open(results_path, encoding="utf-8") as f:
        results = json.load(f)
    for name in sorted(os.listdir(bad)):
        model = os.path.join(bad, name, "sentencepiece.bpe.model")
        if not os.path.exists(model):
            continue
        try:
            spm.SentencePieceProcessor(model_file=model)
            results[name]["sentencepiece"] = "loads"
        except Exception as e:  # noqa: BLE001 - the message is the result
            results[name]["sentencepiece"] = "error: " + str(e).splitlines()[0]
        print(name, results[name]["sentencepiece"])
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2, ensure_ascii=False)
        f.write("\n")

    sp = spm.SentencePieceProcessor(model_file=os.path.join(fix, "xlmr_unigram", "sentencepiece.bpe.model"))
    specials = ("<s>", "</s>", "<pad>", "<unk>", "<mask>")
    agree, differ = 0, []
    seen = set()
    with open(os.path.join(fix, "cases.jsonl"), encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            if (c["tokenizer"] != "xlmr_unigram" or c["text"] is None or c["pair"] is not None
                    or c["truncation"] is not None or not c["add_special_tokens"]
                    or any(s in c["text"] for s in specials) or c["text"] in seen):
                continue
            seen.add(c["text"])
            ids = [0] + [3 if i == 0 else i + 1 for i in sp.encode(c["text"])] + [2]
            if ids == c["ids"]:
                agree += 1
            else:
                differ.append((c["text"], c["tokens"][1:-1], [sp.id_to_piece(i) for i in sp.encode(c["text"])]))
    print(f"xlmr_unigram: sentencepiece agrees with tokenizer.json on {agree} of {agree + len(differ)} texts")
    for text, hf, sp_pieces in differ:
        print("  differs:", json.dumps(text, ensure_ascii=False)[:60], "| tokenizer.json:", hf[:12], "| sentencepiece:", sp_pieces[:12])


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Fixtures for shmtrain's pytorch_model.bin reader (io/torch_checkpoint), written by PyTorch itself.

Usage: /usr/bin/python3 tools/make_torch_bin_fixtures.py   (needs Debian's python3-torch; CI does not run it)
Writes tests/fixtures/torch_bin/:
- tensors.bin (torch.save of a state dict: fp32, fp16, bf16, fp64, an int64 buffer, a transposed view, a
  view at a storage offset, two names for one tensor) and tensors.safetensors, the same values as float32
  (every one exact in float32), its twin;
- sharded/: pytorch_model.bin.index.json and its two shards (transformers' layout), the twin's tensors;
- legacy.bin: torch.save(..., _use_new_zipfile_serialization=False), the pre-1.6 format (its storage keys
  change from run to run; every other file comes out the same);
- crafted files that must be refused, nothing run: reduce_os_system.bin (a __reduce__ to os.system),
  unknown_global.bin (a datetime), offset_past_end.bin (a view past its storage), truncated.bin (half of
  tensors.bin), compressed.bin (a deflated member);
- bert_tiny_cls_bin/: tests/fixtures/reranking/bert_tiny_cls's model as pytorch_model.bin (and its
  config, vocabulary and tokenizer config), for training from a .bin folder.
"""
import collections
import datetime
import io
import json
import os
import pickle
import shutil
import struct
import sys
import zipfile

import torch

sys.path.insert(0, os.path.dirname(__file__))
import make_head_references as base  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "torch_bin")


def state():
    g = torch.Generator().manual_seed(80)
    grid = (torch.randint(-64, 64, (6, 4), generator=g) / 8.0)  # eighths: exact in fp16 and bf16
    out = collections.OrderedDict()
    out["fp32.weight"] = grid.clone()
    out["fp16.weight"] = grid[:3].clone().half()
    out["bf16.weight"] = grid[3:].clone().to(torch.bfloat16)
    out["fp64.bias"] = grid[0].clone().double()
    out["embeddings.position_ids"] = torch.arange(8).unsqueeze(0)
    out["transposed.weight"] = grid.t()  # strides (1, 4): a view, not a copy
    out["offset.weight"] = grid.view(-1)[5:17].view(3, 4)  # storage offset 5
    out["tied.a"] = grid[1:4]
    out["tied.b"] = out["tied.a"]
    return out


def twin(tensors):
    return {k: v.float().contiguous() for k, v in tensors.items() if v.is_floating_point()}


def member(name, compress=False):
    """A zip member with a fixed date: the crafted files come out the same at every run."""
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    return info


def zip_with(path, pickle_bytes, storages):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(member("archive/data.pkl"), pickle_bytes)
        z.writestr(member("archive/byteorder"), "little")
        for key, data in storages.items():
            z.writestr(member(f"archive/data/{key}"), data)
        z.writestr(member("archive/version"), "3\n")


def crafted(out):
    class System:
        def __reduce__(self):
            return (os.system, ("touch /tmp/shmtrain-pwned",))

    zip_with(os.path.join(out, "reduce_os_system.bin"), pickle.dumps({"w": System()}, protocol=2), {})
    zip_with(os.path.join(out, "unknown_global.bin"),
             pickle.dumps({"w": datetime.datetime(2026, 1, 1)}, protocol=2), {})
    # _rebuild_tensor_v2(storage of 4 floats, offset 3, size (4,), stride (1,)): past the end.
    p = bytearray(b"\x80\x02ccollections\nOrderedDict\n)R(X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n(")
    p += b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x04tQ"
    p += b"K\x03K\x04\x85K\x01\x85\x89ccollections\nOrderedDict\n)RtRu."
    zip_with(os.path.join(out, "offset_past_end.bin"), bytes(p), {"0": struct.pack("<4f", 1, 2, 3, 4)})
    with open(os.path.join(out, "tensors.bin"), "rb") as f:
        whole = f.read()
    with open(os.path.join(out, "truncated.bin"), "wb") as f:
        f.write(whole[: len(whole) // 2])
    buffer = io.BytesIO()
    torch.save({"w": torch.ones(3)}, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as src, \
            zipfile.ZipFile(os.path.join(out, "compressed.bin"), "w") as dst:
        for item in src.infolist():
            dst.writestr(member(item.filename, compress=True), src.read(item.filename))


def main():
    os.makedirs(OUT, exist_ok=True)
    tensors = state()
    torch.save(tensors, os.path.join(OUT, "tensors.bin"))
    base.save_safetensors(os.path.join(OUT, "tensors.safetensors"), twin(tensors))
    torch.save(tensors, os.path.join(OUT, "legacy.bin"), _use_new_zipfile_serialization=False)
    sharded = os.path.join(OUT, "sharded")
    os.makedirs(sharded, exist_ok=True)
    names = list(tensors)
    shards = {"pytorch_model-00001-of-00002.bin": names[:4], "pytorch_model-00002-of-00002.bin": names[4:]}
    weight_map = {}
    for file, keys in shards.items():
        torch.save(collections.OrderedDict((k, tensors[k]) for k in keys), os.path.join(sharded, file))
        weight_map.update({k: file for k in keys})
    with open(os.path.join(sharded, "pytorch_model.bin.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
        f.write("\n")
    crafted(OUT)

    src = os.path.join(OUT, "..", "reranking", "bert_tiny_cls")
    model_dir = os.path.join(OUT, "bert_tiny_cls_bin")
    os.makedirs(model_dir, exist_ok=True)
    for name in ("config.json", "vocab.txt", "tokenizer_config.json"):
        shutil.copy(os.path.join(src, name), model_dir)
    weights = base.load_safetensors(os.path.join(src, "model.safetensors"))
    torch.save(collections.OrderedDict(sorted(weights.items())), os.path.join(model_dir, "pytorch_model.bin"))
    print(f"{len(tensors)} tensors; shards {list(shards)}; {len(weights)} model tensors")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""An independent reader and writer of TensorBoard event files, to cross-check shmtrain's
(src/report/tensorboard_*.cpp, tests/report/tensorboard_test.cpp).

Usage: /usr/bin/python3 tools/tensorboard_reference/tfevents.py read FILE
           prints each record of FILE as one JSON line, after checking both of its checksums
       /usr/bin/python3 tools/tensorboard_reference/tfevents.py write-fixture [OUT]
           writes the records of FIXTURE below (default OUT:
           tests/fixtures/tensorboard/events.out.tfevents.1700000000.reference.4242.0)

Needs Debian's python3-crc32c and python3-protobuf. The encoding is Python protobuf's pure-Python
one (not the C++ library shmtrain links), over message types built here at run time with the
field numbers of tensorboard/compat/proto/event.proto and summary.proto: Event.wall_time = 1
(double), step = 2 (int64), oneof what { file_version = 3 (string), summary = 5 (Summary) },
source_metadata = 10 (SourceMetadata { writer = 1 (string) }); Summary.value = 1 (repeated
Value); Value.tag = 1 (string), oneof value { simple_value = 2 (float) }. The framing is
TFRecord's, as tensorboard/summary/writer/record_writer.py writes it.
"""
import json
import os
import struct
import sys

os.environ["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "python"

import crc32c  # noqa: E402
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402

# (wall_time, step, tag, value); the first record is the file version.
FIXTURE_VERSION_WALL_TIME = 1700000000.5
FIXTURE_SOURCE_WRITER = "shmtrain.report.tensorboard_writer"
FIXTURE = [
    (1700000001.25, 1, "train/loss", 0.6931471805599453),
    (1700000002.125, 300, "train/learning_rate", 1.7e-05),
    (1700000003.0, 300, "eval/accuracy", 0.0),
    (1700000004.0, 0, "train/epoch", 0.075),
    (1700000005.5, -1, "eval/\u03b4", -2.5),
]


def _field(message, name, number, kind, label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
           type_name=None, oneof=None):
    f = message.field.add(name=name, number=number, type=kind, label=label)
    if type_name:
        f.type_name = type_name
    if oneof is not None:
        f.oneof_index = oneof


def _event_class():
    T = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="tfevents_check.proto", package="check", syntax="proto3")
    summary = file.message_type.add(name="Summary")
    value = summary.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    _field(value, "tag", 1, T.TYPE_STRING)
    _field(value, "simple_value", 2, T.TYPE_FLOAT, oneof=0)
    _field(summary, "value", 1, T.TYPE_MESSAGE, T.LABEL_REPEATED, ".check.Summary.Value")
    source = file.message_type.add(name="SourceMetadata")
    _field(source, "writer", 1, T.TYPE_STRING)
    event = file.message_type.add(name="Event")
    event.oneof_decl.add(name="what")
    _field(event, "wall_time", 1, T.TYPE_DOUBLE)
    _field(event, "step", 2, T.TYPE_INT64)
    _field(event, "file_version", 3, T.TYPE_STRING, oneof=0)
    _field(event, "summary", 5, T.TYPE_MESSAGE, type_name=".check.Summary", oneof=0)
    _field(event, "source_metadata", 10, T.TYPE_MESSAGE, type_name=".check.SourceMetadata")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.MessageFactory(pool).GetPrototype(pool.FindMessageTypeByName("check.Event"))


Event = _event_class()


def masked_crc(data):
    crc = crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(data):
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc(header)) + data + struct.pack("<I", masked_crc(data))


def records(blob, name):
    offset, index = 0, 0
    while offset < len(blob):
        if len(blob) - offset < 12:
            sys.exit(f"{name}: record {index} cut short in its header")
        header = blob[offset:offset + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack("<I", blob[offset + 8:offset + 12])
        if header_crc != masked_crc(header):
            sys.exit(f"{name}: record {index}: length checksum mismatch")
        if len(blob) - offset - 12 < length + 4:
            sys.exit(f"{name}: record {index} cut short in its data")
        data = blob[offset + 12:offset + 12 + length]
        (data_crc,) = struct.unpack("<I", blob[offset + 12 + length:offset + 16 + length])
        if data_crc != masked_crc(data):
            sys.exit(f"{name}: record {index}: data checksum mismatch")
        yield data
        offset += 16 + length
        index += 1


def read(path):
    with open(path, "rb") as f:
        blob = f.read()
    for data in records(blob, path):
        event = Event()
        event.ParseFromString(data)
        out = {"wall_time": event.wall_time, "step": event.step}
        what = event.WhichOneof("what")
        if what == "file_version":
            out["file_version"] = event.file_version
        if event.HasField("source_metadata"):
            out["source_writer"] = event.source_metadata.writer
        elif what == "summary":
            out["values"] = [[v.tag, v.simple_value] for v in event.summary.value if v.HasField("simple_value")]
        print(json.dumps(out, ensure_ascii=False))


def write_fixture(path):
    event = Event(wall_time=FIXTURE_VERSION_WALL_TIME, file_version="brain.Event:2")
    event.source_metadata.writer = FIXTURE_SOURCE_WRITER
    blob = frame(event.SerializeToString())
    for wall_time, step, tag, value in FIXTURE:
        event = Event(wall_time=wall_time, step=step)
        event.summary.value.add(tag=tag, simple_value=value)
        blob += frame(event.SerializeToString())
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(blob)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "read":
        read(sys.argv[2])
    elif len(sys.argv) in (2, 3) and sys.argv[1] == "write-fixture":
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        default = os.path.join(root, "tests/fixtures/tensorboard/events.out.tfevents.1700000000.reference.4242.0")
        write_fixture(sys.argv[2] if len(sys.argv) == 3 else default)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

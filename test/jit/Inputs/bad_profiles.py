"""Writes profiles the feedback service must refuse (test/jit): usage
bad_profiles.py PROTO_DIR GOOD_PROFILE OUT_DIR, where PROTO_DIR holds
divergence_profile_pb2.py (protoc --python_out) and GOOD_PROFILE is a
profile orchestra-run wrote. Each bad profile is the good one with one
field broken."""
import os
import sys

sys.path.insert(0, sys.argv[1])
import divergence_profile_pb2 as pb  # noqa: E402
from google.protobuf.internal import decoder, encoder  # noqa: E402


def read(path):
    data, records, at = open(path, "rb").read(), [], 0
    while at < len(data):
        size, at = decoder._DecodeVarint32(data, at)
        record = pb.DivergenceProfile()
        record.ParseFromString(data[at:at + size])
        records.append(record)
        at += size
    return records


def write(path, records):
    with open(path, "wb") as f:
        for record in records:
            body = record.SerializeToString()
            f.write(encoder._VarintBytes(len(body)) + body)


good, out = read(sys.argv[2]), sys.argv[3]
os.makedirs(out, exist_ok=True)
for name, edit in [
        ("version", lambda r: setattr(r, "profile_version", 2)),
        ("kernel", lambda r: setattr(r, "kernel_name", "../../escape")),
        ("branch", lambda r: setattr(r, "branch_id", 7)),
        ("outcomes", lambda r: r.path_outcome_counts.append(1)),
        ("rate", lambda r: setattr(r, "divergence_rate", 1.5))]:
    records = read(sys.argv[2])
    edit(records[0])
    write(os.path.join(out, name + ".profile"), records)
big = read(sys.argv[2]) * 100
write(os.path.join(out, "big.profile"), big)
write(os.path.join(out, "empty.profile"), [])

"""Writes the branch counters an emulated plan ran up (run-plan's
branch_profile.json) as a branch profile file, the records orchestra-run
--profile-out writes on a GPU: usage emulated_profile.py PROTO_DIR
BRANCH_PROFILE_JSON HARDWARE OUT, where PROTO_DIR holds
divergence_profile_pb2.py (protoc --python_out). The input shape hash is
left 0 (the compiler does not read it)."""
import json
import sys

sys.path.insert(0, sys.argv[1])
import divergence_profile_pb2 as pb  # noqa: E402
from google.protobuf.internal import encoder  # noqa: E402

with open(sys.argv[2]) as f:
    kernels = json.load(f)
with open(sys.argv[4], "wb") as out:
    for kernel in kernels:
        for branch_id, branch in enumerate(kernel["branches"]):
            record = pb.DivergenceProfile(
                profile_version=1, kernel_name=kernel["kernel"], branch_id=branch_id,
                invocation_count=kernel["launches"],
                divergence_rate=(branch["divergent_warps"] / branch["warps"]
                                 if branch["warps"] else 0.0),
                path_outcome_counts=[branch["then"], branch["else"]],
                hardware_id=sys.argv[3])
            body = record.SerializeToString()
            out.write(encoder._VarintBytes(len(body)) + body)

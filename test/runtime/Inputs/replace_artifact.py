"""Replaces a session's plan (test/runtime/replace-artifact.test): usage
replace_artifact.py DIR, where DIR holds plain.orcx, speculated.orcx (the
same entry) and other.orcx (another entry). Prints one line per check."""
import ctypes
import os
import sys

import numpy as np

import orchestra_rt

d = sys.argv[1]
rng = np.random.default_rng(7)
inputs = [rng.standard_normal((160, 160), dtype=np.float32) for _ in range(5)]
inputs.append(np.array(-1e30, np.float32))

plain = orchestra_rt.Artifact(os.path.join(d, "plain.orcx"))
speculated = orchestra_rt.Artifact(os.path.join(d, "speculated.orcx"))
other = orchestra_rt.Artifact(os.path.join(d, "other.orcx"))
print("hashes differ:", plain.hash != speculated.hash and plain.hash != 0)


def selects(session):
    return sum(1 for e in session.trace() if e.kind == "select")


session = orchestra_rt.Session(plain)
expected = session.run(*inputs)[0]
print("plain: select steps", selects(session))
session.replace_artifact(speculated)
result = session.run(*inputs)[0]
print(f"replaced: select steps {selects(session)}, same results: "
      f"{np.allclose(result, expected, rtol=1e-5, atol=1e-5)}")
try:
    session.replace_artifact(other)
    raise AssertionError("no error")
except orchestra_rt.Error as e:
    print("refused:", e)
result = session.run(*inputs)[0]
print(f"still speculated: select steps {selects(session)}, same results: "
      f"{np.allclose(result, expected, rtol=1e-5, atol=1e-5)}")
lib = orchestra_rt.load_library()
status = lib.orx_session_replace_artifact(session._handle, None)
print("null:", lib.orx_status_message(status).decode())
lib.orx_status_free(status)
session.close()

"""Runs a command while an orchestra-jit-server runs (test/jit): usage
with_server.py SERVER CACHE_DIR [SERVER_OPTION...] -- COMMAND [ARG...].
Starts SERVER --cache-dir CACHE_DIR --port-file F [SERVER_OPTION...], waits
(at most 30 s) for it to listen, runs COMMAND with every `{port}` in its
arguments replaced by the port (at most 120 s), stops the server, and prints
the command's output, then the server's under a `--- server ---` line.
Exits with the command's status."""
import os
import signal
import subprocess
import sys
import tempfile
import time

server, cache = sys.argv[1], sys.argv[2]
split = sys.argv.index("--")
options, command = sys.argv[3:split], sys.argv[split + 1:]
with tempfile.TemporaryDirectory() as scratch:
    port_file = os.path.join(scratch, "port")
    log_path = os.path.join(scratch, "server.log")
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [server, "--cache-dir", cache, "--port-file", port_file] + options,
            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file):
            if process.poll() is not None or time.monotonic() > deadline:
                print(open(log_path).read(), end="")
                sys.exit("with_server.py: the server did not start")
            time.sleep(0.05)
        port = open(port_file).read().strip()
        result = subprocess.run([a.replace("{port}", port) for a in command],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=120)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    sys.stdout.write(result.stdout.decode(errors="replace"))
    print("--- server ---")
    print(open(log_path).read(), end="")
    sys.exit(result.returncode)

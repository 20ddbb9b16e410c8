"""`contactuq serve` and the `umbridge` model (docs/umbridge.md), end to end:

  1. a request made with curl to /Evaluate, as the UM-Bridge protocol publishes it, returns the
     model's outputs (and /Info, /ModelInfo, /InputSizes, /OutputSizes answer as the protocol says);
  2. a sampling study on `type = "umbridge"` against `contactuq serve` of the same study gives the
     same datasets, bit for bit, as the study on the built-in model (at -j 1 and -j 3);
  3. malformed requests (truncated JSON, huge arrays, wrong sizes, NaN, wrong model name, a body
     over the limit, deep nesting, random byte mutations, garbage that is not HTTP) each get the
     protocol's error JSON, and the server keeps answering;
  4. a server that answers errors, garbage or the wrong outputs for some inputs, or no server at
     all, gives failed cases with the message; the other cases are unaffected.
Every server started here is stopped at the end, also when a check fails.

    /usr/bin/python3 tests/cli/umbridge_test.py --cli build/release/contactuq
"""
import argparse
import contextlib
import http.client
import http.server
import json
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STUDY = os.path.join(ROOT, "studies", "expression_r_minus_s.toml")


@contextlib.contextmanager
def server(cli, study, *extra):
    """Runs `contactuq serve STUDY --port 0` and yields its port; stops it however the block ends."""
    p = subprocess.Popen([cli, "serve", study, "--port", "0", *extra], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        first = p.stdout.readline()
        if not first.startswith("contactuq serve:"):
            raise AssertionError(f"serve did not start: {first!r} {p.stderr.read()}")
        yield int(first.rsplit(":", 1)[1])
    finally:
        p.terminate()
        try:
            rc = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise AssertionError("serve did not stop on SIGTERM")
        p.stdout.close()
        p.stderr.close()
        if rc != 0:
            raise AssertionError(f"serve exited {rc} (a crash?)")


def post(port, path, body, method="POST"):
    """The status and parsed JSON of one request with a raw body (bytes or str)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        c.request(method, path, body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        return r.status, json.loads(r.read())
    finally:
        c.close()


def check(ok, what):
    if not ok:
        raise AssertionError(what)


def check_curl(cli):
    with server(cli, STUDY) as port:
        body = '{"name": "expression", "input": [[200.0], [150.0]], "config": {}}'
        out = subprocess.run(["curl", "-sS", f"http://127.0.0.1:{port}/Evaluate", "-H",
                              "Content-Type: application/json", "-d", body],
                             capture_output=True, text=True, check=True, timeout=30).stdout
        answer = json.loads(out)
        check(answer == {"output": [[50.0], [200.0 / 150.0]]}, f"curl /Evaluate: {out}")
        info = json.loads(subprocess.run(["curl", "-sS", f"http://127.0.0.1:{port}/Info"],
                                         capture_output=True, text=True, check=True, timeout=30).stdout)
        check(info == {"protocolVersion": 1.0, "models": ["expression"]}, f"/Info: {info}")
        named = json.dumps({"name": "expression"})
        check(post(port, "/InputSizes", named) == (200, {"inputSizes": [1, 1]}), "/InputSizes")
        check(post(port, "/OutputSizes", named) == (200, {"outputSizes": [1, 1]}), "/OutputSizes")
        status, mi = post(port, "/ModelInfo", named)
        check(status == 200 and mi["support"]["Evaluate"] and not mi["support"]["Gradient"], f"/ModelInfo: {mi}")
        # A second server on the same port is refused, not started beside the first.
        second = subprocess.run([cli, "serve", STUDY, "--port", str(port)], capture_output=True, text=True, timeout=30)
        check(second.returncode == 2 and "cannot listen" in second.stderr, f"second server: {second}")
    print("ok: curl /Evaluate, /Info, /ModelInfo, /InputSizes, /OutputSizes; a port in use is refused")


def bridged_study(port, samples, url=None):
    """The shipped R - S study with fewer samples, on the built-in model or through the bridge."""
    text = open(STUDY).read().replace("samples = 100000", f"samples = {samples}")
    if port is None:
        return text
    head, rest = text.split("[model]", 1)
    rest = rest[rest.index("[parameters.R]"):]
    return head + f"""[model]
type = "umbridge"
url = "{url or f'http://127.0.0.1:{port}'}"
name = "expression"
timeout = "10 s"

[model.inputs]
R = "200 N"
S = "150 N"

[model.outputs]
g = "N"
safety_factor = "1"

""" + rest


def run(cli, text, tmp, name, *extra):
    study = os.path.join(tmp, name + ".toml")
    with open(study, "w") as f:
        f.write(text)
    out = os.path.join(tmp, name + ".h5")
    r = subprocess.run([cli, "run", study, "-o", out, "-q", "--force", *extra], capture_output=True, text=True,
                       timeout=300)
    return r, out


def check_round_trip(cli, tmp):
    r, direct = run(cli, bridged_study(None, 1000), tmp, "direct", "-j", "1")
    check(r.returncode == 0, f"direct run: {r.stderr}")
    with server(cli, STUDY, "--concurrency", "2") as port:
        for j in ("1", "3"):
            r, bridged = run(cli, bridged_study(port, 1000), tmp, "bridged" + j, "-j", j)
            check(r.returncode == 0, f"bridged run -j {j}: {r.stderr}")
            same = subprocess.run([sys.executable, os.path.join(HERE, "same_datasets.py"), direct, bridged],
                                  capture_output=True, text=True)
            # The study text (stored verbatim) differs in its [model] table; every other dataset is the same.
            check(same.returncode == 0 or same.stdout.strip().endswith(" 1 differ: study"),
                  f"bridged -j {j} differs from the built-in model: {same.stdout}{same.stderr}")
    print("ok: a sampling study through the bridge gives the built-in model's datasets (-j 1, -j 3)")


def bad_requests():
    good = {"name": "expression", "input": [[200.0], [150.0]], "config": {}}
    text = json.dumps(good)
    cases = [
        ("truncated", text[: len(text) // 2]),
        ("empty", ""),
        ("not an object", "[1, 2]"),
        ("a string", '"hello"'),
        ("no name", json.dumps({"input": [[1.0], [2.0]]})),
        ("name not a string", json.dumps({"name": 3, "input": [[1.0], [2.0]]})),
        ("wrong model name", json.dumps({**good, "name": "receptacle_pin"})),
        ("no input", json.dumps({"name": "expression"})),
        ("input not an array", json.dumps({**good, "input": {"R": 1}})),
        ("too few inputs", json.dumps({**good, "input": [[200.0]]})),
        ("too many inputs", json.dumps({**good, "input": [[1.0]] * 3})),
        ("vector of size 2", json.dumps({**good, "input": [[200.0, 1.0], [150.0]]})),
        ("vector of size 0", json.dumps({**good, "input": [[], [150.0]]})),
        ("scalar, not a vector", json.dumps({**good, "input": [200.0, 150.0]})),
        ("a string value", json.dumps({**good, "input": [["200 N"], [150.0]]})),
        ("null value", json.dumps({**good, "input": [[None], [150.0]]})),
        ("NaN literal", text.replace("200.0", "NaN")),
        ("Infinity literal", text.replace("200.0", "Infinity")),
        ("overflowing number", text.replace("200.0", "1e999")),
        ("outside the valid range", text.replace("200.0", "-5.0")),
        ("config not an object", json.dumps({**good, "config": [1]})),
        ("huge array", json.dumps({**good, "input": [[1.0]] * 100000})),
        ("huge inner vector", json.dumps({**good, "input": [[1.0] * 100000, [1.0]]})),
        ("deep nesting", "[" * 200000 + "]" * 200000),
        ("deep nesting in input", '{"name": "expression", "input": ' + "[" * 100000 + "]" * 100000 + "}"),
        ("over the size limit", json.dumps({**good, "pad": "x" * (2 << 20)})),
        ("invalid UTF-8", b'{"name": "\xff\xfe", "input": [[1.0], [2.0]]}'),
    ]
    rng = random.Random(1)
    for k in range(150):  # random byte mutations of a valid request
        b = bytearray(text.encode())
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            op = rng.randrange(3)
            if op == 0:
                b[i] = rng.randrange(256)
            elif op == 1:
                del b[i]
            else:
                b.insert(i, rng.choice(b'[]{}",:0123456789eE.-+ \x00'))
        cases.append((f"mutation {k}", bytes(b)))
    return cases


def check_fuzz(cli, tmp):
    # The R - S model with valid ranges, so that a value outside them is refused before evaluating.
    study = os.path.join(tmp, "ranged.toml")
    with open(study, "w") as f:
        f.write(open(STUDY).read().replace('R = "200 N"', 'R = { value = "200 N", low = "0 N", high = "1000 N" }'))
    with server(cli, study, "--max-request-bytes", str(1 << 20)) as port:
        refused = 0
        for what, body in bad_requests():
            status, answer = post(port, "/Evaluate", body)
            if status == 200:  # a mutation that is still a valid request
                check("output" in answer and what.startswith("mutation"), f"{what}: accepted: {answer}")
                continue
            err = answer.get("error", {})
            check(isinstance(err.get("type"), str) and isinstance(err.get("message"), str),
                  f"{what}: HTTP {status} without the protocol's error JSON: {answer}")
            check(400 <= status < 600, f"{what}: HTTP {status}")
            refused += 1
            expected = {"wrong model name": ("ModelNotFound", "not found"),
                        "too few inputs": ("InvalidInput", "1 input vectors given, the model takes 2"),
                        "vector of size 2": ("InvalidInput", "must be a vector of size 1"),
                        "outside the valid range": ("InvalidInput", "outside its valid range"),
                        "truncated": ("InvalidInput", "not JSON"),
                        "over the size limit": ("InvalidInput", "over 1048576 bytes")}.get(what)
            if expected:
                check(err["type"] == expected[0] and expected[1] in err["message"], f"{what}: {answer}")
        check(refused >= 27, f"only {refused} malformed requests refused")
        status, answer = post(port, "/Evaluate", json.dumps({"name": "expression", "input": [[200.0], [150.0]]}))
        check(status == 200 and answer["output"][0] == [50.0], f"after the fuzz: {answer}")
        for path, method in (("/Gradient", "POST"), ("/Nowhere", "POST"), ("/Evaluate", "GET")):
            status, answer = post(port, path, "{}", method)
            check(status >= 400 and "error" in answer, f"{method} {path}: {status} {answer}")
        # Not HTTP at all, and a connection dropped mid-body.
        for raw in (b"\x00\x01garbage\r\n\r\n", b"POST /Evaluate HTTP/1.1\r\nContent-Length: 100000\r\n\r\n{\"na"):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(raw)
                s.shutdown(socket.SHUT_WR)
                s.recv(65536)
        # A client that sends many requests and resets the connection before reading the answers:
        # writing them must not kill the server (SIGPIPE).
        request = json.dumps({"name": "expression", "input": [[200.0], [150.0]]}).encode()
        pipelined = (b"POST /Evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(request), request)) * 200
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.sendall(pipelined)
            s.close()
        # Concurrent requests, more than --concurrency.
        answers = []

        def one(i):
            answers.append(post(port, "/Evaluate", json.dumps({"name": "expression", "input": [[200.0 + i], [150.0]]})))

        threads = [threading.Thread(target=one, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        check(sorted(a[1]["output"][0][0] for a in answers) == [50.0 + i for i in range(16)], "concurrent answers")
        check(post(port, "/Info", None, "GET")[0] == 200, "the server stopped answering")
    print(f"ok: {refused} malformed requests answered with the protocol's error JSON; the server kept running")


class FakeServer(http.server.BaseHTTPRequestHandler):
    """R - S, except: R < 190 N an error JSON, R < 195 N garbage, R < 200 N one output too few."""

    disable_nagle_algorithm = True  # the body is not held back for the client's delayed ACK

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        r, s = request["input"][0][0], request["input"][1][0]
        status, body = 200, json.dumps({"output": [[r - s], [r / s]]})
        if r < 190:
            status, body = 500, json.dumps({"error": {"type": "ModelError", "message": f"no solution at R = {r}"}})
        elif r < 195:
            body = "garbage"
        elif r < 200:
            body = json.dumps({"output": [[r - s]]})
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


def check_failures(cli, tmp):
    import h5py
    import numpy as np

    fake = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeServer)
    thread = threading.Thread(target=fake.serve_forever, daemon=True)
    thread.start()
    try:
        r, out = run(cli, bridged_study(fake.server_address[1], 200), tmp, "faulty", "-j", "2")
    finally:
        fake.shutdown()
        fake.server_close()
    check(r.returncode == 0, f"faulty server: exit {r.returncode}: {r.stderr}")
    with h5py.File(out, "r") as f:
        x, y, status = f["inputs"][()], f["outputs"][()], f["status"][()]
        messages = [m.decode() if isinstance(m, bytes) else m for m in f["messages"][()]]
    for (rr, ss), (g, ratio), st, msg in zip(x, y, status, messages):
        if rr < 190:
            check(st == 1 and "ModelError: no solution at R = " in msg, f"R = {rr}: {st} {msg!r}")
        elif rr < 195:
            check(st == 1 and "not JSON" in msg, f"R = {rr}: {st} {msg!r}")
        elif rr < 200:
            check(st == 1 and "1 outputs answered, 2 declared" in msg, f"R = {rr}: {st} {msg!r}")
        else:
            check(st == 0 and g == rr - ss and ratio == rr / ss, f"R = {rr}: {st} {g} {msg!r}")
    check(0 < np.count_nonzero(status) < len(status), "no mix of failed and valid cases")
    print(f"ok: a faulty server: {np.count_nonzero(status)} failed cases with its messages, the others exact")


def check_server_gone(cli, tmp):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r, out = run(cli, bridged_study(port, 20), tmp, "gone", "-j", "1")
    check(r.returncode == 1, f"no server: exit {r.returncode}, expected 1 (every case failed): {r.stderr}")
    print("ok: no server: every case failed, exit 1")


def check_shipped_example(cli, tmp):
    """docs/umbridge.md's example: studies/umbridge_client.py and studies/umbridge_r_minus_s.toml
    against the server of the expression study, on a free port instead of 4242."""
    with server(cli, STUDY) as port:
        url = f"http://127.0.0.1:{port}"
        client = subprocess.run([sys.executable, os.path.join(ROOT, "studies", "umbridge_client.py"), url],
                                capture_output=True, text=True, timeout=60)
        check(client.returncode == 0 and "Evaluate: [[50.0], [1.3333333333333333]]" in client.stdout,
              f"umbridge_client.py: {client.stdout}{client.stderr}")
        other = subprocess.run([sys.executable, os.path.join(ROOT, "studies", "umbridge_client.py"), url,
                                "expression", "210", "150"], capture_output=True, text=True, timeout=60)
        check(other.returncode == 0 and "Evaluate: [[60.0], [1.4]]" in other.stdout,
              f"umbridge_client.py at 210 150: {other.stdout}{other.stderr}")
        shipped = open(os.path.join(ROOT, "studies", "umbridge_r_minus_s.toml")).read()
        check('url = "http://127.0.0.1:4242"' in shipped and "samples = 10000" in shipped,
              "studies/umbridge_r_minus_s.toml: url or samples changed; update this test and docs/umbridge.md")
        r, bridged = run(cli, shipped.replace("4242", str(port)).replace("samples = 10000", "samples = 2000"), tmp,
                         "shipped_bridged", "-j", "2")
        check(r.returncode == 0, f"studies/umbridge_r_minus_s.toml: {r.stderr}")
    r, direct = run(cli, bridged_study(None, 2000), tmp, "shipped_direct", "-j", "2")
    check(r.returncode == 0, f"direct run: {r.stderr}")
    same = subprocess.run([sys.executable, os.path.join(HERE, "same_datasets.py"), direct, bridged],
                          capture_output=True, text=True)
    check(same.returncode == 0 or same.stdout.strip().endswith(" 1 differ: study"),
          f"studies/umbridge_r_minus_s.toml differs from the expression study: {same.stdout}{same.stderr}")
    gone = subprocess.run([sys.executable, os.path.join(ROOT, "studies", "umbridge_client.py"), url],
                          capture_output=True, text=True, timeout=60)
    check(gone.returncode == 1 and "no UM-Bridge server answers" in gone.stderr, f"no server: {gone.stderr}")
    print("ok: the shipped example (umbridge_client.py, umbridge_r_minus_s.toml) as docs/umbridge.md runs it")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        check_curl(args.cli)
        check_fuzz(args.cli, tmp)
        check_round_trip(args.cli, tmp)
        check_failures(args.cli, tmp)
        check_server_gone(args.cli, tmp)
        check_shipped_example(args.cli, tmp)


if __name__ == "__main__":
    main()

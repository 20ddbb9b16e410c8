#!/usr/bin/python3
"""A UM-Bridge client in the standard library alone: asks a server (e.g. `contactuq serve
studies/expression_r_minus_s.toml --port 4242`, docs/umbridge.md) what it serves and evaluates
its model at one point, then does the same with the `umbridge` package where it is installed.

    /usr/bin/python3 studies/umbridge_client.py [URL [MODEL [VALUE ...]]]

URL defaults to http://127.0.0.1:4242, MODEL to the server's first, the values (one per input,
SI) to R = 200 N, S = 150 N. Prints one line per answer.
"""
import json
import sys
import urllib.error
import urllib.request


def call(url, path, body=None):
    """The parsed JSON answer of GET (no body) or POST (a body) url + path."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as e:  # 400 and 500 carry the protocol's {"error": ...}
        return json.load(e)


def main(argv):
    url = argv[0] if argv else "http://127.0.0.1:4242"
    try:
        info = call(url, "/Info")
    except urllib.error.URLError as e:
        sys.exit(f"no UM-Bridge server answers at {url} ({e.reason}); start one, e.g. "
                 "contactuq serve studies/expression_r_minus_s.toml --port 4242")
    print("Info:", info)
    name = argv[1] if len(argv) > 1 else info["models"][0]
    sizes = call(url, "/InputSizes", {"name": name, "config": {}})["inputSizes"]
    print("InputSizes:", sizes, "OutputSizes:", call(url, "/OutputSizes", {"name": name, "config": {}})["outputSizes"])
    values = [float(v) for v in argv[2:]] or [200.0, 150.0]
    if len(values) != len(sizes):
        sys.exit(f"{name} takes {len(sizes)} inputs; give as many values")
    # The protocol's Evaluate: one vector per input (a scalar is a vector of size 1), SI values.
    answer = call(url, "/Evaluate", {"name": name, "input": [[v] for v in values], "config": {}})
    if "error" in answer:
        sys.exit(f"Evaluate: {answer['error']}")
    print("Evaluate:", answer["output"])
    try:
        import umbridge  # pip install umbridge
    except ImportError:
        return
    print("umbridge.HTTPModel:", umbridge.HTTPModel(url, name)([[v] for v in values]))


if __name__ == "__main__":
    main(sys.argv[1:])

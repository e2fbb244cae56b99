#!/usr/bin/env python3
"""make-corpus.py — writes the seed corpus of the skit fuzz targets into
tests/fuzz/corpus/ (run from anywhere; plain Python, no NumPy needed).

  npy/            valid and invalid .npy images (every header rule of
                  skit_npy_parse, truncations, NaN/Inf, huge shapes)
  tsv/            TSV tables: comments, header, tabs vs spaces, CRLF,
                  ragged rows, NaN/Inf/overflow, empty fields
  cli-<command>/  argument words of `skit <command>`, one per line; the
                  file names refer to the fixtures that tests/fuzz/fuzz_cli.c
                  writes into its working directory

Files written here are seeds; crash inputs that the fuzzers find are added
by hand as regression-*.  Existing regression files are left alone; the
other files are rewritten (the output is deterministic)."""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- .npy -------------------------------------------------------------------

def npy(dict_text, payload=b"", version=(1, 0), align=64, newline=True, pad=True):
    header = dict_text.encode("latin-1") if isinstance(dict_text, str) else dict_text
    lenbytes = 2 if version[0] == 1 else 4
    pre = 8 + lenbytes
    if pad:
        total = pre + len(header) + (1 if newline else 0)
        header += b" " * ((align - total % align) % align)
    if newline:
        header += b"\n"
    fmt = "<H" if lenbytes == 2 else "<I"
    return b"\x93NUMPY" + bytes(version) + struct.pack(fmt, len(header)) + header + payload


def d(descr, fortran, shape):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)


def f8(*v):
    return struct.pack("<%dd" % len(v), *v)


def f4(*v):
    return struct.pack("<%df" % len(v), *v)


def make_npy():
    six = (1.0, -2.0, 0.5, 3.0, 0.25, -1.0)
    valid = {
        "f8-1d": npy(d("<f8", "False", "(3,)"), f8(1, 2, 3)),
        "f8-2d-c": npy(d("<f8", "False", "(2, 3)"), f8(*six)),
        "f8-2d-f": npy(d("<f8", "True", "(2, 3)"), f8(*six)),
        "f4-1d": npy(d("<f4", "False", "(4,)"), f4(1, 2, 3, 4)),
        "f4-2d-c": npy(d("<f4", "False", "(3, 2)"), f4(*six)),
        "f4-2d-f": npy(d("<f4", "True", "(3, 2)"), f4(*six)),
        "empty-1d": npy(d("<f8", "False", "(0,)")),
        "empty-2d-rows": npy(d("<f8", "False", "(0, 3)")),
        "empty-2d-cols": npy(d("<f8", "True", "(3, 0)")),
        "v2": npy(d("<f8", "False", "(2,)"), f8(1, 2), version=(2, 0)),
        "v3": npy(d("<f8", "False", "(2,)"), f8(1, 2), version=(3, 0)),
        "align16": npy(d("<f8", "False", "(2,)"), f8(1, 2), align=16),
        "byteorder-pipe": npy(d("|f8", "False", "(1,)"), f8(7)),
        "byteorder-eq": npy(d("=f4", "False", "(1,)"), f4(7)),
        "key-order": npy("{'shape': (2,), 'fortran_order': False, 'descr': '<f8'}", f8(1, 2)),
        "no-spaces": npy("{'descr':'<f8','fortran_order':False,'shape':(2,)}", f8(1, 2)),
        "double-quotes": npy('{"descr": "<f8", "fortran_order": False, "shape": (2,)}', f8(1, 2)),
        "trailing-comma-2d": npy(d("<f8", "False", "(1, 2,)"), f8(1, 2)),
        "denormal": npy(d("<f8", "False", "(2,)"), f8(5e-324, -0.0)),
        "f4-max": npy(d("<f4", "False", "(1,)"), f4(3.4028234e38)),
    }
    invalid = {
        "bad-magic": b"\x93NUMPX" + valid["f8-1d"][6:],
        "version-4": npy(d("<f8", "False", "(1,)"), f8(1), version=(4, 0)),
        "version-1-1": npy(d("<f8", "False", "(1,)"), f8(1), version=(1, 1)),
        "header-len-past-end": b"\x93NUMPY\x01\x00\xff\x7f{'descr': '<f8'",
        "header-len-zero": b"\x93NUMPY\x01\x00\x00\x00" + f8(1),
        "only-magic": b"\x93NUMPY",
        "nine-bytes": b"\x93NUMPY\x01\x00\x10",
        "empty": b"",
        "truncated-data": valid["f8-1d"][:-3],
        "trailing-data": valid["f8-1d"] + b"\x00" * 8,
        "big-endian": npy(d(">f8", "False", "(1,)"), struct.pack(">d", 1)),
        "int64": npy(d("<i8", "False", "(1,)"), struct.pack("<q", 1)),
        "float16": npy(d("<f2", "False", "(1,)"), b"\x00\x3c"),
        "complex": npy(d("<c16", "False", "(1,)"), f8(1, 0)),
        "object": npy(d("|O", "False", "(1,)"), b"\x00" * 8),
        "structured": npy("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }", f8(1)),
        "fortran-int": npy(d("<f8", "1", "(1,)"), f8(1)),
        "fortran-string": npy(d("<f8", "'True'", "(1,)"), f8(1)),
        "missing-shape": npy("{'descr': '<f8', 'fortran_order': False, }", f8(1)),
        "missing-descr": npy("{'fortran_order': False, 'shape': (1,), }", f8(1)),
        "extra-key": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1, }", f8(1)),
        "duplicate-key": npy("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", f8(1)),
        "ndim-3": npy(d("<f8", "False", "(1, 1, 2)"), f8(1, 2)),
        "scalar": npy(d("<f8", "False", "()"), f8(1)),
        "negative-dim": npy(d("<f8", "False", "(-1,)"), f8(1)),
        "huge-dim": npy(d("<f8", "False", "(4611686018427387904,)"), f8(1)),
        "overflow-dims": npy(d("<f8", "False", "(4294967296, 4294967296)"), f8(1)),
        "dim-past-u64": npy(d("<f8", "False", "(99999999999999999999999,)"), f8(1)),
        "shape-string": npy(d("<f8", "False", "('a',)"), f8(1)),
        "shape-list": npy(d("<f8", "False", "[2]"), f8(1, 2)),
        "shape-float": npy(d("<f8", "False", "(2.0,)"), f8(1, 2)),
        "shape-missing-comma": npy(d("<f8", "False", "(2)"), f8(1, 2)),
        "nan": npy(d("<f8", "False", "(2,)"), f8(1, float("nan"))),
        "inf-f4": npy(d("<f4", "False", "(2,)"), f4(1, float("inf"))),
        "no-newline": npy(d("<f8", "False", "(1,)"), f8(1), newline=False),
        "not-a-dict": npy("['descr', '<f8']", f8(1)),
        "unterminated-dict": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,", f8(1)),
        "unterminated-string": npy("{'descr: '<f8', 'fortran_order': False, 'shape': (1,), }", f8(1)),
        "nul-in-header": npy("{'descr': '<f8',\x00 'fortran_order': False, 'shape': (1,), }", f8(1)),
        "latin1-in-v1": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), '\xe9': 0}", f8(1)),
        "v2-huge-header-len": b"\x93NUMPY\x02\x00\xff\xff\xff\xff{",
        "nested-tuple": npy(d("<f8", "False", "((1,),)"), f8(1)),
    }
    for name, data in {**valid, **invalid}.items():
        write("npy", name + ".npy", data)


# ---- TSV --------------------------------------------------------------------

def make_tsv():
    seeds = {
        "column": "1\n2\n3\n",
        "two-columns-tab": "1\t2\n3\t4\n",
        "two-columns-spaces": "1  2\n  3 4  \n",
        "header": "x\ty\n1\t2\n3\t4\n",
        "skit-output": "# skit 0.1.0\n# command: skit toeplitz matvec\n# units: none\ny_0\ty_1\n0.5\t-1\n1e-300\t2.5e+300\n",
        "comments-blank": "# a\n\n1\n\n# b\n2\n",
        "crlf": "1\t2\r\n3\t4\r\n",
        "no-final-newline": "1\t2\n3\t4",
        "ragged": "1\t2\n3\n",
        "empty-field": "1\t\t2\n3\t4\t5\n",
        "trailing-tab": "1\t2\t\n3\t4\t\n",
        "tab-and-spaces": "1\t 2\n3 \t4\n",
        "nan": "1\nnan\n",
        "inf": "1\n-inf\n",
        "overflow": "1\n1e999\n",
        "underflow": "1e-400\n4.9e-324\n",
        "hex-float": "0x1p3\n0x.8p1\n",
        "signs": "+1\n-0\n-.5\n.5e1\n",
        "word": "1\n1x\n",
        "commas": "1,2\n3,4\n",
        "only-header": "a\tb\n",
        "only-comments": "# nothing\n# here\n",
        "empty": "",
        "blank-lines": "\n\n\n",
        "bom": "\ufeff1\n2\n",
        "nul": "1\n\x002\n",
        "two-headers": "a\nb\n1\n",
        "numeric-like-header": "1e\n2\n",
        "long-number": "1" * 400 + "\n",
        "many-columns": "\t".join(str(i) for i in range(100)) + "\n",
        "spaces-only-line": "1\n   \n2\n",
        "comment-after-data": "1\n2 # note\n",
    }
    for name, text in seeds.items():
        write("tsv", name + ".tsv", text)


# ---- command lines ------------------------------------------------------------

def cli(command, lines):
    for i, line in enumerate(lines):
        words = line.split(" ") if line else []
        write("cli-" + command, "seed-%02d" % i, "".join(w + "\n" for w in words))


def make_cli():
    # fixtures (tests/fuzz/fuzz_cli.c): c.tsv c2.tsv x.tsv x2.tsv t.tsv s.tsv
    # z.tsv nan.tsv empty.tsv text.npy c.npy x.npy x2.npy x2f.npy x0.npy trunc.npy
    cli("toeplitz", [
        "matvec --coeffs c.tsv --x x.tsv",
        "matvec --coeffs c.npy --x x.npy -o y.npy",
        "matvec --coeffs c2.tsv --x x2.tsv --causal --transpose -o y.tsv",
        "matvec --coeffs c.tsv --x x2.npy --method dense -o y.txt",
        "matvec --coeffs c.tsv --x x2f.npy --threads 2",
        "matvec --coeffs=c.tsv --x=x.tsv -oout.tsv",
        "matvec --coeffs c.tsv --x x0.npy",
        "matvec --coeffs trunc.npy --x x.tsv",
        "matvec --coeffs nan.tsv --x x.tsv",
        "matvec --coeffs text.npy --x x.tsv",
        "matvec --coeffs empty.tsv --x x.tsv",
        "matvec --coeffs c.tsv --x no-such.tsv",
        "matvec --coeffs c.tsv --x x.tsv -o out.csv",
        "matvec --coeffs c.tsv --x x.tsv --method bogus",
        "matvec --coeffs c.tsv --x x.tsv extra",
        "matvec --coeffs c.tsv --x x.tsv -o",
        "matvec --c c.tsv --x x.tsv --caus --tr",
        "matvec -h",
        "solve --coeffs t.tsv --b x.tsv --spd -o o.npy",
        "solve --coeffs s.tsv --b x2.tsv --spd",
        "solve --coeffs s.tsv --b x2.tsv",
        "solve --coeffs z.tsv --b x.tsv",
        "solve --coeffs c2.tsv --b x2.tsv",
        "solve --coeffs c.tsv --b nan.tsv",
        "solve --b x.tsv",
        "--help",
        "",
        "transpose",
        "matvec -- --coeffs c.tsv",
        "matvec --coeffs c.tsv --x x.tsv -o -",
        "matvec --coeffs c.tsv --x x.tsv -o .",
    ])
    cli("bench", [
        "toeplitz --sizes 16,32 --quick --no-scipy --no-solve",
        "toeplitz --check --sizes 2^4..2^6 --channels 3",
        "toeplitz --dense-max 0 --solve-n 0 --seed 7 --threads 1",
        "toeplitz --sizes 2^4..2^3",
        "toeplitz --json j.json -o b.tsv --plot b.png",
        "toeplitz --help",
        "ski --help",
        "tno --quick",
        "mra --quick",
        "",
        "--help",
        "nope",
    ])
    cli("reproduce", [
        "--list",
        "--only 01 --quick --out o",
        "--shard 1/2 --out o",
        "--shard 3/2",
        "--shard x",
        "--merge --out o",
        "--help",
        "",
        "--bogus",
    ])


def main():
    make_npy()
    make_tsv()
    make_cli()
    print("corpus written to", CORPUS, file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""make-corpus.py — writes the seed corpus of the skit fuzz targets into
tests/fuzz/corpus/ (run from anywhere; plain Python, no NumPy needed).

  npy/            valid and invalid .npy images (every header rule of
                  skit_npy_parse, truncations, NaN/Inf, huge shapes)
  tsv/            TSV tables: comments, header, tabs vs spaces, CRLF,
                  ragged rows, NaN/Inf/overflow, empty fields
  wisdom/         FFTW wisdom files: whole (FFTW 3.3.10, as `skit wisdom
                  --sizes 4` writes it), one form, truncated, unbalanced,
                  with a NUL, not wisdom
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
        "ski --quick --sizes 2^12",
        "device --help",
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


def make_cli_experiments():
    # ski-bound, hilbert, decay, mra and tno; tests/fuzz/fuzz_cli.c puts small
    # sizes in front of each input (its small_defaults)
    cli("ski-bound", [
        "",
        "--study sparse-lowrank",
        "--study extrapolation --kernel matern52,tnn",
        # every kernel, then every scheme: within fuzz_cli.c's 8 sweep points
        "--n 16 --r 4 --kernel gaussian,shifted-gaussian,matern52,exp-cosine,tnn,warped-linear --interp linear "
        "--degree 1",
        "--kernel tnn --lambda 0.5 --rpe-width 8 --rpe-layers 1 --activation relu",
        "--norm lanczos --vs n --n 16,32 --r 4",
        "--interval 2:20 --gamma 0.5 --pinv-rtol 1e-8",
        "--kernel warped-linear --knots 4 --lambda 0.9",
        "--variance 2 --lengthscale 3 --shift 1 --frequency 0.5 --kernel exp-cosine,shifted-gaussian",
        "--study=sparse-lowrank --spike-variance 2 --spike-lengthscale 1 --vs m --band 0,3,5",
        "--study extrapolation --n-train 8 --factor 2 --curves cur.tsv -o out.tsv",
        "--r 64 --n 32",
        "--lambda 1",
        "--lambda 0 --kernel tnn",
        "--degree 16 --interp lagrange",
        "--band 4 --study sparse-lowrank",
        "--kernel nope",
        "--interval 5:5",
        "--interval 9:2",
        "--plot fig.png -o out.tsv",
        "--seed 3 --threads 2 --quiet -o out.tsv",
        "--help",
        "--n 16 --r 4 --kernel tnn --interp linear,cubic,lagrange,authors-bracket,authors --degree 3",
    ])
    cli("hilbert", [
        "transform --spectrum cos:3 -n 16",
        "transform --spectrum poisson:0.5 -n 17 --lag-window 4",
        "causal --spectrum mlp:gelu -n 32",
        "causal --spectrum mlp:relu -n 8 --seed 5",
        "causal --input x.tsv",
        "transform --input c.npy -o out.npy",
        "transform --input x2.npy",
        "sweep --sizes 16,32 --periods 1,2 -o s.tsv",
        "sweep",
        "transform --spectrum poisson:1.5",
        "transform -n 1",
        "transform --lag-window 0",
        "sweep --input x.tsv",
        "causal --spectrum mlp:nope",
        "causal --input nan.tsv",
        "transform --plot h.svg -o h.tsv",
        "--help",
        "",
        "bogus",
    ])
    cli("decay", [
        "summary",
        "response --points 16",
        "impulse --lags 8 --activation silu --construction periodic",
        "bound --channel 1 --activation gelu --norm layer",
        "prop1 --activation relu --construction full --replicates 2",
        "summary --norm none,rms,layer --construction half,full,periodic --replicates 2 --activation relu,silu,gelu",
        "summary --fft-size 15",
        "bound --channel 9",
        "summary --range 8..4",
        "summary --orders 17",
        "impulse --floor 2",
        "prop1 --construction periodic",
        "response --activation relu,silu",
        "summary -o d.tsv --plot d.png",
        "",
        "--help",
    ])
    cli("mra", [
        "",
        "--methods exact,mra2,mra2s,lowrank,topk,nystrom,linformer,performer,window,bigbird --budget 0.1",
        "--q q.npy --k k.npy --v v.npy --n 32 --methods exact,mra2",
        "--q q.npy --k k.npy --v v.npy --block 8 --methods mra2s,topk --budget 0.5,1",
        "haar --keep 0.05,0.5 --matrix-out m.tsv --histogram-out h.tsv",
        "workload --methods lowrank,topk,mra2,mra2s",
        "bounds --block 8,16 --budget 0.2",
        "bounds --q q.npy --k k.npy --n 32",
        "frame --subsets 3",
        "--n 60 --block 8",
        "--budget 0",
        "--budget 1.5",
        "--per-row 8,16",
        "--scales 32,8,1",
        "--selection row --diagonal-prior 2 --first-block-prior",
        "--entropy 1,2",
        "--temperature 0.5,2 --beta 8",
        "--sinks 2 --sink-strength 2 --locality 0 --noise 1",
        "--q q.npy",
        "--q k.npy --k q.npy --v x.npy",
        "--d 8 --dv 4 --scale 0.5",
        "frame --block 8",
        "haar --entropy 1",
        "-o out.tsv --plot p.png",
        "--help",
        "sweep --help",
    ])
    cli("tno", [
        "--n 16 --d 2",
        "--op ski --n 16 --d 2 --rank 4 --taps 5 --knots 4",
        "--op fd --causal --n 16 --d 2 --verify",
        "--op ski --causal --n 16 --d 2 --verify",
        "--x x2.npy --op tno --decay 0.9 --save-params p.npy --coeffs co.npy",
        "--x x.tsv --batch 3",
        "--x x2.tsv --batch 2",
        "--op ski --n 16 --d 2 --rank 32",
        "--decay 1.5 --n 8 --d 1",
        "--op ski --decay 1 --n 8 --d 1",
        "--taps 4 --op ski --n 16 --d 2",
        "--fft-length 17 --op fd --n 16 --d 2",
        "--params c.npy --n 3 --d 1",
        "--knot-values x2.npy --op ski --n 16 --d 2",
        "--filter x2.npy --op ski --n 8 --d 2",
        "--coeff-layout reference --coeffs co.tsv --n 8 --d 2",
        "--stats s.tsv --n 8 --d 1 -o y.npy",
        "--x nan.tsv",
        "--x x.npy --n 3",
        "--activation silu --norm layer --rpe-width 4 --rpe-layers 2 --n 8 --d 3",
        "--op bogus",
        "",
        "--help",
    ])


# ---- wisdom -----------------------------------------------------------------

WISDOM_F64 = """(fftw-3.3.10 fftw_wisdom #x458a31c8 #x92381c4c #x4f974889 #xcd46f97e
  (fftw_codelet_r2cf_4 2 #x11bdd #x11bdd #x0 #xc801661e #xaa5a53a0 #xea70a545 #xd5e01ab8)
  (fftw_codelet_r2cb_4 2 #x10bdd #x10bdd #x0 #x15694a5c #x14b75394 #x0fe63cfa #xf004fa19)
)
"""
WISDOM_F32 = """(fftw-3.3.10 fftwf_wisdom #x9e7d4dee #xdb14fed1 #x34bf76a4 #xeb6e8fdf
  (fftwf_codelet_r2cb_4 2 #x10bdd #x10bdd #x0 #xb0e62ccc #x7710800d #xe0126d6c #x24ecb756)
  (fftwf_codelet_r2cf_4 2 #x11bdd #x11bdd #x0 #x10f36e9d #x373246ac #x9d22fced #xd1916133)
)
"""


def make_wisdom():
    both = WISDOM_F64 + WISDOM_F32
    write("wisdom", "both.wis", both)
    write("wisdom", "double-only.wis", WISDOM_F64)
    write("wisdom", "float-only.wis", WISDOM_F32)
    write("wisdom", "empty-forms.wis", "(fftw-3.3.10 fftw_wisdom #x458a31c8 #x92381c4c #x4f974889 #xcd46f97e\n)\n")
    write("wisdom", "truncated.wis", both[: len(both) // 2])
    write("wisdom", "unbalanced.wis", WISDOM_F64 + ")")
    write("wisdom", "nul.wis", both[:100] + "\0" + both[100:])
    write("wisdom", "crlf.wis", both.replace("\n", "\r\n"))
    write("wisdom", "empty.wis", "")
    write("wisdom", "not-wisdom.wis", "(hello world)\n")


def main():
    make_npy()
    make_tsv()
    make_wisdom()
    make_cli()
    make_cli_experiments()
    print("corpus written to", CORPUS, file=sys.stderr)


if __name__ == "__main__":
    main()

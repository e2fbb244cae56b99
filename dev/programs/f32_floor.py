#!/usr/bin/python3
"""f32_floor.py -- can any FFTW implementation be 5x faster than the
PyTorch float32 peer?  For each TNO / FD-TNO shape of `skit bench tno`,
one thread, in one run: the PyTorch peer's forward (bench/peers/
tno_torch.py), then f32_floor (beside this file): skit's float32 forward,
its apply with the kernels cached, the plain FFTW float loop at the
peer's length (the floor: no kernel computation, no transpose), and
FFTW's bare r2c + c2r per channel alone (transforms). torch / transforms
< 5 means no implementation by this machine's FFTW transforms at that
length meets the 5x target at that shape.

  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 LD_LIBRARY_PATH=build/.libs \
    /usr/bin/python3 dev/programs/f32_floor.py /tmp/t/f32_floor > out.tsv
"""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "bench", "peers"))
import torch  # noqa: E402
from blas_threads import set_threads  # noqa: E402
import tno_torch  # noqa: E402

SHAPES = [(512, 512, 4), (2048, 512, 1), (8192, 128, 1), (32768, 64, 1)]


def main():
    binary = sys.argv[1]
    set_threads(1)
    torch.manual_seed(1)
    print(f"# PyTorch {torch.__version__}, float32, 1 thread; seconds per forward (median)")
    print("op\tcausal\tn\td\tbatch\ttorch_s\tskit_s\tskit_apply_s\tfloor_s\t"
          "transforms_s\ttorch_over_skit\ttorch_over_apply\ttorch_over_floor\ttorch_over_transforms\tfloor_check")
    for n, d, batch in SHAPES:
        for op, model_class in (("tno", tno_torch.Tno), ("fd", tno_torch.FdTno)):
            for causal in (0, 1):
                model = model_class(n, d, bool(causal), torch.float32)
                x = torch.randn(batch, n, d, dtype=torch.float32)
                t = tno_torch.seconds(model, x)
                out = subprocess.run([binary, op, str(causal), str(n), str(d), str(batch)],
                                     check=True, capture_output=True, text=True).stdout.split()
                fwd, apply, floor, transforms, check = (float(v) for v in out)
                print(f"{op}\t{causal}\t{n}\t{d}\t{batch}\t{t:.6g}\t{fwd:.6g}\t{apply:.6g}\t{floor:.6g}\t{transforms:.6g}\t"
                      f"{t / fwd:.3g}\t{t / apply:.3g}\t{t / floor:.3g}\t{t / transforms:.3g}\t{check:.2g}", flush=True)


if __name__ == "__main__":
    main()

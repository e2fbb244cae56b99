#!/usr/bin/env bash
# tests/readme.sh — the README and the command tour stay true.
#
# Every example block of README.md and docs/cli.md whose first line starts
# with "$ " is run, command by command, in one fresh directory per block
# (stdout and stderr together, less the progress lines a slow machine
# prints; PATH leading to this build's skit), and its
# output is compared with the lines shown under the command: word by word,
# numbers to 6 significant digits, and numbers below 1e-10 in magnitude
# (rounding-level errors, whose digits depend on the FFT plan) only to
# within a factor of 10. README's C example is compiled against this build
# and must run and exit 0; its Python example runs when numpy and scipy
# are importable.
set -u
top=${SKIT_DATADIR:?run from make check}
: "${SKIT:?run from make check}"
build=$(cd "$(dirname "$SKIT")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skit-readme.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$SKIT" > "$tmp/bin/skit"
chmod +x "$tmp/bin/skit"

PATH="$tmp/bin:$PATH" python3 - "$top/README.md" "$top/docs/cli.md" "$tmp" <<'EOF' || exit 1
import os, re, subprocess, sys

def blocks(path):
    """(line number, [lines]) of each fenced block whose first line is a command."""
    out, cur, start, fence = [], None, 0, None
    for i, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.startswith("```"):
            if cur is None:
                cur, start = [], i
            else:
                if cur and cur[0].startswith("$ "):
                    out.append((start, cur))
                cur = None
            continue
        if cur is not None:
            cur.append(line)
    return out

PROGRESS = re.compile(r"^skit[ a-z-]*: \[\d+ s\] ")

def number(word):
    try:
        return float(word)
    except ValueError:
        return None

def same_word(want, got):
    if want == got:
        return True
    a, b = number(want), number(got)
    if a is None or b is None:
        return False
    if abs(a) < 1e-10 or abs(b) < 1e-10:
        return (a == 0) == (b == 0) and (a == 0 or 0.1 <= abs(b / a) <= 10)
    return abs(a - b) <= 5e-6 * max(abs(a), abs(b))

def same(want, got):
    w, g = want.split(), got.split()
    return len(w) == len(g) and all(same_word(x, y) for x, y in zip(w, g))

failures = ran = 0
for path in sys.argv[1:3]:
    for start, lines in blocks(path):
        # README.md and docs/cli.md may both have a block at one line number
        work = os.path.join(sys.argv[3], "%s-block%d" % (os.path.basename(path), start))
        os.makedirs(work)
        steps, i = [], 0
        while i < len(lines):
            cmd, want = lines[i][2:], []
            i += 1
            while i < len(lines) and not lines[i].startswith("$ "):
                want.append(lines[i])
                i += 1
            steps.append((cmd, want))
        for cmd, want in steps:
            ran += 1
            r = subprocess.run(["bash", "-c", cmd], cwd=work,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            got = r.stdout.rstrip("\n").split("\n") if r.stdout.strip() else []
            # progress lines ("skit CMD: [N s] ...", on stderr once a command
            # has run for a second) depend on the machine's speed
            got = [g for g in got if not PROGRESS.match(g)]
            want = [w for w in want if w.strip()]
            ok = r.returncode == 0 and len(got) == len(want) and all(map(same, want, got))
            if not ok:
                failures += 1
                print("FAIL: %s:%d: $ %s (exit %d)\n  shown:\n    %s\n  got:\n    %s" % (
                    os.path.relpath(path), start, cmd, r.returncode,
                    "\n    ".join(want), "\n    ".join(got)))
print("%d shell examples run, %d differ from the documentation" % (ran, failures))
sys.exit(1 if failures else 0)
EOF

# README's C example, against this build's headers and library
awk '/^```c$/ {on = 1; next} /^```$/ {on = 0} on' "$top/README.md" > "$tmp/example.c"
[ -s "$tmp/example.c" ] || { echo "FAIL: README.md has no C example" >&2; exit 1; }
lib=$build/.libs
# (a sanitizer build's library needs the program built with the same
# runtime: tests/python.mk exports SKIT_SAN_CFLAGS)
${CC:-cc} ${SKIT_SAN_CFLAGS:-} -o "$tmp/example" "$tmp/example.c" -I"$top/lib" -I"$build" -L"$lib" \
    -lskit -lm -Wl,-rpath,"$lib" || { echo "FAIL: README's C example does not compile" >&2; exit 1; }
out=$("$tmp/example") || { echo "FAIL: README's C example exits $?: $out" >&2; exit 1; }
case $out in "FFT vs dense: max difference "*) ;; *) echo "FAIL: README's C example printed: $out" >&2; exit 1 ;; esac
echo "C example: $out"

# README's Python example, where its modules are installed
if [ -n "${SKIT_SAN_CFLAGS:-}" ]; then
    echo "Python example not run: sanitizer build (its runtime cannot load into python3)"
elif python3 -c 'import numpy, scipy' 2>/dev/null; then
    awk '/^```python$/ {on = 1; next} /^```$/ {on = 0} on' "$top/README.md" > "$tmp/example.py"
    out=$(cd "$tmp" && SKIT_LIBRARY=$lib/libskit.so PYTHONPATH="$top/python" python3 example.py 2>&1) ||
        { echo "FAIL: README's Python example: $out" >&2; exit 1; }
    [ "$out" = True ] || { echo "FAIL: README's Python example printed: $out" >&2; exit 1; }
    echo "Python example: $out"
else
    echo "Python example not run: numpy or scipy not importable by python3"
fi
exit 0

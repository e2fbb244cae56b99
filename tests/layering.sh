#!/usr/bin/env bash
# tests/layering.sh — the library's modules only point down.
#
# Ranks (a module may use modules of lower rank, never higher or equal):
#   core 0 < io, fft, spectral, mlp 1 < cuda 2 (GPU building blocks)
#   < toeplitz 3 < ski, freq, attention 4 < tno 5
# Checked on the built objects and the sources:
#   1. calls: every skit_* or module-prefixed function a module's objects
#      use from another module is defined in a module of lower rank (no
#      call goes up or sideways, so no call loop between modules);
#   2. includes: no file includes another module's *_internal.h, and a
#      library-internal interface header "B/x.h" only from a higher module;
#   3. the library never includes the umbrella header skit.h;
#   4. the programs sit on top, in ranks of their own:
#        lib (the public API, skit.h) < cli (the command-line kit)
#        < tools (skit), train (skit-train), bench (skit-benchmarks)
#      a program includes from lib/ only the public headers (skit.h,
#      skit/*.h), from the kit anything, and nothing of another program
#      (`skit train` and `skit bench` run the other programs, they do not
#      link them); the kit includes no program's header.
set -u
top=${SKIT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${SKIT_BUILDDIR_ABS:-$(pwd)}
declare -A rank=([core]=0 [io]=1 [fft]=1 [spectral]=1 [mlp]=1 [cuda]=2 [toeplitz]=3 [ski]=4
                 [freq]=4 [attention]=4 [tno]=5)
fail=0
complain() { echo "layering: $*" >&2; fail=1; }

# ---- 1. calls, from the objects libtool built (lib/<module>/*.o) ----------
# the library's objects as make knows them (libtool .lo names; the .o
# beside each, or libtool's PIC copy in .libs/), so stale objects of
# renamed files do not count
objects=""
for lo in ${SKIT_LIBSKIT_OBJECTS:-}; do
    o="$build/${lo%.lo}.o"
    pic="$build/$(dirname "$lo")/.libs/$(basename "${lo%.lo}").o"
    if [ -f "$o" ]; then objects="$objects $o"; elif [ -f "$pic" ]; then objects="$objects $pic"; fi
done
if [ -z "$objects" ]; then
    echo "layering: no library objects (run from make check, which sets SKIT_LIBSKIT_OBJECTS)" >&2
    exit 99
fi
module_of() { local d; d=$(dirname "$1"); d=${d%/.libs}; basename "$d"; }
declare -A owner
for o in $objects; do
    m=$(module_of "$o")
    [ -n "${rank[$m]+x}" ] || continue
    while read -r sym; do owner[$sym]=$m; done < <(nm --defined-only -g "$o" 2>/dev/null | awk '$2 ~ /[TDBR]/ {print $3}')
done
for o in $objects; do
    m=$(module_of "$o")
    [ -n "${rank[$m]+x}" ] || continue
    while read -r sym; do
        b=${owner[$sym]:-}
        [ -n "$b" ] && [ "$b" != "$m" ] || continue
        if [ "${rank[$b]}" -ge "${rank[$m]}" ]; then
            complain "${o#"$build"/} ($m, rank ${rank[$m]}) calls $sym of $b (rank ${rank[$b]})"
        fi
    done < <(nm --undefined-only -g "$o" 2>/dev/null | awk '{print $2}')
done

# ---- 2 and 3. includes ----------------------------------------------------
while IFS= read -r f; do
    rel=${f#"$top"/lib/}
    m=${rel%%/*}
    [ -n "${rank[$m]+x}" ] || continue
    while IFS= read -r inc; do
        b=${inc%%/*}
        [ "$b" = skit ] && continue
        if [ "$inc" = skit.h ]; then complain "lib/$rel includes the umbrella header skit.h"; continue; fi
        [ "$b" = "$m" ] && continue
        [ -n "${rank[$b]+x}" ] || continue
        case $inc in
        *_internal.h) complain "lib/$rel includes $inc, the private header of $b" ;;
        *) [ "$b" = core ] || [ "${rank[$b]}" -lt "${rank[$m]}" ] ||
               complain "lib/$rel ($m) includes $inc of $b: not a lower module" ;;
        esac
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done < <(find "$top/lib" -mindepth 2 \( -name '*.c' -o -name '*.h' -o -name '*.cu' \))

# ---- 4. the programs ---------------------------------------------------------
programs=0
for area in cli tools train bench; do
    while IFS= read -r f; do
        programs=$((programs + 1))
        rel=${f#"$top"/}
        while IFS= read -r inc; do
            case $inc in
            config.h | skit.h | skit/*) ;;
            cli/*) [ "$area" != cli ] || complain "$rel includes $inc: the kit includes its own headers by name" ;;
            */*) complain "$rel includes $inc: a program uses the library's public headers and the kit only" ;;
            *) [ -f "$(dirname "$f")/$inc" ] || complain "$rel includes $inc, not a header of $area/" ;;
            esac
        done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
    done < <(find "$top/$area" -maxdepth 1 \( -name '*.c' -o -name '*.h' \))
done
[ $programs -gt 0 ] || complain "no program sources found under $top/{cli,tools,train,bench}"

[ $fail -eq 0 ] && echo "layering: modules point down (${#owner[@]} symbols checked; $programs program files)"
exit $fail

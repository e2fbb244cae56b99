/* fdiff.h — one derivative from a ladder of central differences, shared by
 * `skit grad-check` (tools/gradcheck.c) and `skit train --check-gradients`
 * (train/check.c). */
#ifndef SKIT_TOOLS_FDIFF_H
#define SKIT_TOOLS_FDIFF_H

/* most steps in a ladder */
#define FDIFF_MAX_STEPS 12

/* D[k] = (L(p + h_k) - L(p - h_k)) / 2 h_k at steps h_k = h_0 4^-k, k = 0
 * .. steps - 1 (4 <= steps <= FDIFF_MAX_STEPS), and rounding[k] a bound
 * on each one's rounding error, of the form c / h_k (better too large than
 * too small: fdiff.c): *estimate is the derivative, Richardson-
 * extrapolated, and *resolution how far it can be trusted (the agreement
 * of its pair plus the rounding). */
void fdiff_pick(int steps, const double *D, const double *rounding, double *estimate, double *resolution);

#endif

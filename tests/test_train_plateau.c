/* test_train_plateau.c — the --plateau rule (train/plateau.h) on
 * hand-made loss sequences: met only with more than K evaluations, when
 * the best of the last K beats the best before them by less than DELTA
 * (an improvement of exactly DELTA is not a plateau), read with a stride
 * as from the training log; NaN never reads as a plateau. */
#include "config.h"

#include <math.h>

#include "check_util.h"
#include "train/plateau.h"

static int met(size_t K, double delta, const double *losses, size_t count)
{
    const train_plateau rule = {K, delta};
    return train_plateau_met(&rule, losses, 1, count, NULL);
}

START_TEST(test_rule)
{
    const double falling[] = {3.0, 2.0, 1.0, 0.5, 0.25};
    ck_assert_int_eq(met(2, 0.1, falling, 5), 0);
    ck_assert_int_eq(met(2, 0.8, falling, 5), 1);  /* best before 1.0, recent 0.25: 0.75 < 0.8 */
    ck_assert_int_eq(met(2, 0.75, falling, 5), 0); /* exactly DELTA: still improving */
    ck_assert_int_eq(met(5, 100, falling, 5), 0);  /* K evaluations: nothing before them */
    ck_assert_int_eq(met(0, 100, falling, 5), 0);  /* no rule */
    const double bump[] = {1.0, 0.5, 0.7, 0.6};     /* the recent ones worse than the best before */
    ck_assert_int_eq(met(2, 0, bump, 4), 1);
    ck_assert_int_eq(met(3, 0, bump, 4), 0);        /* 0.5 is among the last 3 */
    const double broken[] = {1.0, NAN, NAN};
    ck_assert_int_eq(met(2, 100, broken, 3), 0);
}
END_TEST

START_TEST(test_stride_and_reading)
{
    /* log rows of 3 columns, the loss in the middle one */
    const double rows[] = {0, 2.0, 0, 0, 1.5, 0, 0, 1.45, 0, 0, 1.44, 0};
    const train_plateau rule = {2, 0.1};
    train_plateau_reading r = {NAN, NAN};
    ck_assert_int_eq(train_plateau_met(&rule, rows + 1, 3, 4, &r), 1); /* best before 1.5, recent 1.44 */
    ck_assert(r.before == 1.5 && r.recent == 1.44);
    const train_plateau strict = {2, 0.05};
    ck_assert_int_eq(train_plateau_met(&strict, rows + 1, 3, 4, NULL), 0);
}
END_TEST

static Suite *suite_train_plateau(void)
{
    Suite *s = suite_create("train_plateau");
    TCase *tc = tcase_create("rule");
    tcase_add_test(tc, test_rule);
    tcase_add_test(tc, test_stride_and_reading);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_train_plateau()); }

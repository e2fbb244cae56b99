#include "config.h"
#include "check_util.h"
#include "cuda/index_logic.h"
START_TEST(test_placeholder) { ck_assert_uint_eq(skit_cuda_good_length(11), 12); }
END_TEST
int main(void)
{
    Suite *s = suite_create("cuda_logic");
    TCase *tc = tcase_create("logic");
    tcase_add_test(tc, test_placeholder);
    suite_add_tcase(s, tc);
    return tu_main(s);
}

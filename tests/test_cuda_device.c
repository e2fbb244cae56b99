#include "config.h"
#include "check_util.h"
int main(void)
{
    char line[256];
    if (skit_cuda_status(line, sizeof line) != SKIT_OK) {
        fprintf(stderr, "%s: skipping device tests\n", line);
        return 77;
    }
    return 0;
}

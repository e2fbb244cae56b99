/* skit/tno.h — token-mixing operators TNO / SKI-TNO / FD-TNO. (Being written.) */
#ifndef SKIT_TNO_H
#define SKIT_TNO_H
#include "skit/core.h"
#endif

#ifndef CZXCVBN_SHIM_H
#define CZXCVBN_SHIM_H
// zxcvbn-c (Debian's libzxcvbn-dev): password strength as estimated guessing entropy, with its
// dictionaries compiled into the library.
#include <zxcvbn.h>
#endif

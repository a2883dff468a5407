/* Writing JSON strings (kjail doctor --json, kjail ls --json). */
#ifndef KJAIL_JSON_OUT_H
#define KJAIL_JSON_OUT_H

#include <stdio.h>

/* s as a JSON string, quotes included (NULL as ""): '"' and '\' escaped,
 * control characters as \u00XX, and every byte that is not part of valid
 * UTF-8 (a path may hold any byte) as U+FFFD, so the output is always
 * JSON a strict parser takes. */
void json_put_string(FILE *out, const char *s);

#endif

/* Files from profiles/ compiled into the binary (see profiles/embed.sh). */
#ifndef KJAIL_BUILTIN_H
#define KJAIL_BUILTIN_H
/* The text of profiles/NAME, or NULL when there is no such built-in. */
const char *kjail_builtin_find(const char *name);
#endif

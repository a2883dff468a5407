/* The parts of a session client that run before the C library starts
 * (runtime/session_quick.c), and the checks it shares with the full
 * client, so a name, a state directory or a record value is judged by
 * the same code on both paths. These functions call nothing outside
 * their file: they are safe before relocation, TLS and errno exist.
 */
#ifndef KJAIL_SESSION_QUICK_H
#define KJAIL_SESSION_QUICK_H

#include <stdbool.h>
#include <stddef.h>

/* [A-Za-z0-9][A-Za-z0-9_.-]{0,63} */
bool session_name_ok(const char *name);
/* The state directory's path for this effective uid and
 * $XDG_RUNTIME_DIR (NULL when unset): its length, or 0 when it does not
 * fit in cap bytes with its NUL. */
size_t session_dir_compose(char *buf, size_t cap, unsigned euid, const char *xdg);
/* Is a state directory with this lstat() mode and owner the caller's
 * alone: a real directory, owned by euid, mode 0700 or tighter? */
bool session_dir_private(unsigned mode, unsigned owner, unsigned euid);
/* What follows "key=" at the start of a line of a record's text (up to
 * the line's end), or NULL when no line starts so. */
const char *session_record_find(const char *text, const char *key);
/* That value as a decimal number; 0 when the key is absent. */
unsigned long long session_record_number(const char *text, const char *key);

#endif

/* The command line of `kjail exec`: one option table, one parser. */
#ifndef KJAIL_CLI_H
#define KJAIL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "runtime/conffile.h"
#include "runtime/config.h"
#include "runtime/error.h"

/* Split OPTIONS up to COMMAND (or "--") into option lines (flags), checking
 * only that each option exists and has a value when it takes one; *command
 * points at COMMAND. Returns 1 for --help. Without need_command, anything
 * after the options is an error (kjail doctor). */
int cli_parse_exec(int argc, char **argv, bool need_command, struct kj_lines *flags,
		   char ***command, struct kj_err *err);

/* What stands after the options, for the message when it is missing:
 * COMMAND and kjail exec's usage unless the command says otherwise
 * (kjail create: NAME, "usage: kjail create [OPTIONS] NAME"). Both
 * strings must live as long as the process. */
void cli_set_operand(const char *operand, const char *usage);

/* 0 if NAME is an option (and whether it takes a value), else -ENOENT. */
int cli_option_lookup(const char *name, bool *takes_value);

/* Apply one long option by name (no leading dashes): the one code path
 * for flags, profile lines and settings lines (and policy values). */
int cli_apply_option(struct kj_config *cfg, const char *name, const char *value,
		     struct kj_err *err);

/* An option kjail exec takes but refuses on its own command line: one a
 * one-shot run has no use for (--idle-timeout: a session's). The one check
 * for kjail exec and for the run kjail doctor judges. 0, or -EINVAL with
 * err filled. */
int cli_check_oneshot_flag(const char *name, struct kj_err *err);

void cli_usage(FILE *out);

#endif

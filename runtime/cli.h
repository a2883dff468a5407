/* The command line of `kjail exec`: one option table, one parser. */
#ifndef KJAIL_CLI_H
#define KJAIL_CLI_H

#include <stdio.h>

#include "runtime/config.h"
#include "runtime/error.h"

/* Parse OPTIONS up to COMMAND (or "--"). On success cfg->argv is set and 0
 * returned; --help prints usage and returns 1. */
int cli_parse_exec(int argc, char **argv, struct kj_config *cfg, struct kj_err *err);

/* Apply one long option by name (no leading dashes): the same code path
 * for the command line and, later, profile and settings lines. */
int cli_apply_option(struct kj_config *cfg, const char *name, const char *value,
		     struct kj_err *err);

void cli_usage(FILE *out);

#endif

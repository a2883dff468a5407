/* The line format of settings, profiles and the policy (runtime/conffile.c):
 * one option a line, "#" comments, no dashes, no "name=value". TAP. */
#include <stdio.h>
#include <string.h>

#include "runtime/conffile.h"

static int n, failed;

static void ok(int cond, const char *name)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, name);
	failed += !cond;
}

/* split(line) and compare: rc, name, value ("" for none), why contains. */
static void split_is(const char *line, int want_rc, const char *want_name, const char *want_value,
		     const char *test)
{
	char buf[256];
	const char *name = NULL, *value = NULL, *why = NULL;
	int rc;

	snprintf(buf, sizeof(buf), "%s", line);
	rc = conf_split_line(buf, &name, &value, &why);
	if (rc != want_rc) {
		ok(0, test);
		printf("#   rc %d, expected %d (why: %s)\n", rc, want_rc, why ? why : "-");
		return;
	}
	if (rc != 1) {
		ok(1, test);
		return;
	}
	ok(!strcmp(name, want_name) && !strcmp(value ? value : "", want_value), test);
	if (strcmp(name, want_name) || strcmp(value ? value : "", want_value))
		printf("#   got '%s' '%s'\n", name, value ? value : "");
}

int main(void)
{
	split_is("net none", 1, "net", "none", "option_and_value");
	split_is("  memory   512M  ", 1, "memory", "512M", "blanks_around_are_trimmed");
	split_is("tty", 1, "tty", "", "flag_without_value");
	split_is("\ttimeout\t30s\r", 1, "timeout", "30s", "tabs_and_cr_are_blanks");
	split_is("", 0, "", "", "empty_line_is_nothing");
	split_is("   ", 0, "", "", "blank_line_is_nothing");
	split_is("# a comment", 0, "", "", "comment_line_is_nothing");
	split_is("   # indented comment", 0, "", "", "indented_comment_is_nothing");
	split_is("net none # why", 1, "net", "none", "trailing_comment_is_dropped");
	split_is("quiet #why", 1, "quiet", "", "trailing_comment_after_flag");
	split_is("setenv COLOR=#fff", 1, "setenv", "COLOR=#fff", "hash_inside_value_stays");
	split_is("setenv GREETING=hello world", 1, "setenv", "GREETING=hello world",
		 "value_keeps_inner_blanks");
	split_is("--net none", -1, "", "", "leading_dashes_refused");
	split_is("-q", -1, "", "", "short_option_refused");
	split_is("net=none", -1, "", "", "name_equals_value_refused");

	{
		char text[] = "# top\nnet none\n\nquiet\n  memory 1G # comment\n";
		struct kj_lines lines = {0};
		struct kj_err err = {0};
		int rc = conf_parse("settings", text, "f", &lines, &err);
		ok(rc == 0 && lines.n == 3, "parse_counts_option_lines");
		ok(lines.n == 3 && lines.v[0].lineno == 2 && lines.v[1].lineno == 4 &&
			   lines.v[2].lineno == 5,
		   "parse_keeps_line_numbers");
	}
	{
		char text[] = "net none\n--quiet\n";
		struct kj_lines lines = {0};
		struct kj_err err = {0};
		int rc = conf_parse("settings", text, "/etc/kjail/settings", &lines, &err);
		ok(rc < 0 &&
			   strstr(err.msg,
				  "/etc/kjail/settings:2: '--quiet' is not an option line") &&
			   strstr(err.msg, "without its dashes"),
		   "parse_error_names_file_and_line");
		if (rc == 0 || !strstr(err.msg, "/etc/kjail/settings:2"))
			printf("#   %s\n", err.msg);
	}
	{
		struct kj_line ln = {"net", "bogus", "~/.config/kjail/settings", 3};
		struct kj_err err = {0};
		kj_fail(&err, "option", 0, "valid values: none, host",
			"--net: invalid value 'bogus'");
		line_error(&ln, &err);
		ok(!strcmp(err.msg,
			   "~/.config/kjail/settings:3: --net: invalid value 'bogus' (valid values: none, host)"),
		   "line_error_prefixes_the_source");
		ln.file = NULL;
		kj_fail(&err, "option", 0, "valid values: none, host",
			"--net: invalid value 'bogus'");
		line_error(&ln, &err);
		ok(!strcmp(err.msg, "--net: invalid value 'bogus' (valid values: none, host)"),
		   "command_line_errors_have_no_prefix");
	}
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}

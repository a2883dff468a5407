/* Sanitizer defaults compiled into kjail by `make SANITIZE=1` (the
 * sanitizer suite; the fuzz targets set their own in fuzz.h). Built in,
 * not only in ASAN_OPTIONS, because tests start kjail through
 * `setpriv --reset-env` and kjail scrubs the environment of what it runs.
 *
 * detect_leaks=0: kjail is a one-shot process that builds its
 * configuration once and lets exit free it (no destructors, by design), so
 * LeakSanitizer would report every run and turn its exit status into 23.
 * Every memory error is still reported, and every UBSan finding is fatal
 * (-fno-sanitize-recover). */
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

const char *__ubsan_default_options(void)
{
	return "print_stacktrace=1";
}

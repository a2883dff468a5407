/* kjail doctor [--json] [OPTIONS]: what kjail can do on this machine, for
 * the configuration a `kjail exec [OPTIONS]` would get here, and why not.
 * Live probes where a claim can be tested (user, mount and network
 * namespaces, seccomp), read-only looks elsewhere (sysctls, cgroups);
 * nothing is written. Exit 0 when that run could start here, 1 when it
 * could not, 125 for a bad option. */
#ifndef KJAIL_DOCTOR_H
#define KJAIL_DOCTOR_H

int doctor_run(int argc, char **argv);

#endif

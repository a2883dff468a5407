#!/bin/bash
# The environment: cleared, rebuilt from an allow-list, secrets never pass.
. "$(dirname "$0")/../lib.sh"

export OPENAI_API_KEY=sk-test-1 GITHUB_TOKEN=ghp-test-2 AWS_SECRET_ACCESS_KEY=aws-3 \
	MY_PASSWORD=pw-4 SSH_AUTH_SOCK=/tmp/agent.sock DB_SECRET=s-5 GH_TOKEN=gh-6 \
	NPM_TOKEN=npm-7 SOME_CREDENTIALS=c-8 LC_API_KEY=lc-9 RANDOM_VAR=plain \
	LANG=C.UTF-8 LC_ALL=C LC_TIME=C TZ=UTC TERM=xterm-test LC_DB=postgres://u:hunter2@db/x

kj exec -- env
unlike "$out" "sk-test-1|ghp-test-2|aws-3|pw-4|agent.sock|s-5|gh-6|npm-7|c-8|lc-9" secrets_absent_inside
unlike "$out" "RANDOM_VAR" unlisted_variable_absent
like "$out" "LANG=C.UTF-8" lang_passes
like "$out" "LC_ALL=C" lc_star_passes
like "$out" "LC_TIME=C" lc_category_passes
unlike "$out" "LC_DB|hunter2" lc_name_not_a_locale_category_absent
like "$out" "TZ=UTC" tz_passes
like "$out" "TERM=xterm-test" term_passes
like "$out" "PATH=" path_present
like "$out" "TMPDIR=/tmp" tmpdir_set

kj exec --env RANDOM_VAR -- sh -c 'echo $RANDOM_VAR'
is "$out" plain env_option_passes_variable
kj exec --env GITHUB_TOKEN -- true
expect_rc env_secret_refused 125
like "$err" "kjail: env: --env GITHUB_TOKEN: the name looks like a secret \(add --allow-secret-env" env_secret_refused_message
# The name is refused, not only a variable the caller has: a line that
# ran where the token was unset (a laptop) failed where it was set (CI).
unset KJ_UNSET_API_TOKEN
kj exec --env KJ_UNSET_API_TOKEN -- true
is "$rc" 125 env_secret_name_refused_even_when_unset
like "$err" "^kjail: env: --env KJ_UNSET_API_TOKEN: the name looks like a secret" env_secret_name_refused_even_when_unset_message
# Every pattern of runtime/env.c's secret test, one name each that matches
# that pattern alone, so a pattern dropped from the list lets its name
# through: parts anywhere in the name, suffixes, prefixes; any case.
secret_names="XSECRETX XPASSWORDX XPASSWDX XTOKENX XCREDENTIALX XAPIKEYX XAPI_KEYX
	XPRIVATE_KEYX XCOOKIEX XPASSPHRASEX XACCESS_KEYX XDATABASE_URLX X_KEY X_PASS X_PWD X_PAT X_DSN AWS_X GH_X GITHUB_X SSH_X GPG_X
	VAULT_X AZURE_X GOOGLE_APPLICATION_X DOCKER_AUTHX KUBECONFIGX NPM_TOKEN gh_lower"
passed=
for name in $secret_names; do
	export "$name=v"
	kj exec --env "$name" -- true
	[ "$rc" = 125 ] && [[ $err == *"--env $name: the name looks like a secret"* ]] ||
		passed="$passed $name($rc)"
	unset "$name"
done
is "$passed" "" every_secret_name_pattern_refused_for_env
kj exec --env GITHUB_TOKEN --allow-secret-env GITHUB_TOKEN -- sh -c 'echo $GITHUB_TOKEN'
is "$out" ghp-test-2 allow_secret_env_passes
kj exec --setenv API_TOKEN=given -- sh -c 'echo $API_TOKEN'
is "$out" given setenv_sets_even_secret_looking_name
kj exec --setenv LANG=fr_FR.UTF-8 -- sh -c 'echo $LANG'
is "$out" fr_FR.UTF-8 setenv_overrides
kj exec --setenv TMPDIR=/tmp/x -- sh -c 'echo $TMPDIR'
is "$out" /tmp/x setenv_overrides_tmpdir
kj exec -- sh -c 'cat /proc/1/environ | tr "\0" "\n"; echo'
unlike "$out" "sk-test-1|ghp-test-2" init_environment_not_readable_or_clean

if [ "$KJ_AS" = root ]; then
	kj exec --user nobody -- sh -c 'echo $(id -u) $HOME $USER'
	is "$out" "65534 /nonexistent nobody" user_option_sets_identity_and_home
	# A uid no account names: the caller's USER=root and LOGNAME=root
	# stayed, telling the command it ran as root.
	USER=root LOGNAME=root kj exec --user 54321 -- sh -c 'echo "$(id -u) $HOME u=${USER-unset} l=${LOGNAME-unset}"'
	is "$out" "54321 / u=unset l=unset" user_unknown_uid_drops_callers_user_and_logname
else
	skip user_unknown_uid_drops_callers_user_and_logname "--user needs root"
	skip user_option_sets_identity_and_home "--user needs root"
fi

done_testing

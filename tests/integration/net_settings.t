#!/bin/bash
# The options of --net proxy alone (allow-host, deny-host, net-log,
# net-hosts, net-idle-timeout) follow precedence like any value: set by a
# source below the one that chose another network, they are that source's
# plan for a proxy the higher one overrode, and are not applied; set at or
# above it, the caller asked for both, and the run is refused, naming the
# sources. Before, a settings file with `net proxy` and allow-host lines
# made every stricter run (--net none, --profile strict) fail with 125.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../config-lib.sh"

user_settings 'net proxy' 'allow-host pypi.org' 'deny-host *.evil.test' 'net-idle-timeout 1m'
kje exec $KJ_EXEC_ARGS --quiet --net none -- sh -c 'echo "${HTTPS_PROXY:-none}"'
is "$rc:$out" "0:none" flag_net_none_overrides_settings_proxy_rules
kje exec $KJ_EXEC_ARGS --quiet -- sh -c 'echo "$HTTPS_PROXY"'
is "$rc:$out" "0:http://127.0.0.1:3128" settings_proxy_rules_apply_without_override
user_profile quiet-none 'net none'
kje exec $KJ_EXEC_ARGS --quiet --profile quiet-none -- sh -c 'ip -o link | wc -l'
is "$rc:$out" "0:1" profile_net_none_overrides_settings_proxy_rules
KJAIL_PROFILE=quiet-none kje exec $KJ_EXEC_ARGS --quiet -- true
is "$rc" 0 kjail_profile_net_none_overrides_settings_proxy_rules

# Asked for at the same level or above: refused, with where each came from.
kje exec $KJ_EXEC_ARGS --quiet --net none --allow-host x.test -- true
like "$rc:$err" "^125:kjail: option: --allow-host applies only to --net proxy \(the network is none at all\) \(add --net proxy\)$" \
	flag_allow_host_with_flag_net_none_refused
# Flags are one source whatever their order (line order once decided).
kje exec $KJ_EXEC_ARGS --quiet --allow-host x.test --net none -- true
like "$rc:$err" "^125:kjail: option: --allow-host applies only to --net proxy" \
	flag_allow_host_before_flag_net_none_refused
kje exec $KJ_EXEC_ARGS --quiet --net-log /nonexistent/x --net host -- true
like "$rc:$err" "^125:kjail: option: --net-log applies only to --net proxy" \
	flag_net_log_before_flag_net_host_refused
user_settings 'net none'
kje exec $KJ_EXEC_ARGS --quiet --allow-host x.test -- true
like "$rc:$err" "^125:kjail: option: --allow-host applies only to --net proxy \(the network is none at all, from ~/\.config/kjail/settings:1\)" \
	flag_allow_host_over_settings_net_none_refused
user_settings 'net host' 'net-log /tmp/n.log'
kje exec $KJ_EXEC_ARGS --quiet -- true
like "$rc:$err" "^125:kjail: option: --net-log \(~/\.config/kjail/settings:2\) applies only to --net proxy \(the network is the host's, unfiltered, from ~/\.config/kjail/settings:1\)" \
	same_file_net_log_with_net_host_refused_naming_the_file

done_testing

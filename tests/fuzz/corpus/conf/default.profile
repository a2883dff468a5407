# default: the full sandbox of `kjail exec`, with the default limits
# (user, mount, pid, ipc, uts, net and cgroup namespaces; read-only root,
# writable workspace, a private 64M /tmp, seccomp, every capability dropped).
net none
isolation full
memory 512M
memory-swap 0
pids 256
cpus max
limits required
kill-grace 5s

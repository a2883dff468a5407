# ci: a CI job step: larger limits, a bigger /tmp, no output cap; the network is the caller's choice (--net host)
isolation full
memory 4G
memory-swap 0
pids 4096
cpus max
limits required
tmp-size 1G
kill-grace 10s

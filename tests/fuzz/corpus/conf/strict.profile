# strict: read-only workspace, no network, small limits
isolation full
workspace-ro
net none
memory 256M
memory-swap 0
pids 64
cpus 1
limits required
tmp-size 16M
kill-grace 2s

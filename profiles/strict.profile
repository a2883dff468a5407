# strict: read-only workspace, no network, small limits, the seccomp allow-list
isolation full
seccomp strict
landlock required
workspace-ro
net none
memory 256M
memory-swap 0
pids 64
cpus 1
limits required
tmp-size 16M
kill-grace 2s

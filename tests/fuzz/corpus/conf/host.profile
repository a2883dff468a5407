# host: no isolation at all, only inside an outer boundary (a container, a VM): scrubbed environment, new session, timeouts, output caps, limits where possible
isolation none
net host
memory 512M
pids 256
limits best-effort
kill-grace 5s

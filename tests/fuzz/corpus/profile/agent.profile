# agent: default, with an AI agent's tool call in mind: capped output, a timeout
include default
output-limit 200000
timeout 120s
kill-grace 5s

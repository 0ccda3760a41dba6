#!/bin/sh
# An agent in POSIX sh: curl asks the model and the tools, jq keeps the conversation.
set -eu
say() { printf '{"code": "%s", "reason": "%s"}\n' "$1" "$2"; exit 0; }
ask() { curl -sS "$@" -H 'content-type: application/json' -d @-; }
messages=$(jq -nc --arg task "$UNSOLVABLE_TASK" '[{role: "user", content: $task}]') seen=""
for _ in $(seq "$(echo "$UNSOLVABLE_BUDGET" | jq .max_steps)"); do
  message=$(echo "$messages" | jq -c --argjson tools "$UNSOLVABLE_TOOLS" \
    '{model: "any", messages: ., tools: $tools}' | ask "$OPENAI_BASE_URL/chat/completions" \
    -H "authorization: Bearer $OPENAI_API_KEY" | jq -c '.choices[0].message')
  call=$(echo "$message" | jq -c '.tool_calls[0] // empty')
  [ -n "$call" ] || say NEEDS_HUMAN "the model says it is done; not verified"
  name=$(echo "$call" | jq -r .function.name) key=$(echo "$call" | jq -c .function)
  result=$(echo "$call" | jq -r .function.arguments | ask "$UNSOLVABLE_TOOLS_URL/$name")
  case "$seen" in *"$key"*) say NO_PROGRESS "$name again, with the same arguments" ;; esac
  seen="$seen $key" messages=$(echo "$messages" | jq -c --argjson m "$message" --arg r "$result" \
    '. + [$m | .tool_calls |= .[:1], {role: "tool", tool_call_id: $m.tool_calls[0].id, content: $r}]')
done
say BUDGET_STEPS "out of steps"

// An agent on the OpenAI Agents SDK for TypeScript, configured only by its environment (the SDK's
// default client is `new OpenAI()`, which reads OPENAI_BASE_URL/OPENAI_API_KEY): an `Agent` whose
// tools' `execute` POSTs to UNSOLVABLE_TOOLS_URL/<name>, run by the SDK's own loop,
// `run(agent, task, { maxTurns })` with the budget's steps. Its model is the SDK's default, the
// Responses API (`responses`), or Chat Completions (`chat`, `setOpenAIAPI('chat_completions')`),
// whole or streamed (`stream` as the second argument). Its tracing, which exports to OpenAI's
// servers by default, is left as it is: the harness's environment turns it off. Its stop is the
// last stdout line, its own counts on stderr.
import {
  Agent,
  MaxTurnsExceededError,
  run,
  setOpenAIAPI,
  tool,
} from "@openai/agents";
import { BadRequestError } from "openai";

const [face = "responses", delivery = "whole"] = process.argv.slice(2);
if (face === "chat") setOpenAIAPI("chat_completions");
const budget = JSON.parse(process.env.UNSOLVABLE_BUDGET);
const own = { steps: 0, tool_calls: 0, tokens: 0 };
const results = [];
const seen = new Set();
let stopped = null;

const stop = (code, reason, more = {}) => ({ code, reason, ...more });

// What a tool answered, its volatile request id left out: the same answer twice is no news.
function observed(text) {
  try {
    const { request_id, ...rest } = JSON.parse(text);
    return JSON.stringify(rest);
  } catch {
    return text;
  }
}

// Each tool runs over HTTP; a refusal or the same call answered as before marks the run
// stopped, which the agent's `toolUseBehavior` reads after the tools of a turn have run.
async function callTool(name, input) {
  const response = await fetch(`${process.env.UNSOLVABLE_TOOLS_URL}/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  const text = await response.text();
  own.tool_calls += 1;
  results.push(text);
  if (response.status === 403) {
    const { error } = JSON.parse(text);
    const missing = [error.missing_permission ?? name];
    stopped ??= { code: "BLOCKED_INPUT", reason: error.message, missing };
  }
  const key = JSON.stringify([name, input, observed(text)]);
  if (seen.has(key)) stopped ??= { code: "NO_PROGRESS", reason: `${name} again, answered as before` };
  seen.add(key);
  return text;
}

// The scenario's tools, their JSON schemas as given: in strict mode, the default, the SDK makes
// each strict itself (every property required, an optional one nullable, no other allowed).
const tools = JSON.parse(process.env.UNSOLVABLE_TOOLS).map(({ function: f }) =>
  tool({
    name: f.name,
    description: f.description,
    parameters: f.parameters,
    execute: (input) => callTool(f.name, input),
  }),
);

const agent = new Agent({
  name: "researcher",
  instructions: "Use the tools to do the task; say what you found.",
  model: "gpt-5-mini",
  tools,
  // The run ends as soon as a tool marked it stopped, or the usage the SDK read spent the token
  // budget: the model is not asked again.
  toolUseBehavior: ({ usage }) => {
    const tokens = own.tokens + usage.inputTokens + usage.outputTokens;
    if (budget.max_tokens != null && tokens >= budget.max_tokens) {
      stopped ??= { code: "BUDGET_COST", reason: `${tokens} tokens spent of ${budget.max_tokens}` };
    }
    return stopped ? { isFinalOutput: true, finalOutput: stopped.reason } : { isFinalOutput: false };
  },
});

// The steps and tokens the SDK recorded in a run's context: one usage per model response it read.
// The context is the one its hooks are given, read at the run's end whatever ended it, since an
// error from the model carries no run state.
let context = null;
agent.on("agent_start", (runContext) => (context = runContext));
function count() {
  const { requests, inputTokens, outputTokens } = context.usage;
  own.steps += requests;
  own.tokens += inputTokens + outputTokens;
}

// The context-window refusal: the client's BadRequestError (400, not retried) with OpenAI's code.
const overflow = (error) => error instanceof BadRequestError && error.code === "context_length_exceeded";

// Compaction: every tool result cut to its first KEPT characters, once the model has refused the
// conversation. The SDK's `callModelInputFilter` sees each model call's input first: the last one
// is kept, to run again from it, compacted, after a refusal.
const KEPT = 400;
const cut = (text) => (text.length > KEPT ? `${text.slice(0, KEPT)} [cut]` : text);
function compact(items) {
  return items.map((item) => {
    if (item.type !== "function_call_result") return item;
    const { output } = item;
    if (typeof output === "string") return { ...item, output: cut(output) };
    return output?.type === "text" ? { ...item, output: { ...output, text: cut(output.text) } } : item;
  });
}
let sent = [];
let compacting = false;
function callModelInputFilter({ modelData }) {
  sent = modelData.input;
  return compacting ? { ...modelData, input: compact(modelData.input) } : modelData;
}

async function once(input, maxTurns) {
  const options = { maxTurns, callModelInputFilter };
  if (delivery !== "stream") return run(agent, input, options);
  const result = await run(agent, input, { ...options, stream: true });
  await result.completed;
  if (result.error) throw result.error;
  return result;
}

// The SDK's loop from the task on; the run ends as its loop decided, the process as Node does
// once nothing is left to do (no `process.exit`, which would also cut short anything the SDK
// still had to send).
async function main() {
  let input = process.env.UNSOLVABLE_TASK;
  for (;;) {
    let result;
    try {
      result = await once(input, budget.max_steps - own.steps);
    } catch (error) {
      count();
      if (error instanceof MaxTurnsExceededError) {
        return stop("BUDGET_STEPS", error.message, { partial: results });
      }
      if (!overflow(error)) throw error;
      own.steps += 1; // the refused request, whose usage no reply brought
      if (compacting) return stop("ERROR_FATAL", `still over the context window: ${error.message}`);
      input = sent;
      compacting = true;
      continue;
    }
    count();
    if (stopped) return stop(stopped.code, stopped.reason, { missing: stopped.missing, partial: results });
    return stop("COMPLETED", result.finalOutput);
  }
}

const exit = await main();
console.error(JSON.stringify(own));
console.log(JSON.stringify(exit));

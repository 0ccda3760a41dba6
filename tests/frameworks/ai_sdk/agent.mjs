// An agent on the Vercel AI SDK, configured only by its environment (the providers read
// OPENAI_BASE_URL/OPENAI_API_KEY and ANTHROPIC_BASE_URL/ANTHROPIC_API_KEY): the SDK's own loop,
// `generateText` (or `streamText` with `stream` as the second argument) with tools whose
// `execute` POSTs to UNSOLVABLE_TOOLS_URL/<name> and `stopWhen` from the budget. The model is the
// OpenAI provider's default (`responses`, the Responses API), `openai.chat` (`chat`, Chat
// Completions) or the Anthropic provider (`anthropic`, Messages). Its stop is the last stdout
// line, its own counts on stderr.
import { anthropic } from "@ai-sdk/anthropic";
import { openai } from "@ai-sdk/openai";
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";

const [face = "responses", delivery = "whole"] = process.argv.slice(2);
const model = {
  responses: () => openai("gpt-5-mini"),
  chat: () => openai.chat("gpt-5-mini"),
  anthropic: () => anthropic("claude-sonnet-4-5"),
}[face]();
const budget = JSON.parse(process.env.UNSOLVABLE_BUDGET);
const own = { steps: 0, tool_calls: 0, tokens: 0 };
const results = [];
const seen = new Set();
let stopped = null;

function stop(code, reason, more = {}) {
  console.error(JSON.stringify(own));
  console.log(JSON.stringify({ code, reason, ...more }));
  process.exit(0);
}

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
// stopped, which the loop's stop condition reads after the step.
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

const tools = Object.fromEntries(
  JSON.parse(process.env.UNSOLVABLE_TOOLS).map(({ function: f }) => [
    f.name,
    tool({
      description: f.description,
      inputSchema: jsonSchema(f.parameters),
      execute: (input) => callTool(f.name, input),
    }),
  ]),
);

const spent = () => budget.max_tokens != null && own.tokens >= budget.max_tokens;

// Compaction: every tool result cut to its first KEPT characters, once per run.
const KEPT = 400;
function compact(messages) {
  return messages.map((message) =>
    message.role !== "tool"
      ? message
      : {
          ...message,
          content: message.content.map((part) =>
            part.type === "tool-result" && part.output.value.length > KEPT
              ? { ...part, output: { type: "text", value: `${part.output.value.slice(0, KEPT)} [cut]` } }
              : part,
          ),
        },
  );
}

// The context-window refusal: an APICallError (400, not retried) whose body the provider parsed
// into `data`, OpenAI's with the code `context_length_exceeded`, Anthropic's saying so.
function overflow(error) {
  const body = APICallError.isInstance(error) ? error.data?.error : undefined;
  return body?.code === "context_length_exceeded" || /^prompt is too long/.test(body?.message);
}

// The SDK's loop from `messages` on, at most `steps` steps; each step the SDK records is counted
// with its usage as it ends, and the conversation each step sends is kept, to compact it if the
// model refuses it.
let sent = [];
async function loop(messages, steps) {
  const options = {
    model,
    tools,
    messages,
    stopWhen: [stepCountIs(steps), () => stopped !== null, spent],
    prepareStep: ({ messages: now }) => {
      sent = now;
      return {};
    },
    onStepFinish: ({ usage }) => {
      own.steps += 1;
      own.tokens += usage.inputTokens + usage.outputTokens;
    },
  };
  if (delivery !== "stream") return generateText(options);
  let failure = null;
  const result = streamText({ ...options, onError: ({ error }) => (failure ??= error) });
  await result.consumeStream();
  if (failure) throw failure;
  return result;
}

let messages = [{ role: "user", content: process.env.UNSOLVABLE_TASK }];
let compacted = false;
for (;;) {
  let result;
  try {
    result = await loop(messages, budget.max_steps - own.steps);
  } catch (error) {
    if (!overflow(error)) throw error;
    own.steps += 1; // the refused request, which the SDK records as no step
    if (compacted) stop("ERROR_FATAL", `still over the context window: ${error.message}`);
    messages = compact(sent);
    compacted = true;
    continue;
  }
  if (stopped) stop(stopped.code, stopped.reason, { missing: stopped.missing, partial: results });
  if (budget.max_tokens != null && own.tokens >= budget.max_tokens) {
    stop("BUDGET_COST", `${own.tokens} tokens spent of ${budget.max_tokens}`, { partial: results });
  }
  if ((await result.finishReason) === "tool-calls") {
    stop("BUDGET_STEPS", `stopped at step ${own.steps}`, { partial: results });
  }
  stop("COMPLETED", await result.text);
}

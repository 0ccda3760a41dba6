// An agent in Node on the official `openai` SDK, configured only by its environment
// (OPENAI_BASE_URL, OPENAI_API_KEY): the model asked with Chat Completions (`chat`, the default),
// the same streamed (`stream`) or the Responses API (`responses`); each tool call POSTed to
// UNSOLVABLE_TOOLS_URL/<name>; its stop the last stdout line, its own counts on stderr.
import OpenAI from "openai";

const mode = process.argv[2] ?? "chat";
const client = new OpenAI();
const tools = JSON.parse(process.env.UNSOLVABLE_TOOLS);
const budget = JSON.parse(process.env.UNSOLVABLE_BUDGET);
const own = { steps: 0, tool_calls: 0, tokens: 0 };
const MODEL = "gpt-5-mini";

function stop(code, reason, more = {}) {
  console.error(JSON.stringify(own));
  console.log(JSON.stringify({ code, reason, ...more }));
  process.exit(0);
}

async function callTool(name, args) {
  const url = `${process.env.UNSOLVABLE_TOOLS_URL}/${name}`;
  const headers = { "content-type": "application/json" };
  const response = await fetch(url, { method: "POST", headers, body: args || "{}" });
  own.tool_calls += 1;
  return { status: response.status, text: await response.text() };
}

// Each face asks the model with the conversation so far, appends the reply to it, and answers
// with the reply's text, its calls ({ id, name, args }) and the tokens it used.
async function askChat(messages) {
  const reply = await client.chat.completions.create({ model: MODEL, messages, tools });
  const message = reply.choices[0].message;
  messages.push(message);
  const calls = (message.tool_calls ?? []).map(({ id, function: f }) => ({
    id,
    name: f.name,
    args: f.arguments,
  }));
  return { text: message.content, calls, tokens: reply.usage.total_tokens };
}

async function askStreamed(messages) {
  const stream = await client.chat.completions.create({
    model: MODEL,
    messages,
    tools,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let tokens = 0;
  const calls = [];
  for await (const chunk of stream) {
    tokens = chunk.usage?.total_tokens ?? tokens;
    const delta = chunk.choices[0]?.delta ?? {};
    text += delta.content ?? "";
    for (const part of delta.tool_calls ?? []) {
      calls[part.index] ??= { id: part.id, name: "", args: "" };
      calls[part.index].name += part.function?.name ?? "";
      calls[part.index].args += part.function?.arguments ?? "";
    }
  }
  const toolCalls = calls.map(({ id, name, args }) => ({
    id,
    type: "function",
    function: { name, arguments: args },
  }));
  const message = { role: "assistant", content: text };
  messages.push(calls.length ? { ...message, tool_calls: toolCalls } : message);
  return { text, calls, tokens };
}

const functions = tools.map(({ function: f }) => ({ type: "function", strict: false, ...f }));

async function askResponses(items) {
  const reply = await client.responses.create({ model: MODEL, input: items, tools: functions });
  items.push(...reply.output);
  const calls = reply.output
    .filter((item) => item.type === "function_call")
    .map((item) => ({ id: item.call_id, name: item.name, args: item.arguments }));
  return { text: reply.output_text, calls, tokens: reply.usage.total_tokens };
}

function answer(conversation, call, text) {
  if (mode === "responses") {
    conversation.push({ type: "function_call_output", call_id: call.id, output: text });
  } else {
    conversation.push({ role: "tool", tool_call_id: call.id, content: text });
  }
}

// Compaction: every tool result cut to its first KEPT characters, once per run.
const KEPT = 400;
function compact(conversation) {
  for (const item of conversation) {
    for (const field of ["content", "output"]) {
      const text = item.role === "user" ? "" : item[field];
      if (typeof text === "string" && text.length > KEPT) {
        item[field] = `${text.slice(0, KEPT)} [cut]`;
      }
    }
  }
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

const ask = { chat: askChat, stream: askStreamed, responses: askResponses }[mode];
const conversation = [{ role: "user", content: process.env.UNSOLVABLE_TASK }];
const seen = new Set();
const results = [];
let compacted = false;
while (own.steps < budget.max_steps) {
  if (budget.max_tokens != null && own.tokens >= budget.max_tokens) {
    stop("BUDGET_COST", `${own.tokens} tokens spent of ${budget.max_tokens}`, { partial: results });
  }
  let reply;
  try {
    own.steps += 1;
    reply = await ask(conversation);
  } catch (error) {
    if (!(error instanceof OpenAI.BadRequestError) || error.code !== "context_length_exceeded") {
      throw error;
    }
    if (compacted) stop("ERROR_FATAL", `still over the context window: ${error.message}`);
    compact(conversation);
    compacted = true;
    continue;
  }
  own.tokens += reply.tokens;
  if (reply.calls.length === 0) stop("COMPLETED", reply.text ?? "");
  for (const call of reply.calls) {
    const { status, text } = await callTool(call.name, call.args);
    answer(conversation, call, text);
    results.push(text);
    if (status === 403) {
      const { error } = JSON.parse(text);
      stop("BLOCKED_INPUT", error.message, { missing: [error.missing_permission ?? call.name] });
    }
    const key = JSON.stringify([call.name, call.args, observed(text)]);
    if (seen.has(key)) stop("NO_PROGRESS", `${call.name} again, answered as before`);
    seen.add(key);
  }
}
stop("BUDGET_STEPS", "out of steps", { partial: results });

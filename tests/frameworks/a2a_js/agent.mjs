// An A2A agent in Node on the official JavaScript SDK (`@a2a-js/sdk`, its Express JSON-RPC
// server on 127.0.0.1, port 0), configured only by its environment: it asks the model with the
// `openai` SDK at OPENAI_BASE_URL and POSTs each tool call to UNSOLVABLE_TOOLS_URL/<name>. Its
// stop is the state its task rests in: `input-required` naming the permission a 403 asks for,
// `failed` with the code `NO_PROGRESS` in the status metadata when a call is answered as before,
// `completed` with the model's text as the task's artifact when the model calls nothing more.
// It serves A2A's JSON-RPC binding, or with `--rest` its HTTP+JSON one. It prints its URL as its
// first stdout line, and writes the steps, tool calls and tokens it counted itself as JSON to the
// file COUNTS as its task rests; told to cancel the task, it aborts the request under way and
// writes `canceled` to the file CANCELED.
//
//     node agent.mjs COUNTS CANCELED [--no-streaming] [--rest]
import { writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import express from "express";
import OpenAI from "openai";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import {
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
  UserBuilder,
} from "@a2a-js/sdk/server/express";

const [counts, canceled] = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const streaming = !process.argv.includes("--no-streaming");
const [binding, serve] = process.argv.includes("--rest")
  ? ["HTTP+JSON", restHandler]
  : ["JSONRPC", jsonRpcHandler];
const tools = JSON.parse(process.env.UNSOLVABLE_TOOLS);
const budget = JSON.parse(process.env.UNSOLVABLE_BUDGET);
const client = new OpenAI();
const MODEL = "gpt-5-mini";

function text(value) {
  return { content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "" };
}

function message(taskId, contextId, said) {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [text(said)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

// What a tool answered, its volatile request id left out: the same answer twice is no news.
function observed(answer) {
  try {
    const { request_id, ...rest } = JSON.parse(answer);
    return JSON.stringify(rest);
  } catch {
    return answer;
  }
}

// The agent's loop: the state its task rests in, what its status says, the code its metadata
// names and its answer (the model's last text).
async function work(task, own, signal) {
  const messages = [{ role: "user", content: task }];
  const seen = new Set();
  while (own.steps < budget.max_steps) {
    own.steps += 1;
    const asked = { model: MODEL, messages, tools };
    const reply = await client.chat.completions.create(asked, { signal });
    own.tokens += reply.usage.total_tokens;
    const said = reply.choices[0].message;
    messages.push(said);
    if (!said.tool_calls?.length) {
      return { state: TaskState.TASK_STATE_COMPLETED, answer: said.content ?? "" };
    }
    for (const call of said.tool_calls) {
      const { name, arguments: args } = call.function;
      const headers = { "content-type": "application/json" };
      const url = `${process.env.UNSOLVABLE_TOOLS_URL}/${name}`;
      const response = await fetch(url, { method: "POST", headers, body: args || "{}", signal });
      const answer = await response.text();
      own.tool_calls += 1;
      messages.push({ role: "tool", tool_call_id: call.id, content: answer });
      if (response.status === 403) {
        const { error } = JSON.parse(answer);
        const permission = error.missing_permission ?? name;
        const grant = `${name}: grant ${permission}`;
        return { state: TaskState.TASK_STATE_INPUT_REQUIRED, said: grant };
      }
      const key = JSON.stringify([name, args, observed(answer)]);
      if (seen.has(key)) {
        const said = `${name} again, answered as before`;
        return { state: TaskState.TASK_STATE_FAILED, said, code: "NO_PROGRESS" };
      }
      seen.add(key);
    }
  }
  return { state: TaskState.TASK_STATE_FAILED, said: "out of steps", code: "BUDGET_STEPS" };
}

function untilAborted(signal) {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener("abort", resolve, { once: true });
  });
}

class Executor {
  running = new Map();

  async execute(context, bus) {
    const { taskId, contextId } = context;
    const status = (state, said) => ({
      state,
      message: said ? message(taskId, contextId, said) : undefined,
      timestamp: new Date().toISOString(),
    });
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: status(TaskState.TASK_STATE_WORKING),
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    const task = context.userMessage.parts.map((part) => part.content?.value ?? "").join("");
    const own = { steps: 0, tool_calls: 0, tokens: 0 };
    const aborted = new AbortController();
    this.running.set(taskId, { aborted, contextId });
    let ended;
    try {
      ended = await work(task, own, aborted.signal);
    } catch (error) {
      if (error instanceof OpenAI.BadRequestError && error.type === "harness_ceiling") {
        // The harness refused the call at its ceiling and cancels the task next: the agent
        // waits for that cancel, as one busy elsewhere would, so its test sees it heard it.
        await untilAborted(aborted.signal);
      }
      if (aborted.signal.aborted) return; // canceled: cancelTask says so
      throw error;
    } finally {
      this.running.delete(taskId);
      writeFileSync(counts, JSON.stringify(own));
    }
    if (ended.answer !== undefined) {
      const artifact = {
        artifactId: randomUUID(),
        name: "answer",
        description: "",
        parts: [text(ended.answer)],
        metadata: undefined,
        extensions: [],
      };
      const update = { taskId, contextId, artifact, append: false, lastChunk: true };
      bus.publish(AgentEvent.artifactUpdate({ ...update, metadata: undefined }));
    }
    const metadata = ended.code ? { "unsolvable.code": ended.code } : undefined;
    const update = { taskId, contextId, status: status(ended.state, ended.said), metadata };
    bus.publish(AgentEvent.statusUpdate(update));
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    const { aborted, contextId } = this.running.get(taskId) ?? { contextId: "" };
    aborted?.abort();
    writeFileSync(canceled, "canceled");
    const state = TaskState.TASK_STATE_CANCELED;
    const status = { state, message: undefined, timestamp: new Date().toISOString() };
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status, metadata: undefined }));
    bus.finished();
  }
}

const app = express();
const server = app.listen(0, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: "a2a-js-test-agent",
    description: "An agent of the harness's tests, on the A2A JavaScript SDK",
    supportedInterfaces: [{ url, protocolBinding: binding, tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: "1",
    capabilities: { streaming, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "task",
        name: "task",
        description: "Does the task",
        tags: ["test"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new Executor());
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  const userBuilder = UserBuilder.noAuthentication;
  app.use("/", serve({ requestHandler: handler, userBuilder }));
  console.log(url);
});

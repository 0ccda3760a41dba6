// A handoff system on the OpenAI Agents SDK for TypeScript: a reviewer, which has the task first,
// and a producer, each holding the SDK's own handoff to the other (`transfer_to_producer`,
// `transfer_to_reviewer`, at their defaults), each on a client of its own at
// UNSOLVABLE_AGENTS_URL/<name>/v1 with its tools under UNSOLVABLE_AGENTS_URL/<name>/tools, one run
// of the SDK's loop with the budget's steps as `maxTurns`. Each handoff is told to the scenario's
// tool of its name from its `onHandoff`; the same handoff made again with no tool run since is a
// bounce, which stops the run. Its model is the Responses API (`responses`) or Chat Completions
// (`chat`). Its stop is the last stdout line, its own counts on stderr.
import OpenAI from "openai";
import {
  Agent,
  MaxTurnsExceededError,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  handoff,
  run,
  tool,
} from "@openai/agents";

const [face = "responses"] = process.argv.slice(2);
const AGENTS = process.env.UNSOLVABLE_AGENTS_URL;
const budget = JSON.parse(process.env.UNSOLVABLE_BUDGET);
const own = { steps: 0, tool_calls: 0, tokens: 0 };
let bounced = [];
let stopped = null;

async function post(agent, name, input) {
  const response = await fetch(`${AGENTS}/${agent}/tools/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  own.tool_calls += 1;
  return response.text();
}

function model(agent) {
  const client = new OpenAI({ baseURL: `${AGENTS}/${agent}/v1` });
  return face === "chat"
    ? new OpenAIChatCompletionsModel(client, "gpt-5-mini")
    : new OpenAIResponsesModel(client, "gpt-5-mini");
}

// The scenario's tools but its handoffs, which the SDK's own take the place of.
const specs = JSON.parse(process.env.UNSOLVABLE_TOOLS)
  .map(({ function: f }) => f)
  .filter((f) => !f.name.startsWith("transfer_to_"));
const tools = (agent) =>
  specs.map((f) =>
    tool({
      name: f.name,
      description: f.description,
      parameters: f.parameters,
        execute: (input) => {
        bounced = [];
        return post(agent, f.name, input);
      },
    }),
  );

// A handoff by `from` to `target`, told to the world as the scenario's tool of its name.
function to(target, from) {
  const made = handoff(target, {
    onHandoff: async () => {
      await post(from, made.toolName, {});
      if (bounced.includes(made.toolName)) {
        stopped = { code: "NO_PROGRESS", reason: `${made.toolName} again, nothing done since` };
        throw new Error(stopped.reason);
      }
      bounced.push(made.toolName);
    },
  });
  return made;
}

const reviewer = new Agent({ name: "reviewer", model: model("reviewer"), tools: tools("reviewer") });
const producer = new Agent({ name: "producer", model: model("producer"), tools: tools("producer") });
producer.handoffs = [to(reviewer, "producer")];
reviewer.handoffs = [to(producer, "reviewer")];

let context = null;
for (const agent of [reviewer, producer]) agent.on("agent_start", (c) => (context ??= c));

async function main() {
  try {
    const result = await run(reviewer, process.env.UNSOLVABLE_TASK, { maxTurns: budget.max_steps });
    return { code: "COMPLETED", reason: result.finalOutput };
  } catch (error) {
    if (stopped) return stopped;
    if (error instanceof MaxTurnsExceededError) return { code: "BUDGET_STEPS", reason: error.message };
    throw error;
  } finally {
    const { requests, inputTokens, outputTokens } = context.usage;
    Object.assign(own, { steps: requests, tokens: inputTokens + outputTokens });
  }
}

const exit = await main();
console.error(JSON.stringify(own));
console.log(JSON.stringify(exit));

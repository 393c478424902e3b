// One whole tool loop with the Vercel AI SDK against an OpenAI-compatible server (the proxy
// under test, in tests/serve/test_vercel_ai.py), on the SDK's default configuration.
//
//   node tool_loop.mjs BASE_URL responses|chat generateText|streamText
//
// `responses` is `createOpenAI({baseURL, apiKey})(model)`, the default (the Responses API);
// `chat` is `.chat(model)` (Chat Completions). The model may call `get_weather` (which the SDK
// executes) for up to 5 steps. Prints one JSON line: the tool executions (name and args), the
// final text, the last finish reason, the number of steps and the error, if the loop failed.

import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";

const [baseURL, api, call] = process.argv.slice(2);
const MODEL = "hermes"; // names the format the proxy writes and reads
const executions = [];

const tools = {
  get_weather: tool({
    description: "The weather in a city.",
    inputSchema: z.object({ city: z.string() }),
    execute: async (args) => {
      executions.push({ name: "get_weather", args });
      return `21 °C in ${args.city}`;
    },
  }),
};

const openai = createOpenAI({ baseURL, apiKey: "sk-test" });
const settings = {
  model: api === "chat" ? openai.chat(MODEL) : openai(MODEL),
  tools,
  prompt: "Weather in Paris?",
  stopWhen: stepCountIs(5),
  maxRetries: 0,
};

async function runGenerate() {
  const result = await generateText(settings);
  return { text: result.text, finishReason: result.finishReason, steps: result.steps.length };
}

async function runStream() {
  const errors = [];
  const result = streamText({ ...settings, onError: ({ error }) => errors.push(error) });
  for await (const part of result.fullStream) {
    if (part.type === "error") errors.push(part.error);
  }
  if (errors.length) throw errors[0];
  return { text: await result.text, finishReason: await result.finishReason,
           steps: (await result.steps).length };
}

let outcome;
try {
  outcome = { ...(await (call === "streamText" ? runStream() : runGenerate())), error: null };
} catch (error) {
  outcome = { text: null, finishReason: null, steps: null, error: String(error?.message ?? error) };
}
console.log(JSON.stringify({ executions, ...outcome }));

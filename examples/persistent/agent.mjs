// A persistent agent for `mode: persistent`: reads one JSON request per line on stdin,
// writes one JSON response line per request to stdout (logs go to stderr).
import { createInterface } from 'node:readline';

async function answer(request) {
  // Your agent's work goes here; the model, tools and caches stay loaded between cases.
  return { text: `You asked: ${request.question}` };
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  // AgentV measures each case from request line to response line (no duration_ms needed).
  const reply = await answer(request);
  process.stdout.write(`${JSON.stringify({ id: request.id, ...reply })}\n`);
}
// stdin closed (EOF): AgentV is done; returning here exits the process.

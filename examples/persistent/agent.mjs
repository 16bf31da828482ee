// A persistent agent for `mode: persistent`: reads one JSON request per line on stdin,
// writes one JSON response line per request to stdout (logs go to stderr).
import { createInterface } from 'node:readline';

// What each conversation's user said, by conversation id: kept in memory between its turns.
const conversations = new Map();

async function answer(request) {
  // Your agent's work goes here; the model, tools and caches stay loaded between cases.
  if (request.conversation_id === undefined) return { text: `You asked: ${request.question}` };
  // A turn of a conversation: `message` is what the user says now, `turn` counts from 1.
  const said = conversations.get(request.conversation_id) ?? [];
  said.splice(request.turn - 1); // a retried turn comes again with its number
  const earlier = said.join(' / ') || 'nothing';
  said.push(request.message);
  conversations.set(request.conversation_id, said);
  return { text: `You said: ${request.message} (before that: ${earlier})` };
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  // AgentV measures each case from request line to response line (no duration_ms needed).
  const reply = await answer(request);
  process.stdout.write(`${JSON.stringify({ id: request.id, ...reply })}\n`);
}
// stdin closed (EOF): AgentV is done; returning here exits the process.

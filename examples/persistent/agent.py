# A persistent agent for `mode: persistent`: reads one JSON request per line on stdin,
# writes one JSON response line per request to stdout (logs go to stderr).
import json
import sys

# What each conversation's user said, by conversation id: kept in memory between its turns.
conversations = {}


def answer(request):
    # Your agent's work goes here; the model, tools and caches stay loaded between cases.
    if "conversation_id" not in request:
        return {"text": f"You asked: {request['question']}"}
    # A turn of a conversation: "message" is what the user says now, "turn" counts from 1.
    said = conversations.setdefault(request["conversation_id"], [])
    del said[request["turn"] - 1 :]  # a retried turn comes again with its number
    earlier = " / ".join(said) or "nothing"
    said.append(request["message"])
    return {"text": f"You said: {request['message']} (before that: {earlier})"}


for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    # AgentV measures each case from request line to response line (no duration_ms needed).
    reply = answer(request)
    print(json.dumps({"id": request["id"], **reply}), flush=True)
# stdin closed (EOF): AgentV is done; returning here exits the process.

# A persistent agent for `mode: persistent`: reads one JSON request per line on stdin,
# writes one JSON response line per request to stdout (logs go to stderr).
import json
import sys


def answer(request):
    # Your agent's work goes here; the model, tools and caches stay loaded between cases.
    return {"text": f"You asked: {request['question']}"}


for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    # AgentV measures each case from request line to response line (no duration_ms needed).
    reply = answer(request)
    print(json.dumps({"id": request["id"], **reply}), flush=True)
# stdin closed (EOF): AgentV is done; returning here exits the process.

// A scripted customer playing the simulated user: AgentV asks it with the conversation
// so far in {PROMPT_FILE}; it replies with the JSON contract of the simulated user:
// {"message": "..."} to go on, or {"stop": "goal_reached" | "gave_up"}. Offline: no model.
import { readFileSync } from 'node:fs';

const question = readFileSync(process.argv[2], 'utf8');
const conversation = question.slice(question.indexOf('The conversation'));
const reply = (value) => console.log(JSON.stringify(value));

if (!conversation.includes('Assistant:')) reply({ message: 'Hi, I would like a refund please.' });
else if (/is refunded/.test(conversation)) reply({ stop: 'goal_reached' });
else if (/Shall I refund/.test(conversation.split('User:').at(-1)))
  reply({ message: 'Yes please.' });
else if (/order number/.test(conversation)) reply({ message: 'It is 90210.' });
else reply({ stop: 'gave_up' });

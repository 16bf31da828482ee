// A scripted support agent for `agentv eval`: it reads the conversation so far from
// {CONVERSATION_FILE} ({id, turn, messages}) and answers the last user message,
// remembering the order number across turns. Offline: no model is called.
import { readFileSync } from 'node:fs';

const { messages } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const said = messages
  .filter((message) => message.role === 'user')
  .map((message) => message.content);
const last = said.at(-1).toLowerCase();
const order = said.join(' ').match(/\b(\d{3,})\b/)?.[1];

if (/refund/.test(last) && order === undefined) {
  console.log('I can help with a refund. What is your order number?');
} else if (/\b\d{3,}\b/.test(last)) {
  console.log(
    `Thanks. Order ${order} was delivered 3 days ago, so it can be refunded. Shall I refund it to your card?`,
  );
} else if (/^(yes|yes please|ok|please do)/.test(last)) {
  console.log(`Done: order ${order} is refunded. The money reaches your card in 3 to 5 days.`);
} else if (/how long|when/.test(last)) {
  console.log(`The refund of order ${order ?? '(unknown)'} takes 3 to 5 business days.`);
} else if (/thank/.test(last)) {
  console.log('You are welcome. Anything else?');
} else {
  console.log('How can I help you today?');
}

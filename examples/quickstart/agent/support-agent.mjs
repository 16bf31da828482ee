#!/usr/bin/env node
// A tiny, offline customer-support "agent" for the quickstart. It answers from
// the prompt, pretends to call tools, and writes {text, trace} JSON to --out.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { prompt: { type: 'string' }, out: { type: 'string' } },
});
const prompt = values.prompt ?? '';

const orders = {
  42: { id: 42, item: 'wireless headphones', total: 59.9, status: 'delivered' },
  7: { id: 7, item: 'coffee grinder', total: 89.0, status: 'shipped', eta: 'Thursday' },
};

const trace = [];
const now = () => new Date().toISOString();
function callTool(name, input, run) {
  const id = `call_${trace.length + 1}`;
  trace.push({ type: 'tool_call', timestamp: now(), id, name, input });
  const output = run(input);
  trace.push({ type: 'tool_result', timestamp: now(), id, name, output });
  return output;
}
const lookupOrder = (id) => callTool('lookupOrder', { id }, ({ id }) => orders[id] ?? null);

trace.push({
  type: 'model_step',
  timestamp: now(),
  name: 'support-agent',
  text: 'reading the request',
});

const text = answer(prompt.toLowerCase());
trace.push({ type: 'message', timestamp: now(), text });
writeFileSync(values.out, JSON.stringify({ text, trace }, null, 2));

function answer(request) {
  const orderId = Number(
    /order\s*#?\s*(\d+)/.exec(request)?.[1] ?? /"id":\s*(\d+)/.exec(request)?.[1],
  );
  if (request.includes('refund') && orderId) {
    const order = lookupOrder(orderId);
    if (!order) return `I could not find order ${orderId}. Could you check the number?`;
    callTool('issueRefund', { id: orderId, amount: order.total }, () => ({ ok: true }));
    return `I've refunded $${order.total.toFixed(2)} for order ${orderId} (${order.item}). You'll see it within 5 business days.`;
  }
  if ((request.includes('where') || request.includes('status')) && orderId) {
    const order = lookupOrder(orderId);
    if (!order) return `I could not find order ${orderId}. Could you check the number?`;
    const eta = order.eta ? `, arriving ${order.eta}` : '';
    return `Order ${orderId} (${order.item}) is ${order.status}${eta}.`;
  }
  if (request.includes('hours') || request.includes('open')) {
    return 'We are open Monday to Friday, 9am to 5pm.';
  }
  // No subscription tools yet: the quickstart's deliberately failing case lands here.
  return 'Sorry, I can only help with orders and opening hours.';
}

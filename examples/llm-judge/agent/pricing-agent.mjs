#!/usr/bin/env node
// A tiny, offline pricing "agent" for the llm-judge example. It answers
// questions about three plans from a fixed price list and writes {text} JSON to
// --out. An LLM judge, not a string check, decides whether the answers are good.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { prompt: { type: 'string' }, out: { type: 'string' } },
});
const question = (values.prompt ?? '').toLowerCase();

const plans = {
  free: { price: 0, seats: 1 },
  pro: { price: 20, seats: 5 },
  team: { price: 99, seats: 25 },
};

function answer() {
  const named = Object.keys(plans).find((plan) => question.includes(plan));
  if (question.includes('cancel')) {
    return 'You can cancel any time from Settings > Billing. Your plan stays active until the end of the billing period.';
  }
  if (named) {
    const { price, seats } = plans[named];
    const cost = price === 0 ? 'free' : `$${price} per month`;
    return `The ${named[0].toUpperCase()}${named.slice(1)} plan is ${cost} and includes ${seats} seat${seats === 1 ? '' : 's'}.`;
  }
  // Deliberately vague: the judge should mark this answer down.
  return 'We have several plans. Please check our website.';
}

writeFileSync(values.out, JSON.stringify({ text: answer() }));

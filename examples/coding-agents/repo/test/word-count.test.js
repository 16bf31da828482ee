import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wordCount } from '../src/word-count.js';

test('wordCount counts words between any whitespace', () => {
  assert.equal(wordCount('  one two\tthree\nfour  '), 4);
  assert.equal(wordCount(''), 0);
});

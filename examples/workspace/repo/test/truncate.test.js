import assert from 'node:assert/strict';
import { test } from 'node:test';
import { truncate } from '../src/truncate.js';

test('truncate keeps at most max characters, the ellipsis included', () => {
  assert.equal(truncate('abcdefgh', 5), 'abcd…');
  assert.equal(truncate('abc', 5), 'abc');
});
